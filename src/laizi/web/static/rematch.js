// After the match: 再来一局 / Play again in a friendly room (the server opens a new room with the
// same settings and tells every seated person its code; each clicks to join, asking for the same
// seat), 再次匹配 / Match again after a matched one (leave this room, then the lobby queues again
// for the same game and kind).

import { t } from "./i18n.js";
import { REQUEUE } from "./matchstate.js";
import { esc } from "./util.js";

/** The buttons under the match's end (for a seated person). */
export function rematchHtml(page) {
  if (page.seat == null || !page.room) return "";
  if (page.room.kind !== "friendly") {
    return `<div class="rematch"><button class="primary" data-cmd="requeue">${t("match_again")}</button></div>`;
  }
  const again = page.again;
  if (again && !page.askedAgain) {
    return `<div class="rematch" data-again="${esc(again.room)}"><span>${esc(t("again_invite", page.name(again.seat), again.room))}</span>` +
      `<button class="primary" data-cmd="join-again">${t("again_join")}</button></div>`;
  }
  const busy = page.askedAgain ? " disabled" : "";
  return `<div class="rematch"><button class="primary" data-cmd="again"${busy}>${page.askedAgain ? t("again_wait") : t("play_again")}</button></div>`;
}

function go(page, code) {
  sessionStorage.setItem(`laizi.want-seat.${code}`, String(page.seat));
  location.href = `/r/${code}`;
}

/** The server's `again`: the rematch's room (go at once if this page asked for it). */
export function onAgain(page, m) {
  page.again = m;
  if (page.askedAgain) go(page, m.room);
}

/** A click on one of the buttons; false if it was none of them. */
export function rematchCommand(page, cmd) {
  if (cmd === "again") {
    page.askedAgain = true;
    page.conn.send({ type: "again" });
  } else if (cmd === "join-again" && page.again) {
    go(page, page.again.room);
  } else if (cmd === "requeue") {
    sessionStorage.setItem(REQUEUE, JSON.stringify({ preset: page.room.rules.preset, kind: page.room.kind }));
    page.conn.send({ type: "leave" }); // the server answers `left`: the page goes to the lobby
    setTimeout(() => { location.href = "/"; }, 1500);
  } else {
    return false;
  }
  page.render();
  return true;
}
