// Unit tests of the record viewer's fold (src/laizi/web/static/recordfold.js) on real hands: the
// fixtures are a Wuhan and a Baishan hand the engine played (tests/js/fixtures/make_fixtures.py),
// their events logs (full and seat 1's) and what the server's replay frames show at every step.
// node --test tests/js/

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  FoldError,
  foldFile,
  fromMjai,
  isDecision,
  nextDecision,
  notation,
  readFile,
  seatFrame,
} from "../../src/laizi/web/static/recordfold.js";

const fixture = (name) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf-8");
const lines = (text) => text.split("\n").filter(Boolean).map((x) => JSON.parse(x));
const HANDS = ["wuhan", "baishan", "robkong", "escape"]; // the last two: examples/replay, a kong robbed and an escape

/** What a frame shows of the table, in the fixtures' terms. */
function table(f) {
  const players = f.view.players;
  return {
    hands: f.hands.map((h) => notation(h)),
    discards: players.map((p) => p.discards),
    claimed: players.map((p) => p.claimed),
    melds: players.map((p) => p.melds.map((m) => m.kind)),
    laid_out: players.map((p) => p.laid_out),
  };
}

// The table at each discard (not a tile laid out): the moments a record and a log both have. The
// frame before the discard: the table as the discarder saw it, the same whether claims and passes
// cut steps of their own (a record) or not (a log).
const atDiscards = (frames) => frames.flatMap((f, i) => (i > 0 && f.events[0].type === "discard" && !f.events[0].lay_out ? [table(frames[i - 1])] : []));

for (const name of HANDS) {
  test(`${name}: the record folds to the server's frames, step by step`, () => {
    const server = lines(fixture(`${name}.frames.jsonl`));
    const file = foldFile(fixture(`${name}.jsonl`));
    assert.equal(file.kind, "record");
    assert.equal(file.hands.length, 1);
    const frames = file.hands[0].frames;
    assert.equal(frames.length, server.length);
    frames.forEach((f, i) => {
      const s = server[i];
      assert.equal(f.first, s.first, `step ${i}`);
      assert.equal(f.actor, s.actor, `step ${i}`);
      assert.equal(f.legal, null); // a file says nothing of what was legal
      assert.deepEqual(table(f), { hands: s.hands, discards: s.discards, claimed: s.claimed, melds: s.melds, laid_out: s.laid_out }, `step ${i}`);
    });
    const end = frames.at(-1);
    assert.equal(end.view.phase, "over");
    assert.equal(end.events.at(-1).type, "end");
  });

  test(`${name}: the full events log shows the record's table at every discard`, () => {
    const log = foldFile(fixture(`${name}.full.mjson`));
    assert.equal(log.kind, "log");
    assert.equal(log.seat, null);
    const record = foldFile(fixture(`${name}.jsonl`)).hands[0].frames;
    const frames = log.hands[0].frames;
    assert.deepEqual(atDiscards(frames), atDiscards(record));
    assert.deepEqual(table(frames.at(-1)), table(record.at(-1)));
    const end = frames.at(-1).events.at(-1);
    const recorded = record.at(-1).events.at(-1);
    assert.equal(end.reason, recorded.reason);
    assert.equal(end.winner, recorded.winner);
    assert.deepEqual(end.payments, recorded.payments);
  });

  test(`${name}: seat 1's log is seat 1's view of the record: its own tiles, the others' hidden`, () => {
    const mine = foldFile(fixture(`${name}.seat1.mjson`));
    assert.equal(mine.seat, 1);
    const record = foldFile(fixture(`${name}.jsonl`)).hands[0].frames;
    const seen = atDiscards(mine.hands[0].frames);
    const shown = atDiscards(record.map((f) => seatFrame(f, 1)));
    assert.equal(seen.length, shown.length);
    assert.deepEqual(seen, shown);
    // before the end another seat's tiles are all hidden, in the right number
    const mid = record[Math.floor(record.length / 2)];
    const hidden = seatFrame(mid, 1);
    assert.deepEqual(hidden.hands[1], mid.hands[1]);
    for (const s of [0, 2, 3]) {
      assert.equal(hidden.hands[s].length, mid.hands[s].length);
      assert.ok(hidden.hands[s].every((x) => x === "?"));
    }
    // at the end every hand is shown, as the end event shows them to every seat
    assert.deepEqual(seatFrame(record.at(-1), 1).hands, record.at(-1).hands);
  });
}

test("a seat's view hides another seat's draws and concealed kong, not its own", () => {
  const record = foldFile(fixture("baishan.jsonl")).hands[0].frames;
  const kong = record.find((f) => f.events.some((e) => e.type === "concealed_kong"));
  const owner = kong.events.find((e) => e.type === "concealed_kong").seat;
  const other = (owner + 1) % 4;
  const theirs = seatFrame(kong, other);
  assert.equal(theirs.events.find((e) => e.type === "concealed_kong").tile, null);
  assert.equal(theirs.view.players[owner].melds.find((m) => m.kind === "concealed_kong").tiles, null);
  assert.ok(theirs.events.filter((e) => e.type === "draw" && e.seat === owner).every((e) => e.tile === null));
  const own = seatFrame(kong, owner);
  assert.match(own.view.players[owner].melds.find((m) => m.kind === "concealed_kong").tiles, /^(\d)\1\1\1[mpsz]$/);
  assert.equal(seatFrame(kong, null), kong); // all hands: the frame itself
});

test("next and previous decision: a seat's own actions, skipping forced ones when the frames say", () => {
  const folded = foldFile(fixture("wuhan.jsonl")).hands[0].frames;
  const server = lines(fixture("wuhan.frames.jsonl"));
  // a folded file: no `legal`, every action of the seat is a decision
  const seat2 = folded.map((f, i) => (f.actor === 2 ? i : null)).filter((i) => i != null);
  assert.equal(nextDecision(folded, 0, 2), seat2[0]);
  assert.equal(nextDecision(folded, seat2[0], 2), seat2[1]);
  assert.equal(nextDecision(folded, seat2[1], 2, -1), seat2[0]);
  assert.equal(nextDecision(folded, seat2[0], 2, -1), null);
  assert.equal(nextDecision(folded, 0, null), 1); // all hands: any seat's action
  // the server's frames carry `legal` (the engine asks only a seat that has a choice: these hands
  // have no step with one legal action); a step with one is not a decision
  const frames = server.map((s) => ({ actor: s.actor, legal: s.legal }));
  assert.ok(frames.slice(1).every((f) => f.legal > 1));
  frames[3] = { ...frames[3], legal: 1 };
  assert.equal(isDecision(frames[3], frames[3].actor), false);
  assert.equal(nextDecision(frames, 2, frames[3].actor) > 3, true);
  const all = frames.map((f, i) => (isDecision(f) ? i : null)).filter((i) => i != null);
  assert.deepEqual(all, frames.map((f, i) => (f.actor != null && f.legal > 1 ? i : null)).filter((i) => i != null));
  let at = 0;
  const walked = [];
  for (let i = nextDecision(frames, at); i != null; i = nextDecision(frames, at)) { walked.push(i); at = i; }
  assert.deepEqual(walked, all);
});

test("a file that is neither a record nor a log is refused with the line at fault", () => {
  const refused = (text) => { try { readFile(text); } catch (e) { assert.ok(e instanceof FoldError); return [e.code, e.line]; } return null; };
  assert.deepEqual(refused(""), ["empty", null]);
  assert.deepEqual(refused('{"type":"start"}\nnot json\n'), ["not_json", 2]);
  assert.deepEqual(refused('{"type":"hello"}\n'), ["unknown_format", 1]);
  assert.deepEqual(refused('[1, 2]\n'), ["not_event", 1]);
  assert.deepEqual(refused('{\n "rules": "baishan",\n "actions": []\n}\n'), ["script", null]);
  const cut = fixture("wuhan.jsonl").split("\n").filter((x) => !x.includes('"type":"deal"')).join("\n");
  assert.throws(() => foldFile(cut), (e) => e.code === "no_deal");
  const wrong = fixture("wuhan.jsonl").replace(/"type":"discard","seat":0,"tile":"(\d[mpsz])"/, '"type":"discard","seat":0,"tile":"9z"');
  assert.throws(() => foldFile(wrong), (e) => e.code === "bad_event" && e.line > 2);
});

test("a match's record holds its hands in order; mjai tiles read back", () => {
  const one = fixture("wuhan.jsonl");
  const match = foldFile(one + one.replace('"hand":0', '"hand":1'));
  assert.deepEqual(match.hands.map((h) => h.number), [0, 1]);
  assert.equal(match.hands[1].frames.length, match.hands[0].frames.length);
  assert.deepEqual(["E", "C", "5m", "?"].map(fromMjai), ["1z", "7z", "5m", "?"]);
  assert.equal(notation(["5z", "2m", "?", "1m", "9s"]), "12m9s5z");
});
