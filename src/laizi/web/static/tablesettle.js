// The settlement at the table: the panel over the board (settle.js draws the hand's settlement)
// with the pause bar (继续, the seconds to the next hand, who is still reading), the match's end,
// and a finished room's page (its totals and every hand's replay).

import { noRanksNote } from "./charts.js";
import { getLang, t } from "./i18n.js";
import { rematchHtml } from "./rematch.js";
import { renderSettlement } from "./settle.js";
import { loadSummary, standingsHtml } from "./standings.js";
import { esc, num } from "./util.js";

function pauseHtml(page) {
  // The match is over (its end seen here, or a finished room opened later): nothing to go on to.
  if (page.matchEnd || (page.room && page.room.status === "over")) return "";
  const waiting = page.pause ? page.pause.waiting : [];
  const mine = page.seat != null && (page.pause ? waiting.includes(page.seat) : !page.continued);
  const others = waiting.filter((s) => s !== page.seat).map((s) => esc(page.name(s))).join(t("or"));
  const button = mine && !page.continued
    ? `<button class="primary continue" data-cmd="continue">${t("continue")}</button>`
    : page.seat == null
      ? `<button data-cmd="close-settle">${t("close")}</button>`
      : `<span class="muted">${t("you_continued")}</span>`;
  const left = page.pause ? `<span class="pause-left" data-pause-left></span>` : `<span class="muted">${page.room.status === "playing" ? t("next_hand") : ""}</span>`;
  return `<div class="pause-bar">${button}${left}${others ? `<span class="muted">${t("waiting_for", others)}</span>` : ""}</div>`;
}

function matchEndHtml(page) {
  if (page.room && page.room.kind === "ranked") loadSummary(page); // the rank changes, once booked
  const totals = page.matchEnd.totals.map((x, s) => `<li>${esc(page.name(s))}: <b>${num(x)}</b></li>`).join("");
  return `<div class="match-end"><h2>${t("match_over")}</h2><ul>${totals}</ul>${standingsHtml(page)}${noRanksNote(page.room && page.room.kind)}${rematchHtml(page)}` +
    `<a href="/" class="button">${t("back_lobby")}</a></div>`;
}

/** Draw the settlement panel into the fresh page; `old` is the panel of the previous drawing,
 * kept as it is while nothing in it changed (its buttons stay put, a phone keeps its scroll). */
export function drawSettlement(page, old) {
  const m = page.model;
  const panel = page.root.querySelector(".settlement");
  const key = page.end && m ? settlementKey(page) : "";
  if (key && panel && old && old.dataset.key === key) {
    panel.replaceWith(old);
  } else if (page.end && m && panel) {
    panel.dataset.key = key;
    renderSettlement(panel, { end: page.end, room: page.room, dealer: m.dealer, commitment: m.commitment, hand: m.hand, code: page.code, mySeat: page.seat, model: m });
    panel.insertAdjacentHTML("afterbegin", pauseHtml(page));
    if (page.matchEnd) panel.insertAdjacentHTML("beforeend", matchEndHtml(page));
  } else if (page.matchEnd && panel) {
    panel.innerHTML = matchEndHtml(page);
  }
}

function settlementKey(page) {
  const p = page;
  const ranks = p.summary && p.summary.standings ? p.summary.standings.length : 0;
  return JSON.stringify([p.model.hand, getLang(), p.seat, p.continued, p.pause && p.pause.waiting, !!p.matchEnd, p.room.status, p.room.seats.map((x) => x.name), ranks, p.again && p.again.room, !!p.askedAgain]);
}

/** A finished room's link: the match totals and every hand's replay (the server's summary,
 * `GET /api/rooms/CODE/summary`, gives exact totals and each hand's result where it has one). */
export function finishedHtml(page) {
  const room = page.room;
  loadSummary(page);
  const sum = page.summary;
  const exact = sum && (sum.totals_exact || sum.totals);
  const sign = (x) => Number(String(x).split("/")[0]);
  const totals = (exact || room.totals || []).map((x, s) => `<tr data-seat="${s}"><th>${esc(page.name(s))}</th><td class="points ${sign(x) > 0 ? "plus" : sign(x) < 0 ? "minus" : ""}">${num(x)}</td></tr>`).join("");
  const result = (i) => {
    const h = sum && sum.hands ? sum.hands.find((x) => x.number === i) : null;
    if (!h) return "";
    if (h.winner != null) return ` · ${t("win_by", esc(page.name(h.winner)))}`;
    return h.reason === "drawn" ? ` · ${t("drawn_hand")}` : h.reason === "abandon" ? ` · ${t("act_abandon")}` : "";
  };
  const links = (room.records || []).map((_, i) => `<li><a href="/replay/${page.code}/${i}">${t("hand_no", i + 1)}</a>${result(i)} · <a href="/api/rooms/${page.code}/hands/${i}" download>${t("download_record")}</a></li>`).join("");
  return `<div class="waiting finished"><h2>${t("match_over")}</h2><h3>${t("match_result")}</h3>` +
    `<table class="settle match-totals"><tbody>${totals}</tbody></table>${standingsHtml(page)}${noRanksNote(room.kind)}${rematchHtml(page)}` +
    `<h3>${t("hands_replays")}</h3><ul class="replays">${links || `<li class="muted">${t("none_yet")}</li>`}</ul>` +
    `<a href="/" class="button">${t("back_lobby")}</a><div class="settlement"></div></div>`;
}
