// Unit tests of issue 27's feedback modules (src/laizi/web/static): the seat a prompt's answer
// comes from (model.js), the turned tile of a claimed meld (melds.js), sound offered once
// (soundoffer.js), the invite's share or copy (invite.js) and the big banner (bigbanner.js).
// node --test tests/js/

import assert from "node:assert/strict";
import { test } from "node:test";
import { fakePage } from "./page_globals.mjs";

fakePage({ lang: "en" });
const { answers } = await import("../../src/laizi/web/static/model.js");
const { meldLayout, turnedIndex } = await import("../../src/laizi/web/static/melds.js");
const { offerDue, offerSound, soundOfferHtml } = await import("../../src/laizi/web/static/soundoffer.js");
const { roomLink, shareLink } = await import("../../src/laizi/web/static/invite.js");
const { bigBannerHtml } = await import("../../src/laizi/web/static/bigbanner.js");

test("the seat's own decision answers its prompt, whichever tab made it; a draw or another seat does not", () => {
  for (const type of ["discard", "lay_out", "concealed_kong", "added_kong", "claim", "pass", "chow", "pung", "kong", "win", "abandon"]) {
    assert.equal(answers({ type, seat: 2 }, 2), true, type);
    assert.equal(answers({ type, seat: 1 }, 2), false, type);
  }
  for (const type of ["draw", "deal", "start", "kong_paid", "end"]) assert.equal(answers({ type, seat: 2 }, 2), false, type);
  assert.equal(answers({ type: "discard", seat: 0 }, null), false); // a spectator has no prompt
});

test("the claimed tile lies on the side of the seat it came from", () => {
  // owner 0: seat 3 is the seat before (left), seat 2 across, seat 1 the next (right)
  assert.equal(turnedIndex(3, 0, 3), 0);
  assert.equal(turnedIndex(3, 0, 2), 1);
  assert.equal(turnedIndex(3, 0, 1), 2);
  assert.equal(turnedIndex(4, 0, 1), 3);
  // the same sides seen from seat 2
  assert.equal(turnedIndex(3, 2, 1), 0);
  assert.equal(turnedIndex(3, 2, 0), 1);
  assert.equal(turnedIndex(3, 2, 3), 2);
  assert.equal(turnedIndex(4, 1, null), -1); // a concealed kong: nothing claimed
});

test("a meld's tiles in the order shown, exactly one turned (none in a concealed kong)", () => {
  const shown = (meld, owner, claimed) => meldLayout(meld, owner, claimed).map((x) => (x.turned ? `(${x.tile})` : x.tile)).join(" ");
  assert.equal(shown({ kind: "pung", tiles: "555m", from: 3 }, 0), "(5m) 5m 5m");
  assert.equal(shown({ kind: "pung", tiles: "555m", from: 1 }, 0), "5m 5m (5m)");
  assert.equal(shown({ kind: "exposed_kong", tiles: "7777z", from: 2 }, 0), "7z (7z) 7z 7z");
  // a chow comes from the seat before: the tile taken first, turned, the rest in order
  assert.equal(shown({ kind: "chow", tiles: "345p", from: 0 }, 1, "4p"), "(4p) 3p 5p");
  assert.equal(shown({ kind: "chow", tiles: "345p", from: 0 }, 1), "(3p) 4p 5p"); // not known: the first
  assert.equal(shown({ kind: "concealed_kong", tiles: "1111s" }, 0), "1s 1s 1s 1s");
  assert.deepEqual(meldLayout({ kind: "concealed_kong", tiles: null }, 1), []);
});

function store(values = {}) {
  const map = new Map(Object.entries(values));
  return { getItem: (k) => (map.has(k) ? map.get(k) : null), setItem: (k, v) => map.set(k, String(v)) };
}

test("sound is offered once, at the first tap, only where no choice was made", () => {
  const s = store();
  const page = {};
  assert.equal(offerDue(s), true);
  assert.equal(offerSound(page, s), true);
  assert.match(soundOfferHtml(page, s), /data-cmd="sound-yes"/);
  assert.equal(offerSound(page, s), false); // the second tap: already offered
  assert.equal(offerSound({}, s), false); // a reload: never again
  assert.equal(offerDue(store({ "laizi.sound": "off" })), false); // the bar's switch was used
  s.setItem("laizi.sound", "on");
  assert.equal(soundOfferHtml(page, s), ""); // answered: gone
});

test("invite: a phone's share sheet, else the clipboard, else the copy command", async () => {
  const url = roomLink("https://example.test", "ABC123");
  assert.equal(url, "https://example.test/r/ABC123");
  const shared = [];
  const copied = [];
  const nav = { share: async (data) => shared.push(data), clipboard: { writeText: async (x) => copied.push(x) } };
  assert.equal(await shareLink(url, "room", { nav, phone: true }), "shared");
  assert.deepEqual(shared, [{ title: "room", text: "room", url }]);
  assert.equal(await shareLink(url, "room", { nav, phone: false }), "copied"); // a desktop copies
  assert.deepEqual(copied, [url]);
  const closed = { share: async () => { throw Object.assign(new Error("x"), { name: "AbortError" }); } };
  assert.equal(await shareLink(url, "room", { nav: closed, phone: true }), "cancelled");
  const refused = { clipboard: { writeText: async () => { throw new Error("denied"); } } };
  const doc = {
    body: { append() {} },
    createElement: () => ({ style: {}, setAttribute() {}, select() {}, remove() {} }),
    execCommand: (cmd) => cmd === "copy",
  };
  assert.equal(await shareLink(url, "room", { nav: refused, doc, phone: false }), "copied");
  assert.equal(await shareLink(url, "room", { nav: {}, doc: null, phone: true }), "failed");
});

test("the big banner: a win with its burst, a drawn hand with its second line, text escaped", () => {
  assert.match(bigBannerHtml("win", "Ann wins"), /big-burst.*<b class="big-text">Ann wins<\/b>/);
  const drawn = bigBannerHtml("drawn", "Drawn hand", "nobody won");
  assert.doesNotMatch(drawn, /big-burst/);
  assert.match(drawn, /<small class="big-sub">nobody won<\/small>/);
  assert.match(bigBannerHtml("win", "<b>"), /&lt;b&gt;/);
});
