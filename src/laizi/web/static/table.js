// The table page (/r/CODE): the square table — your seat at the bottom, the others left, top and
// right in play order, each seat's discard pond in front of it, the centre with the special tiles,
// the wall and the open discard — your hand with its ready hints, the legal actions, the timers,
// 托管 / 掉线 badges, and the settlement that stays until everybody pressed 继续.

import { getLang, named, pick, t, FAN_NAMES } from "./i18n.js";
import { applyEvent, fromView, ownHand } from "./model.js";
import { RoomConnection, savedSeat } from "./net.js";
import { factorText, multiplierHtml, renderSettlement } from "./settle.js";
import { sound, soundOn, setSound } from "./sound.js";
import { parseTiles, sortTiles, tileName, tileSvg } from "./tiles.js";
import { esc, num, seatName } from "./util.js";

const POSITIONS = ["bottom", "right", "top", "left"]; // the next seat in play order sits to the right
const BANNERS = { chow: "banner_chow", pung: "banner_pung", kong: "banner_kong", concealed_kong: "banner_kong", added_kong: "banner_kong", lay_out: "banner_lay_out" };
const REASONS = ["below_minimum", "two_laizi_small", "not_opened", "holding_must_gang", "pass_win_locked", "no_terminal", "no_triplet", "not_allowed"];

/** A reason code from the server (hints, no_win) in the reader's language. */
export function reasonText(reason) {
  if (!reason) return "";
  const code = typeof reason === "string" ? reason : reason.code;
  if (typeof reason === "object" && reason.zh && reason.en) return pick([reason.zh, reason.en]);
  return REASONS.includes(code) ? t(`reason_${code}`) : t("reason_other");
}

/** Tap twice to discard on a touch screen, one click with a mouse; the page setting overrides. */
function tapTwiceDefault() {
  const saved = localStorage.getItem("laizi.tap");
  if (saved) return saved === "two";
  return window.matchMedia("(pointer: coarse)").matches || window.innerWidth < 760;
}

export class TablePage {
  constructor(root, code, { name, spectate }) {
    this.root = root;
    this.code = code;
    this.seat = null;
    this.room = null;
    this.model = null;
    this.prompt = null;
    this.promptAt = 0;
    this.auto = false;
    this.online = false;
    this.end = null;
    this.start = null;
    this.matchEnd = null;
    this.error = null;
    this.openMult = null;
    this.hints = null; // the server's `hints` for this seat
    this.hintTile = null; // the discard whose waits are shown (hover or first tap)
    this.raised = null; // tap-twice: the tile raised by the first tap
    this.pressing = false; // a pointer is held down on the page: drawing waits (see render)
    this.redraw = false; // a drawing was held back by a press
    this.tapTwice = tapTwiceDefault();
    this.pause = null; // {seconds, waiting, at}: the settlement stays
    this.continued = false;
    this.away = new Map(); // seat → {escape_in, at}
    this.banners = []; // {seat, text, until}
    this.moqie = new Map(); // seat → Set of discard positions played straight from the draw
    this.turnAt = performance.now(); // when the seat to act began (a spectator's timer)
    this.fresh = new Set(); // "seat:index" of the discard just made (animated once)
    this.conn = new RoomConnection(code, {
      name,
      spectate: spectate && !savedSeat(code),
      onMessages: (list) => { list.forEach((m) => this.onMessage(m)); this.render(); },
      onStatus: (up) => { this.online = up; this.render(); },
    });
    this.timer = setInterval(() => this.tick(), 250);
    root.addEventListener("click", (e) => this.onClick(e));
    // A press is never lost to a redraw: while a button is held down the page is not drawn again
    // (a click whose down and up land on two different drawings of a button fires on neither);
    // the held-back drawing follows the click.
    root.addEventListener("pointerdown", () => { this.pressing = true; });
    const released = () => {
      if (!this.pressing) return;
      this.pressing = false;
      if (this.redraw) { this.redraw = false; setTimeout(() => this.render(), 0); }
    };
    for (const kind of ["pointerup", "pointercancel", "blur"]) window.addEventListener(kind, released);
    root.addEventListener("mouseover", (e) => this.onHover(e));
    root.addEventListener("mousemove", () => {
      const hand = root.querySelector(".my-hand.fresh");
      if (hand) hand.classList.remove("fresh");
    });
  }

  destroy() {
    clearInterval(this.timer);
    this.conn.close();
  }

  onMessage(m) {
    switch (m.type) {
      case "joined":
        this.seat = m.seat;
        break;
      case "snapshot":
        this.room = m.room;
        this.prompt = null;
        this.hints = null;
        this.model = m.view ? fromView(m.view, m.room.rules) : null;
        if (m.view) this.moqie = new Map(m.view.players.map((p) => [p.seat, new Set(p.moqie || [])]));
        if (this.model && this.model.phase === "over") this.fetchEnd(this.model.hand);
        else this.end = null;
        break;
      case "event":
        this.onEvent(m.event);
        break;
      case "room":
        this.room = m.room;
        if (m.room && m.room.seats) {
          m.room.seats.forEach((s) => { if (s.connected && this.away.has(s.seat)) this.away.delete(s.seat); });
        }
        break;
      case "prompt":
        if (!this.prompt || this.prompt.id !== m.id) {
          const phase = m.phase === "turn" || m.phase === "final" ? "turn" : "claim";
          sound(phase);
        }
        this.prompt = m;
        this.promptAt = performance.now();
        this.error = null;
        break;
      case "hints":
        this.hints = m;
        break;
      case "clock":
        // Another seat was prompted on its turn (minor 2): its clock, for everyone watching.
        this.clock = { ...m, at: performance.now() };
        break;
      case "pause":
        this.pause = { seconds: Number(m.seconds), total: m.total, waiting: m.waiting || [], at: performance.now() };
        if (this.seat != null && !this.pause.waiting.includes(this.seat)) this.continued = true;
        break;
      case "away":
        this.away.set(m.seat, { escape_in: m.escape_in, at: performance.now() });
        break;
      case "back":
        this.away.delete(m.seat);
        break;
      case "auto":
        this.auto = m.on;
        if (m.on) this.prompt = null;
        break;
      case "error":
        if (m.code === "room_full" && this.seat == null && !this.conn.spectate) {
          // Every seat for people is taken (or the match is on): watch instead of a dead page.
          this.conn.spectate = true;
          this.conn.send({ type: "join", room: this.code, spectate: true });
          break;
        }
        this.error = m;
        break;
      case "left":
        location.href = "/";
        return;
      default:
        break;
    }
  }

  onEvent(ev) {
    if (ev.type === "match_end") { this.matchEnd = ev; return; }
    if (ev.type === "start") {
      this.model = { seat: this.seat };
      this.end = null;
      this.prompt = null;
      this.start = ev;
      this.hints = null;
      this.pause = null;
      this.continued = false;
      this.moqie = new Map();
      this.raised = null;
      this.clock = null;
    }
    if (!this.model) return;
    const m = this.model;
    const before = m.to_act ? m.to_act.join() : "";
    if ((ev.type === "discard" || ev.type === "lay_out") && m.players) {
      const p = m.players[ev.seat];
      // 摸切: the server says it for every seat (`moqie`); an older server only for one's own.
      const fromDraw = ev.moqie ?? (ev.seat === this.seat ? m.drawn != null && m.drawn === ev.tile && m.turn === this.seat : false);
      if (ev.type === "discard" && !ev.lay_out) {
        if (fromDraw) {
          if (!this.moqie.has(ev.seat)) this.moqie.set(ev.seat, new Set());
          this.moqie.get(ev.seat).add(p.discards.length);
        }
        this.fresh = new Set([`${ev.seat}:${p.discards.length}`]);
      }
    }
    applyEvent(m, ev);
    // A claim (or rob) prompt lives only as long as its window: once an event closes the window
    // (托管 answered it, or play went on), the prompt is gone, never shown against a closed window.
    if (this.prompt && (this.prompt.phase === "claim" || this.prompt.phase === "rob") && !m.claim) this.prompt = null;
    if (ev.type === "end") { this.end = ev; this.prompt = null; this.hints = null; this.raised = null; }
    const banner = BANNERS[ev.type] || (ev.type === "discard" && ev.lay_out ? "banner_lay_out" : null);
    if (banner) this.banner(ev.seat, t(banner));
    if (ev.type === "win") {
      this.banner(ev.seat, t(ev.how === "self_draw" ? "banner_self_draw" : "banner_win"));
      sound("win");
    }
    if (m.to_act && m.to_act.join() !== before) this.turnAt = performance.now();
  }

  banner(seat, text) {
    this.banners = this.banners.filter((b) => b.seat !== seat);
    this.banners.push({ seat, text, until: performance.now() + 1400 });
    setTimeout(() => this.render(), 1450);
  }

  async fetchEnd(hand) {
    const r = await fetch(`/api/rooms/${this.code}/hands/${hand}`);
    if (!r.ok) return;
    const lines = (await r.text()).trim().split("\n");
    const end = JSON.parse(lines[lines.length - 1]);
    if (this.model && this.model.hand === hand && end.type === "end") {
      this.end = end;
      this.render();
    }
  }

  send(action) {
    if (!this.prompt) return;
    const { id } = this.prompt;
    this.prompt = null;
    this.raised = null;
    this.hintTile = null;
    if (this.auto) { this.conn.send({ type: "auto", on: false }); this.auto = false; }
    this.conn.act(id, action);
    this.render();
  }

  onHover(e) {
    const tile = e.target.closest("[data-discard], [data-hint]");
    const want = tile ? tile.dataset.discard || tile.dataset.hint : this.raised;
    if (want === this.hintTile) return;
    if (!tile && !e.target.closest(".my-hand")) return;
    this.hintTile = want || null;
    this.updateHintPanel();
  }

  onClick(e) {
    const target = e.target.closest("[data-act], [data-discard], [data-hint], [data-cmd], .mult");
    if (!target) {
      if (this.raised && !e.target.closest(".my-hand")) { this.raised = null; this.render(); }
      return;
    }
    if (target.dataset.act !== undefined) {
      const legal = this.prompt ? this.prompt.legal[Number(target.dataset.act)] : null;
      if (legal) this.send(legal);
    } else if (target.dataset.discard !== undefined) {
      const tile = target.dataset.discard;
      const legal = this.prompt && this.prompt.legal.find((a) => a.type === "discard" && a.tile === tile);
      if (!legal) return;
      if (this.tapTwice && this.raised !== tile) {
        this.raised = tile;
        this.hintTile = tile;
        this.render();
        return;
      }
      this.send(legal);
    } else if (target.dataset.hint !== undefined) {
      this.hintTile = target.dataset.hint;
      this.updateHintPanel();
    } else if (target.classList.contains("mult")) {
      const seat = Number(target.dataset.seat);
      this.openMult = this.openMult === seat ? null : seat;
      this.render();
    } else if (target.dataset.cmd === "auto") {
      this.conn.send({ type: "auto", on: !this.auto });
    } else if (target.dataset.cmd === "continue") {
      this.conn.send({ type: "continue" });
      this.continued = true;
      this.render();
    } else if (target.dataset.cmd === "sound") {
      setSound(!soundOn());
      if (soundOn()) sound("turn");
      this.render();
    } else if (target.dataset.cmd === "tap") {
      this.tapTwice = !this.tapTwice;
      localStorage.setItem("laizi.tap", this.tapTwice ? "two" : "one");
      this.raised = null;
      this.render();
    } else if (target.dataset.cmd === "leave") {
      if (this.room && this.room.status === "playing" && this.seat != null && !confirm(t("leave_confirm"))) return;
      this.conn.send({ type: "leave" });
      setTimeout(() => { location.href = "/"; }, 300);
    } else if (target.dataset.cmd === "close-settle") {
      this.end = null;
      this.render();
    }
  }

  remaining() {
    if (!this.prompt) return null;
    const p = this.prompt;
    const used = p.elapsed + (performance.now() - this.promptAt) / 1000;
    return { main: Math.max(0, p.seconds - used), bank: Math.max(0, p.bank - Math.max(0, used - p.seconds)), total: p.seconds };
  }

  /** The clock a spectator (or a player waiting for another seat) sees: the table's time per
   * decision from when that seat began (its bank is not public). */
  othersClock() {
    const m = this.model;
    if (!m || !m.players || m.phase === "over" || !this.room) return null;
    const c = this.clock;
    if (c && m.to_act && m.to_act.includes(c.seat) && (m.phase === "turn" || m.phase === "final")) {
      const used = (c.elapsed || 0) + (performance.now() - c.at) / 1000;
      return { main: Math.max(0, c.seconds - used), bank: Math.max(0, c.bank - Math.max(0, used - c.seconds)), total: c.seconds };
    }
    const seconds = Number(this.room.table && this.room.table.action_seconds) || 0;
    if (!seconds) return null;
    const left = Math.max(0, seconds - (performance.now() - this.turnAt) / 1000);
    return { main: left, bank: 0, total: seconds };
  }

  tick() {
    const r = this.remaining() || (this.seat == null ? this.othersClock() : null);
    const other = this.seat != null ? this.othersClock() : null;
    for (const box of this.root.querySelectorAll(".seat-timer")) {
      box.textContent = other ? t("seconds", Math.ceil(other.main > 0 ? other.main : other.bank)) : "";
    }
    for (const box of this.root.querySelectorAll(".timer:not(.seat-timer)")) {
      if (!r) { box.textContent = ""; box.style.removeProperty("--left"); continue; }
      box.textContent = r.main > 0 ? t("seconds", Math.ceil(r.main)) : t("bank", Math.ceil(r.bank));
      box.classList.toggle("low", r.main <= 5);
      box.style.setProperty("--left", `${Math.round((100 * r.main) / (r.total || 1))}%`);
    }
    const pause = this.root.querySelector("[data-pause-left]");
    if (pause && this.pause) {
      const left = Math.max(0, Math.ceil(this.pause.seconds - (performance.now() - this.pause.at) / 1000));
      pause.textContent = t("next_in", left);
    }
    for (const box of this.root.querySelectorAll("[data-away]")) {
      const a = this.away.get(Number(box.dataset.away));
      if (!a || a.escape_in == null) continue;
      const left = Math.max(0, Math.ceil(a.escape_in - (performance.now() - a.at) / 1000));
      box.textContent = t("away_banner", this.name(Number(box.dataset.away)), left);
    }
    if (this.banners.length && this.banners.some((b) => b.until < performance.now())) {
      this.banners = this.banners.filter((b) => b.until >= performance.now());
    }
  }

  // -- rendering ---------------------------------------------------------------------------------
  name(seat) {
    return seatName(this.room, seat, this.seat);
  }

  errorText() {
    const e = this.error;
    if (!e) return "";
    return getLang() === "zh" && e.message_zh ? e.message_zh : e.message || e.code;
  }

  render() {
    if (this.pressing) { this.redraw = true; return; }
    const room = this.room;
    const m = this.model;
    const bar = this.barHtml();
    const banner = this.online ? "" : `<div class="banner offline" role="status">${t("reconnecting")}</div>`;
    const error = this.error ? `<div class="banner error" role="alert">${esc(this.errorText())}</div>` : "";
    if (!room) {
      this.root.innerHTML = bar + banner;
      return;
    }
    const away = [...this.away.keys()].filter((s) => s !== this.seat)
      .map((s) => `<div class="banner away" role="status" data-away="${s}">${esc(t("away_banner_plain", this.name(s)))}</div>`).join("");
    let body;
    // A finished room's link (opened after the match): its totals and every hand's replay.
    if (room.status === "over" && !this.matchEnd) body = this.finishedHtml();
    else if (!m || !m.players) body = this.waitingHtml();
    else body = this.boardHtml();
    // The open settlement is kept as it is while nothing in it changed (its buttons stay put, a
    // phone keeps its scroll position); the table around it is drawn again.
    const old = this.root.querySelector(".settlement");
    const key = this.end && m ? JSON.stringify([m.hand, getLang(), this.seat, this.continued, this.pause && this.pause.waiting, !!this.matchEnd, this.room.status, this.room.seats.map((x) => x.name)]) : "";
    this.root.innerHTML = `<div class="table-page ${this.seat == null ? "spectating" : ""}">${bar}${banner}${error}${away}${body}</div>`;
    const panel = this.root.querySelector(".settlement");
    if (key && panel && old && old.dataset.key === key) {
      panel.replaceWith(old);
    } else if (this.end && m && panel) {
      panel.dataset.key = key;
      renderSettlement(panel, { end: this.end, room, dealer: m.dealer, commitment: m.commitment, hand: m.hand, code: this.code, mySeat: this.seat, model: m });
      panel.insertAdjacentHTML("afterbegin", this.pauseHtml());
      if (this.matchEnd) panel.insertAdjacentHTML("beforeend", this.matchEndHtml());
    } else if (this.matchEnd && panel) {
      panel.innerHTML = this.matchEndHtml();
    }
    this.updateHintPanel();
    this.tick();
  }

  pauseHtml() {
    if (this.matchEnd) return "";
    const waiting = this.pause ? this.pause.waiting : [];
    const mine = this.seat != null && (this.pause ? waiting.includes(this.seat) : !this.continued);
    const others = waiting.filter((s) => s !== this.seat).map((s) => esc(this.name(s))).join(t("or"));
    const button = mine && !this.continued
      ? `<button class="primary continue" data-cmd="continue">${t("continue")}</button>`
      : this.seat == null
        ? `<button data-cmd="close-settle">${t("close")}</button>`
        : `<span class="muted">${t("you_continued")}</span>`;
    const left = this.pause ? `<span class="pause-left" data-pause-left></span>` : `<span class="muted">${this.room.status === "playing" ? t("next_hand") : ""}</span>`;
    return `<div class="pause-bar">${button}${left}${others ? `<span class="muted">${t("waiting_for", others)}</span>` : ""}</div>`;
  }

  matchEndHtml() {
    const totals = this.matchEnd.totals.map((x, s) => `<li>${esc(this.name(s))}: <b>${num(x)}</b></li>`).join("");
    return `<div class="match-end"><h2>${t("match_over")}</h2><ul>${totals}</ul><a href="/" class="button">${t("back_lobby")}</a></div>`;
  }

  barHtml() {
    const room = this.room;
    const m = this.model;
    const hand = m && m.hand != null ? t("hand_no", m.hand + 1) : "";
    const of = room ? t("of_hands", room.table.hands) : "";
    const link = `${location.origin}/r/${this.code}`;
    const records = room && room.records && room.records.length
      ? `<details class="records"><summary>${t("replay")} (${room.records.length})</summary>${room.records.map((_, i) => `<a href="/replay/${this.code}/${i}">${t("hand_no", i + 1)}</a>`).join(" ")}</details>`
      : "";
    const autoBtn = this.seat != null && room && room.status === "playing"
      ? `<button data-cmd="auto" class="auto-btn ${this.auto ? "on" : ""}" aria-pressed="${this.auto}">${this.auto ? t("auto_on") : t("auto_off")}</button>` : "";
    const watching = this.seat == null && room ? `<span class="badge watching" data-watching>${t("watching")}</span>` : "";
    const tap = this.seat != null ? `<button data-cmd="tap" class="small" aria-pressed="${this.tapTwice}">${this.tapTwice ? t("tap_two") : t("tap_one")}</button>` : "";
    const snd = `<button data-cmd="sound" class="small" aria-pressed="${soundOn()}">${soundOn() ? t("sound_on") : t("sound_off")}</button>`;
    return `<div class="room-bar"><span class="code">${t("room")} <b data-code>${esc(this.code)}</b></span>${watching}` +
      `<span>${hand} ${of}</span><span class="link">${t("link")}: <a href="/r/${esc(this.code)}">${esc(link)}</a></span>${records}` +
      `<span class="spacer"></span>${snd}${tap}${autoBtn}<button data-cmd="leave">${t("leave")}</button></div>`;
  }

  waitingHtml() {
    const room = this.room;
    const seats = room.seats.map((s) => `<li>${t("seat")} ${s.seat}: ${s.kind === "empty" ? t("empty") : esc(this.name(s.seat))}${s.kind === "bot" && !/^bot \d+$/.test(s.name) ? ` (${t("bot")})` : ""}${s.guest && s.seat !== this.seat ? ` (${t("guest")})` : ""}</li>`).join("");
    return `<div class="waiting"><h2>${t("waiting")}</h2><p>${t("start_note")}</p><ul>${seats}</ul>` +
      `<p>${t("room_code")}: <b class="big-code">${esc(this.code)}</b></p><div class="settlement"></div></div>`;
  }

  /** A finished room's link: the match totals and every hand's replay (the server's summary,
   * `GET /api/rooms/CODE/summary`, gives exact totals and each hand's result where it has one). */
  finishedHtml() {
    const room = this.room;
    if (this.summary === undefined) {
      this.summary = null;
      fetch(`/api/rooms/${this.code}/summary`).then((r) => (r.ok ? r.json() : null)).then((body) => {
        if (body) { this.summary = body; this.render(); }
      }).catch(() => {});
    }
    const sum = this.summary;
    const exact = sum && (sum.totals_exact || sum.totals);
    const totals = (exact || room.totals || []).map((x, s) => `<tr data-seat="${s}"><th>${esc(this.name(s))}</th><td class="points ${Number(String(x).split("/")[0]) > 0 ? "plus" : Number(String(x).split("/")[0]) < 0 ? "minus" : ""}">${num(x)}</td></tr>`).join("");
    const result = (i) => {
      const h = sum && sum.hands ? sum.hands.find((x) => x.number === i) : null;
      if (!h) return "";
      if (h.winner != null) return ` · ${t("win_by", esc(this.name(h.winner)))}`;
      return h.reason === "drawn" ? ` · ${t("drawn_hand")}` : h.reason === "abandon" ? ` · ${t("act_abandon")}` : "";
    };
    const links = (room.records || []).map((_, i) => `<li><a href="/replay/${this.code}/${i}">${t("hand_no", i + 1)}</a>${result(i)} · <a href="/api/rooms/${this.code}/hands/${i}" download>${t("download_record")}</a></li>`).join("");
    return `<div class="waiting finished"><h2>${t("match_over")}</h2><h3>${t("match_result")}</h3>` +
      `<table class="settle match-totals"><tbody>${totals}</tbody></table>` +
      `<h3>${t("hands_replays")}</h3><ul class="replays">${links || `<li class="muted">${t("none_yet")}</li>`}</ul>` +
      `<a href="/" class="button">${t("back_lobby")}</a><div class="settlement"></div></div>`;
  }

  tileMarks(tile) {
    const m = this.model;
    const marks = [];
    if (tile === m.laizi) marks.push("laizi");
    else if (m.must_gang && m.must_gang.includes(tile)) marks.push("gang");
    return marks;
  }

  tile(tile, extra = []) {
    if (!tile) return tileSvg(null, { marks: ["back"] });
    return tileSvg(tile, { marks: [...this.tileMarks(tile), ...extra], title: tileName(tile, getLang()) });
  }

  boardHtml() {
    const m = this.model;
    const base = this.seat ?? 0;
    const seats = [0, 1, 2, 3].map((k) => this.seatHtml((base + k) % 4, POSITIONS[k])).join("");
    const ponds = [0, 1, 2, 3].map((k) => this.pondHtml((base + k) % 4, POSITIONS[k])).join("");
    return `<div class="board">${seats}${ponds}${this.centreHtml()}</div>` +
      `<div class="me">${this.handHtml()}${this.hintsHtml()}${this.actionsHtml()}</div>` +
      `<div class="settlement ${this.end ? "open" : ""}" role="dialog" aria-label="${t("settlement")}"></div>` +
      `<div class="muted foot">${m.commitment ? `commitment ${esc(m.commitment.slice(0, 16))}…` : ""}${this.entropyHtml()}</div>`;
  }

  /** This client's random value in the deal (protocol 1.1): shown, and checked against the
   * commitment it received before sending it and the contributions the start event lists. */
  entropyHtml() {
    const m = this.model;
    const deal = m && this.conn.deals.get(m.hand);
    if (!deal || this.seat == null) return "";
    const start = this.start && this.start.hand === m.hand ? this.start : null;
    const listed = start && start.contributions ? start.contributions[this.seat] : null;
    const ok = start && start.commitment === deal.commitment && listed === deal.entropy;
    return ` · <span class="entropy" data-ok="${ok ? "yes" : "no"}">${t("my_entropy")} <code>${esc(deal.entropy.slice(0, 16))}…</code> ${ok ? t("entropy_ok") : t("entropy_bad")}</span>`;
  }

  /** The words for what a prompt offers: "碰、杠、胡". */
  offered() {
    const names = [];
    for (const a of this.prompt.legal) {
      if (a.type === "discard" || a.type === "pass") continue;
      const selfTurn = this.prompt.phase === "turn" || this.prompt.phase === "final";
      const name = a.type === "win" && selfTurn ? t("act_self_draw") : t(`act_${a.type}`);
      if (!names.includes(name)) names.push(name);
    }
    if (this.prompt.legal.some((a) => a.type === "discard")) names.push(t("discard_word"));
    return names.join(t("or"));
  }

  statusText() {
    const m = this.model;
    const turnSeat = m.to_act && m.to_act.length ? m.to_act[0] : null;
    const lang = getLang();
    if (m.phase === "over") return t("settlement");
    if (this.prompt && this.prompt.phase === "rob" && m.claim) return t("offer_rob", esc(this.name(m.claim.from)), tileName(m.claim.tile, lang));
    if (this.prompt && this.prompt.phase === "claim" && m.claim) return t("offer_claim", esc(this.name(m.claim.from)), tileName(m.claim.tile, lang), this.offered());
    if (this.prompt) return t("offer_turn", this.offered()) + (m.phase === "final" ? ` · ${t("phase_final")}` : "");
    if (m.phase === "rob" && m.claim) return t("rob_window", esc(this.name(m.claim.from)), tileName(m.claim.tile, lang));
    if (m.phase === "claim" && m.claim) return t("claim_window", esc(this.name(m.claim.from)), tileName(m.claim.tile, lang));
    let status = turnSeat === this.seat && this.seat != null ? t("your_turn") : turnSeat != null ? t("turn_of", esc(this.name(turnSeat))) : "";
    if (m.phase === "final") status += ` · ${t("phase_final")}`;
    return status;
  }

  centreHtml() {
    const m = this.model;
    const pi = m.pi && m.pi.length ? `<div class="special"><span>${t("pi")}</span><div>${m.pi.map((x) => this.tile(x)).join("")}</div></div>` : "";
    const gang = m.must_gang && m.must_gang.length ? `<div class="special"><span>${t("must_gang")}</span><div>${m.must_gang.map((x) => this.tile(x)).join("")}</div></div>` : "";
    const indicator = m.indicator ? `<div class="special"><span>${t("indicator")}</span>${tileSvg(m.indicator)}</div><div class="special laizi-box"><span>${t("laizi")}</span>${this.tile(m.laizi)}</div>` : "";
    const open = m.claim && (m.phase === "claim" || m.phase === "rob")
      ? `<div class="open-discard" data-open="${m.claim.tile}"><span>${esc(m.phase === "rob" ? t("rob_window", this.name(m.claim.from), "") : t("discarded_by", this.name(m.claim.from)))}</span>${this.tile(m.claim.tile, ["open"])}</div>`
      : "";
    const turnSeat = m.to_act && m.to_act.length ? m.to_act[0] : null;
    const arrow = turnSeat != null && m.phase !== "over" ? `<div class="turn-arrow arrow-${POSITIONS[(turnSeat - (this.seat ?? 0) + 4) % 4]}" aria-hidden="true"></div>` : "";
    return `<div class="centre">${arrow}<div class="specials">${indicator}${pi}${gang}</div>` +
      `<div class="wall"><span>${t("tiles_left")}</span> <b data-tiles-left>${m.tiles_left}</b> <small>(${t("live_left")} ${m.live})</small></div>` +
      `${open}<div class="status" data-status>${this.statusText()}</div><div class="timer" aria-live="off"></div></div>`;
  }

  /** 开口N 杠N of a seat, from its melds (public), or the server's counts when sent. */
  counts(seat) {
    const p = this.model.players[seat];
    const opened = p.opened ?? p.openings ?? p.melds.filter((x) => x.from != null).length;
    const kongs = p.kongs ?? p.melds.filter((x) => /kong/.test(x.kind)).length;
    return { opened, kongs };
  }

  fansHtml(seat) {
    const p = this.model.players[seat];
    const fans = p.fans || p.running_fans;
    if (!fans || !fans.length) return "";
    return `<span class="fans" data-fans>${fans.map((f) => {
      const code = typeof f === "string" ? f : f.id || f.code || f.name;
      const label = f.zh && f.en ? pick([f.zh, f.en]) : named(FAN_NAMES, code);
      return `<span class="fan">${esc(label)}${f.fans != null ? ` +${f.fans}` : ""}</span>`;
    }).join("")}</span>`;
  }

  seatHtml(seat, pos) {
    const m = this.model;
    const p = m.players[seat];
    const info = this.room.seats[seat] || {};
    const badges = [];
    if (seat === m.dealer) badges.push(`<span class="badge dealer">${t("dealer")}</span>`);
    if (info.kind === "bot" && !/^bot \d+$/.test(info.name || "")) badges.push(`<span class="badge">${t("bot")}</span>`);
    if (info.guest) badges.push(`<span class="badge guest">${t("guest")}</span>`);
    if (info.auto || (seat === this.seat && this.auto)) badges.push(`<span class="badge auto">${t("auto")}</span>`);
    if ((info.kind === "human" && !info.connected) || this.away.has(seat)) badges.push(`<span class="badge offline" data-offline>${t("offline")}</span>`);
    const total = this.room.totals ? this.room.totals[seat] : 0;
    const mult = p.multiplier;
    const title = mult ? (mult.factors.length ? mult.factors.map((f) => factorText(f)).join(" · ") : t("no_factors")) : "";
    const { opened, kongs } = this.counts(seat);
    // 开口/杠 counts where openings double (the rules carry a doubling mode; the stream a multiplier)
    const doubles = mult != null || (m.rules && m.rules.mode != null);
    const countsHtml = doubles ? `<span class="counts" data-counts><span>${t("opened_n", opened)}</span><span>${t("kongs_n", kongs)}</span></span>` : "";
    const multHtml = mult
      ? `<button class="mult" data-seat="${seat}" title="${esc(title)}" aria-expanded="${this.openMult === seat}">×${num(mult.total)}</button>` +
        (this.openMult === seat ? `<div class="mult-detail">${multiplierHtml(mult)}</div>` : "")
      : "";
    const active = m.to_act && m.to_act.includes(seat) && m.phase !== "over";
    const hidden = seat === this.seat ? "" : `<div class="backs" data-count="${p.hand_size}">${tileSvg(null, { marks: ["back", "small"] })}<b>×${p.hand_size}</b></div>`;
    const melds = p.melds.map((meld) => `<span class="meld" data-kind="${meld.kind}">${meld.tiles ? parseTiles(meld.tiles).map((x) => this.tile(x)).join("") : tileSvg(null, { marks: ["back"] }).repeat(4)}</span>`).join("");
    const laid = p.laid_out.map((x) => this.tile(x)).join("");
    const banner = this.banners.find((b) => b.seat === seat && b.until >= performance.now());
    const clock = active && this.seat !== seat ? `<span class="timer seat-timer"></span>` : "";
    return `<section class="seat pos-${pos} ${active ? "active" : ""}" data-seat="${seat}">` +
      `<header><b class="name">${esc(this.name(seat))}</b> ${badges.join("")} <span class="score">${num(total)}</span> ${multHtml}${countsHtml}${this.fansHtml(seat)}${clock}</header>` +
      `<div class="exposed">${hidden}<div class="melds">${melds}</div><div class="laid">${laid}</div></div>` +
      (banner ? `<div class="call-banner" role="status">${esc(banner.text)}</div>` : "") + `</section>`;
  }

  /** The seat's discards in front of it: rows of six in order, claimed tiles faded, 摸切 marked. */
  pondHtml(seat, pos) {
    const m = this.model;
    const p = m.players[seat];
    const claimedSet = new Set(p.claimed);
    const moqie = this.moqie.get(seat) || new Set();
    const lastDiscard = m.claim && m.claim.from === seat && m.phase === "claim" ? p.discards.length - 1 : -1;
    const river = p.discards.map((x, i) => {
      const marks = [];
      if (claimedSet.has(i)) marks.push("claimed");
      if (moqie.has(i)) marks.push("moqie");
      if (i === lastDiscard) marks.push("last");
      if (this.fresh.has(`${seat}:${i}`)) marks.push("new");
      const title = `${tileName(x, getLang())}${moqie.has(i) ? ` · ${t("moqie")}` : ""}${claimedSet.has(i) ? ` · ${t("claimed_mark")}` : ""}`;
      return tileSvg(x, { marks: [...this.tileMarks(x), ...marks], title });
    }).join("");
    return `<div class="pond pond-${pos} river" data-pond="${seat}">${river}</div>`;
  }

  /** The hint (WAIT objects) of the tile to discard, or the 13-tile waits. */
  waitsFor(tile) {
    const h = this.hints;
    if (!h) return null;
    if (tile && h.discards) {
      const d = h.discards.find((x) => x.tile === tile);
      return d ? d.waits : null;
    }
    return null;
  }

  waitsHtml(waits) {
    const lang = getLang();
    return waits.map((w) => {
      const pts = w.allowed === false
        ? `<span class="no">${t("not_allowed")}: ${esc(reasonText(w.reason))}</span>`
        : [w.self_drawn != null ? `<span class="pts">${t("self_drawn_pts", num(w.self_drawn))}</span>` : "",
          w.on_discard != null ? `<span class="pts">${t("on_discard_pts", num(w.on_discard))}</span>` : ""].join("") ||
          (w.reason ? `<span class="no">${esc(reasonText(w.reason))}</span>` : "");
      return `<span class="wait ${w.allowed === false ? "refused" : ""}" data-wait="${w.tile}" data-left="${w.left}"` +
        ` data-self-drawn="${w.self_drawn ?? ""}" data-on-discard="${w.on_discard ?? ""}">${this.tile(w.tile)}` +
        `<span class="wait-text"><b>${tileName(w.tile, lang)}</b> <span class="left">${t("left_n", w.left)}</span>${pts}</span></span>`;
    }).join("");
  }

  hintsHtml() {
    if (this.seat == null) return "";
    const h = this.hints;
    const strip = h && h.waits && h.waits.length && !(h.discards && h.discards.length)
      ? `<div class="wait-strip" data-strip><span class="label">${t("waits_now")}</span>${this.waitsHtml(h.waits)}</div>` : "";
    const noWin = h && h.no_win
      ? `<div class="no-win" data-no-win="${h.no_win.tile}">${t("no_win_line", tileName(h.no_win.tile, getLang()), esc(reasonText(h.no_win.reason)))}</div>` : "";
    return `${strip}${noWin}<div class="hint-panel" data-hint-panel aria-live="polite"></div>`;
  }

  updateHintPanel() {
    const box = this.root.querySelector("[data-hint-panel]");
    if (!box) return;
    const tile = this.hintTile || this.raised;
    const waits = this.waitsFor(tile);
    box.innerHTML = waits ? `<span class="label">${t("hint_after", tileName(tile, getLang()))}</span>${this.waitsHtml(waits)}` : "";
    box.dataset.tile = waits ? tile : "";
  }

  handHtml() {
    const m = this.model;
    if (this.seat == null) return "";
    const { tiles, drawn } = ownHand(m);
    const discardable = new Set(this.prompt ? this.prompt.legal.filter((a) => a.type === "discard").map((a) => a.tile) : []);
    const ready = new Set(this.hints && this.hints.discards ? this.hints.discards.map((d) => d.tile) : []);
    if (this.raised && !discardable.has(this.raised)) this.raised = null;
    let raisedDone = false;
    const one = (x, extra = []) => {
      const marks = [...extra];
      if (ready.has(x)) marks.push("ready");
      if (discardable.has(x)) {
        const up = !raisedDone && this.raised === x;
        if (up) raisedDone = true;
        return `<button class="tile-btn ${up ? "raised" : ""} ${ready.has(x) ? "ready" : ""}" data-discard="${x}" aria-label="${t("a_discard", tileName(x, getLang()))}">${this.tile(x, marks)}${ready.has(x) ? `<i class="ready-dot">${t("ready_mark")}</i>` : ""}</button>`;
      }
      return `<span class="tile-btn off">${this.tile(x, marks)}</span>`;
    };
    const all = sortTiles(drawn ? [...tiles, drawn] : tiles).join("");
    const many = tiles.length + (drawn ? 1 : 0) > 9;
    return `<div class="my-hand fresh ${many ? "many" : ""} ${this.tapTwice ? "tap-two" : ""}" data-hand="${all}">${tiles.map((x) => one(x)).join("")}` +
      `${drawn ? `<span class="gap"></span>${one(drawn, ["drawn"])}` : ""}</div>`;
  }

  actionsHtml() {
    if (!this.prompt) return `<div class="actions"></div>`;
    const m = this.model;
    const selfTurn = this.prompt.phase === "turn" || this.prompt.phase === "final";
    const claimTile = m.claim ? m.claim.tile : null;
    const buttons = this.prompt.legal.map((a, i) => {
      if (a.type === "discard") return "";
      let label = t(`act_${a.type}`);
      let tiles = "";
      if (a.type === "win" && selfTurn) label = t("act_self_draw");
      if (a.type === "chow") tiles = parseTiles(a.tiles).map((x) => this.tile(x)).join("");
      else if (a.tile) tiles = this.tile(a.tile);
      else if ((a.type === "pung" || a.type === "kong" || a.type === "win") && claimTile) tiles = this.tile(claimTile);
      let waits = "";
      if (a.type === "declare_ready") {
        // 报听 with a discard: the waits that discard leaves; without one, the hand's own waits
        const list = (a.tile && this.waitsFor(a.tile)) || (this.hints && this.hints.waits) || null;
        if (list && list.length) waits = `<span class="act-waits" data-act-waits>${t("waits_now")} ${list.map((w) => `${tileName(w.tile, getLang())}`).join(t("or"))}</span>`;
      }
      return `<button class="act act-${a.type}" data-act="${i}" data-type="${a.type}"${a.tiles ? ` data-tiles="${a.tiles}"` : ""}${a.tile ? ` data-tile="${a.tile}"` : ""}>${label} ${tiles}${waits}</button>`;
    }).join("");
    const hint = this.prompt.legal.some((a) => a.type === "discard") ? `<span class="hint">${this.tapTwice ? t("tap_hint") : t("discard_hint")}</span>` : "";
    return `<div class="actions" data-prompt="${this.prompt.id}">${buttons}${hint}<span class="timer action-timer"></span></div>`;
  }
}
