// The ready hints under the hand (the server's `hints`, docs/protocol.md minor 2): what each
// discard leaves waiting on, with what a win would collect or why the rules refuse it, the
// 13-tile waits, and the line for a tile that completes the shape but may not win.

import { getLang, pick, t } from "./i18n.js";
import { tileName } from "./tiles.js";
import { esc, num } from "./util.js";
import { named } from "./words.js";

/** A refusal reason from the server (an id, or {code, zh, en}) in the reader's language: the
 * server's words for the id. */
export function reasonText(reason, game = null) {
  if (!reason) return "";
  if (typeof reason === "object" && reason.zh && reason.en) return pick([reason.zh, reason.en]);
  const code = typeof reason === "string" ? reason : reason.code;
  const text = named("reasons", code, game);
  return text === code ? t("reason_other") : text;
}

/** The waits (WAIT objects) the discard of `tile` leaves, from the seat's `hints`. */
export function waitsFor(hints, tile) {
  if (!hints || !tile || !hints.discards) return null;
  const d = hints.discards.find((x) => x.tile === tile);
  return d ? d.waits : null;
}

/** The waits as a row of tiles, each with the copies left and what it scores or why not. */
export function waitsHtml(page, waits) {
  const lang = getLang();
  const game = page.game();
  return waits.map((w) => {
    const pts = w.allowed === false
      ? `<span class="no">${t("not_allowed")}: ${esc(reasonText(w.reason, game))}</span>`
      : [w.self_drawn != null ? `<span class="pts">${t("self_drawn_pts", num(w.self_drawn))}</span>` : "",
        w.on_discard != null ? `<span class="pts">${t("on_discard_pts", num(w.on_discard))}</span>` : ""].join("") ||
        (w.reason ? `<span class="no">${esc(reasonText(w.reason, game))}</span>` : "");
    return `<span class="wait ${w.allowed === false ? "refused" : ""}" data-wait="${w.tile}" data-left="${w.left}"` +
      ` data-self-drawn="${w.self_drawn ?? ""}" data-on-discard="${w.on_discard ?? ""}">${page.tile(w.tile)}` +
      `<span class="wait-text"><b>${tileName(w.tile, lang)}</b> <span class="left">${t("left_n", w.left)}</span>${pts}</span></span>`;
  }).join("");
}

/** The strip of the hand's own waits, the no-win line, and the (empty) panel of a discard's. */
export function hintsHtml(page) {
  if (page.seat == null) return "";
  const h = page.hints;
  const strip = h && h.waits && h.waits.length && !(h.discards && h.discards.length)
    ? `<div class="wait-strip" data-strip><span class="label">${t("waits_now")}</span>${waitsHtml(page, h.waits)}</div>` : "";
  const noWin = h && h.no_win
    ? `<div class="no-win" data-no-win="${h.no_win.tile}">${t("no_win_line", tileName(h.no_win.tile, getLang()), esc(reasonText(h.no_win.reason, page.game())))}</div>` : "";
  return `${strip}${noWin}<div class="hint-panel" data-hint-panel aria-live="polite"></div>`;
}

/** Fill the panel with the waits of the discard hovered or raised. */
export function updateHintPanel(page) {
  const box = page.root.querySelector("[data-hint-panel]");
  if (!box) return;
  const tile = page.hintTile || page.raised;
  const waits = waitsFor(page.hints, tile);
  box.innerHTML = waits ? `<span class="label">${t("hint_after", tileName(tile, getLang()))}</span>${waitsHtml(page, waits)}` : "";
  box.dataset.tile = waits ? tile : "";
}
