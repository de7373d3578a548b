// What an escape (逃跑) costs: the confirm before leaving a match and the escape's settlement say
// the amount and who gets it — the room's `escape` (the ruleset's own escape settlement, exact
// texts) before, the escape's own payments after.

import { t } from "./i18n.js";
import { num } from "./util.js";

/** The question before leaving a match: "…你要付 400 分，其余三家各得 133⅓ 分。确定离开？". */
export function leaveConfirmText(room) {
  const e = room && room.escape;
  if (!e || e.pays == null) return t("leave_confirm");
  return e.each != null ? t("leave_confirm_each", num(e.pays), num(e.each)) : t("leave_confirm_pays", num(e.pays));
}

/** The settlement's line of an escape: who escaped, what they paid and what each other got. */
export function escapeLine(end, name) {
  const payments = end.payments_exact || end.payments;
  const seat = end.seat;
  if (seat == null || !payments) return t("escaped", name(seat));
  const pays = num(negate(payments[seat]));
  const others = payments.filter((_, s) => s !== seat).map((x) => num(x));
  return new Set(others).size === 1 ? t("escape_paid_each", name(seat), pays, others[0]) : t("escape_paid", name(seat), pays);
}

/** -x of an amount sent as a number or as exact text ("-400/3" → "400/3"). */
function negate(x) {
  if (typeof x === "number") return -x;
  const text = String(x).trim();
  return text.startsWith("-") ? text.slice(1) : `-${text}`;
}
