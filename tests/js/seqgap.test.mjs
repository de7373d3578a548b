// Unit tests of the sequence-gap check (src/laizi/web/static/seqgap.js): node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";
import { checkSeq } from "../../src/laizi/web/static/seqgap.js";

const event = (seq) => ({ type: "event", seq, event: {} });

test("events in order are kept, each one the next seq", () => {
  assert.deepEqual(checkSeq(event(5), 4), { keep: true, lastSeq: 5, resync: false });
  assert.deepEqual(checkSeq(event(1), null), { keep: true, lastSeq: 1, resync: false });
});

test("a gap holds the event back and asks for a resync from the last seq seen, once", () => {
  assert.deepEqual(checkSeq(event(9), 4), { keep: false, lastSeq: 4, resync: true });
  // the next event past the same gap: still held, no second request
  assert.deepEqual(checkSeq(event(10), 4, 4), { keep: false, lastSeq: 4, resync: false });
  // the resync's answer fills the gap in order
  assert.deepEqual(checkSeq(event(5), 4, 4), { keep: true, lastSeq: 5, resync: false });
});

test("an event sent again is dropped; a snapshot sets the seq; other messages pass", () => {
  assert.deepEqual(checkSeq(event(3), 4), { keep: false, lastSeq: 4, resync: false });
  assert.deepEqual(checkSeq({ type: "snapshot", seq: 40 }, 4), { keep: true, lastSeq: 40, resync: false });
  assert.deepEqual(checkSeq({ type: "prompt", id: 1 }, 4), { keep: true, lastSeq: 4, resync: false });
});
