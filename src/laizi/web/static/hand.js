// The seat's own hand at the bottom: sorted, the drawn tile apart, the legal discards as buttons
// (tap twice on a phone: the first tap raises the tile), the tiles a ready hint names marked 听.

import { getLang, t } from "./i18n.js";
import { ownHand } from "./model.js";
import { sortTiles, tileName } from "./tiles.js";

export function handHtml(page) {
  if (page.seat == null) return "";
  const { tiles, drawn } = ownHand(page.model);
  const discardable = new Set(page.prompt ? page.prompt.legal.filter((a) => a.type === "discard").map((a) => a.tile) : []);
  const ready = new Set(page.hints && page.hints.discards ? page.hints.discards.map((d) => d.tile) : []);
  if (page.raised && !discardable.has(page.raised)) page.raised = null;
  let raisedDone = false;
  const one = (x, extra = []) => {
    const marks = [...extra];
    if (ready.has(x)) marks.push("ready");
    if (discardable.has(x)) {
      const up = !raisedDone && page.raised === x;
      if (up) raisedDone = true;
      return `<button class="tile-btn ${up ? "raised" : ""} ${ready.has(x) ? "ready" : ""}" data-discard="${x}" aria-label="${t("a_discard", tileName(x, getLang()))}">${page.tile(x, marks)}${ready.has(x) ? `<i class="ready-dot">${t("ready_mark")}</i>` : ""}</button>`;
    }
    return `<span class="tile-btn off">${page.tile(x, marks)}</span>`;
  };
  const all = sortTiles(drawn ? [...tiles, drawn] : tiles).join("");
  const many = tiles.length + (drawn ? 1 : 0) > 9;
  return `<div class="my-hand fresh ${many ? "many" : ""} ${page.tapTwice ? "tap-two" : ""}" data-hand="${all}">${tiles.map((x) => one(x)).join("")}` +
    `${drawn ? `<span class="gap"></span>${one(drawn, ["drawn"])}` : ""}</div>`;
}
