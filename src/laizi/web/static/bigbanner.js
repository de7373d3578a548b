// The table's big moments: a win (who won, with a short burst of light) and a drawn hand (荒庄),
// shown over the table and the settlement for two seconds, never in the way of a tap.

import { esc } from "./util.js";

export const BIG_BANNER_MS = 2200;

/** The banner's HTML: `kind` "win" or "drawn", its words and an optional second line. */
export function bigBannerHtml(kind, text, sub = "") {
  const burst = kind === "win" ? `<span class="big-burst" aria-hidden="true"></span>` : "";
  return `${burst}<b class="big-text">${esc(text)}</b>${sub ? `<small class="big-sub">${esc(sub)}</small>` : ""}`;
}

let shown = null;

/** Show the banner now (one at a time), gone after BIG_BANNER_MS. */
export function showBigBanner(kind, text, sub = "", doc = document) {
  if (shown) shown.remove();
  const box = doc.createElement("div");
  box.className = `big-banner big-${kind}`;
  box.dataset.big = kind;
  box.setAttribute("role", "status");
  box.innerHTML = bigBannerHtml(kind, text, sub);
  doc.body.append(box);
  shown = box;
  setTimeout(() => {
    box.remove();
    if (shown === box) shown = null;
  }, BIG_BANNER_MS);
  return box;
}
