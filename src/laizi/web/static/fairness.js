// 公平性 / Fairness: the proof that the wall was not arranged, folded into a disclosure said in
// words — the commitment shown before the deal and this browser's own random value under the
// board, the revealed seed, its check and the rules' fingerprint in the settlement.

import { pick, t } from "./i18n.js";
import { esc } from "./util.js";
import { SCHEMA } from "./words.js";

let footOpen = false; // the table is drawn again on every message: the reader's choice stays

/** A click somewhere on the page: on the foot disclosure's summary it keeps the state the
 * disclosure is about to take. Kept at the click, not at the `toggle` event, which comes a task
 * later — a redraw in between (a message arriving) would fold it again. */
export function footClicked(target) {
  const summary = target && target.closest ? target.closest("summary") : null;
  const details = summary ? summary.parentElement : null;
  if (details && details.dataset && details.dataset.fairness === "foot") footOpen = !details.open;
}

if (globalThis.document && document.addEventListener) {
  document.addEventListener("click", (e) => footClicked(e.target), true);
  document.addEventListener("toggle", (e) => {
    if (e.target && e.target.dataset && e.target.dataset.fairness === "foot") footOpen = e.target.open;
  }, true);
}

/** The disclosure under the board: the commitment, and `entropy` (this browser's value) if any. */
export function fairnessFootHtml(commitment, entropy = "") {
  if (!commitment) return entropy;
  return `<details class="fairness" data-fairness="foot"${footOpen ? " open" : ""}><summary>${t("fairness")}</summary>` +
    `<p>${t("fairness_commitment")} <code title="${esc(commitment)}">${esc(commitment.slice(0, 16))}…</code></p>` +
    (entropy ? `<p>${entropy.replace(/^ · /, "")}</p>` : "") + "</details>";
}

/** The rules a settlement was made under, by name: "武汉 红中癞子杠 开口翻（规则指纹 a035bc4f2473）". */
export function rulesText(preset, hash) {
  const found = SCHEMA && SCHEMA.rules ? SCHEMA.rules.presets.find((p) => p.name === preset) : null;
  const name = found && found.label ? pick([found.label.zh, found.label.en]) : preset;
  return hash ? t("fairness_rules", name, hash) : name;
}

/** The settlement's proof folded: `inner` (seed, check, how to verify) and the rules by name. */
export function fairnessProofHtml(inner, preset, hash) {
  const rules = preset ? `<p class="rules-id">${esc(rulesText(preset, hash))}</p>` : "";
  if (!inner && !rules) return "";
  return `<details class="fairness" data-fairness="proof"><summary>${t("fairness")}</summary>${rules}${inner}</details>`;
}
