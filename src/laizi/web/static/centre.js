// The centre of the table: the special tiles (翻牌, 癞子, 皮, 必杠), the wall, the open discard,
// the arrow to the seat to act, the status line and the clock.

import { t } from "./i18n.js";
import { statusText } from "./actions.js";
import { tileSvg } from "./tiles.js";
import { esc } from "./util.js";

export const POSITIONS = ["bottom", "right", "top", "left"]; // the next seat in play order sits to the right

export function centreHtml(page) {
  const m = page.model;
  const special = (label, tiles) => `<div class="special"><span>${t(label)}</span><div>${tiles.map((x) => page.tile(x)).join("")}</div></div>`;
  const pi = m.pi && m.pi.length ? special("pi", m.pi) : "";
  const gang = m.must_gang && m.must_gang.length ? special("must_gang", m.must_gang) : "";
  const indicator = m.indicator ? `<div class="special"><span>${t("indicator")}</span>${tileSvg(m.indicator)}</div><div class="special laizi-box"><span>${t("laizi")}</span>${page.tile(m.laizi)}</div>` : "";
  const open = m.claim && (m.phase === "claim" || m.phase === "rob")
    ? `<div class="open-discard" data-open="${m.claim.tile}"><span>${esc(m.phase === "rob" ? t("rob_window", page.name(m.claim.from), "") : t("discarded_by", page.name(m.claim.from)))}</span>${page.tile(m.claim.tile, ["open"])}</div>`
    : "";
  const turnSeat = m.to_act && m.to_act.length ? m.to_act[0] : null;
  const arrow = turnSeat != null && m.phase !== "over" ? `<div class="turn-arrow arrow-${POSITIONS[(turnSeat - (page.seat ?? 0) + 4) % 4]}" aria-hidden="true"></div>` : "";
  return `<div class="centre">${arrow}<div class="specials">${indicator}${pi}${gang}</div>` +
    `<div class="wall"><span>${t("tiles_left")}</span> <b data-tiles-left>${m.tiles_left}</b> <small>(${t("live_left")} ${m.live})</small></div>` +
    `${open}<div class="status" data-status>${statusText(page)}</div><div class="timer" aria-live="off"></div></div>`;
}
