// The table page (/r/CODE): seats, melds, discards, the centre, the own hand, the legal actions,
// the timer, auto-play and reconnect indicators, and the settlement when a hand ends.

import { getLang, t } from "./i18n.js";
import { applyEvent, fromView, ownHand } from "./model.js";
import { RoomConnection, savedSeat } from "./net.js";
import { factorText, multiplierHtml, renderSettlement } from "./settle.js";
import { parseTiles, sortTiles, tileName, tileSvg } from "./tiles.js";
import { esc, guestless, num, seatName } from "./util.js";

const POSITIONS = ["bottom", "right", "top", "left"]; // the next seat in play order sits to the right

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
    this.error = "";
    this.openMult = null;
    this.conn = new RoomConnection(code, {
      name,
      spectate: spectate && !savedSeat(code),
      onMessages: (list) => { list.forEach((m) => this.onMessage(m)); this.render(); },
      onStatus: (up) => { this.online = up; this.render(); },
    });
    this.timer = setInterval(() => this.tick(), 250);
    root.addEventListener("click", (e) => this.onClick(e));
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
        this.model = m.view ? fromView(m.view, m.room.rules) : null;
        if (this.model && this.model.phase === "over") this.fetchEnd(this.model.hand);
        else this.end = null;
        break;
      case "event": {
        const ev = m.event;
        if (ev.type === "match_end") { this.matchEnd = ev; break; }
        if (ev.type === "start") { this.model = { seat: this.seat }; this.end = null; this.prompt = null; this.start = ev; }
        if (!this.model) break;
        applyEvent(this.model, ev);
        if (ev.type === "end") { this.end = ev; this.prompt = null; }
        break;
      }
      case "room":
        this.room = m.room;
        break;
      case "prompt":
        this.prompt = m;
        this.promptAt = performance.now();
        this.error = "";
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
        this.error = `${m.code}: ${getLang() === "zh" && m.message_zh ? m.message_zh : m.message}`;
        break;
      case "left":
        location.href = "/";
        return;
      default:
        break;
    }
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
    if (this.auto) { this.conn.send({ type: "auto", on: false }); this.auto = false; }
    this.conn.act(id, action);
    this.render();
  }

  onClick(e) {
    const target = e.target.closest("[data-act], [data-discard], [data-cmd], .mult");
    if (!target) return;
    if (target.dataset.act !== undefined) {
      const legal = this.prompt ? this.prompt.legal[Number(target.dataset.act)] : null;
      if (legal) this.send(legal);
    } else if (target.dataset.discard !== undefined) {
      const tile = target.dataset.discard;
      const legal = this.prompt && this.prompt.legal.find((a) => a.type === "discard" && a.tile === tile);
      if (legal) this.send(legal);
    } else if (target.classList.contains("mult")) {
      const seat = Number(target.dataset.seat);
      this.openMult = this.openMult === seat ? null : seat;
      this.render();
    } else if (target.dataset.cmd === "auto") {
      this.conn.send({ type: "auto", on: !this.auto });
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
    return { main: Math.max(0, p.seconds - used), bank: Math.max(0, p.bank - Math.max(0, used - p.seconds)) };
  }

  tick() {
    const box = this.root.querySelector(".timer");
    if (!box) return;
    const r = this.remaining();
    if (!r) { box.textContent = ""; return; }
    box.textContent = r.main > 0 ? t("seconds", Math.ceil(r.main)) : t("bank", Math.ceil(r.bank));
    box.classList.toggle("low", r.main <= 0);
  }

  // -- rendering ---------------------------------------------------------------------------------
  name(seat) {
    return seatName(this.room, seat, this.seat);
  }

  render() {
    const room = this.room;
    const m = this.model;
    const bar = this.barHtml();
    const banner = this.online ? "" : `<div class="banner offline" role="status">${t("reconnecting")}</div>`;
    const error = this.error ? `<div class="banner error" role="alert">${esc(this.error)}</div>` : "";
    if (!room) {
      this.root.innerHTML = bar + banner;
      return;
    }
    let body;
    if (!m || !m.players) body = this.waitingHtml();
    else body = this.boardHtml();
    this.root.innerHTML = `<div class="table-page">${bar}${banner}${error}${body}</div>`;
    if (this.end && m) {
      const panel = this.root.querySelector(".settlement");
      renderSettlement(panel, { end: this.end, room, dealer: m.dealer, commitment: m.commitment, hand: m.hand, code: this.code, mySeat: this.seat });
      panel.insertAdjacentHTML("beforeend", this.matchEnd ? this.matchEndHtml() : `<p class="muted">${room.status === "playing" ? t("next_hand") : ""}</p><button data-cmd="close-settle">${t("close")}</button>`);
    } else if (this.matchEnd) {
      this.root.querySelector(".settlement").innerHTML = this.matchEndHtml();
    }
    this.tick();
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
    return `<div class="room-bar"><span class="code">${t("room")} <b data-code>${esc(this.code)}</b></span>` +
      `<span>${hand} ${of}</span><span class="link">${t("link")}: <a href="/r/${esc(this.code)}">${esc(link)}</a></span>${records}` +
      `<span class="spacer"></span>${autoBtn}<button data-cmd="leave">${t("leave")}</button></div>`;
  }

  waitingHtml() {
    const room = this.room;
    const seats = room.seats.map((s) => `<li>${t("seat")} ${s.seat}: ${s.kind === "empty" ? t("empty") : esc(s.guest ? guestless(s.name) : s.name)}${s.kind === "bot" ? ` (${t("bot")})` : ""}${s.guest && s.seat !== this.seat ? ` (${t("guest")})` : ""}${s.seat === this.seat ? ` (${t("you")})` : ""}</li>`).join("");
    return `<div class="waiting"><h2>${room.status === "over" ? t("match_over") : t("waiting")}</h2><p>${t("start_note")}</p><ul>${seats}</ul>` +
      `<p>${t("room_code")}: <b class="big-code">${esc(this.code)}</b></p><div class="settlement"></div></div>`;
  }

  tileMarks(tile) {
    const m = this.model;
    const marks = [];
    if (tile === m.laizi) marks.push("laizi");
    else if (m.must_gang.includes(tile)) marks.push("gang");
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
    return `<div class="board">${seats}${this.centreHtml()}</div>${this.handHtml()}${this.actionsHtml()}` +
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

  centreHtml() {
    const m = this.model;
    const turnSeat = m.to_act && m.to_act.length ? m.to_act[0] : null;
    let status = "";
    if (m.phase === "over") status = t("settlement");
    else if (this.prompt && this.prompt.phase !== "turn" && this.prompt.phase !== "final") status = t("your_claim");
    else if (turnSeat === this.seat && this.seat != null) status = t("your_turn");
    else if (m.phase === "claim" || m.phase === "rob") status = t("phase_claim");
    else if (turnSeat != null) status = t("turn_of", esc(this.name(turnSeat)));
    if (m.phase === "final") status += ` · ${t("phase_final")}`;
    const pi = m.pi && m.pi.length ? `<div class="special"><span>${t("pi")}</span>${m.pi.map((x) => this.tile(x)).join("")}</div>` : "";
    const gang = m.must_gang && m.must_gang.length ? `<div class="special"><span>${t("must_gang")}</span>${m.must_gang.map((x) => this.tile(x)).join("")}</div>` : "";
    const indicator = m.indicator ? `<div class="special"><span>${t("indicator")}</span>${tileSvg(m.indicator)}</div><div class="special laizi-box"><span>${t("laizi")}</span>${this.tile(m.laizi)}</div>` : "";
    return `<div class="centre"><div class="specials">${indicator}${pi}${gang}</div>` +
      `<div class="wall"><span>${t("tiles_left")}</span> <b data-tiles-left>${m.tiles_left}</b> <small>(${t("live_left")} ${m.live})</small></div>` +
      `<div class="status" data-status>${status}</div><div class="timer" aria-live="polite"></div></div>`;
  }

  seatHtml(seat, pos) {
    const m = this.model;
    const p = m.players[seat];
    const info = this.room.seats[seat] || {};
    const badges = [];
    if (seat === m.dealer) badges.push(`<span class="badge dealer">${t("dealer")}</span>`);
    if (info.kind === "bot") badges.push(`<span class="badge">${t("bot")}</span>`);
    if (info.guest) badges.push(`<span class="badge guest">${t("guest")}</span>`);
    if (info.auto || (seat === this.seat && this.auto)) badges.push(`<span class="badge auto">${t("auto")}</span>`);
    if (info.kind === "human" && !info.connected) badges.push(`<span class="badge offline">${t("offline")}</span>`);
    const total = this.room.totals ? this.room.totals[seat] : 0;
    const mult = p.multiplier;
    const title = mult ? (mult.factors.length ? mult.factors.map((f) => factorText(f)).join(" · ") : t("no_factors")) : "";
    const multHtml = mult
      ? `<button class="mult" data-seat="${seat}" title="${esc(title)}" aria-expanded="${this.openMult === seat}">×${num(mult.total)}</button>` +
        (this.openMult === seat ? `<div class="mult-detail">${multiplierHtml(mult)}</div>` : "")
      : "";
    const active = m.to_act && m.to_act.includes(seat) && m.phase !== "over";
    const hidden = seat === this.seat ? "" : `<div class="backs" data-count="${p.hand_size}">${tileSvg(null, { marks: ["back", "small"] })}<b>×${p.hand_size}</b></div>`;
    const melds = p.melds.map((meld) => `<span class="meld" data-kind="${meld.kind}">${meld.tiles ? parseTiles(meld.tiles).map((x) => this.tile(x)).join("") : tileSvg(null, { marks: ["back"] }).repeat(4)}</span>`).join("");
    const laid = p.laid_out.map((x) => this.tile(x)).join("");
    const claimedSet = new Set(p.claimed);
    const lastDiscard = m.claim && m.claim.from === seat ? p.discards.length - 1 : -1;
    const river = p.discards.map((x, i) => this.tile(x, [claimedSet.has(i) ? "claimed" : "", i === lastDiscard ? "last" : ""].filter(Boolean))).join("");
    return `<section class="seat pos-${pos} ${active ? "active" : ""}" data-seat="${seat}">` +
      `<header><b class="name">${esc(this.name(seat))}</b> ${badges.join("")} <span class="score">${num(total)}</span> ${multHtml}</header>` +
      `<div class="exposed">${hidden}<div class="melds">${melds}</div><div class="laid">${laid}</div></div>` +
      `<div class="river">${river}</div></section>`;
  }

  handHtml() {
    const m = this.model;
    if (this.seat == null) return "";
    const { tiles, drawn } = ownHand(m);
    const discardable = new Set(this.prompt ? this.prompt.legal.filter((a) => a.type === "discard").map((a) => a.tile) : []);
    const one = (x, extra = []) => discardable.has(x)
      ? `<button class="tile-btn" data-discard="${x}" aria-label="${t("a_discard", tileName(x, getLang()))}">${this.tile(x, extra)}</button>`
      : `<span class="tile-btn off">${this.tile(x, extra)}</span>`;
    const all = sortTiles(drawn ? [...tiles, drawn] : tiles).join("");
    return `<div class="my-hand" data-hand="${all}">${tiles.map((x) => one(x)).join("")}` +
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
      return `<button class="act act-${a.type}" data-act="${i}" data-type="${a.type}"${a.tiles ? ` data-tiles="${a.tiles}"` : ""}${a.tile ? ` data-tile="${a.tile}"` : ""}>${label} ${tiles}</button>`;
    }).join("");
    const hint = this.prompt.legal.some((a) => a.type === "discard") ? `<span class="hint">${t("discard_hint")}</span>` : "";
    return `<div class="actions" data-prompt="${this.prompt.id}">${buttons}${hint}</div>`;
  }
}

