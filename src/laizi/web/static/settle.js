// The settlement in the shape of the seeds' 番底 table: one row per player with each factor, the
// multiplier M, base × M(loser) × M(winner) before the caps, after the caps, the contract and the
// points; then the revealed seed, checked against the commitment here, and how to verify it.

import { CAP_NAMES, CONTRACT_NAMES, FACTOR_NAMES, FAN_NAMES, WIN_NAMES, named, t } from "./i18n.js";
import { tileSvg } from "./tiles.js";
import { esc, num, seatName } from "./util.js";

export function factorText(f) {
  let name = named(FACTOR_NAMES, f.name);
  if (f.count > 1 || f.name === "opened") name += `(${f.count})`;
  return `${name} ×${num(f.factor)}`;
}

export function multiplierHtml(m) {
  if (!m) return "";
  if (!m.factors.length) return `<span class="factor">${t("no_factors")}</span> → M 1`;
  return m.factors.map((f) => `<span class="factor">${esc(factorText(f))}</span>`).join(" · ") + ` → <b>M ${num(m.total)}</b>`;
}

async function sha256Hex(hex) {
  if (!globalThis.crypto || !crypto.subtle) return null;
  const bytes = new Uint8Array(hex.match(/../g).map((h) => parseInt(h, 16)));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Fill `el` with the settlement of a hand's `end` event. */
export function renderSettlement(el, { end, room, dealer, commitment, hand, code, mySeat, replayLink = true }) {
  const names = (s) => seatName(room, s, mySeat);
  const payments = end.payments;
  let head = "";
  let table = "";
  const s = end.settlement;
  if (end.reason === "drawn") head = `<p class="verdict">${t("drawn_hand")}</p>`;
  else if (end.reason === "abandon") head = `<p class="verdict">${t("escaped", esc(names(end.seat)))}</p>`;
  if (end.reason === "win" && s && s.fans) {
    table = baishanTable(s, end, names, dealer);
    head = `<p class="verdict">${t("win_by", esc(names(end.winner)))} · <b>${esc(s.wins.map((x) => named(WIN_NAMES, x)).join(" + "))}</b> · ${t("base")} ${num(s.base)} <span class="muted">${esc(s.rules)} #${esc(s.rules_hash)}</span></p>`;
  } else if (end.reason === "win" && s) {
    const w = end.winner;
    const wins = s.wins.map((x) => named(WIN_NAMES, x)).join(" + ");
    head = `<p class="verdict">${t("win_by", esc(names(w)))} · <b>${esc(wins)}</b> · ${s.hard ? t("hard") : t("soft")} · ${t("base")} ${num(s.base)}` +
      ` · ${t("laizi")} ${s.laizi ? tileSvg(s.laizi) : "—"} <span class="muted">${esc(s.rules)} #${esc(s.rules_hash)}</span></p>`;
    const mw = s.multipliers[w].total;
    const rows = [0, 1, 2, 3].map((seat) => {
      const m = s.multipliers[seat];
      const isWinner = seat === w;
      const raw = s.raw[seat];
      const cap = s.caps[seat];
      const before = isWinner ? "" : `${num(s.base)} × ${num(m.total)} × ${num(mw)} = <b>${num(raw)}</b>`;
      const after = isWinner ? "" : cap ? `${named(CAP_NAMES, cap)} → <b>${num(s.after_caps[seat])}</b>` : num(s.after_caps[seat]);
      let contract = "";
      if (s.contract != null && seat === s.contract) contract = named(CONTRACT_NAMES, s.contract_reason);
      const pts = payments[seat];
      const contractCell = s.contract != null ? `<td>${contract}</td>` : "";
      return `<tr class="${isWinner ? "winner" : ""}" data-seat="${seat}">` +
        `<th>${esc(names(seat))}<br><small>${isWinner ? t("winner") : t("loser")}${seat === dealer ? " · " + t("dealer") : ""}</small></th>` +
        `<td class="factors">${multiplierHtml(m)}</td><td>${before}</td><td>${after}</td>${contractCell}` +
        `<td class="points ${pts > 0 ? "plus" : pts < 0 ? "minus" : ""}">${pts > 0 ? "+" : ""}${num(pts)}</td></tr>`;
    });
    table = `<table class="settle"><thead><tr><th>${t("player")}</th><th>${t("factors")}</th><th>${t("before_caps")}</th>` +
      `<th>${t("after_caps")}</th>${s.contract != null ? `<th>${t("contract")}</th>` : ""}<th>${t("final")}</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
    if (s.contract != null) table += `<p class="contract">${t("contract")}: ${esc(named(CONTRACT_NAMES, s.contract_reason))} — ${t("contract_pays", esc(names(s.contract)), num(payments[w]))}</p>`;
    else table += `<p class="contract muted">${t("contract")}: ${t("none")}</p>`;
  } else {
    const rows = [0, 1, 2, 3].map((seat) => `<tr data-seat="${seat}"><th>${esc(names(seat))}</th><td class="points">${num(payments[seat])}</td></tr>`);
    table = `<table class="settle"><thead><tr><th>${t("player")}</th><th>${t("final")}</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  }
  const hands = (end.hands || []).map((h, seat) => `<div class="reveal"><span>${esc(names(seat))}</span> ${parseHand(h)}</div>`).join("");
  const record = `/api/rooms/${code}/hands/${hand}`;
  const seed = end.seed
    ? `<div class="seed"><div>${t("commitment")}: <code>${esc(commitment || "—")}</code></div><div>${t("seed")}: <code class="seed-hex">${esc(end.seed)}</code></div>` +
      `<div class="seed-check" data-state="pending">…</div>` +
      `<div>${t("verify_hint")} <code>curl -s ${esc(location.origin + record)} | laizi verify -</code> · <a href="${record}" download>${t("download_record")}</a>` +
      (replayLink ? ` · <a href="/replay/${code}/${hand}" class="replay-link">${t("replay")}</a>` : "") + "</div></div>"
    : "";
  el.innerHTML = `<h2>${t("settlement")} — ${t("hand_no", hand + 1)}</h2>${head}${table}<div class="reveals">${hands}</div>${seed}`;
  if (end.seed && commitment) {
    sha256Hex(end.seed).then((digest) => {
      const box = el.querySelector(".seed-check");
      if (!box) return;
      if (digest == null) { box.textContent = ""; return; }
      const ok = digest === commitment;
      box.dataset.state = ok ? "ok" : "bad";
      box.textContent = ok ? t("seed_ok") : t("seed_bad");
    });
  }
}

/** Baishan (RULES.md B): per loser base × 2^(winner's fans + its fans), capped; kongs paid apart. */
function baishanTable(s, end, names, dealer) {
  const w = end.winner;
  const fw = s.fans[w].total;
  const rows = [0, 1, 2, 3].map((seat) => {
    const f = s.fans[seat];
    const list = f.fans.length
      ? f.fans.map((x) => `<span class="factor">${esc(named(FAN_NAMES, x.name))} +${x.fans}</span>`).join(" · ") + ` → <b>${t("fans_total", f.total)}</b>`
      : `<span class="factor">${t("fans_total", 0)}</span>`;
    const isWinner = seat === w;
    const before = isWinner ? "" : `${num(s.base)} × 2^(${fw}+${f.total}) = <b>${num(s.raw[seat])}</b>`;
    const paid = -s.win_payments[seat];
    const after = isWinner ? "" : s.caps[seat] ? `${named(CAP_NAMES, s.caps[seat])} → <b>${num(paid)}</b>` : num(paid);
    const pts = s.payments[seat];
    return `<tr class="${isWinner ? "winner" : ""}" data-seat="${seat}"><th>${esc(names(seat))}<br><small>${isWinner ? t("winner") : t("loser")}${seat === dealer ? " · " + t("dealer") : ""}</small></th>` +
      `<td class="factors">${list}</td><td>${before}</td><td>${after}</td><td>${num(s.kong_payments[seat])}</td>` +
      `<td class="points ${pts > 0 ? "plus" : pts < 0 ? "minus" : ""}">${pts > 0 ? "+" : ""}${num(pts)}</td></tr>`;
  });
  return `<table class="settle"><thead><tr><th>${t("player")}</th><th>${t("fans")}</th><th>${t("before_caps")}</th>` +
    `<th>${t("after_caps")}</th><th>${t("kongs")}</th><th>${t("final")}</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function parseHand(text) {
  const out = [];
  let digits = [];
  for (const ch of text || "") {
    if (/[0-9]/.test(ch)) digits.push(ch);
    else { for (const d of digits) out.push(tileSvg(d + ch)); digits = []; }
  }
  return out.join("");
}
