// Small SVG charts and number words for the profile and the settlement (no library): bars for
// counts and rates, a line of the latest match totals; the rating as one number; which tables
// move points and ranks.

import { getLang, t } from "./i18n.js";
import { esc, num } from "./util.js";

/** The rating a player reads: OpenSkill's ordinal μ − 3σ (the cautious figure: the skill the
 * model is nearly sure the player has at least), to one decimal — "3.0", "-1.2". */
export function ratingText(rating) {
  const value = rating && typeof rating === "object" ? rating.ordinal : rating;
  if (value == null || Number.isNaN(Number(value))) return "—";
  const fixed = Number(value).toFixed(1);
  return fixed === "-0.0" ? "0.0" : fixed;
}

/** A rate (0.4) as a percentage: "40%", "33.3%". */
export function percent(rate) {
  const p = Math.round(Number(rate || 0) * 1000) / 10;
  return `${p}%`;
}

/** An average as people read it: one decimal, none when whole ("15.1", "-3.3", "48"). */
export function average(x) {
  const value = Math.round(Number(x || 0) * 10) / 10;
  return String(Object.is(value, -0) ? 0 : value);
}

/** Whether a room of this kind moves points and ranks (only the ranked queue's tables do). */
export function movesRanks(kind) {
  return kind === "ranked";
}

/** The sentence under a match's end that says why no rank moved ("" for a ranked room). */
export function noRanksNote(kind) {
  if (movesRanks(kind)) return "";
  if (kind === "ladder") return `<p class="no-ranks" data-no-ranks>${esc(t("ladder_table_note"))}</p>`;
  const which = ["friendly", "casual"].includes(kind) ? t(`kind_${kind}`) : t("kind_friendly");
  return `<p class="no-ranks" data-no-ranks>${esc(t("no_ranks_here", which))}${getLang() === "zh" ? "" : " "}${esc(t("ranks_rule"))}</p>`;
}

/** Horizontal bars: `items` is [{label, value, text?}]; each bar's length is value / max (max: the
 * largest value, or `max` given, e.g. 1 for rates). An empty list draws nothing. */
export function barsSvg(items, { max = null, width = 280, row = 22, label = 96 } = {}) {
  if (!items.length) return "";
  const top = max ?? Math.max(1, ...items.map((i) => Number(i.value) || 0));
  const span = width - label - 48;
  const bars = items.map((item, i) => {
    const v = Math.max(0, Number(item.value) || 0);
    const w = Math.round((span * Math.min(v, top)) / top);
    const y = i * row;
    return `<g class="bar" data-key="${esc(item.key ?? item.label)}"><text x="0" y="${y + 15}" class="bar-label">${esc(item.label)}</text>` +
      `<rect x="${label}" y="${y + 4}" width="${w}" height="${row - 8}" rx="3"></rect>` +
      `<text x="${label + w + 6}" y="${y + 15}" class="bar-value">${esc(item.text ?? String(v))}</text></g>`;
  }).join("");
  const height = items.length * row;
  return `<svg class="chart bars" viewBox="0 0 ${width} ${height}" width="100%" role="img" preserveAspectRatio="xMinYMin meet">${bars}</svg>`;
}

/** A line of match totals, oldest first (exact texts like "76/3" or numbers), with the zero line;
 * fewer than two points draw nothing. */
export function lineSvg(values, { width = 280, height = 80, pad = 6 } = {}) {
  const ys = values.map((v) => {
    const [n, d] = String(v).split("/");
    return Number(n) / (d ? Number(d) : 1);
  });
  if (ys.length < 2) return "";
  const lo = Math.min(0, ...ys);
  const hi = Math.max(0, ...ys);
  const scale = hi === lo ? 1 : (height - 2 * pad) / (hi - lo);
  const x = (i) => Math.round((pad + (i * (width - 2 * pad)) / (ys.length - 1)) * 10) / 10;
  const y = (v) => Math.round((height - pad - (v - lo) * scale) * 10) / 10;
  const points = ys.map((v, i) => `${x(i)},${y(v)}`).join(" ");
  const dots = ys.map((v, i) => `<circle cx="${x(i)}" cy="${y(v)}" r="2.5" class="${v > 0 ? "plus" : v < 0 ? "minus" : ""}"><title>${esc(num(values[i]))}</title></circle>`).join("");
  return `<svg class="chart line" viewBox="0 0 ${width} ${height}" width="100%" role="img" preserveAspectRatio="xMinYMin meet">` +
    `<line x1="${pad}" x2="${width - pad}" y1="${y(0)}" y2="${y(0)}" class="zero"></line><polyline points="${points}"></polyline>${dots}</svg>`;
}
