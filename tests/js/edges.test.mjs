// Unit tests of issue 27's rough edges in the client: the guest's default name, English
// plurals, and the rules named in words in the fairness disclosure. node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";
import { fakePage } from "./page_globals.mjs";

const schema = {
  rules: { presets: [{ name: "toy-preset", game: "toy", label: { zh: "玩具 规则", en: "Toy rules" } }] },
  words: {},
};
fakePage({ lang: "zh", schema });
const i18n = await import("../../src/laizi/web/static/i18n.js");
const { guestName, playerName } = await import("../../src/laizi/web/static/guestname.js");
const { tileName } = await import("../../src/laizi/web/static/tiles.js");
const { fairnessFootHtml, footClicked, rulesText } = await import("../../src/laizi/web/static/fairness.js");

test("a person with no name plays as 游客 + four digits, or Guest 1234, and keeps it", () => {
  i18n.setLang("zh");
  localStorage.setItem("laizi.name", "");
  assert.equal(playerName(() => 0.5), "游客5500");
  assert.equal(playerName(() => 0.1), "游客5500"); // kept, not drawn again
  i18n.setLang("en");
  assert.equal(guestName("1234"), "Guest 1234");
  assert.equal(playerName(), "Guest 5500"); // a guest name follows the reader's language
  localStorage.setItem("laizi.name", "  ");
  assert.match(playerName(), /^Guest [1-9]\d{3}$/);
  localStorage.setItem("laizi.name", "Ann");
  assert.equal(playerName(), "Ann");
});

test("English says one fan, one dot, one character", () => {
  i18n.setLang("en");
  assert.equal(i18n.tn("fans_total", 1), "1 fan");
  assert.equal(i18n.tn("fans_total", 3), "3 fans");
  assert.deepEqual(["1p", "1m", "1s", "2p", "9m"].map((x) => tileName(x, "en")), ["1 dot", "1 character", "1 bamboo", "2 dots", "9 characters"]);
  i18n.setLang("zh");
  assert.equal(i18n.tn("fans_total", 1), "1 番");
});

test("the fairness disclosure names the rules in words, the fingerprint said as one", () => {
  i18n.setLang("zh");
  assert.equal(rulesText("toy-preset", "a035bc4f2473"), "规则：玩具 规则（规则指纹 a035bc4f2473）");
  i18n.setLang("en");
  assert.equal(rulesText("toy-preset", "a035bc4f2473"), "Rules: Toy rules (rules fingerprint a035bc4f2473)");
});

test("a click on the table's fairness disclosure keeps it open through the next redraw", () => {
  // the click is remembered at once: the toggle event comes later, after a redraw may have come
  const details = { open: false, dataset: { fairness: "foot" } };
  const summary = { parentElement: details, closest: () => summary };
  assert.doesNotMatch(fairnessFootHtml("ab".repeat(32)), / open>/);
  footClicked(summary);
  assert.match(fairnessFootHtml("ab".repeat(32)), /data-fairness="foot" open>/);
  details.open = true;
  footClicked(summary);
  assert.doesNotMatch(fairnessFootHtml("ab".repeat(32)), / open>/);
  // a click elsewhere, or on the settlement's own disclosure, changes nothing
  footClicked({ closest: () => null });
  const proof = { open: false, dataset: { fairness: "proof" } };
  footClicked({ closest: () => ({ parentElement: proof }) });
  assert.doesNotMatch(fairnessFootHtml("ab".repeat(32)), / open>/);
});
