// Quick chat (快捷语) at the table: the button and its picker of the server's phrases and emotes
// (GET /api/settings/schema, `chat`; docs/protocol.md "Quick chat"), a bubble at the speaking seat
// for 3 s, and a mute per seat and for everyone, kept in this browser. Never free text: the page
// sends a phrase's id and shows what the server's list says for it.

import { POSITIONS } from "./centre.js";
import { pick, t } from "./i18n.js";
import { esc } from "./util.js";
import { SCHEMA } from "./words.js";

export const BUBBLE_MS = 3000;
/** How long a new bubble pops in (the board is drawn again on every message: it pops once). */
export const POP_MS = 250;
const KEY = "laizi.chat";
const ROOMS_KEPT = 20; // a seat's mute is kept for the last rooms only (codes are not reused)

/** The server's phrases and emotes ([] when the schema could not be read: no chat offered). */
export function chatPhrases(schema = SCHEMA) {
  const list = schema && schema.chat && schema.chat.phrases;
  return Array.isArray(list) ? list : [];
}

/** What a phrase shows in the reader's language (an emote: its face); null for an id the list
 * does not have (a newer server's: not shown). */
export function phraseText(id, phrases = chatPhrases()) {
  const p = phrases.find((x) => x.id === id);
  if (!p) return null;
  return p.kind === "emote" && p.face ? p.face : pick([p.zh, p.en]);
}

/** The mutes this browser keeps: everyone (`all`), and per room the seats muted. */
export class ChatMutes {
  constructor(code, storage = globalThis.localStorage) {
    this.code = code;
    this.storage = storage;
    this.state = this.read();
  }

  read() {
    try {
      const s = JSON.parse(this.storage.getItem(KEY) || "null");
      const rooms = s && s.rooms && typeof s.rooms === "object" ? s.rooms : {};
      return { all: Boolean(s && s.all), rooms };
    } catch {
      return { all: false, rooms: {} };
    }
  }

  get all() {
    return this.state.all;
  }

  seats() {
    const seats = this.state.rooms[this.code];
    return Array.isArray(seats) ? seats : [];
  }

  /** Whether `seat`'s phrases are hidden here (one by one, or everyone muted). */
  muted(seat) {
    return this.state.all || this.seats().includes(seat);
  }

  toggle(seat) {
    const seats = this.seats().filter((s) => s !== seat);
    if (seats.length === this.seats().length) seats.push(seat);
    const rooms = { ...this.state.rooms };
    delete rooms[this.code]; // this room becomes the newest; the oldest beyond ROOMS_KEPT go
    if (seats.length) rooms[this.code] = seats.sort();
    const codes = Object.keys(rooms);
    for (const old of codes.slice(0, Math.max(0, codes.length - ROOMS_KEPT))) delete rooms[old];
    this.state = { ...this.state, rooms };
    this.save();
  }

  toggleAll() {
    this.state = { ...this.state, all: !this.state.all };
    this.save();
  }

  save() {
    this.storage.setItem(KEY, JSON.stringify(this.state));
  }
}

/** The bubbles showing: per seat the phrase said and until when. */
export class Bubbles {
  constructor(now = () => performance.now()) {
    this.now = now;
    this.shown = new Map();
  }

  add(seat, phrase) {
    this.shown.set(seat, { phrase, until: this.now() + BUBBLE_MS });
  }

  /** Whether the bubble at `seat` appeared within `ms` (it pops in once, not at every redraw). */
  fresh(seat, ms = POP_MS) {
    const b = this.shown.get(seat);
    return Boolean(b) && this.now() - (b.until - BUBBLE_MS) < ms;
  }

  /** The phrase showing at `seat` now, or null (an old one is dropped). */
  at(seat) {
    const b = this.shown.get(seat);
    if (!b) return null;
    if (b.until <= this.now()) {
      this.shown.delete(seat);
      return null;
    }
    return b.phrase;
  }

  drop(seat) {
    this.shown.delete(seat);
  }
}

/** The table page's quick chat: what it heard, its mutes, the picker, the clicks on it. */
export class TableChat {
  constructor(page, { mutes = null, bubbles = null, later = (fn, ms) => setTimeout(fn, ms) } = {}) {
    this.page = page;
    this.open = false;
    this.mutes = mutes || new ChatMutes(page.code);
    this.bubbles = bubbles || new Bubbles();
    this.later = later;
    if (page.root) page.root.addEventListener("click", (e) => this.onClick(e));
  }

  /** A `chat` message: a bubble at the seat, unless that seat (or everyone) is muted here. */
  hear(m) {
    if (!Number.isInteger(m.seat) || m.seat < 0 || m.seat > 3) return false;
    if (phraseText(m.phrase) == null) return false;
    if (m.seat !== this.page.seat && this.mutes.muted(m.seat)) return false;
    this.bubbles.add(m.seat, m.phrase);
    this.later(() => this.page.render(), BUBBLE_MS + 50);
    return true;
  }

  /** A click on the chat's controls (`data-chat`): open or close, say, mute. */
  onClick(e) {
    const el = e.target.closest && e.target.closest("[data-chat]");
    if (!el) return false;
    const what = el.dataset.chat;
    if (what === "toggle") this.open = !this.open;
    else if (what === "say" && this.page.seat != null) {
      this.page.conn.send({ type: "chat", phrase: el.dataset.phrase });
      this.open = false;
    } else if (what === "mute") {
      const seat = Number(el.dataset.seat);
      this.mutes.toggle(seat);
      if (this.mutes.muted(seat)) this.bubbles.drop(seat);
    } else if (what === "mute-all") {
      this.mutes.toggleAll();
      if (this.mutes.all) for (const seat of [0, 1, 2, 3]) if (seat !== this.page.seat) this.bubbles.drop(seat);
    }
    this.page.render();
    return true;
  }

  /** The bubbles (drawn into the board) and the controls (under it, beside one's hand). */
  html() {
    return this.bubblesHtml() + this.controlsHtml();
  }

  /** The bubbles showing, each at its seat's place on the board. */
  bubblesHtml() {
    const page = this.page;
    const base = page.seat ?? 0;
    const bubbles = [0, 1, 2, 3].map((seat) => {
      const id = this.bubbles.at(seat);
      const text = id == null ? null : phraseText(id);
      if (text == null) return "";
      const pos = POSITIONS[(seat - base + 4) % 4];
      const pop = this.bubbles.fresh(seat) ? " chat-new" : "";
      return `<div class="chat-bubble chat-${pos}${pop}" data-chat-seat="${seat}" role="status" aria-label="${esc(t("chat_says", page.name(seat), text))}">${esc(text)}</div>`;
    }).join("");
    return bubbles;
  }

  /** The button and (open) the picker; nothing when the server offers no phrases. */
  controlsHtml() {
    if (!chatPhrases().length) return "";
    const button = `<button class="chat-btn" data-chat="toggle" aria-expanded="${this.open}" aria-label="${t("chat")}">${t("chat")}</button>`;
    return button + (this.open ? this.pickerHtml() : "");
  }

  pickerHtml() {
    const page = this.page;
    const phrases = chatPhrases();
    const say = (p) => `<button class="chat-say ${p.kind}" data-chat="say" data-phrase="${esc(p.id)}"${p.kind === "emote" ? ` aria-label="${esc(pick([p.zh, p.en]))}" title="${esc(pick([p.zh, p.en]))}"` : ""}>${esc(phraseText(p.id, phrases))}</button>`;
    const speak = page.seat != null
      ? `<div class="chat-phrases">${phrases.filter((p) => p.kind !== "emote").map(say).join("")}</div>` +
        `<div class="chat-emotes">${phrases.filter((p) => p.kind === "emote").map(say).join("")}</div>`
      : `<p class="chat-note">${t("chat_spectator")}</p>`;
    const seats = page.room ? page.room.seats.filter((s) => s.kind === "human" && s.seat !== page.seat) : [];
    const mutes = seats.map((s) => {
      const on = this.mutes.seats().includes(s.seat);
      return `<button class="chat-mute" data-chat="mute" data-seat="${s.seat}" aria-pressed="${on}">${esc(t(on ? "chat_unmute_seat" : "chat_mute_seat", page.name(s.seat)))}</button>`;
    }).join("");
    const all = `<button class="chat-mute all" data-chat="mute-all" aria-pressed="${this.mutes.all}">${t(this.mutes.all ? "chat_unmute_all" : "chat_mute_all")}</button>`;
    return `<div class="chat-picker" role="dialog" aria-label="${t("chat")}">${speak}` +
      `<div class="chat-mutes">${mutes}${all}</div>` +
      `<button class="chat-close" data-chat="toggle">${t("chat_close")}</button></div>`;
  }
}
