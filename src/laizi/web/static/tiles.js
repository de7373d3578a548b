// Tiles in RULES.md notation ("5m", "7z") and their SVG faces, drawn here (no image files).

const SUITS = "mpsz";
const HONORS = ["东", "南", "西", "北", "白", "发", "中"];
const HONORS_EN = ["East", "South", "West", "North", "White", "Green", "Red"];
const NUMERALS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const SUIT_TEXT = { m: "万", p: "筒", s: "条" };
const SUIT_EN = { m: "characters", p: "dots", s: "bamboo" };
const SUIT_EN_ONE = { m: "character", p: "dot", s: "bamboo" }; // "1 dot", not "1 dots"
const SUIT_COLOR = { m: "#b3261e", p: "#1d4f91", s: "#1b6e35" };

/** "244569m16p" → ["2m", "4m", "4m", "5m", "6m", "9m", "1p", "6p"]; "" or null → []. */
export function parseTiles(text) {
  const out = [];
  let digits = [];
  for (const ch of text || "") {
    if (ch >= "0" && ch <= "9") digits.push(ch);
    else if (SUITS.includes(ch)) {
      for (const d of digits) out.push(d + ch);
      digits = [];
    }
  }
  return out;
}

/** The tile id 0–33 of "5m" (the engine's order: m, p, s, then 东南西北白发中). */
export function tileId(tile) {
  return SUITS.indexOf(tile[1]) * 9 + Number(tile[0]) - 1;
}

export function sortTiles(tiles) {
  return [...tiles].sort((a, b) => tileId(a) - tileId(b));
}

/** A tile's name for people: "五万" / "5 characters", "中" / "Red". */
export function tileName(tile, lang) {
  const n = Number(tile[0]);
  if (tile[1] === "z") return lang === "zh" ? HONORS[n - 1] : HONORS_EN[n - 1];
  return lang === "zh" ? NUMERALS[n - 1] + SUIT_TEXT[tile[1]] : `${n} ${(n === 1 ? SUIT_EN_ONE : SUIT_EN)[tile[1]]}`;
}

function face(tile) {
  const n = Number(tile[0]);
  const suit = tile[1];
  if (suit === "z") {
    if (n === 5) return '<rect x="11" y="14" width="26" height="36" rx="3" fill="none" stroke="#1d4f91" stroke-width="3"/>';
    const color = n === 6 ? "#1b6e35" : n === 7 ? "#b3261e" : "#222";
    return `<text x="24" y="43" font-size="30" text-anchor="middle" fill="${color}" font-weight="700">${HONORS[n - 1]}</text>`;
  }
  const color = SUIT_COLOR[suit];
  return (
    `<text x="24" y="29" font-size="22" text-anchor="middle" fill="#222" font-weight="700">${suit === "m" ? NUMERALS[n - 1] : n}</text>` +
    `<text x="24" y="54" font-size="20" text-anchor="middle" fill="${color}" font-weight="700">${SUIT_TEXT[suit]}</text>`
  );
}

/** One tile as an inline SVG element string. `marks`: "laizi", "gang", "drawn", "back". */
export function tileSvg(tile, { marks = [], title = "" } = {}) {
  const cls = ["tile", ...marks.map((m) => `tile-${m}`)].join(" ");
  if (!tile || marks.includes("back")) {
    return `<svg class="${cls} tile-back" viewBox="0 0 48 64" aria-label="?"><rect x="1" y="1" width="46" height="62" rx="6" fill="#2f7d5b" stroke="#1d4d38" stroke-width="2"/></svg>`;
  }
  let badge = "";
  if (marks.includes("laizi")) badge = '<circle cx="40" cy="9" r="7" fill="#e0a100"/><text x="40" y="13" font-size="10" text-anchor="middle" fill="#fff" font-weight="700">癞</text>';
  else if (marks.includes("gang")) badge = '<circle cx="40" cy="9" r="7" fill="#b3261e"/><text x="40" y="13" font-size="10" text-anchor="middle" fill="#fff" font-weight="700">杠</text>';
  if (marks.includes("moqie")) badge += '<path d="M2 62 L2 47 L17 62 Z" fill="#1d4f91"/>';
  const label = title || tile;
  return (
    `<svg class="${cls}" viewBox="0 0 48 64" data-tile="${tile}" role="img" aria-label="${label}"><title>${label}</title>` +
    `<rect x="1" y="1" width="46" height="62" rx="6" fill="#fbf8ef" stroke="#9a9382" stroke-width="2"/>` +
    face(tile) +
    badge +
    "</svg>"
  );
}
