// Unit tests of the client's model (src/laizi/web/static/model.js): node --test tests/js/
// The browser test tests/test_web_model.py checks it against the engine's views of whole hands;
// these check each event's effect on its own, without a browser or a server.

import assert from "node:assert/strict";
import { test } from "node:test";
import { applyEvent, fromView, ownHand } from "../../src/laizi/web/static/model.js";

const HANDS = ["11123456789999m", "123456789p1234s", "123456789s1234z", "11223344556677z"];

/** A model of seat 0 after start and deal (the dealer, seat 0, holds 14 tiles). */
function dealt(seat = 0) {
  const model = { seat };
  applyEvent(model, { type: "start", game: "wuhan", hand: 2, dealer: 0, scores: [0, 0, 0, 0], commitment: "ab" });
  applyEvent(model, { type: "deal", indicator: "4m", laizi: "5m", pi: ["4m"], must_gang: ["7z", "4m"], hands: HANDS, live: 70 });
  return model;
}

test("start resets the model and keeps the seat", () => {
  const model = { seat: 2, hand: 0, stale: true };
  applyEvent(model, { type: "start", game: "baishan", hand: 3, dealer: 1, scores: [1, 2, 3, 4], commitment: "cd", rules: { preset: "baishan" } });
  assert.equal(model.stale, undefined);
  assert.equal(model.seat, 2);
  assert.equal(model.game, "baishan");
  assert.equal(model.hand, 3);
  assert.deepEqual(model.to_act, [1]);
  assert.equal(model.tiles_left, 83);
  assert.deepEqual(model.rules, { preset: "baishan" });
  assert.equal(model.players.length, 4);
  assert.deepEqual(model.hand_tiles, []);
});

test("deal: the special tiles, 14 tiles for the dealer, 13 for the others, the live count", () => {
  const model = dealt();
  assert.equal(model.laizi, "5m");
  assert.deepEqual(model.pi, ["4m"]);
  assert.deepEqual(model.must_gang, ["7z", "4m"]);
  assert.equal(model.tiles_left, 82); // the indicator is turned from the wall
  assert.equal(model.live, 70);
  assert.deepEqual(model.players.map((p) => p.hand_size), [14, 13, 13, 13]);
  assert.equal(model.hand_tiles.length, 14);
  assert.equal(model.hand_tiles.filter((x) => x === "1m").length, 3);
});

test("a spectator's model has no hand", () => {
  const model = { seat: null };
  applyEvent(model, { type: "start", hand: 0, dealer: 0, scores: [0, 0, 0, 0] });
  applyEvent(model, { type: "deal", hands: HANDS });
  assert.equal(model.hand_tiles, null);
  assert.deepEqual(ownHand(model), { tiles: [], drawn: null });
});

test("discard opens a claim window; the next draw closes it and moves the turn", () => {
  const model = dealt();
  applyEvent(model, { type: "discard", seat: 0, tile: "9m" });
  assert.equal(model.phase, "claim");
  assert.deepEqual(model.claim, { tile: "9m", from: 0 });
  assert.deepEqual(model.to_act, []);
  assert.deepEqual(model.players[0].discards, ["9m"]);
  assert.equal(model.players[0].hand_size, 13);
  assert.equal(model.hand_tiles.filter((x) => x === "9m").length, 3);
  applyEvent(model, { type: "draw", seat: 1, live: 69 });
  assert.equal(model.phase, "turn");
  assert.equal(model.claim, undefined);
  assert.deepEqual(model.to_act, [1]);
  assert.equal(model.players[1].hand_size, 14);
  assert.equal(model.tiles_left, 81);
  assert.equal(model.live, 69);
});

test("the seat's own draw is shown last, apart from the sorted hand", () => {
  const model = dealt();
  applyEvent(model, { type: "discard", seat: 0, tile: "1m" });
  for (const seat of [1, 2, 3]) {
    applyEvent(model, { type: "draw", seat });
    applyEvent(model, { type: "discard", seat, tile: "9s" });
  }
  applyEvent(model, { type: "draw", seat: 0, tile: "2m" });
  assert.equal(model.drawn, "2m");
  const { tiles, drawn } = ownHand(model);
  assert.equal(drawn, "2m");
  assert.deepEqual(tiles, ["1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9m", "9m", "9m"]);
  assert.equal(model.hand_tiles.length, 14);
});

test("a pung takes two tiles from the hand, marks the discard claimed and gives the turn", () => {
  const model = dealt(1);
  applyEvent(model, { type: "discard", seat: 0, tile: "1p" });
  applyEvent(model, { type: "pung", seat: 1, from: 0, tile: "1p", counts: [null, { opened: 1, kongs: 0 }, null, null] });
  const p = model.players[1];
  assert.deepEqual(p.melds, [{ kind: "pung", tiles: "111p", from: 0 }]);
  assert.equal(p.openings, 1);
  assert.equal(p.opened, 1);
  assert.equal(p.kongs, 0);
  assert.equal(p.hand_size, 11);
  assert.deepEqual(model.players[0].claimed, [0]);
  assert.deepEqual(model.to_act, [1]);
  assert.equal(model.hand_tiles.includes("1p"), false);
});

test("a chow takes the two other tiles; an exposed kong three", () => {
  const model = dealt(1);
  applyEvent(model, { type: "discard", seat: 0, tile: "4p" });
  applyEvent(model, { type: "chow", seat: 1, from: 0, tile: "4p", tiles: "345p" });
  assert.deepEqual(model.players[1].melds, [{ kind: "chow", tiles: "345p", from: 0 }]);
  assert.equal(model.hand_tiles.includes("3p") || model.hand_tiles.includes("5p"), false);
  assert.equal(model.hand_tiles.includes("4p"), true); // its own 4p stays
  applyEvent(model, { type: "discard", seat: 1, tile: "9p" });
  applyEvent(model, { type: "kong", seat: 2, from: 1, tile: "9p" });
  assert.deepEqual(model.players[2].melds, [{ kind: "exposed_kong", tiles: "9999p", from: 1 }]);
  assert.equal(model.players[2].hand_size, 10);
});

test("an added kong opens a rob window; the replacement draw completes the kong", () => {
  const model = dealt(1);
  applyEvent(model, { type: "discard", seat: 0, tile: "1p" });
  applyEvent(model, { type: "pung", seat: 1, from: 0, tile: "1p" });
  applyEvent(model, { type: "added_kong", seat: 1, tile: "1p" });
  assert.equal(model.phase, "rob");
  assert.deepEqual(model.rob, { seat: 1, tile: "1p" });
  assert.deepEqual(model.claim, { tile: "1p", from: 1 });
  applyEvent(model, { type: "draw", seat: 1, from: "back", tile: "5s" });
  assert.deepEqual(model.players[1].melds[0], { kind: "added_kong", tiles: "1111p", from: 0 });
  assert.equal(model.rob, null);
  assert.equal(model.drawn, "5s");
});

test("a concealed kong of another seat shows backs; laying out goes beside the melds", () => {
  const model = dealt();
  applyEvent(model, { type: "concealed_kong", seat: 2 });
  assert.deepEqual(model.players[2].melds, [{ kind: "concealed_kong", tiles: null }]);
  assert.equal(model.players[2].hand_size, 9);
  applyEvent(model, { type: "lay_out", seat: 0, tile: "7z" });
  assert.deepEqual(model.players[0].laid_out, ["7z"]);
  assert.deepEqual(model.players[0].discards, []);
  assert.equal(model.phase, "turn");
});

test("the last draw starts the 海底 round; the end closes the hand", () => {
  const model = dealt();
  applyEvent(model, { type: "discard", seat: 0, tile: "9m" });
  applyEvent(model, { type: "draw", seat: 1, final: true });
  assert.equal(model.phase, "final");
  assert.deepEqual(model.to_act, [1]);
  applyEvent(model, { type: "win", seat: 1, how: "self_draw", tile: "2p" });
  assert.equal(model.last.tile, "2p");
  applyEvent(model, { type: "end", reason: "win", winner: 1, payments: [-2, 6, -2, -2], hands: HANDS, seed: "00" });
  assert.equal(model.phase, "over");
  assert.deepEqual(model.to_act, []);
  assert.deepEqual(model.result, { reason: "win", winner: 1, payments: [-2, 6, -2, -2], hands: HANDS, seed: "00" });
});

test("multipliers and running fans are taken as the server sends them", () => {
  const model = dealt();
  const m = { total: 2, factors: [{ name: "dealer", count: 1, factor: 2 }] };
  const fans = [{ id: "zuozhuang", zh: "坐庄", en: "dealer", fans: 1 }];
  applyEvent(model, { type: "note", multipliers: [m, m, m, m], fans: [fans, [], [], []] });
  assert.deepEqual(model.players[3].multiplier, m);
  assert.deepEqual(model.players[0].fans, fans);
  assert.deepEqual(model.players[1].fans, []);
});

test("fromView copies the view and reads its concealed tiles", () => {
  const view = { seat: 0, concealed: "123m", phase: "turn", players: [], rules: { preset: "x" } };
  const model = fromView(view, null);
  assert.deepEqual(model.hand_tiles, ["1m", "2m", "3m"]);
  assert.deepEqual(model.rules, { preset: "x" });
  model.players.push(1);
  assert.deepEqual(view.players, []); // a copy, not the view itself
  assert.deepEqual(fromView(view, { preset: "y" }).rules, { preset: "y" });
});
