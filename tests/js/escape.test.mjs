// Unit tests of what an escape costs in words (src/laizi/web/static/escape.js): the confirm and
// the settlement's line say the amount and who gets it. node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";
import { fakePage } from "./page_globals.mjs";

fakePage({ lang: "zh" });
const { escapeLine, leaveConfirmText } = await import("../../src/laizi/web/static/escape.js");
const i18n = await import("../../src/laizi/web/static/i18n.js");
const name = (s) => ["小明", "机器人 1", "机器人 2", "机器人 3"][s];

test("the confirm names the penalty and each other seat's share, from the room", () => {
  i18n.setLang("zh");
  const room = { escape: { pays: "400", each: "400/3" } };
  assert.equal(leaveConfirmText(room), "对局中离开算逃跑：你要付 400 分，其余三家各得 133⅓ 分。确定离开？");
  i18n.setLang("en");
  assert.equal(
    leaveConfirmText({ escape: { pays: "64", each: null } }),
    "Leaving during a match is an escape: you pay 64 points, shared by the other three players. Leave?",
  );
  assert.match(leaveConfirmText({}), /escape/); // an older server: the plain question
});

test("the escape's settlement says again what was paid and to whom", () => {
  i18n.setLang("zh");
  const end = { reason: "abandon", seat: 0, payments: [-400, 133.33333333333334, 133.33333333333334, 133.33333333333334], payments_exact: ["-400", "400/3", "400/3", "400/3"] };
  assert.equal(escapeLine(end, name), "小明 逃跑：付 400 分，其余三家各得 133⅓ 分");
  i18n.setLang("en");
  assert.equal(escapeLine({ ...end, payments_exact: undefined }, name), "小明 escaped: paid 400 points, and each of the other three players gets 133⅓");
  const uneven = { reason: "abandon", seat: 2, payments: [10, 20, -64, 34] };
  assert.equal(escapeLine(uneven, name), "机器人 2 escaped: paid 64 points, shared by the other three players");
});
