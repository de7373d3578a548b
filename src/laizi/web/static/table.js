// The table page (/r/CODE): the square table — your seat at the bottom, the others left, top and
// right in play order, each seat's discard pond in front of it, the centre with the special tiles,
// the wall and the open discard — your hand with its ready hints, the legal actions, the timers,
// 托管 / 掉线 badges, and the settlement that stays until everybody pressed 继续.
//
// This module keeps the page's state and answers the socket's messages and the clicks; the parts
// draw themselves: seat.js, pond.js, centre.js, hand.js, hints.js, actions.js, clock.js,
// tablesettle.js (the settlement panel), roombar.js; settle.js the settlement, net.js the socket.

import { actionsHtml } from "./actions.js";
import { showBigBanner } from "./bigbanner.js";
import { centreHtml, POSITIONS } from "./centre.js";
import { TableChat } from "./chat.js";
import { drawClocks } from "./clock.js";
import { leaveConfirmText } from "./escape.js";
import { fairnessFootHtml } from "./fairness.js";
import { handHtml } from "./hand.js";
import { hintsHtml, updateHintPanel } from "./hints.js";
import { getLang, t } from "./i18n.js";
import { inviteCommand } from "./invite.js";
import { answers, applyEvent, fromView } from "./model.js";
import { RoomConnection, savedSeat } from "./net.js";
import { pondHtml } from "./pond.js";
import { holdRedraws } from "./presshold.js";
import { onAgain, rematchCommand } from "./rematch.js";
import { barHtml, entropyHtml, linkBannerHtml, peopleBannersHtml, tapTwiceDefault, waitingHtml } from "./roombar.js";
import { seatHtml } from "./seat.js";
import { setSound, sound, soundOn } from "./sound.js";
import { offerSound, soundCommand } from "./soundoffer.js";
import { drawSettlement, finishedHtml } from "./tablesettle.js";
import { tileName, tileSvg } from "./tiles.js";
import { seatName } from "./util.js";

export { reasonText } from "./hints.js";

const BANNERS = { chow: "banner_chow", pung: "banner_pung", kong: "banner_kong", concealed_kong: "banner_kong", added_kong: "banner_kong", lay_out: "banner_lay_out" };

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
    this.drawn = 0; // drawings made (presshold.js: a click that drew nothing draws what was held)
    this.tapTwice = tapTwiceDefault();
    this.pause = null; // {seconds, waiting, at}: the settlement stays
    this.continued = false;
    this.away = new Map(); // seat → {escape_in, at}
    this.banners = []; // {seat, text, until}
    this.moqie = new Map(); // seat → Set of discard positions played straight from the draw
    this.turnAt = performance.now(); // when the seat to act began (a spectator's timer)
    this.fresh = new Set(); // "seat:index" of the discard just made (animated once)
    this.lastDiscard = null; // {seat, index}: the table's last discard, marked until the next one
    this.claimedTiles = new Map(); // "seat:meld index" → the tile a chow took (turned in the meld)
    this.chat = new TableChat(this); // 快捷语: bubbles, mutes, the picker (chat.js)
    this.conn = new RoomConnection(code, {
      name,
      spectate: spectate && !savedSeat(code),
      onMessages: (list) => { for (const m of list) this.onMessage(m); this.render(); },
      onStatus: (up) => { this.online = up; this.render(); },
    });
    this.timer = setInterval(() => this.tick(), 250);
    // A press is never lost to a redraw (presshold.js): the drawing waits for the click.
    const clicked = holdRedraws(this, root);
    root.addEventListener("click", clicked((e) => this.onClick(e)));
    root.addEventListener("pointerdown", () => {
      if (offerSound(this)) this.redraw = true; // the first tap: sound is offered (soundoffer.js)
    });
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
        this.dbWait = false;
        break;
      case "database": // the server's writes fail: its clocks stand still (docs/protocol.md)
        this.dbWait = !m.ok;
        break;
      case "snapshot":
        this.room = m.room;
        this.prompt = null;
        this.hints = null;
        this.model = m.view ? fromView(m.view, m.room.rules) : null;
        if (m.view) this.moqie = new Map(m.view.players.map((p) => [p.seat, new Set(p.moqie || [])]));
        this.lastDiscard = null; // the open discard of a claim window is marked (pond.js)
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
      case "chat": // 快捷语 (chat.js)
        this.chat.hear(m);
        break;
      case "again": // 再来一局: the rematch's room (rematch.js)
        onAgain(this, m);
        break;
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
      this.lastDiscard = null;
      this.claimedTiles = new Map();
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
        this.lastDiscard = { seat: ev.seat, index: p.discards.length };
      }
    }
    if (ev.type === "chow" && m.players) this.claimedTiles.set(`${ev.seat}:${m.players[ev.seat].melds.length}`, ev.tile);
    applyEvent(m, ev);
    // A claim (or rob) prompt lives only as long as its window: once an event closes the window
    // (托管 answered it, or play went on), the prompt is gone, never shown against a closed window.
    if (this.prompt && (this.prompt.phase === "claim" || this.prompt.phase === "rob") && !m.claim) this.prompt = null;
    // The seat acted — from this tab, another tab of the seat or 托管: the stream shows it to every
    // connection of the seat, and the decision it answered is gone here too (its next prompt follows).
    if (this.prompt && answers(ev, this.seat)) { this.prompt = null; this.raised = null; }
    if (ev.type === "end") { this.end = ev; this.prompt = null; this.hints = null; this.raised = null; }
    const banner = BANNERS[ev.type] || (ev.type === "discard" && ev.lay_out ? "banner_lay_out" : null);
    if (banner) this.banner(ev.seat, t(banner));
    if (ev.type === "win") {
      this.banner(ev.seat, t(ev.how === "self_draw" ? "banner_self_draw" : "banner_win"));
      sound("win");
      showBigBanner("win", t(ev.how === "self_draw" ? "big_self_draw" : "big_win", this.name(ev.seat)));
    }
    if (ev.type === "end" && ev.reason === "drawn") showBigBanner("drawn", t("big_drawn"), t("big_drawn_sub"));
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
      // The win (how, on which tile, from whom) as the live settlement had it from its events.
      const win = lines.slice(-3).map((x) => JSON.parse(x)).find((e) => e.type === "win");
      this.model.last = win || this.model.last;
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
    updateHintPanel(this);
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
      updateHintPanel(this);
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
    } else if (soundCommand(this, target.dataset.cmd) || inviteCommand(this, target.dataset.cmd)) {
      // the sound offer's answer, the invite button (soundoffer.js, invite.js)
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
      if (this.room && this.room.status === "playing" && this.seat != null && !confirm(leaveConfirmText(this.room))) return;
      this.conn.send({ type: "leave" });
      setTimeout(() => { location.href = "/"; }, 300);
    } else if (target.dataset.cmd === "close-settle") {
      this.end = null;
      this.render();
    } else rematchCommand(this, target.dataset.cmd);
  }

  tick() {
    drawClocks(this);
    if (this.banners.length && this.banners.some((b) => b.until < performance.now())) {
      this.banners = this.banners.filter((b) => b.until >= performance.now());
    }
  }

  // -- drawing -----------------------------------------------------------------------------------
  name(seat) {
    return seatName(this.room, seat, this.seat);
  }

  /** The room's game (its words name the wins, fans, factors and reasons shown). */
  game() {
    return (this.room && this.room.rules && this.room.rules.game) || (this.model && this.model.game) || null;
  }

  render() {
    if (this.pressing) { this.redraw = true; return; }
    this.drawn += 1;
    const room = this.room;
    const m = this.model;
    const bar = barHtml(this);
    const banner = linkBannerHtml(this);
    if (!room) {
      this.root.innerHTML = bar + banner;
      return;
    }
    let body;
    // A finished room's link (opened after the match): its totals and every hand's replay.
    if (room.status === "over" && !this.matchEnd) body = finishedHtml(this);
    else if (!m || !m.players) body = waitingHtml(this);
    else body = this.boardHtml();
    // The open settlement is kept as it is while nothing in it changed (its buttons stay put, a
    // phone keeps its scroll position); the table around it is drawn again.
    const old = this.root.querySelector(".settlement");
    this.root.innerHTML = `<div class="table-page ${this.seat == null ? "spectating" : ""}">${bar}${banner}${peopleBannersHtml(this)}${body}</div>`;
    drawSettlement(this, old);
    updateHintPanel(this);
    this.tick();
  }

  boardHtml() {
    const m = this.model;
    const base = this.seat ?? 0;
    const seats = [0, 1, 2, 3].map((k) => seatHtml(this, (base + k) % 4, POSITIONS[k])).join("");
    const ponds = [0, 1, 2, 3].map((k) => pondHtml(this, (base + k) % 4, POSITIONS[k])).join("");
    return `<div class="board">${seats}${ponds}${centreHtml(this)}${this.chat.bubblesHtml()}</div>` +
      `<div class="me">${handHtml(this)}${hintsHtml(this)}${actionsHtml(this)}${this.chat.controlsHtml()}</div>` +
      `<div class="settlement ${this.end ? "open" : ""}" role="dialog" aria-label="${t("settlement")}"></div>` +
      `<div class="muted foot">${fairnessFootHtml(m.commitment, entropyHtml(this))}</div>`;
  }

  /** The marks of a tile on this table: the laizi, a must-gang tile. */
  tileMarks(tile) {
    const m = this.model;
    if (tile === m.laizi) return ["laizi"];
    return m.must_gang && m.must_gang.includes(tile) ? ["gang"] : [];
  }

  tile(tile, extra = []) {
    if (!tile) return tileSvg(null, { marks: ["back"] });
    return tileSvg(tile, { marks: [...this.tileMarks(tile), ...extra], title: tileName(tile, getLang()) });
  }
}
