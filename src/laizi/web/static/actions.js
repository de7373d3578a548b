// The buttons of a prompt's legal actions (the discards are the hand's tiles), the words for
// what a prompt offers ("碰、杠、胡"), and the line that says whose turn it is.

import { getLang, t } from "./i18n.js";
import { waitsFor } from "./hints.js";
import { parseTiles, tileName } from "./tiles.js";
import { esc } from "./util.js";

const selfTurn = (prompt) => prompt.phase === "turn" || prompt.phase === "final";

/** An action's name: 胡 on a discard is 自摸 on one's own turn. */
export function actionName(action, prompt) {
  return action.type === "win" && selfTurn(prompt) ? t("act_self_draw") : t(`act_${action.type}`);
}

/** The words for what a prompt offers: "碰、杠、胡", discarding last. */
export function offered(prompt) {
  const names = [];
  for (const a of prompt.legal) {
    if (a.type === "discard" || a.type === "pass") continue;
    const name = actionName(a, prompt);
    if (!names.includes(name)) names.push(name);
  }
  if (prompt.legal.some((a) => a.type === "discard")) names.push(t("discard_word"));
  return names.join(t("or"));
}

export function actionsHtml(page) {
  const prompt = page.prompt;
  if (!prompt) return `<div class="actions"></div>`;
  const claimTile = page.model.claim ? page.model.claim.tile : null;
  const buttons = prompt.legal.map((a, i) => {
    if (a.type === "discard") return "";
    let tiles = "";
    if (a.type === "chow") tiles = parseTiles(a.tiles).map((x) => page.tile(x)).join("");
    else if (a.tile) tiles = page.tile(a.tile);
    else if ((a.type === "pung" || a.type === "kong" || a.type === "win") && claimTile) tiles = page.tile(claimTile);
    let waits = "";
    if (a.type === "declare_ready") {
      // 报听 with a discard: the waits that discard leaves; without one, the hand's own waits
      const list = (a.tile && waitsFor(page.hints, a.tile)) || (page.hints && page.hints.waits) || null;
      if (list && list.length) waits = `<span class="act-waits" data-act-waits>${t("waits_now")} ${list.map((w) => `${tileName(w.tile, getLang())}`).join(t("or"))}</span>`;
    }
    return `<button class="act act-${a.type}" data-act="${i}" data-type="${a.type}"${a.tiles ? ` data-tiles="${a.tiles}"` : ""}${a.tile ? ` data-tile="${a.tile}"` : ""}>${actionName(a, prompt)} ${tiles}${waits}</button>`;
  }).join("");
  const hint = prompt.legal.some((a) => a.type === "discard") ? `<span class="hint">${page.tapTwice ? t("tap_hint") : t("discard_hint")}</span>` : "";
  return `<div class="actions" data-prompt="${prompt.id}">${buttons}${hint}<span class="timer action-timer"></span></div>`;
}

/** Whose turn, what the prompt offers, or which claim window is open. */
export function statusText(page) {
  const m = page.model;
  const prompt = page.prompt;
  const lang = getLang();
  const turnSeat = m.to_act && m.to_act.length ? m.to_act[0] : null;
  const from = () => esc(page.name(m.claim.from));
  if (m.phase === "over") return t("settlement");
  if (prompt && prompt.phase === "rob" && m.claim) return t("offer_rob", from(), tileName(m.claim.tile, lang));
  if (prompt && prompt.phase === "claim" && m.claim) return t("offer_claim", from(), tileName(m.claim.tile, lang), offered(prompt));
  if (prompt) return t("offer_turn", offered(prompt)) + (m.phase === "final" ? ` · ${t("phase_final")}` : "");
  if (m.phase === "rob" && m.claim) return t("rob_window", from(), tileName(m.claim.tile, lang));
  if (m.phase === "claim" && m.claim) return t("claim_window", from(), tileName(m.claim.tile, lang));
  let status = turnSeat === page.seat && page.seat != null ? t("your_turn") : turnSeat != null ? t("turn_of", esc(page.name(turnSeat))) : "";
  if (m.phase === "final") status += ` · ${t("phase_final")}`;
  return status;
}
