// The WebSocket connection to a room (docs/protocol.md): join, reconnect with the seat's token and
// the last sequence number seen, and hand every server message to the page.

import { feedBotNotes } from "./botnotes.js";
import { checkSeq } from "./seqgap.js";

const PROTOCOL = 1;
const MINOR = 1; // 1.1: this client adds its own random value to every deal (commit → ready)

/** 32 random bytes from the browser's cryptographic generator, as 64 hex digits. */
export function randomHex() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function tokenKey(code) {
  return `laizi.seat.${code}`;
}

/** The seat token this browser holds for a room (so a reload or a new tab comes back to it). */
export function savedSeat(code) {
  try {
    return JSON.parse(localStorage.getItem(tokenKey(code)) || "null");
  } catch {
    return null;
  }
}

export class RoomConnection {
  constructor(code, { name = "", spectate = false, onMessages, onStatus }) {
    this.code = code;
    this.name = name;
    this.spectate = spectate;
    this.onMessages = onMessages;
    this.onStatus = onStatus;
    this.lastSeq = null;
    this.resyncFrom = null; // the seq a resync was last asked from (one request per gap)
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.deals = new Map(); // hand → {commitment, entropy}: what this client gave to each deal
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.resyncFrom = null;
      const saved = savedSeat(this.code);
      const join = { type: "join", room: this.code, v: PROTOCOL, minor: MINOR };
      if (saved && saved.token && !this.spectate) {
        join.token = saved.token;
        if (this.lastSeq != null) join.last_seq = this.lastSeq;
      } else if (this.spectate) {
        join.spectate = true;
      } else {
        join.name = this.name;
        // 再来一局: the seat this person had at the last table (rematch.js)
        const want = sessionStorage.getItem(`laizi.want-seat.${this.code}`);
        if (want != null) join.seat = Number(want);
      }
      ws.send(JSON.stringify(join));
      this.onStatus(true);
    };
    ws.onmessage = (e) => {
      // A frame holds one message or an array of them, to be read in order (docs/protocol.md).
      const data = JSON.parse(e.data);
      const messages = [];
      for (const msg of Array.isArray(data) ? data : [data]) {
        // A gap in the events: hold them back, ask for what was missed (seqgap.js).
        const seen = checkSeq(msg, this.lastSeq, this.resyncFrom);
        if (seen.resync) {
          this.resyncFrom = this.lastSeq;
          this.send({ type: "resync", last_seq: this.lastSeq });
        }
        if (!seen.keep) continue;
        messages.push(msg);
        this.lastSeq = seen.lastSeq;
        if (msg.type === "joined") sessionStorage.removeItem(`laizi.want-seat.${this.code}`);
        if (msg.type === "joined" && msg.token) {
          localStorage.setItem(tokenKey(this.code), JSON.stringify({ token: msg.token, seat: msg.seat }));
        }
        if (msg.type === "error" && msg.code === "bad_token") {
          localStorage.removeItem(tokenKey(this.code));
        }
        if (msg.type === "commit") this.contribute(msg);
      }
      this.onMessages(messages);
      feedBotNotes(messages); // explain_bots: the bots' reasons (botnotes.js)
    };
    ws.onclose = () => {
      if (this.closed) return;
      this.onStatus(false);
      const delay = Math.min(5000, 250 * 2 ** this.retry++);
      setTimeout(() => this.open(), delay);
    };
  }

  /** The server has committed to the next deal's secret: add our own random value to it. */
  contribute(commit) {
    let deal = this.deals.get(commit.hand);
    if (!deal || deal.commitment !== commit.commitment) {
      deal = { commitment: commit.commitment, entropy: randomHex() };
      this.deals.set(commit.hand, deal);
    }
    this.send({ type: "ready", hand: commit.hand, entropy: deal.entropy });
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  act(prompt, action) {
    this.send({ type: "act", prompt, action });
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
