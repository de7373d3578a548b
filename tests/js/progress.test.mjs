// Unit tests of the progress pages' pieces (src/laizi/web/static/charts.js, profile.js): the
// rating as one number, rates, the SVG charts, the note of which tables move ranks, a game's
// statistics card and a past match's line. node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";
import { fakePage } from "./page_globals.mjs";

const schema = {
  rules: {
    presets: [{ name: "toy-preset", game: "toy", label: { zh: "玩具", en: "Toy" } }],
    games: [{ value: "toy", label: { zh: "玩具麻将", en: "Toy mahjong" } }],
  },
  words: { toy: { wins: { big: { zh: "大牌", en: "big one" } } } },
};
fakePage({ lang: "en", schema });
const charts = await import("../../src/laizi/web/static/charts.js");
const { gameHtml, matchHtml } = await import("../../src/laizi/web/static/profile.js");
const i18n = await import("../../src/laizi/web/static/i18n.js");
const { waitingHtml } = await import("../../src/laizi/web/static/roombar.js");

test("the rating is one number: the ordinal μ − 3σ to one decimal", () => {
  assert.equal(charts.ratingText({ mu: 27.0135, sigma: 8.003, ordinal: 3.0045 }), "3.0");
  assert.equal(charts.ratingText(-1.26), "-1.3");
  assert.equal(charts.ratingText(-0.01), "0.0");
  assert.equal(charts.ratingText(null), "—");
});

test("an average reads with one decimal at most", () => {
  assert.equal(charts.average(226 / 15), "15.1");
  assert.equal(charts.average(-10 / 3), "-3.3");
  assert.equal(charts.average(48), "48");
  assert.equal(charts.average(-0.01), "0");
});

test("rates read as percentages", () => {
  assert.equal(charts.percent(0.4), "40%");
  assert.equal(charts.percent(0.3333), "33.3%");
  assert.equal(charts.percent(0), "0%");
});

test("only a ranked room moves ranks; the others say so in both languages", () => {
  assert.equal(charts.movesRanks("ranked"), true);
  assert.equal(charts.noRanksNote("ranked"), "");
  assert.match(charts.noRanksNote("casual"), /This is a casual table: points and ranks don&#39;t move\. Only ranked tables/);
  i18n.setLang("zh");
  try {
    assert.match(charts.noRanksNote("friendly"), /这是友人场牌桌：积分和段位不变。只有排位匹配的牌桌/);
  } finally {
    i18n.setLang("en");
  }
});

test("a bot ladder table says the bots' ratings move and no person's standing does", () => {
  assert.match(charts.noRanksNote("ladder"), /data-no-ranks>This is a bot ladder table: the bots&#39; ratings move; no person&#39;s points or rank do\.</);
  i18n.setLang("zh");
  try {
    assert.match(charts.noRanksNote("ladder"), /这是机器人天梯的牌桌：变动的是机器人的等级分/);
  } finally {
    i18n.setLang("en");
  }
});

test("a room joined by its link says before the match whether it moves ranks", () => {
  const page = (kind) => ({ room: { kind, seats: [{ seat: 0, kind: "empty" }] }, code: "ABCD", seat: null, name: () => "" });
  assert.match(waitingHtml(page("friendly")), /data-no-ranks>This is a friendly table: points and ranks don&#39;t move\./);
  assert.match(waitingHtml(page("casual")), /This is a casual table/);
  assert.doesNotMatch(waitingHtml(page("ranked")), /data-no-ranks/);
});

test("bars are as long as their share of the largest (or of the given max)", () => {
  const svg = charts.barsSvg([{ label: "a", value: 2 }, { label: "b", value: 1 }], { width: 244, label: 96 });
  // the span is 244 - 96 - 48 = 100 units: 2 of 2 is 100, 1 of 2 is 50
  assert.deepEqual([...svg.matchAll(/width="(\d+)" height/g)].map((m) => m[1]), ["100", "50"]);
  const rates = charts.barsSvg([{ label: "w", value: 0.25, text: "25%" }], { max: 1, width: 244, label: 96 });
  assert.match(rates, /width="25" height/);
  assert.match(rates, />25%</);
  assert.equal(charts.barsSvg([]), "");
});

test("the line of match totals puts zero on its dashed line and reads exact texts", () => {
  const svg = charts.lineSvg(["50", "-50", "76/3"], { width: 112, height: 112, pad: 6 });
  assert.match(svg, /<line x1="6" x2="106" y1="56" y2="56"/); // 0 halfway between -50 and 50
  assert.match(svg, /points="6,6 56,106 106,30.7"/);
  assert.match(svg, /<title>25⅓<\/title>/);
  assert.equal(charts.lineSvg(["5"]), "");
});

const STATS = {
  matches: 2, hands: 5, wins: 2, win_rate: 0.4, deal_ins: 2, deal_in_rate: 0.4,
  points_per_hand: 15.0667, points_per_hand_exact: "226/15", places: [2, 0, 0, 0],
  big_wins: { big: 2 }, recent: ["50", "76/3"],
  best_hand: { room: "RANKD1", hand: 0, points: 60, points_exact: "60", wins: ["big"], replay: "/replay/RANKD1/0" },
};
const STANDING = {
  points: 10, points_exact: "10", rank: { zh: "白板", en: "White Dragon" },
  next_rank: { zh: "一万", en: "1 Character", missing: 90 }, rating: { mu: 27.0135, sigma: 8.003, ordinal: 3.0045 },
};

test("a game's card: figures, the best hand's replay, the charts, named by the game's words", () => {
  const html = gameHtml("toy", STANDING, STATS);
  assert.match(html, /<h2>Toy mahjong<\/h2>/);
  assert.match(html, /data-figure="win_rate"><span class="muted">Win rate<\/span><b>40%<\/b>/);
  assert.match(html, /data-figure="per_hand"><span class="muted">Average points per hand<\/span><b>15.1<\/b>/);
  assert.match(html, /<a href="\/replay\/RANKD1\/0" data-best>big one <span class="points plus">\+60<\/span><\/a>/);
  assert.match(html, /data-rating>3.0</);
  assert.match(html, /90 to 1 Character/);
  for (const chart of ["rates", "places", "big-wins", "recent"]) assert.match(html, new RegExp(`data-chart="${chart}"`));
  assert.match(gameHtml("toy", STANDING, { ...STATS, matches: 0 }), /No matches yet\./);
});

test("a past match: its kind, place, total, points moved and every hand's replay", () => {
  const html = matchHtml({
    room: "RANKD1", preset: "toy-preset", kind: "ranked", place: 1, total: 50, points_before: 0, points_after: 10,
    hands: ["/api/rooms/RANKD1/hands/0", "/api/rooms/RANKD1/hands/1"], record: "/api/matches/RANKD1/record",
  });
  assert.match(html, /Toy · ranked · place 1 · <span class="points plus">\+50<\/span> · Points 0 → 10/);
  assert.match(html, /<a href="\/replay\/RANKD1\/0">Hand 1<\/a> <a href="\/replay\/RANKD1\/1">Hand 2<\/a>/);
});
