// A ranked match's end: each account's rank and strength points before and after, and the change
// (the server's summary, GET /api/rooms/CODE/summary, `standings`: exact, as booked).

import { pick, t } from "./i18n.js";
import { esc, num } from "./util.js";

const RETRIES_MS = [1500, 4000];

/** The room's summary into `page.summary` (asked once; a ranked match's booking not yet read is
 * asked again a little later); the page is drawn again when it comes. */
export function loadSummary(page, attempt = 0) {
  if (attempt === 0) {
    if (page.summary !== undefined) return;
    page.summary = null;
  }
  fetch(`/api/rooms/${page.code}/summary`).then((r) => (r.ok ? r.json() : null)).then((body) => {
    if (!body) return;
    page.summary = body;
    page.render();
    const waiting = body.kind === "ranked" && body.status === "over" && !(body.standings || []).length;
    if (waiting && attempt < RETRIES_MS.length) setTimeout(() => loadSummary(page, attempt + 1), RETRIES_MS[attempt]);
  }).catch(() => {});
}

function signed(x) {
  const n = Number(String(x).split("/")[0]);
  return `<span class="points ${n > 0 ? "plus" : n < 0 ? "minus" : ""}">${n > 0 ? "+" : ""}${num(x)}</span>`;
}

/** The rank changes' table (empty when the summary has none: a friendly or casual room). */
export function standingsHtml(page) {
  const list = (page.summary && page.summary.standings) || [];
  if (!list.length) return "";
  const rank = (r) => esc(pick([r.zh, r.en]));
  const next = (n) => (n ? esc(t("to_next", pick([n.zh, n.en]), num(n.missing))) : esc(t("top_rank")));
  const rows = list.map((s) => `<tr data-seat="${s.seat}"><th>${esc(page.name(s.seat))}</th>` +
    `<td class="rank">${rank(s.rank_before)} → <b>${rank(s.rank_after)}</b></td>` +
    `<td>${num(s.points_before)} → <b>${num(s.points_after)}</b></td><td class="delta">${signed(s.delta)}</td><td class="next">${next(s.next_rank)}</td></tr>`).join("");
  return `<h3>${t("rank_changes")}</h3><table class="standings" data-standings><thead><tr><th>${t("player")}</th>` +
    `<th>${t("rank_change")}</th><th>${t("points_change")}</th><th>${t("change")}</th><th>${t("next_rank_col")}</th></tr></thead><tbody>${rows}</tbody></table>`;
}
