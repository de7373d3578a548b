// The replay viewer's board and controls, for a room's finished hand (replay.js: the server's
// frames) and for a file (replayfile.js: frames folded in the browser, or in the page that
// `laizi replay FILE --html OUT` writes). Step forward and back, jump to the previous or next
// decision (recordfold.js `nextDecision`), and view the table as one seat saw it or every hand open.

import { getLang, t } from "./i18n.js";
import { HIDDEN, isDecision, nextDecision, seatFrame } from "./recordfold.js";
import { fansHtml } from "./seat.js";
import { multiplierHtml } from "./settle.js";
import { parseTiles, sortTiles, tileName, tileSvg } from "./tiles.js";
import { esc } from "./util.js";

const POSITIONS = ["bottom", "right", "top", "left"];

const KNOWN = new Set(["chow", "pung", "kong", "win", "pass", "discard", "lay_out", "concealed_kong", "added_kong",
  "declare_ready", "abandon", "claim", "start", "deal", "draw", "end", "exposed_kong", "self_draw"]);

/** An action's or event's name in the reader's language (never a raw id). */
function actName(type) {
  return KNOWN.has(type) ? t(`act_${type}`) : type.replace(/_/g, " ");
}

/** One event as a line of the step's log: "小明 打出 二万"; in English "Ann: Discard 2 characters". */
export function describe(ev, who) {
  const name = ev.seat != null ? `${who(ev.seat)}${getLang() === "en" ? ":" : ""}` : "";
  const tile = ev.tile && ev.tile !== HIDDEN ? tileName(ev.tile, getLang()) : "";
  const tiles = ev.tiles ? parseTiles(ev.tiles).map((x) => tileName(x, getLang())).join(" ") : "";
  switch (ev.type) {
    case "start": return t("act_start");
    case "deal": return `${t("indicator")} ${ev.indicator ? tileName(ev.indicator, getLang()) : "—"}`;
    case "draw": return `${name} ${t("act_draw")} ${tile}${ev.from === "back" ? ` ${t("drawn_back")}` : ""}`;
    case "discard": return `${name} ${ev.lay_out ? t("act_lay_out") : ev.declare_ready ? t("act_declare_ready") : t("act_discard")} ${tile}`;
    case "claim": return `${name} ${actName(ev.claim || "claim")} ${tiles}`;
    case "pass": return `${name} ${t("act_pass")}`;
    case "win": return `${name} ${ev.how === "self_draw" ? t("act_self_draw") : t("act_win")} ${tile}`;
    case "abandon": return `${name} ${t("act_abandon")}`;
    case "end": return t("settlement");
    default: return `${name} ${actName(ev.type)} ${tile} ${tiles}`;
  }
}

const back = () => tileSvg(null, { marks: ["back"] });

/** The board of one frame: four seats (each hand open, or face down where hidden), the centre. */
export function boardHtml(f, { who, game, notes = "" }) {
  const v = f.view;
  const mark = (x) => (x === v.laizi ? ["laizi"] : (v.must_gang || []).includes(x) ? ["gang"] : []);
  const tile = (x, extra = []) => (x === HIDDEN ? back() : tileSvg(x, { marks: [...mark(x), ...extra], title: tileName(x, getLang()) }));
  const seats = [0, 1, 2, 3].map((seat) => {
    const p = v.players[seat];
    const held = typeof f.hands[seat] === "string" ? parseTiles(f.hands[seat]) : f.hands[seat];
    const known = held.filter((x) => x !== HIDDEN);
    const hand = sortTiles(known).map((x) => tile(x)).join("") + held.filter((x) => x === HIDDEN).map(back).join("");
    const melds = p.melds.map((m) => `<span class="meld" data-kind="${esc(m.kind)}">${m.tiles ? parseTiles(m.tiles).map((x) => tile(x)).join("") : [0, 1, 2, 3].map(back).join("")}</span>`).join("");
    const claimed = new Set(p.claimed);
    const river = p.discards.map((x, i) => tile(x, claimed.has(i) ? ["claimed"] : [])).join("");
    return `<section class="seat pos-${POSITIONS[seat]} ${v.turn === seat && v.phase !== "over" ? "active" : ""}" data-seat="${seat}">` +
      `<header><b>${esc(who(seat))}</b>${seat === v.dealer ? ` <span class="badge dealer">${t("dealer")}</span>` : ""} ` +
      // its multiplier where the game multiplies (no empty pill elsewhere), its running fans
      `${p.multiplier ? `<span class="mult-inline">${multiplierHtml(p.multiplier, game)}</span>` : ""}${fansHtml(p, game)}</header>` +
      `<div class="open-hand">${hand}</div><div class="exposed"><div class="melds">${melds}</div><div class="laid">${p.laid_out.map((x) => tile(x)).join("")}</div></div>` +
      `<div class="river">${river}</div></section>`;
  }).join("");
  const specials = v.indicator
    ? `<div class="special"><span>${t("indicator")}</span>${tileSvg(v.indicator)}</div><div class="special"><span>${t("laizi")}</span>${tile(v.laizi)}</div>` +
      (v.pi && v.pi.length ? `<div class="special"><span>${t("pi")}</span><div>${v.pi.map((x) => tile(x)).join("")}</div></div>` : "")
    : "";
  const gang = v.must_gang && v.must_gang.length ? `<div class="special must-gang"><span>${t("must_gang")}</span><div>${v.must_gang.map((x) => tile(x)).join("")}</div></div>` : "";
  // a folded file knows the draws, not the wall (its size is the rules'): it counts the draws
  const wall = v.tiles_left != null
    ? `<span>${t("tiles_left")}</span> <b>${v.tiles_left}</b>`
    : `<span data-draws="${v.draws}">${t("wall_drawn", v.draws)}</span>`;
  const said = f.events.map((e) => `<li>${esc(describe(e, who))}</li>`).join("");
  return `<div class="board replay-board">${seats}<div class="centre"><div class="specials">${specials}${gang}</div>` +
    `<div class="wall">${wall}</div><ul class="said">${said}</ul>${notes}</div></div>`;
}

/** A replay with its controls in `root`. `hands`: [{number, frames}]; `who(seat)`: a seat's name;
 * `settle(el, end, frames, hand)`: draws the settlement of a frame with the `end` event; `head()`:
 * the bar's HTML; `notesAt(hand, index)`: HTML under the step's log; `onStep(state)` after each
 * render (the address keeps the step). */
export class ReplayView {
  constructor(root, { hands, who, game = null, head = () => "", note = () => "", settle, notesAt = () => "", onStep = () => {}, hand = 0, step = 0, seat = null }) {
    Object.assign(this, { root, hands, who, game, head, note, settle, notesAt, onStep });
    this.hand = Math.max(0, Math.min(hands.length - 1, hand));
    this.index = Math.max(0, Math.min(this.frames.length - 1, step));
    this.seat = seat;
    root.addEventListener("click", (e) => this.click(e));
    root.addEventListener("change", (e) => this.change(e));
    document.addEventListener("keydown", (e) => {
      if (!this.root.isConnected || e.target.closest?.("select, input")) return;
      const go = { ArrowRight: this.index + 1, ArrowLeft: this.index - 1 }[e.key];
      if (go == null) return;
      this.go(go);
    });
  }

  get frames() {
    return this.hands[this.hand].frames;
  }

  go(index) {
    this.index = Math.max(0, Math.min(this.frames.length - 1, index));
    this.render();
  }

  click(e) {
    const step = e.target.closest("[data-step]");
    if (step) {
      const last = this.frames.length - 1;
      this.go({ first: 0, prev: this.index - 1, next: this.index + 1, last }[step.dataset.step]);
      return;
    }
    const jump = e.target.closest("[data-decision]");
    if (jump) {
      const to = nextDecision(this.frames, this.index, this.seat, jump.dataset.decision === "next" ? 1 : -1);
      if (to != null) this.go(to);
    }
  }

  change(e) {
    if (e.target.matches("[data-view]")) {
      this.seat = e.target.value === "all" ? null : Number(e.target.value);
      this.render();
    } else if (e.target.matches("[data-hand]")) {
      this.hand = Number(e.target.value);
      this.go(0);
    }
  }

  controlsHtml() {
    const n = this.frames.length;
    const hands = this.hands.length > 1
      ? `<label>${t("hand")} <select data-hand>${this.hands.map((h, i) => `<option value="${i}" ${i === this.hand ? "selected" : ""}>${t("hand_no", h.number + 1)}</option>`).join("")}</select></label>`
      : "";
    const views = [`<option value="all">${t("all_hands")}</option>`, ...[0, 1, 2, 3].map((s) =>
      `<option value="${s}" ${s === this.seat ? "selected" : ""}>${esc(t("seat_view", this.who(s)))}</option>`)].join("");
    const none = (dir) => nextDecision(this.frames, this.index, this.seat, dir) == null ? "disabled" : "";
    return `<div class="controls">${hands}<button data-step="first" ${this.index === 0 ? "disabled" : ""}>${t("first")}</button>` +
      `<button data-decision="prev" ${none(-1)}>${t("prev_decision")}</button>` +
      `<button data-step="prev" ${this.index === 0 ? "disabled" : ""}>${t("prev")}</button>` +
      `<span class="step" data-step-no="${this.index}">${t("step", this.index + 1, n)}</span>` +
      `<button data-step="next" ${this.index === n - 1 ? "disabled" : ""}>${t("next")}</button>` +
      `<button data-decision="next" ${none(1)}>${t("next_decision")}</button>` +
      `<button data-step="last" ${this.index === n - 1 ? "disabled" : ""}>${t("last")}</button>` +
      `<label>${t("view_as")} <select data-view>${views}</select></label></div>`;
  }

  render() {
    const raw = this.frames[this.index];
    const f = seatFrame(raw, this.seat);
    const chose = isDecision(raw) && raw.legal != null
      ? `<p class="muted decision" data-legal="${raw.legal}">${esc(t("chose_among", this.who(raw.actor), raw.legal))}</p>` : "";
    this.root.innerHTML = `<div class="replay" data-viewing="${this.seat ?? "all"}">${this.head()}${this.controlsHtml()}${this.note()}${chose}` +
      `${boardHtml(f, { who: this.who, game: this.game, notes: this.notesAt(this.hand, this.index) })}<div class="settlement"></div></div>`;
    const end = f.events.find((e) => e.type === "end");
    if (end && this.settle) {
      const box = this.root.querySelector(".settlement");
      this.settle(box, end, this.frames, this.hands[this.hand]);
      box.classList.add("open", "inline");
    }
    this.onStep(this);
  }
}
