// Small helpers shared by the pages.

import { t } from "./i18n.js";

export function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** A number as the server sends it (JSON ints, decimals, or "400/3" text for no exact decimal). */
export function num(x) {
  if (x == null) return "—";
  if (typeof x === "string") return x;
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 1e6) / 1e6);
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
  if (s && s.guest) name = guestless(name); // the "guest" badge says it
  if (seat === mySeat) name += ` (${t("you")})`;
  return name;
}

export function el(html) {
  const box = document.createElement("div");
  box.innerHTML = html.trim();
  return box.firstElementChild;
}
