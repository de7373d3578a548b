// Unit tests of the server's words in the client (src/laizi/web/static/words.js, hints.js):
// names come from the schema's `words`, per game, found by game or preset; none are the
// client's own. node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";
import { fakePage } from "./page_globals.mjs";

const schema = {
  rules: { presets: [{ name: "toy-preset", game: "toy" }, { name: "other", game: "other" }] },
  words: {
    toy: {
      settlement: "fans",
      fans: { zimo: { zh: "自摸", en: "self-drawn" } },
      reasons: { no_triplet: { zh: "没有刻子", en: "no triplet" } },
    },
    other: { fans: { zimo: { zh: "自摸二", en: "self-drawn too" }, only: { zh: "独", en: "only here" } } },
  },
};
fakePage({ lang: "en", schema });
const { SCHEMA, named, wordsOf } = await import("../../src/laizi/web/static/words.js");
const { reasonText } = await import("../../src/laizi/web/static/hints.js");
const i18n = await import("../../src/laizi/web/static/i18n.js");

test("the schema is read once, when the module loads", () => {
  assert.deepEqual(SCHEMA, schema);
});

test("a game's words, by its id or one of its presets", () => {
  assert.equal(wordsOf("toy").settlement, "fans");
  assert.equal(wordsOf("toy-preset").settlement, "fans");
  assert.deepEqual(wordsOf("chess"), {});
});

test("a name in the reader's language: the game's own first, else any game's, else the id", () => {
  i18n.setLang("en");
  assert.equal(named("fans", "zimo", "other"), "self-drawn too");
  assert.equal(named("fans", "zimo", "toy-preset"), "self-drawn");
  assert.equal(named("fans", "only", "toy"), "only here");
  assert.equal(named("fans", "unknown", "toy"), "unknown");
  i18n.setLang("zh");
  assert.equal(named("fans", "zimo", "toy"), "自摸");
});

test("a refusal reason in the server's words; one it does not name is 'not allowed'", () => {
  i18n.setLang("en");
  assert.equal(reasonText("no_triplet", "toy"), "no triplet");
  assert.equal(reasonText({ code: "no_triplet" }, "toy"), "no triplet");
  assert.equal(reasonText({ code: "x", zh: "甲", en: "A" }, "toy"), "A");
  assert.equal(reasonText("made_up", "toy"), "not allowed by the rules");
  assert.equal(reasonText(null), "");
});
