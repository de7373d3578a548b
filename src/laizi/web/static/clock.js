// The table's clocks: the seat's own decision (its time and bank, from the prompt), another
// seat's turn (the server's `clock` message, else the table's time per decision), the settlement's
// pause and an offline seat's countdown to escape. The arithmetic is pure (tests/js); drawClocks
// writes it into the page four times a second.

import { t } from "./i18n.js";

/** Seconds left of a decision given `seconds` and a `bank`, `used` seconds in. */
export function timeLeft(seconds, bank, used) {
  return { main: Math.max(0, seconds - used), bank: Math.max(0, bank - Math.max(0, used - seconds)), total: seconds };
}

/** The seat's own clock from its prompt ({seconds, bank, elapsed}) received at `at` (ms). */
export function promptClock(prompt, at, now) {
  if (!prompt) return null;
  return timeLeft(prompt.seconds, prompt.bank, prompt.elapsed + (now - at) / 1000);
}

/** The clock a spectator (or a player waiting for another seat) sees: the server's `clock` of the
 * seat on its turn, else the table's time per decision from when that seat began (`turnAt`; its
 * bank is not public). */
export function othersClock(model, clock, room, turnAt, now) {
  if (!model || !model.players || model.phase === "over" || !room) return null;
  const turn = model.phase === "turn" || model.phase === "final";
  if (clock && model.to_act && model.to_act.includes(clock.seat) && turn) {
    return timeLeft(clock.seconds, clock.bank, (clock.elapsed || 0) + (now - clock.at) / 1000);
  }
  const seconds = Number(room.table && room.table.action_seconds) || 0;
  if (!seconds) return null;
  return { main: Math.max(0, seconds - (now - turnAt) / 1000), bank: 0, total: seconds };
}

/** Whole seconds left of a countdown of `seconds` started at `at` (ms). */
export function countdown(seconds, at, now) {
  return Math.max(0, Math.ceil(seconds - (now - at) / 1000));
}

/** Write every clock of the table page `page` into its drawing. */
export function drawClocks(page) {
  const now = performance.now();
  const own = promptClock(page.prompt, page.promptAt, now);
  const others = othersClock(page.model, page.clock, page.room, page.turnAt, now);
  const r = own || (page.seat == null ? others : null);
  const other = page.seat != null ? others : null;
  const root = page.root;
  for (const box of root.querySelectorAll(".seat-timer")) {
    box.textContent = other ? t("seconds", Math.ceil(other.main > 0 ? other.main : other.bank)) : "";
  }
  for (const box of root.querySelectorAll(".timer:not(.seat-timer)")) {
    if (!r) { box.textContent = ""; box.style.removeProperty("--left"); continue; }
    box.textContent = r.main > 0 ? t("seconds", Math.ceil(r.main)) : t("bank", Math.ceil(r.bank));
    box.classList.toggle("low", r.main <= 5);
    box.style.setProperty("--left", `${Math.round((100 * r.main) / (r.total || 1))}%`);
  }
  const pause = root.querySelector("[data-pause-left]");
  if (pause && page.pause) pause.textContent = t("next_in", countdown(page.pause.seconds, page.pause.at, now));
  for (const box of root.querySelectorAll("[data-away]")) {
    const a = page.away.get(Number(box.dataset.away));
    if (!a || a.escape_in == null) continue;
    box.textContent = t("away_banner", page.name(Number(box.dataset.away)), countdown(a.escape_in, a.at, now));
  }
}
