// The lobby's first card, 匹配 / Match: pick a game and ranked or casual, see who waits in each
// tier (GET /api/queue, refreshed), queue over a WebSocket of its own, see one's place, wait and
// estimate, cancel; a match offered is accepted with a click before its countdown ends (never
// automatically: matchstate.js), and everyone having accepted, the page goes to the table. A
// match found while the tab is hidden beeps and flashes the tab's title (attention.js).

import { callBack, primeAudio } from "./attention.js";
import { getLang, t } from "./i18n.js";
import { clocks, FLASH, initial, mayQueue, REQUEUE, step, tierRows } from "./matchstate.js";
import { errorText, esc } from "./util.js";

const SAVED = "laizi.queue"; // {preset, kind, key, at}: a reload keeps the place (the server's grace)
const GRACE_MS = 25000; // under the server's default --queue-grace-seconds (30)

let current = null;

function read(storage, key) {
  try {
    return JSON.parse(storage.getItem(key) || "null");
  } catch {
    return null;
  }
}

export class MatchCard {
  /** `presets`: [{name, label}] (label in the page's language); `say`: a {zh, en} name. */
  constructor(box, { presets, say }) {
    if (current) current.destroy();
    current = this;
    this.box = box;
    this.presets = presets;
    this.say = say;
    this.loggedIn = null; // unknown until /api/me answers
    this.state = initial();
    this.preset = localStorage.getItem("laizi.match.preset") || presets[0]?.name;
    if (!presets.some((p) => p.name === this.preset)) this.preset = presets[0]?.name;
    this.kind = localStorage.getItem("laizi.match.kind") || "ranked";
    this.counts = null;
    this.ws = null;
    this.shape = "";
    box.addEventListener("click", (e) => this.onClick(e));
    box.addEventListener("change", (e) => this.onChange(e));
    this.poll = setInterval(() => this.refresh(), 5000);
    this.timer = setInterval(() => this.tick(), 250);
    this.render();
    this.refresh();
  }

  destroy() {
    clearInterval(this.poll);
    clearInterval(this.timer);
    if (this.ws) { this.ws.onclose = null; this.ws.close(); }
    if (current === this) current = null;
  }

  /** /api/me answered: ranked is offered to accounts; a queue left by a reload or a 再次匹配 resumes. */
  setAccount(loggedIn) {
    this.loggedIn = loggedIn;
    if (!loggedIn && this.kind === "ranked") this.kind = "casual";
    const again = read(sessionStorage, REQUEUE);
    const saved = read(localStorage, SAVED);
    sessionStorage.removeItem(REQUEUE);
    if (again) this.find(again.preset, again.kind);
    else if (saved && Date.now() - saved.at < GRACE_MS) {
      this.state = { ...this.state, key: saved.key || null };
      this.find(saved.preset, saved.kind);
    } else {
      localStorage.removeItem(SAVED);
      this.render();
    }
  }

  async refresh() {
    try {
      const r = await fetch("/api/queue", { credentials: "same-origin" });
      if (!r.ok) return;
      this.counts = await r.json();
      const box = this.box.querySelector(".mm-tiers");
      if (box) box.innerHTML = this.tiersHtml();
    } catch {
      // the counts are a help: the queue works without them
    }
  }

  // -- the queue's socket ----------------------------------------------------------------------
  find(preset, kind) {
    primeAudio(); // a click: the page may sound later
    this.preset = preset;
    this.kind = kind;
    this.state = step(this.state, { type: "find", preset, kind }, Date.now());
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.sendQueue();
    else this.connect();
    this.render();
  }

  connect() {
    if (this.ws) { this.ws.onclose = null; this.ws.close(); }
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => this.sendQueue();
    ws.onmessage = (e) => {
      const data = JSON.parse(e.data);
      for (const m of Array.isArray(data) ? data : [data]) this.onServer(m);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      // dropped while waiting: back within the server's grace, the place is kept
      if (["connecting", "queued", "offered", "accepted"].includes(this.state.phase)) {
        setTimeout(() => { if (!this.ws && this.state.phase !== "idle") this.connect(); }, 1000);
      }
    };
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  sendQueue() {
    const message = { type: "queue", preset: this.preset, kind: this.kind };
    if (!this.loggedIn && this.state.key) message.key = this.state.key;
    this.send(message);
  }

  onServer(m) {
    if (!["queued", "matched", "accepted", "lapsed", "unqueued", "error"].includes(m.type)) return;
    const before = this.state.phase;
    this.state = step(this.state, m, Date.now());
    const s = this.state;
    if (s.phase !== before) this.refresh(); // who waits changed with us
    if (m.type === "matched" && m.room == null) callBack(t("match_title"));
    if (s.phase === "queued") {
      localStorage.setItem(SAVED, JSON.stringify({ preset: s.preset, kind: s.kind, key: s.key, at: Date.now() }));
    } else if (s.phase === "idle") {
      localStorage.removeItem(SAVED);
      if (this.ws) { const ws = this.ws; this.ws = null; ws.close(); }
    } else if (s.phase === "matched") {
      this.go(s);
    }
    this.render();
  }

  /** Everyone accepted: to the table (a guest with its kept seat's token). */
  go(s) {
    localStorage.removeItem(SAVED);
    if (s.token) localStorage.setItem(`laizi.seat.${s.room}`, JSON.stringify({ token: s.token, seat: s.seat }));
    if (document.visibilityState !== "visible") sessionStorage.setItem(FLASH, "1");
    location.href = `/r/${s.room}`;
  }

  // -- clicks --------------------------------------------------------------------------------
  onClick(e) {
    const b = e.target.closest("[data-mm]");
    if (!b || b.disabled) return;
    const what = b.dataset.mm;
    if (what === "find") {
      if (!mayQueue(this.kind, this.loggedIn)) return;
      localStorage.setItem("laizi.match.preset", this.preset);
      localStorage.setItem("laizi.match.kind", this.kind);
      this.find(this.preset, this.kind);
    } else if (what === "cancel" || what === "decline") {
      this.send({ type: "unqueue" });
      this.state = step(this.state, { type: "cancel" }, Date.now());
      localStorage.removeItem(SAVED);
      this.render();
    } else if (what === "accept") {
      this.send({ type: "accept", match: this.state.match });
      this.state = step(this.state, { type: "accept" }, Date.now());
      this.render();
    }
  }

  onChange(e) {
    if (e.target.id === "mm-preset") this.preset = e.target.value;
    else if (e.target.name === "mm-kind") this.kind = e.target.value;
    else return;
    this.render();
  }

  // -- drawing -------------------------------------------------------------------------------
  presetName(name) {
    const p = this.presets.find((x) => x.name === name);
    return p ? p.label : name;
  }

  tierName(id) {
    const tier = ((this.counts && this.counts.tiers) || []).find((x) => x.id === id);
    return tier ? this.say(tier) : id;
  }

  tiersHtml() {
    const s = this.state;
    const rows = tierRows(this.counts, s.preset || this.preset, s.kind || this.kind).map((r) =>
      `<tr data-tier="${esc(r.id)}" class="${r.id === s.tier ? "mine" : ""}"><td>${esc(this.say(r.name))}${r.id === s.tier ? ` <small>(${t("match_your_tier")})</small>` : ""}</td><td class="n">${r.waiting}</td></tr>`).join("");
    return rows ? `<table class="mm-tier-table"><thead><tr><th>${t("match_tier")}</th><th>${t("match_waiting_n")}</th></tr></thead><tbody>${rows}</tbody></table>` : "";
  }

  formHtml() {
    const guest = this.loggedIn === false;
    const options = this.presets.map((p) => `<option value="${esc(p.name)}"${p.name === this.preset ? " selected" : ""}>${esc(p.label)}</option>`).join("");
    const radio = (kind) => `<label class="mm-kind"><input type="radio" name="mm-kind" value="${kind}"${this.kind === kind ? " checked" : ""}${kind === "ranked" && guest ? " disabled" : ""}> ${t(`kind_${kind}`)}</label>`;
    const note = `<p class="muted">${t(this.kind === "ranked" ? "match_ranked_note" : "match_casual_note")}</p>` +
      (guest ? `<p class="mm-need-account" role="note">${t("match_need_account")}</p>` : "");
    const allowed = this.loggedIn !== null && mayQueue(this.kind, this.loggedIn);
    return `<div class="mm-form"><div class="field"><label for="mm-preset">${t("match_game")}</label><select id="mm-preset">${options}</select></div>` +
      `<div class="field mm-kinds" role="radiogroup" aria-label="${t("match_kind")}">${radio("ranked")}${radio("casual")}</div>${note}` +
      `<button type="button" class="primary mm-go" data-mm="find"${allowed ? "" : " disabled"}>${t("match_go")}</button></div>`;
  }

  liveHtml() {
    const s = this.state;
    const what = `${esc(this.presetName(s.preset))} · ${t(`kind_${s.kind}`)}`;
    if (s.phase === "connecting") return `<p class="mm-status">${t("match_connecting")}</p>${this.cancelHtml()}`;
    if (s.phase === "queued") {
      return `<p class="mm-status"><b>${t("match_queued")}</b> · ${what}${s.tier ? ` · ${esc(this.tierName(s.tier))}` : ""}</p>` +
        `<p class="mm-numbers"><span data-mm-position>${t("match_position", s.position)}</span> · <span data-mm-waited></span> · <span data-mm-estimate></span></p>${this.cancelHtml()}`;
    }
    if (s.phase === "offered") {
      return `<div class="mm-offer" role="alertdialog" aria-label="${t("match_found")}"><p class="mm-found"><b>${t("match_found")}</b> ${what}</p>` +
        `<p>${t("match_found_people", s.people)}</p><button type="button" class="primary mm-accept" data-mm="accept"></button> ` +
        `<button type="button" class="mm-decline" data-mm="decline">${t("match_decline")}</button></div>`;
    }
    if (s.phase === "accepted") return `<p class="mm-status mm-accepted" data-mm-accepted></p>`;
    if (s.phase === "matched") return `<p class="mm-status">${t("match_to_table")}</p>`;
    return this.formHtml();
  }

  cancelHtml() {
    return `<button type="button" class="mm-cancel" data-mm="cancel">${t("match_cancel")}</button>`;
  }

  noticeHtml() {
    const s = this.state;
    if (s.error) return `<p class="form-error mm-error" role="alert" data-code="${esc(s.error.code)}">${esc(errorText(s.error))}</p>`;
    if (s.notice) return `<p class="mm-notice" role="status" data-notice="${esc(s.notice.key)}">${esc(t(s.notice.key, ...s.notice.args))}</p>`;
    return "";
  }

  render() {
    const s = this.state;
    const shape = JSON.stringify([getLang(), s.phase, s.notice, s.error && s.error.code, s.position, s.tier, this.kind, this.preset, this.loggedIn]);
    if (shape === this.shape) return;
    this.shape = shape;
    this.box.dataset.phase = s.phase;
    this.box.innerHTML = `<h2>${t("match")}</h2>${this.noticeHtml()}<div class="mm-live">${this.liveHtml()}</div><div class="mm-tiers">${this.tiersHtml()}</div>`;
    this.tick();
  }

  /** The numbers that run: seconds waited, the estimate, the offer's countdown. */
  tick() {
    const c = clocks(this.state, Date.now());
    const put = (sel, text) => { const el = this.box.querySelector(sel); if (el) el.textContent = text; };
    put("[data-mm-waited]", t("match_waited", c.waited));
    put("[data-mm-estimate]", t("match_estimate", c.estimate));
    put(".mm-accept", t("match_accept", c.offer));
    put("[data-mm-accepted]", t("match_accepted", c.offer));
  }
}
