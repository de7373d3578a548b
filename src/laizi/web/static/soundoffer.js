// Sound, offered once: a browser lets a page play audio only after a gesture, so at the first tap
// on the table (and only if this browser never chose) the bar asks 开启声音？ with 开启 / 不用;
// the answer is kept like the bar's own switch (sound.js) and the question never comes back.

import { t } from "./i18n.js";
import { primeAudio, setSound, sound } from "./sound.js";

const OFFERED = "laizi.sound.offered";

/** Whether the offer is due in this browser: no choice made yet, never offered before. */
export function offerDue(store) {
  return store.getItem("laizi.sound") == null && store.getItem(OFFERED) == null;
}

/** The first tap: offer sound if due (audio is readied during the tap); true if now offered. */
export function offerSound(page, store = localStorage) {
  if (page.soundOffer || !offerDue(store)) return false;
  store.setItem(OFFERED, "1");
  page.soundOffer = true;
  primeAudio();
  return true;
}

/** The offer in the bar, while it waits for an answer. */
export function soundOfferHtml(page, store = localStorage) {
  if (!page.soundOffer || store.getItem("laizi.sound") != null) return "";
  return `<span class="sound-offer" role="status" data-sound-offer>${t("sound_offer")} ` +
    `<button data-cmd="sound-yes" class="primary">${t("sound_yes")}</button><button data-cmd="sound-no">${t("sound_no")}</button></span>`;
}

/** The offer's answer (a `data-cmd` of the page); true if it was one. */
export function soundCommand(page, cmd) {
  if (cmd !== "sound-yes" && cmd !== "sound-no") return false;
  setSound(cmd === "sound-yes");
  page.soundOffer = false;
  if (cmd === "sound-yes") sound("turn");
  page.render();
  return true;
}
