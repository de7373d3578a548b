// Unit tests of the table's clock arithmetic (src/laizi/web/static/clock.js): node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";
import { fakePage } from "./page_globals.mjs";

fakePage();
const { countdown, othersClock, promptClock, timeLeft } = await import("../../src/laizi/web/static/clock.js");

test("the decision's time runs first, then the bank", () => {
  assert.deepEqual(timeLeft(15, 60, 5), { main: 10, bank: 60, total: 15 });
  assert.deepEqual(timeLeft(15, 60, 20), { main: 0, bank: 55, total: 15 });
  assert.deepEqual(timeLeft(15, 60, 100), { main: 0, bank: 0, total: 15 });
});

test("a prompt's clock counts from when it arrived, after the time already used", () => {
  const prompt = { seconds: 15, bank: 30, elapsed: 2 };
  assert.deepEqual(promptClock(prompt, 1000, 4000), { main: 10, bank: 30, total: 15 });
  assert.deepEqual(promptClock(prompt, 1000, 21000), { main: 0, bank: 23, total: 15 });
  assert.equal(promptClock(null, 0, 0), null);
});

test("another seat's clock: the server's `clock` on its turn, else the table's time per decision", () => {
  const model = { players: [{}, {}, {}, {}], phase: "turn", to_act: [2] };
  const room = { table: { action_seconds: 20 } };
  const clock = { seat: 2, seconds: 10, bank: 40, elapsed: 1, at: 0 };
  assert.deepEqual(othersClock(model, clock, room, 0, 4000), { main: 5, bank: 40, total: 10 });
  // the clock of a seat no longer to act is not used: the table's seconds from the turn's start
  assert.deepEqual(othersClock({ ...model, to_act: [3] }, clock, room, 1000, 6000), { main: 15, bank: 0, total: 20 });
  assert.equal(othersClock({ ...model, phase: "over" }, clock, room, 0, 0), null);
  assert.equal(othersClock({ ...model, to_act: [3] }, clock, { table: {} }, 0, 0), null);
});

test("a countdown is whole seconds, never below zero", () => {
  assert.equal(countdown(30, 0, 0), 30);
  assert.equal(countdown(30, 0, 29500), 1);
  assert.equal(countdown(30, 0, 45000), 0);
});
