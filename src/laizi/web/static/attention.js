// Calling a person back to a hidden tab (a match found while they look elsewhere): a short beep
// made with WebAudio (sound.js: nothing fetched) and the tab's title flashing until the tab is
// seen again.

import { playNotes } from "./sound.js";

export { primeAudio } from "./sound.js";

let flashing = null; // {timer, title}

/** Two short high notes, played whatever the table's sound setting: queueing is asking to be
 * called (the 匹配 click readied the audio: primeAudio). */
export function beep() {
  playNotes([[880, 0, 0.14], [1175, 0.16, 0.14]], "sine", 0.25);
}

/** Whether the flash is on (tests read it). */
export function isFlashing() {
  return flashing != null;
}

/** Alternate the tab's title between `text` and the page's own title every `ms` until the tab
 * is visible again (at once if it already is), then put the title back. */
export function flashUntilVisible(text, ms = 800) {
  if (document.visibilityState === "visible") return;
  stopFlash();
  const title = document.title;
  let on = false;
  const timer = setInterval(() => {
    on = !on;
    document.title = on ? `${text}${title}` : title;
  }, ms);
  document.title = `${text}${title}`;
  on = true;
  flashing = { timer, title };
  document.addEventListener("visibilitychange", onVisible);
}

function onVisible() {
  if (document.visibilityState === "visible") stopFlash();
}

export function stopFlash() {
  if (!flashing) return;
  clearInterval(flashing.timer);
  document.title = flashing.title;
  flashing = null;
  document.removeEventListener("visibilitychange", onVisible);
}

/** A match found while the tab is hidden: the beep and the flashing title. */
export function callBack(text) {
  if (document.visibilityState === "visible") return false;
  beep();
  flashUntilVisible(text);
  return true;
}
