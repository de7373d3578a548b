// The bar above the table (room code, hand, link, replays, sound, tap mode, 托管, leave), the
// waiting room before the match, and this client's random value in the deal under the board.

import { noRanksNote } from "./charts.js";
import { t } from "./i18n.js";
import { inviteHtml } from "./invite.js";
import { soundOn } from "./sound.js";
import { soundOfferHtml } from "./soundoffer.js";
import { errorText, esc } from "./util.js";

/** Tap twice to discard on a touch screen, one click with a mouse; the page setting overrides. */
export function tapTwiceDefault() {
  const saved = localStorage.getItem("laizi.tap");
  if (saved) return saved === "two";
  return window.matchMedia("(pointer: coarse)").matches || window.innerWidth < 760;
}

/** The link's state above the table: reconnecting, or the server waiting for its database. */
export function linkBannerHtml(page) {
  if (!page.online) return `<div class="banner offline" role="status">${t("reconnecting")}</div>`;
  return page.dbWait ? `<div class="banner offline" role="status" data-db-wait>${t("db_wait")}</div>` : "";
}

/** The page's error, and who of the others is away. */
export function peopleBannersHtml(page) {
  const error = page.error ? `<div class="banner error" role="alert">${esc(errorText(page.error))}</div>` : "";
  return error + [...page.away.keys()].filter((s) => s !== page.seat)
    .map((s) => `<div class="banner away" role="status" data-away="${s}">${esc(t("away_banner_plain", page.name(s)))}</div>`).join("");
}

export function barHtml(page) {
  const room = page.room;
  const m = page.model;
  const code = page.code;
  const hand = m && m.hand != null ? t("hand_no", m.hand + 1) : "";
  const of = room ? t("of_hands", room.table.hands) : "";
  const link = `${location.origin}/r/${code}`;
  const records = room && room.records && room.records.length
    ? `<details class="records"><summary>${t("replay")} (${room.records.length})</summary>${room.records.map((_, i) => `<a href="/replay/${code}/${i}">${t("hand_no", i + 1)}</a>`).join(" ")}</details>`
    : "";
  const autoBtn = page.seat != null && room && room.status === "playing"
    ? `<button data-cmd="auto" class="auto-btn ${page.auto ? "on" : ""}" aria-pressed="${page.auto}">${page.auto ? t("auto_on") : t("auto_off")}</button>` : "";
  const watching = page.seat == null && room ? `<span class="badge watching" data-watching>${t("watching")}</span>` : "";
  const over = room && room.status === "over"; // a finished room: nothing to play, nobody to leave
  const tap = page.seat != null && !over ? `<button data-cmd="tap" class="small" aria-pressed="${page.tapTwice}">${page.tapTwice ? t("tap_two") : t("tap_one")}</button>` : "";
  const snd = `<button data-cmd="sound" class="small" aria-pressed="${soundOn()}">${soundOn() ? t("sound_on") : t("sound_off")}</button>`;
  return `<div class="room-bar"><span class="code">${t("room")} <b data-code>${esc(code)}</b></span>${watching}` +
    `<span>${hand} ${of}</span><span class="link">${t("link")}: <a href="/r/${esc(code)}">${esc(link)}</a></span>${inviteHtml(page)}${records}` +
    `<span class="spacer"></span>${snd}${soundOfferHtml(page)}${tap}${autoBtn}${over ? "" : `<button data-cmd="leave">${t("leave")}</button>`}</div>`;
}

export function waitingHtml(page) {
  const room = page.room;
  const seats = room.seats.map((s) => `<li>${t("seat")} ${s.seat}: ${s.kind === "empty" ? t("empty") : esc(page.name(s.seat))}${s.kind === "bot" && !/^bot \d+$/.test(s.name) ? ` (${t("bot")})` : ""}${s.guest && s.seat !== page.seat ? ` (${t("guest")})` : ""}</li>`).join("");
  return `<div class="waiting"><h2>${t("waiting")}</h2><p>${t("start_note")}</p>${noRanksNote(room.kind)}<ul>${seats}</ul>` +
    `<p>${t("room_code")}: <b class="big-code">${esc(page.code)}</b></p><div class="settlement"></div></div>`;
}

/** This client's random value in the deal (protocol 1.1): shown, and checked against the
 * commitment it received before sending it and the contributions the start event lists. */
export function entropyHtml(page) {
  const m = page.model;
  const deal = m && page.conn.deals.get(m.hand);
  if (!deal || page.seat == null) return "";
  const start = page.start && page.start.hand === m.hand ? page.start : null;
  const listed = start && start.contributions ? start.contributions[page.seat] : null;
  const ok = start && start.commitment === deal.commitment && listed === deal.entropy;
  return ` · <span class="entropy" data-ok="${ok ? "yes" : "no"}">${t("my_entropy")} <code>${esc(deal.entropy.slice(0, 16))}…</code> ${ok ? t("entropy_ok") : t("entropy_bad")}</span>`;
}
