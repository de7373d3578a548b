// A seat's melds as on a real table: the claimed tile lies turned, on the side of the seat it came
// from — the seat before (上家, on one's left) the first tile, the seat across (对家) the middle,
// the seat after (下家, on one's right) the last; a concealed kong shows face down.

import { t } from "./i18n.js";
import { parseTiles, tileSvg } from "./tiles.js";
import { esc } from "./util.js";

/** Where the claimed tile lies in a meld of `size` tiles owned by `owner`, claimed from `from`:
 * its index, or -1 (a concealed kong: nothing was claimed). */
export function turnedIndex(size, owner, from) {
  if (from == null || from === owner) return -1;
  const side = (from - owner + 4) % 4; // 1 the next seat (right), 2 across, 3 the seat before (left)
  if (side === 3) return 0;
  if (side === 2) return 1;
  return size - 1;
}

/** The meld's tiles in the order shown, each `{tile, turned}`: the claimed tile (`claimed`, when
 * known; a pung's or kong's are all alike) moved to its place and turned. */
export function meldLayout(meld, owner, claimed = null) {
  const tiles = meld.tiles ? parseTiles(meld.tiles) : [];
  const at = turnedIndex(tiles.length, owner, meld.from);
  if (!tiles.length || at < 0) return tiles.map((tile) => ({ tile, turned: false }));
  const rest = [...tiles];
  let i = claimed ? rest.indexOf(claimed) : -1;
  if (i < 0) i = meld.kind === "chow" ? 0 : rest.length - 1;
  const [taken] = rest.splice(i, 1);
  rest.splice(at, 0, taken);
  return rest.map((tile, k) => ({ tile, turned: k === at }));
}

/** A meld's HTML: its tiles (the claimed one turned), titled with whom it came from. */
export function meldHtml(page, meld, owner, claimed = null) {
  if (!meld.tiles) return `<span class="meld" data-kind="${meld.kind}">${tileSvg(null, { marks: ["back"] }).repeat(4)}</span>`;
  const from = meld.from != null && meld.from !== owner ? meld.from : null;
  const title = from != null ? ` title="${esc(t("meld_from", page.name(from)))}" data-from="${from}"` : "";
  const tiles = meldLayout(meld, owner, claimed)
    .map((x) => (x.turned ? `<span class="turned" data-turned="${x.tile}">${page.tile(x.tile)}</span>` : page.tile(x.tile)))
    .join("");
  return `<span class="meld" data-kind="${meld.kind}"${title}>${tiles}</span>`;
}
