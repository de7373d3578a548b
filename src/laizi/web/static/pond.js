// A seat's discards in front of it: rows of six in order, claimed tiles faded, 摸切 (played
// straight from the draw) marked, the open discard and the one just made picked out.

import { getLang, t } from "./i18n.js";
import { tileName, tileSvg } from "./tiles.js";

export function pondHtml(page, seat, pos) {
  const m = page.model;
  const p = m.players[seat];
  const claimed = new Set(p.claimed);
  const moqie = page.moqie.get(seat) || new Set();
  // The last discard of the table stays marked until the next one (or until it is claimed: its
  // meld shows it then, turned); after a reload, the open discard of a claim window.
  const open = m.claim && m.claim.from === seat && m.phase === "claim" ? p.discards.length - 1 : -1;
  const lastDiscard = page.lastDiscard ? (page.lastDiscard.seat === seat ? page.lastDiscard.index : -1) : open;
  const river = p.discards.map((x, i) => {
    const marks = [];
    if (claimed.has(i)) marks.push("claimed");
    if (moqie.has(i)) marks.push("moqie");
    if (i === lastDiscard && !claimed.has(i)) marks.push("last");
    if (page.fresh.has(`${seat}:${i}`)) marks.push("new");
    const title = `${tileName(x, getLang())}${moqie.has(i) ? ` · ${t("moqie")}` : ""}${claimed.has(i) ? ` · ${t("claimed_mark")}` : ""}`;
    return tileSvg(x, { marks: [...page.tileMarks(x), ...marks], title });
  }).join("");
  return `<div class="pond pond-${pos} river" data-pond="${seat}">${river}</div>`;
}
