// A person who never gave a name plays as a guest with four digits ("游客4821" / "Guest 4821",
// in the reader's language), kept in the browser like a name they typed — never "player 0".

import { getLang } from "./i18n.js";

/** The guest name for `digits` in the page's language. */
export function guestName(digits) {
  return getLang() === "zh" ? `游客${digits}` : `Guest ${digits}`;
}

const GUEST = /^(?:游客|Guest )(\d{4})$/;

/** The name this browser plays under: the one saved, else a new guest name, saved.  A guest
 * name follows the reader's language (游客4821 ↔ Guest 4821) until they type one of their own. */
export function playerName(random = Math.random) {
  const saved = (localStorage.getItem("laizi.name") || "").trim();
  const guest = GUEST.exec(saved);
  if (guest) return guestName(guest[1]);
  if (saved) return saved;
  const name = guestName(String(1000 + Math.floor(random() * 9000)));
  localStorage.setItem("laizi.name", name);
  return name;
}
