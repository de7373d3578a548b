// Unit tests of the table's quick chat (src/laizi/web/static/chat.js): the server's phrases in the
// reader's language, bubbles that last 3 s, mutes kept in localStorage, the picker. node --test

import assert from "node:assert/strict";
import { test } from "node:test";
import { fakePage } from "./page_globals.mjs";

const schema = {
  rules: { presets: [] },
  words: {},
  chat: {
    phrases: [
      { id: "hello", kind: "phrase", zh: "大家好", en: "Hello" },
      { id: "nice", kind: "phrase", zh: "漂亮", en: "Nice" },
      { id: "smile", kind: "emote", zh: "开心", en: "happy", face: "(＾▽＾)" },
    ],
  },
};
fakePage({ lang: "en", schema });
const chat = await import("../../src/laizi/web/static/chat.js");
const i18n = await import("../../src/laizi/web/static/i18n.js");
const { BUBBLE_MS, POP_MS, Bubbles, ChatMutes, TableChat, chatPhrases, phraseText } = chat;

function memoryStorage() {
  const store = new Map();
  return { getItem: (k) => (store.has(k) ? store.get(k) : null), setItem: (k, v) => store.set(k, String(v)), store };
}

/** A table page as chat.js sees it: seat, room, names, the socket, render. */
function fakeTable({ seat = 0, code = "ABC234", storage = memoryStorage() } = {}) {
  let clock = 0;
  const sent = [];
  const page = {
    seat,
    code,
    renders: 0,
    room: { seats: [0, 1, 2, 3].map((s) => ({ seat: s, kind: s === 3 ? "bot" : "human", name: `P${s}` })) },
    name: (s) => `P${s}`,
    conn: { send: (m) => sent.push(m) },
    render() { this.renders += 1; },
  };
  const timers = [];
  page.chat = new TableChat(page, {
    mutes: new ChatMutes(code, storage),
    bubbles: new Bubbles(() => clock),
    later: (fn, ms) => timers.push([fn, ms]),
  });
  return { page, sent, timers, storage, tick: (ms) => { clock += ms; } };
}

const click = (attrs) => ({ target: { closest: () => ({ dataset: attrs }) } });

test("the phrases are the server's, in the reader's language; an emote shows its face", () => {
  assert.equal(chatPhrases().length, 3);
  assert.deepEqual(chatPhrases({}), []);
  i18n.setLang("zh");
  assert.equal(phraseText("hello"), "大家好");
  i18n.setLang("en");
  assert.equal(phraseText("hello"), "Hello");
  assert.equal(phraseText("smile"), "(＾▽＾)");
  assert.equal(phraseText("made_up"), null);
});

test("a phrase shows as a bubble at its seat for 3 s, then the page is drawn without it", () => {
  const { page, timers, tick } = fakeTable({ seat: 1 });
  assert.equal(page.chat.hear({ type: "chat", seat: 2, phrase: "nice" }), true);
  assert.equal(page.chat.bubbles.at(2), "nice");
  assert.deepEqual(timers.map(([, ms]) => ms), [BUBBLE_MS + 50]);
  // seen from seat 1, seat 2 sits to the right; it pops in once, not at every redraw after
  assert.match(page.chat.html(), /class="chat-bubble chat-right chat-new" data-chat-seat="2"[^>]*>Nice</);
  tick(POP_MS);
  assert.match(page.chat.html(), /class="chat-bubble chat-right" data-chat-seat="2"[^>]*>Nice</);
  tick(BUBBLE_MS - POP_MS - 1);
  assert.equal(page.chat.bubbles.at(2), "nice");
  tick(1);
  assert.equal(page.chat.bubbles.at(2), null);
  assert.doesNotMatch(page.chat.html(), /chat-bubble/);
  timers[0][0]();
  assert.equal(page.renders, 1);
});

test("what is not a phrase of the list, or from no seat, shows nothing", () => {
  const { page } = fakeTable();
  for (const m of [{ seat: 2, phrase: "free text" }, { seat: 7, phrase: "hello" }, { seat: "1", phrase: "hello" }]) {
    assert.equal(page.chat.hear({ type: "chat", ...m }), false);
  }
  assert.doesNotMatch(page.chat.html(), /chat-bubble/);
});

test("a muted seat's phrases are not shown; the mute is kept per room in localStorage", () => {
  const storage = memoryStorage();
  const { page } = fakeTable({ seat: 0, storage });
  page.chat.onClick(click({ chat: "mute", seat: "2" }));
  assert.equal(page.chat.hear({ type: "chat", seat: 2, phrase: "hello" }), false);
  assert.equal(page.chat.hear({ type: "chat", seat: 1, phrase: "hello" }), true);
  assert.deepEqual(JSON.parse(storage.store.get("laizi.chat")), { all: false, rooms: { ABC234: [2] } });
  // a reload of the same room remembers it; another room does not mute its seat 2
  assert.equal(new ChatMutes("ABC234", storage).muted(2), true);
  assert.equal(new ChatMutes("XYZ789", storage).muted(2), false);
  page.chat.onClick(click({ chat: "mute", seat: "2" }));
  assert.equal(new ChatMutes("ABC234", storage).muted(2), false);
});

test("mute everyone hides every other seat (one's own phrase still shows) and is kept", () => {
  const storage = memoryStorage();
  const { page } = fakeTable({ seat: 0, storage });
  page.chat.hear({ type: "chat", seat: 1, phrase: "hello" });
  page.chat.onClick(click({ chat: "mute-all" }));
  assert.equal(page.chat.bubbles.at(1), null); // the bubble showing goes at once
  assert.equal(page.chat.hear({ type: "chat", seat: 3, phrase: "hello" }), false);
  assert.equal(page.chat.hear({ type: "chat", seat: 0, phrase: "smile" }), true);
  assert.equal(new ChatMutes("OTHER1", storage).muted(1), true);
  page.chat.onClick(click({ chat: "mute-all" }));
  assert.equal(new ChatMutes("OTHER1", storage).muted(1), false);
});

test("a room's mutes are kept for the last 20 rooms only", () => {
  const storage = memoryStorage();
  for (let i = 0; i < 25; i++) new ChatMutes(`ROOM${i}`, storage).toggle(1);
  const rooms = Object.keys(JSON.parse(storage.store.get("laizi.chat")).rooms);
  assert.equal(rooms.length, 20);
  assert.equal(rooms[0], "ROOM5");
  assert.equal(new ChatMutes("ROOM0", storage).muted(1), false);
  assert.equal(new ChatMutes("ROOM24", storage).muted(1), true);
  storage.setItem("laizi.chat", "{not json");
  assert.equal(new ChatMutes("ROOM24", storage).muted(1), false); // a broken value: nothing muted
});

test("the picker offers every phrase and emote to a seat, and saying one sends its id", () => {
  const { page, sent } = fakeTable({ seat: 0 });
  assert.doesNotMatch(page.chat.html(), /chat-picker/);
  page.chat.onClick(click({ chat: "toggle" }));
  const html = page.chat.html();
  assert.match(html, /class="chat-btn" data-chat="toggle" aria-expanded="true"/);
  assert.equal((html.match(/data-chat="say"/g) || []).length, 3);
  assert.match(html, /aria-label="happy"[^>]*>\(＾▽＾\)</);
  // mutes for the other people (not oneself, not the bot), and for everyone
  assert.deepEqual([...html.matchAll(/data-chat="mute" data-seat="(\d)"/g)].map((m) => m[1]), ["1", "2"]);
  assert.match(html, /data-chat="mute-all" aria-pressed="false">Mute everyone</);
  page.chat.onClick(click({ chat: "say", phrase: "nice" }));
  assert.deepEqual(sent, [{ type: "chat", phrase: "nice" }]);
  assert.equal(page.chat.open, false);
});

test("a spectator's picker says it can't chat and sends nothing, but may mute", () => {
  const { page, sent } = fakeTable({ seat: null });
  page.chat.onClick(click({ chat: "toggle" }));
  const html = page.chat.html();
  assert.doesNotMatch(html, /data-chat="say"/);
  assert.match(html, /Spectators can't chat/);
  assert.deepEqual([...html.matchAll(/data-chat="mute" data-seat="(\d)"/g)].map((m) => m[1]), ["0", "1", "2"]);
  page.chat.onClick(click({ chat: "say", phrase: "nice" }));
  assert.deepEqual(sent, []);
});
