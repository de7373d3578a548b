// The settlement in the shape of the seeds' 番底 table: one row per player with each factor, the
// multiplier M, base × M(loser) × M(winner) before the caps, after the caps, the contract and the
// points; then the revealed seed, checked against the commitment here, and how to verify it.

import { escapeLine } from "./escape.js";
import { fairnessProofHtml } from "./fairness.js";
import { getLang, t, tn } from "./i18n.js";
import { parseTiles, sortTiles, tileName, tileSvg } from "./tiles.js";
import { esc, num, seatName } from "./util.js";
import { anyCounted, named, wordsOf } from "./words.js";

/** A factor of a seat's multiplier: "开口(2) ×4" (its name in the server's words). */
export function factorText(f, game = null) {
  let name = named("factors", f.name, game);
  // some factors show their count even once (the game's words, `counted`: 开口(1))
  const counted = game != null ? wordsOf(game).counted || [] : anyCounted();
  if (f.count > 1 || counted.includes(f.name)) name += `(${f.count})`;
  return `${name} ×${num(f.factor)}`;
}

export function multiplierHtml(m, game = null) {
  if (!m) return "";
  if (!m.factors.length) return `<span class="factor">${t("no_factors")}</span> → M 1`;
  return m.factors.map((f) => `<span class="factor">${esc(factorText(f, game))}</span>`).join(" · ") + ` → <b>M ${num(m.total)}</b>`;
}

async function sha256Hex(hex) {
  if (!globalThis.crypto || !crypto.subtle) return null;
  const bytes = new Uint8Array(hex.match(/../g).map((h) => parseInt(h, 16)));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Fill `el` with the settlement of a hand's `end` event. */
export function renderSettlement(el, { end, room, dealer, commitment, hand, code, mySeat, replayLink = true, model = null, win = null }) {
  const names = (s) => seatName(room, s, mySeat);
  // Exact shares (400/3) where the decimals are not exact; num() shows either as a fraction.
  const payments = end.payments_exact || end.payments;
  win = win || (model && model.last) || null;
  let head = "";
  let table = "";
  const s = end.settlement;
  if (end.reason === "drawn") {
    const kongs = end.drawn_kongs_paid || (end.kong_payments && end.kong_payments.some((x) => Number(x) !== 0));
    head = `<p class="verdict">${t("drawn_hand")}</p>` + (kongs ? `<p class="kong-line" data-kong-line>${t("drawn_kongs")}</p>` : `<p class="muted">${t("drawn_nobody")}</p>`);
  }
  else if (end.reason === "abandon") head = `<p class="verdict" data-escape>${esc(escapeLine(end, names))}</p>`;
  // The game (the room's, else the settlement's preset) says how its settlement is laid out.
  const game = (room && room.rules && room.rules.game) || (s && s.rules) || (model && model.game) || null;
  const layout = s ? LAYOUTS[wordsOf(game).settlement] : null;
  if (end.reason === "win" && s && layout) {
    const wins = s.wins.map((x) => named("wins", x, game)).join(" + ");
    const shown = layout({ s, end, names, dealer, payments, game });
    head = `<p class="verdict">${t("win_by", esc(names(end.winner)))} · ${howHtml(end, win, names, s, game)} · <b>${esc(wins)}</b>${shown.head}</p>`;
    table = shown.table;
  } else {
    if (end.reason === "win" && (s || end.wins)) { // an events log's end carries only the wins
      const wins = (s ? s.wins : end.wins).map((x) => named("wins", x, game)).join(" + ");
      head = `<p class="verdict">${t("win_by", esc(names(end.winner)))} · ${howHtml(end, win, names, s, game)} · <b>${esc(wins)}</b></p>`;
    }
    const kongs = end.kong_payments && end.kong_payments.some((x) => Number(x) !== 0);
    const rows = [0, 1, 2, 3].map((seat) => `<tr data-seat="${seat}"><th>${esc(names(seat))}</th>` +
      (kongs ? `<td class="kongs">${num(end.kong_payments[seat])}</td>` : "") +
      `<td class="points ${sign(payments[seat]) > 0 ? "plus" : sign(payments[seat]) < 0 ? "minus" : ""}">${num(payments[seat])}</td></tr>`);
    table = `<table class="settle"><thead><tr><th>${t("player")}</th>${kongs ? `<th>${t("kongs")}</th>` : ""}<th>${t("final")}</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  }
  const laizi = end.laizi || (s && s.laizi) || (model && model.laizi) || null;
  const mustGang = (s && s.must_gang) || (model && model.must_gang) || [];
  // The end event's own melds and laid-out tiles (minor 2), else the table's model.
  const players = end.melds
    ? end.melds.map((melds, seat) => ({ melds, laid_out: end.laid_out ? end.laid_out[seat] : [] }))
    : model && model.players ? model.players : null;
  const hands = (end.hands || []).map((h, seat) => revealHtml({
    seat, concealed: h, name: names(seat), player: players ? players[seat] : null, laizi, mustGang,
    winner: end.winner === seat, winTile: end.winner === seat && win ? win.tile : null,
    dealer: seat === dealer,
  })).join("");
  const record = `/api/rooms/${code}/hands/${hand}`;
  // a room's hand links its record; a file's (code null, the record viewer) names the command
  const check = code == null
    ? `<div>${t("file_verify")} <code>laizi verify FILE</code></div>`
    : `<div>${t("verify_hint")} <code>curl -s ${esc(location.origin + record)} | laizi verify -</code> · <a href="${record}" download>${t("download_record")}</a></div>`;
  const seed = end.seed
    ? `<div class="seed"><div>${t("commitment")}: <code>${esc(commitment || "—")}</code></div><div>${t("seed")}: <code class="seed-hex">${esc(end.seed)}</code></div>` +
      `<div class="seed-check" data-state="pending">…</div>${check}</div>`
    : "";
  // the replay stays in sight; the proof is folded (fairness.js)
  const replay = replayLink && end.seed ? `<p class="replay-line"><a href="/replay/${code}/${hand}" class="replay-link">${t("replay")}</a></p>` : "";
  const proof = fairnessProofHtml(seed, s && s.rules, s && s.rules_hash);
  el.innerHTML = `<h2>${t("settlement")} — ${t("hand_no", hand + 1)}</h2>${head}${table}<div class="reveals">${hands}</div>${replay}${proof}`;
  if (end.seed && commitment) {
    sha256Hex(end.seed).then((digest) => {
      const box = el.querySelector(".seed-check");
      if (!box) return;
      if (digest == null) { box.textContent = ""; return; }
      const ok = digest === commitment;
      box.dataset.state = ok ? "ok" : "bad";
      box.textContent = ok ? t("seed_ok") : t("seed_bad");
    });
  }
}

/** A game whose seats multiply (the server's words: settlement "multipliers", RULES.md A7):
 * each seat's factors and M, base × M(loser) × M(winner) before and after the caps, the contract. */
function multipliersLayout({ s, end, names, dealer, payments, game }) {
  const w = end.winner;
  const head = ` · ${s.hard ? t("hard") : t("soft")} · ${t("base")} ${num(s.base)}` +
    ` · ${t("laizi")} ${s.laizi ? tileSvg(s.laizi) : "—"}`;
  const mw = s.multipliers[w].total;
  const rows = [0, 1, 2, 3].map((seat) => {
    const m = s.multipliers[seat];
    const isWinner = seat === w;
    const raw = s.raw[seat];
    const cap = s.caps[seat];
    const before = isWinner ? "" : `${num(s.base)} × ${num(m.total)} × ${num(mw)} = <b>${num(raw)}</b>`;
    const after = isWinner ? "" : cap ? `${named("caps", cap, game)} → <b>${num(s.after_caps[seat])}</b>` : num(s.after_caps[seat]);
    let contract = "";
    if (s.contract != null && seat === s.contract) contract = named("contracts", s.contract_reason, game);
    const pts = payments[seat];
    const contractCell = s.contract != null ? `<td>${contract}</td>` : "";
    return `<tr class="${isWinner ? "winner" : ""}" data-seat="${seat}">` +
      `<th>${esc(names(seat))}<br><small>${isWinner ? t("winner") : t("loser")}${seat === dealer ? " · " + t("dealer") : ""}</small></th>` +
      `<td class="factors">${multiplierHtml(m, game)}</td><td>${before}</td><td>${after}</td>${contractCell}` +
      `<td class="points ${signClass(pts)}">${sign(pts) > 0 ? "+" : ""}${num(pts)}</td></tr>`;
  });
  let table = `<table class="settle"><thead><tr><th>${t("player")}</th><th>${t("factors")}</th><th>${t("before_caps")}</th>` +
    `<th>${t("after_caps")}</th>${s.contract != null ? `<th>${t("contract")}</th>` : ""}<th>${t("final")}</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  if (s.contract != null) table += `<p class="contract">${t("contract")}: ${esc(named("contracts", s.contract_reason, game))} — ${t("contract_pays", esc(names(s.contract)), num(payments[w]))}</p>`;
  else table += `<p class="contract muted">${t("contract")}: ${t("none")}</p>`;
  return { head, table };
}

/** A game of fans (the server's words: settlement "fans", RULES.md B): per loser
 * base × 2^(winner's fans + its fans), capped; kongs paid apart. */
function fansLayout({ s, end, names, dealer, game }) {
  const w = end.winner;
  const fw = s.fans[w].total;
  const rows = [0, 1, 2, 3].map((seat) => {
    const f = s.fans[seat];
    const list = f.fans.length
      ? f.fans.map((x) => `<span class="factor">${esc(named("fans", x.name, game))} +${x.fans}</span>`).join(" · ") + ` → <b>${tn("fans_total", f.total)}</b>`
      : `<span class="factor">${t("fans_total", 0)}</span>`;
    const isWinner = seat === w;
    const before = isWinner ? "" : `${num(s.base)} × 2^(${fw}+${f.total}) = <b>${num(s.raw[seat])}</b>`;
    const paid = -s.win_payments[seat];
    const after = isWinner ? "" : s.caps[seat] ? `${named("caps", s.caps[seat], game)} → <b>${num(paid)}</b>` : num(paid);
    const pts = (end.payments_exact || s.payments)[seat];
    return `<tr class="${isWinner ? "winner" : ""}" data-seat="${seat}"><th>${esc(names(seat))}<br><small>${isWinner ? t("winner") : t("loser")}${seat === dealer ? " · " + t("dealer") : ""}</small></th>` +
      `<td class="factors">${list}</td><td>${before}</td><td>${after}</td><td>${num(s.kong_payments[seat])}</td>` +
      `<td class="points ${signClass(pts)}">${sign(pts) > 0 ? "+" : ""}${num(pts)}</td></tr>`;
  });
  const table = `<table class="settle"><thead><tr><th>${t("player")}</th><th>${t("fans")}</th><th>${t("before_caps")}</th>` +
    `<th>${t("after_caps")}</th><th>${t("kongs")}</th><th>${t("final")}</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  return { head: ` · ${t("base")} ${num(s.base)}`, table };
}

/** The settlement tables by the layout a game's words name. */
const LAYOUTS = { multipliers: multipliersLayout, fans: fansLayout };

function signClass(x) {
  return sign(x) > 0 ? "plus" : sign(x) < 0 ? "minus" : "";
}

/** The sign of a point amount sent as a number or as exact text ("-400/3"). */
function sign(x) {
  const v = typeof x === "string" ? Number(x.split("/")[0]) : Number(x);
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

const HOW = {
  self_draw: "how_self_drawn", self_drawn: "how_self_drawn", kong_bloom: "how_kong_bloom", last_tile: "how_last_tile",
};

/** How the hand was won and on which tile: "自摸 · 胡 五万", "点炮（B 放冲）", "抢杠（抢 C 的杠）". */
function howHtml(end, win, names, s, game) {
  const how = end.how || (win && win.how) || null;
  const tile = end.tile || (win && win.tile) || null;
  const from = end.from ?? (win ? win.from : null);
  const parts = [];
  if (how === "discard") parts.push(t("how_discard_by", esc(names(from))));
  else if (how === "rob_kong" || how === "robbed_kong") parts.push(t("how_robbed_by", esc(names(from))));
  else if (HOW[how]) parts.push(t(HOW[how]));
  // A win that says how it was won (the server's words, `how`: 杠上花, 海底捞) marks it too.
  const told = new Set(((s && s.wins) || []).map((x) => (wordsOf(game).how || {})[x]));
  if ((end.kong_bloom || told.has("kong_bloom")) && how !== "kong_bloom") parts.push(t("how_kong_bloom"));
  if ((end.last_tile || told.has("last_tile")) && how !== "last_tile") parts.push(t("how_last_tile"));
  if (tile) parts.push(`${t("on_tile", esc(tileName(tile, getLang())))} ${tileSvg(tile, { marks: ["win"], title: tileName(tile, getLang()) })}`);
  return `<span class="how" data-how="${esc(how || "")}" data-win-tile="${esc(tile || "")}">${parts.join(" · ")}</span>`;
}

/** One seat's revealed hand: concealed tiles (laizi marked), its melds and laid-out tiles, and
 * for the winner the winning tile set apart and highlighted. */
function revealHtml({ seat, concealed, name, player, laizi, mustGang, winner, winTile, dealer }) {
  const mark = (x, extra = []) => {
    const marks = [...extra];
    if (x === laizi) marks.push("laizi");
    else if (mustGang.includes(x)) marks.push("gang");
    return tileSvg(x, { marks, title: tileName(x, getLang()) });
  };
  const tiles = sortTiles(parseTiles(concealed));
  let winning = "";
  if (winTile) {
    // A self-drawn tile is among the concealed ones (3n+2 tiles); a discard or a robbed kong's
    // tile is not: it is only set apart.
    const i = tiles.length % 3 === 2 ? tiles.lastIndexOf(winTile) : -1;
    if (i >= 0) tiles.splice(i, 1);
    winning = `<span class="win-tile" data-win-tile="${winTile}">${mark(winTile, ["win"])}</span>`;
  }
  const melds = player ? player.melds.map((meld) => `<span class="meld" data-kind="${meld.kind}">${meld.tiles ? parseTiles(meld.tiles).map((x) => mark(x)).join("") : tileSvg(null, { marks: ["back"] }).repeat(4)}</span>`).join("") : "";
  const laid = player && player.laid_out.length ? `<span class="laid">${player.laid_out.map((x) => mark(x)).join("")}</span>` : "";
  return `<div class="reveal ${winner ? "winner" : ""}" data-seat="${seat}"><span class="who">${esc(name)}${winner ? ` <b>${t("winner")}</b>` : ""}${dealer ? ` · ${t("dealer")}` : ""}</span>` +
    `<span class="tiles">${tiles.map((x) => mark(x)).join("")}${winning}${melds ? `<span class="melds">${melds}</span>` : ""}${laid}</span></div>`;
}
