// Small helpers shared by the pages.

import { getLang, pick, t } from "./i18n.js";

export function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const VULGAR = { "1/2": "½", "1/3": "⅓", "2/3": "⅔", "1/4": "¼", "3/4": "¾", "1/6": "⅙", "5/6": "⅚", "1/8": "⅛", "3/8": "⅜", "5/8": "⅝", "7/8": "⅞" };

/** [numerator, denominator] of a decimal the server sent for a fraction (133.33333333333334 →
 * [400, 3]): the closest fraction with a denominator up to 10^4 (points have small ones). */
export function toFraction(x) {
  if (Number.isInteger(x)) return [x, 1];
  const sign = x < 0 ? -1 : 1;
  let v = Math.abs(x);
  let [h0, h1, k0, k1] = [0, 1, 1, 0];
  for (let i = 0; i < 40; i++) {
    const a = Math.floor(v);
    [h0, h1] = [h1, a * h1 + h0];
    [k0, k1] = [k1, a * k1 + k0];
    if (k1 > 10000) { h1 = h0; k1 = k0; break; }
    if (Math.abs(h1 / k1 - Math.abs(x)) < 1e-9) break;
    v = 1 / (v - a);
  }
  return [sign * h1, k1];
}

/** A number as people read it: 64, -208, 37½, 133⅓, or 400/7 — never a long decimal. The server
 * sends integers, decimals, or exact text ("400/3"); all come out as exact fractions. */
export function num(x) {
  if (x == null) return "—";
  let n;
  let d;
  if (typeof x === "string") {
    const m = x.trim().match(/^(-?\d+)(?:\/(\d+))?$/);
    if (!m) {
      const f = Number(x);
      if (Number.isNaN(f)) return x;
      [n, d] = toFraction(f);
    } else {
      n = Number(m[1]);
      d = m[2] ? Number(m[2]) : 1;
    }
  } else {
    [n, d] = toFraction(x);
  }
  if (d === 1) return String(n);
  const sign = n < 0 ? "-" : "";
  const whole = Math.floor(Math.abs(n) / d);
  const rest = Math.abs(n) % d;
  const part = VULGAR[`${rest}/${d}`];
  if (part) return `${sign}${whole || ""}${part}`;
  return `${sign}${Math.abs(n)}/${d}`;
}

/** "Alice (you)", "bot 2", or "seat 3". */
// The server marks a guest who took an account's name with " (游客)"; where the seat's guest
// flag is shown (a badge, in the reader's language) the mark is left out.
export function guestless(name) {
  return name.endsWith(" (游客)") ? name.slice(0, -5) : name;
}

export function seatName(room, seat, mySeat) {
  const s = room && room.seats ? room.seats[seat] : null;
  let name = s && s.name ? s.name : `${t("seat")} ${seat}`;
  const bot = s && s.kind === "bot" ? /^bot (\d+)$/.exec(name) : null;
  if (bot) name = t("bot_n", bot[1]); // the server's "bot 1" in the reader's language
  if (s && s.guest) name = guestless(name); // the "guest" badge says it
  if (seat === mySeat) name += ` (${t("you")})`;
  return name;
}

export function el(html) {
  const box = document.createElement("div");
  box.innerHTML = html.trim();
  return box.firstElementChild;
}

/** A server error in the reader's language: `message_zh` / `message` (every error has a stable
 * `code` with both texts), or the older `error_zh` / `error`. */
export function errorText(body) {
  const en = body.message || body.error || body.code || "";
  return pick([body.message_zh || body.error_zh || en, en]);
}

/** GET a JSON body with the session's cookie: `{ok, status, body}` (body null unless ok). */
export async function getJson(url) {
  const r = await fetch(url, { credentials: "same-origin" });
  return { ok: r.ok, status: r.status, body: r.ok ? await r.json() : null };
}

/** A `{zh, en}` name from the server's schema in the page's language. */
export function say(label) {
  return label ? label[getLang()] ?? label.en : "";
}
