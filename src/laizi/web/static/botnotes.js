// The bots' reasons (table setting explain_bots, docs/protocol.md `bot_note`): once a hand is
// over the server sends one `bot_note` per explained decision; this module lists the last
// hand's notes in a small collapsible panel at the bottom of the page, in the page's language.
// It keeps to itself: net.js hands it every message (one line), nothing else calls it.

import { getLang } from "./i18n.js";
import { esc } from "./util.js";

const HEADING = { zh: "机器人的理由（第 {0} 局）", en: "Why the bots played so (hand {0})" };
const SEAT = { zh: "{0}号位", en: "seat {0}" };

let shown = { hand: null, notes: [] };

/** Feed every message a frame brought; `bot_note` ones are kept and shown. */
export function feedBotNotes(messages) {
  let changed = false;
  for (const msg of messages) {
    if (!msg || msg.type !== "bot_note") continue;
    if (shown.hand !== msg.hand) shown = { hand: msg.hand, notes: [] };
    shown.notes.push(msg);
    changed = true;
  }
  if (changed) render();
}

/** The notes of the last hand explained (for tests and other views). */
export function botNotes() {
  return shown;
}

/** One note as a list item in `lang` ("zh" or "en"): the seat, then the reason (escaped). */
export function noteItem(n, lang) {
  return `<li data-seq="${Number(n.seq)}"><b>${esc(fill(SEAT[lang], n.seat))}</b> ${esc(n[lang])}</li>`;
}

function fill(pattern, value) {
  return pattern.replace("{0}", String(value));
}

function render() {
  const lang = getLang() === "en" ? "en" : "zh";
  let panel = document.getElementById("bot-notes");
  if (!panel) {
    panel = document.createElement("details");
    panel.id = "bot-notes";
    panel.open = true;
    panel.style.cssText =
      "position:fixed;right:0.5em;bottom:0.5em;max-width:32em;max-height:40vh;overflow:auto;" +
      "background:rgba(255,255,255,0.95);color:#222;border:1px solid #999;border-radius:4px;" +
      "padding:0.3em 0.6em;font-size:0.85em;z-index:50";
    document.body.appendChild(panel);
  }
  const items = shown.notes.map((n) => noteItem(n, lang)).join("");
  panel.innerHTML = `<summary>${esc(fill(HEADING[lang], Number(shown.hand) + 1))}</summary><ol>${items}</ol>`;
}
