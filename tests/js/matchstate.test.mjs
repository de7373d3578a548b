// Unit tests of the lobby's match card as a state machine (src/laizi/web/static/matchstate.js)
// and the hidden tab's flashing title (attention.js): node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";
import { fakePage } from "./page_globals.mjs";

fakePage();
const { clocks, initial, mayQueue, step, tierRows } = await import("../../src/laizi/web/static/matchstate.js");

const P = "toy-preset";
const queued = { type: "queued", preset: P, kind: "ranked", tier: "general", position: 3, waiting: 1.5, estimate_s: 30 };
const offer = { type: "matched", match: "m7", room: null, seat: 2, kind: "ranked", preset: P, people: 4, deadline_s: 10 };

function run(events, t0 = 1000) {
  let s = initial();
  const seen = [];
  events.forEach((e, i) => {
    s = step(s, e, t0 + i * 1000);
    seen.push(s.phase);
  });
  return { s, seen };
}

test("find → queued → offered → accepted (a click) → matched with the room", () => {
  const { s, seen } = run([
    { type: "find", preset: P, kind: "ranked" }, queued, offer, { type: "accept" }, { type: "accepted", match: "m7" },
    { type: "matched", match: "m7", room: "K7QX2M", seat: 2, kind: "ranked", preset: P },
  ]);
  assert.deepEqual(seen, ["connecting", "queued", "offered", "accepted", "accepted", "matched"]);
  assert.equal(s.room, "K7QX2M");
  assert.equal(s.seat, 2);
  assert.equal(s.token, null);
});

test("an offer is never accepted without the person: only an accept event moves it", () => {
  let s = run([{ type: "find", preset: P, kind: "ranked" }, queued, offer]).s;
  for (const e of [{ type: "welcome" }, { type: "pong" }, { type: "accepted", match: "other" }]) {
    if (e.type !== "accepted") s = step(s, e, 5000);
  }
  assert.equal(s.phase, "offered");
  assert.equal(clocks(s, 60000).offer, 0); // the deadline passing accepts nothing either
  assert.equal(step(s, { type: "tick" }, 60000).phase, "offered");
  assert.equal(step(initial(), { type: "accept" }, 0).phase, "idle"); // nothing to accept
});

test("the offer's countdown, the wait and the estimate run in whole seconds, never below 0", () => {
  const { s } = run([{ type: "find", preset: P, kind: "ranked" }, queued]); // queued at t=2000
  assert.deepEqual(clocks(s, 2000), { waited: 1, estimate: 30, offer: 0 });
  assert.deepEqual(clocks(s, 12400), { waited: 11, estimate: 20, offer: 0 });
  assert.equal(clocks(s, 99000).estimate, 0);
  const offered = step(s, offer, 20000);
  assert.equal(clocks(offered, 20000).offer, 10);
  assert.equal(clocks(offered, 20001).offer, 10);
  assert.equal(clocks(offered, 29500).offer, 1);
  assert.equal(clocks(offered, 31000).offer, 0);
});

test("a lapsed match: kept and requeued go back to the queue, barred and left to idle, with words", () => {
  const base = run([{ type: "find", preset: P, kind: "ranked" }, queued, offer, { type: "accept" }]).s;
  const kept = step(base, { type: "lapsed", match: "m7", outcome: "kept" }, 9000);
  assert.equal(kept.phase, "queued");
  assert.deepEqual(kept.notice, { key: "lapsed_kept", args: [] });
  const back = step(kept, { ...queued, position: 1 }, 9500);
  assert.equal(back.position, 1);
  assert.equal(back.notice.key, "lapsed_kept"); // the word stays while back in the queue
  assert.equal(step(base, { type: "lapsed", match: "m7", outcome: "requeued" }, 0).phase, "queued");
  const barred = step(base, { type: "lapsed", match: "m7", outcome: "barred", seconds: 300 }, 0);
  assert.equal(barred.phase, "idle");
  assert.deepEqual(barred.notice, { key: "lapsed_barred", args: [300] });
  assert.equal(step(base, { type: "lapsed", match: "m7", outcome: "left" }, 0).phase, "idle");
});

test("unqueued says why; a refusal while connecting leaves the card idle with the server's error", () => {
  const q = run([{ type: "find", preset: P, kind: "casual" }, queued]).s;
  for (const reason of ["unqueue", "seated", "dropped"]) {
    const s = step(q, { type: "unqueued", reason }, 0);
    assert.equal(s.phase, "idle");
    assert.equal(s.notice.key, `unqueued_${reason}`);
  }
  const refused = step(step(initial(), { type: "find", preset: P, kind: "ranked" }, 0),
    { type: "error", code: "account_required", message: "log in", message_zh: "请登录" }, 0);
  assert.equal(refused.phase, "idle");
  assert.equal(refused.error.code, "account_required");
  assert.equal(step(refused, { type: "find", preset: P, kind: "casual" }, 0).error, null);
  // a flood's refusal while queued keeps the place
  assert.equal(step(q, { type: "error", code: "rate_limited" }, 0).phase, "queued");
});

test("a guest keeps its queue key; a matched guest gets its seat's token", () => {
  let s = run([{ type: "find", preset: P, kind: "casual" }, { ...queued, kind: "casual", key: "k".repeat(24) }]).s;
  assert.equal(s.key, "k".repeat(24));
  s = step(s, { type: "find", preset: P, kind: "casual" }, 0); // a reload: the key is sent again
  assert.equal(s.key, "k".repeat(24));
  s = step(s, { type: "matched", match: "m1", room: "ABC123", seat: 1, kind: "casual", preset: P, token: "k".repeat(24) }, 0);
  assert.equal(s.phase, "matched");
  assert.equal(s.token, "k".repeat(24));
  // sitting down at the matched table unqueues nothing more: the card stays matched
  assert.equal(step(s, { type: "unqueued", reason: "seated" }, 0).phase, "matched");
});

test("ranked is for accounts, casual for everyone", () => {
  assert.equal(mayQueue("ranked", true), true);
  assert.equal(mayQueue("ranked", false), false);
  assert.equal(mayQueue("ranked", null), false);
  assert.equal(mayQueue("casual", false), true);
});

test("the tiers' rows: every tier the server names, in order, with its count for this preset and kind", () => {
  const counts = {
    tiers: [{ id: "general", zh: "一般", en: "General" }, { id: "upper", zh: "上级", en: "Upper" }],
    queues: [
      { preset: P, kind: "ranked", tier: "upper", waiting: 2 },
      { preset: P, kind: "casual", tier: "general", waiting: 5 },
      { preset: "other", kind: "ranked", tier: "general", waiting: 7 },
    ],
    waiting: 14,
  };
  assert.deepEqual(tierRows(counts, P, "ranked"), [
    { id: "general", name: { zh: "一般", en: "General" }, waiting: 0 },
    { id: "upper", name: { zh: "上级", en: "Upper" }, waiting: 2 },
  ]);
  assert.deepEqual(tierRows(counts, P, "casual").map((r) => r.waiting), [5, 0]);
  assert.deepEqual(tierRows(null, P, "ranked"), []);
});

test("a hidden tab's title flashes until the tab is visible again, then comes back", async () => {
  const listeners = new Map();
  const timers = [];
  globalThis.document = {
    documentElement: {}, title: "laizi", visibilityState: "hidden",
    addEventListener: (k, f) => listeners.set(k, f), removeEventListener: (k) => listeners.delete(k),
  };
  const realSet = globalThis.setInterval;
  const realClear = globalThis.clearInterval;
  globalThis.setInterval = (f) => { timers.push(f); return timers.length; };
  globalThis.clearInterval = (id) => { timers[id - 1] = null; };
  try {
    const { flashUntilVisible, isFlashing } = await import("../../src/laizi/web/static/attention.js");
    flashUntilVisible("[!] ");
    assert.equal(document.title, "[!] laizi");
    timers[0]();
    assert.equal(document.title, "laizi");
    timers[0]();
    assert.equal(document.title, "[!] laizi");
    assert.equal(isFlashing(), true);
    document.visibilityState = "visible";
    listeners.get("visibilitychange")();
    assert.equal(document.title, "laizi");
    assert.equal(isFlashing(), false);
    assert.equal(timers[0], null); // the timer is gone
    flashUntilVisible("[!] "); // a visible tab: nothing flashes
    assert.equal(document.title, "laizi");
  } finally {
    globalThis.setInterval = realSet;
    globalThis.clearInterval = realClear;
  }
});
