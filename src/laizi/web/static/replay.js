// The replay viewer (/replay/CODE/N): a finished hand step by step, forward and back, every hand
// open. The frames come from the server (laizi.web.replay): the engine replays the record.

import { getLang, t } from "./i18n.js";
import { multiplierHtml, renderSettlement } from "./settle.js";
import { parseTiles, sortTiles, tileName, tileSvg } from "./tiles.js";
import { esc, num } from "./util.js";

const POSITIONS = ["bottom", "right", "top", "left"];

function describe(ev) {
  const who = ev.seat != null ? `${t("seat")} ${ev.seat}` : "";
  const tile = ev.tile ? tileName(ev.tile, getLang()) : "";
  switch (ev.type) {
    case "deal": return `${t("indicator")} ${ev.indicator ? tileName(ev.indicator, getLang()) : "—"}`;
    case "draw": return `${who} ← ${tile}${ev.from === "back" ? " (杠后)" : ""}`;
    case "discard": return `${who} ${ev.lay_out ? t("act_lay_out") : t("act_discard")} ${tile}`;
    case "claim": return `${who} ${t(`act_${ev.claim}`)} ${ev.tiles || ""}`;
    case "pass": return `${who} ${t("act_pass")}`;
    case "win": return `${who} ${t("act_win")} ${tile}`;
    case "end": return t("settlement");
    default: return `${who} ${t(`act_${ev.type}`)} ${tile} ${ev.tiles || ""}`;
  }
}

export async function renderReplay(root, code, number) {
  const [framesRes, roomRes] = await Promise.all([
    fetch(`/api/rooms/${code}/hands/${number}/replay`),
    fetch(`/api/rooms/${code}`),
  ]);
  const body = await framesRes.json();
  if (!framesRes.ok) {
    root.innerHTML = `<div class="banner error">${esc(body.error)}</div><a href="/">${t("back_lobby")}</a>`;
    return;
  }
  const room = roomRes.ok ? await roomRes.json() : { seats: [0, 1, 2, 3].map((s) => ({ seat: s, name: `${t("seat")} ${s}` })), dealer: 0 };
  const frames = body.frames;
  let index = 0;
  const show = () => {
    const f = frames[index];
    const v = f.view;
    const mark = (x) => (x === v.laizi ? ["laizi"] : v.must_gang.includes(x) ? ["gang"] : []);
    const tile = (x, extra = []) => tileSvg(x, { marks: [...mark(x), ...extra], title: tileName(x, getLang()) });
    const seats = [0, 1, 2, 3].map((seat) => {
      const p = v.players[seat];
      const hand = sortTiles(parseTiles(f.hands[seat])).map((x) => tile(x)).join("");
      const melds = p.melds.map((m) => `<span class="meld">${parseTiles(m.tiles).map((x) => tile(x)).join("")}</span>`).join("");
      const claimed = new Set(p.claimed);
      const river = p.discards.map((x, i) => tile(x, claimed.has(i) ? ["claimed"] : [])).join("");
      const name = room.seats[seat] ? room.seats[seat].name : `${t("seat")} ${seat}`;
      return `<section class="seat pos-${POSITIONS[seat]} ${v.turn === seat && v.phase !== "over" ? "active" : ""}" data-seat="${seat}">` +
        `<header><b>${esc(name)}</b>${seat === v.dealer ? ` <span class="badge dealer">${t("dealer")}</span>` : ""} ` +
        `<span class="mult-inline">${multiplierHtml(p.multiplier)}</span></header>` +
        `<div class="open-hand">${hand}</div><div class="exposed"><div class="melds">${melds}</div><div class="laid">${p.laid_out.map((x) => tile(x)).join("")}</div></div>` +
        `<div class="river">${river}</div></section>`;
    }).join("");
    const specials = v.indicator
      ? `<div class="special"><span>${t("indicator")}</span>${tileSvg(v.indicator)}</div><div class="special"><span>${t("laizi")}</span>${tile(v.laizi)}</div>` +
        (v.pi.length ? `<div class="special"><span>${t("pi")}</span>${v.pi.map((x) => tile(x)).join("")}</div>` : "")
      : "";
    const said = f.events.map((e) => `<li>${esc(describe(e))}</li>`).join("");
    root.innerHTML = `<div class="replay"><div class="room-bar"><b>${t("replay_of", esc(code), number + 1)}</b>` +
      `<span class="spacer"></span><a href="/r/${esc(code)}">${t("room")} ${esc(code)}</a> <a href="/">${t("back_lobby")}</a></div>` +
      `<div class="controls"><button data-step="first">${t("first")}</button><button data-step="prev">${t("prev")}</button>` +
      `<span class="step" data-step-no="${index}">${t("step", index + 1, frames.length)}</span>` +
      `<button data-step="next">${t("next")}</button><button data-step="last">${t("last")}</button></div>` +
      `<div class="board replay-board">${seats}<div class="centre"><div class="specials">${specials}</div>` +
      `<div class="wall"><span>${t("tiles_left")}</span> <b>${v.tiles_left}</b></div><ul class="said">${said}</ul></div></div>` +
      `<div class="settlement"></div></div>`;
    const end = f.events.find((e) => e.type === "end");
    if (end) {
      renderSettlement(root.querySelector(".settlement"), { end, room, dealer: v.dealer, commitment: frames[0].view.commitment, hand: number, code, mySeat: null, replayLink: false });
      root.querySelector(".settlement").classList.add("open", "inline");
    }
    root.querySelectorAll("[data-step]").forEach((b) => {
      b.disabled = (b.dataset.step === "first" || b.dataset.step === "prev") ? index === 0 : index === frames.length - 1;
    });
  };
  root.addEventListener("click", (e) => {
    const b = e.target.closest("[data-step]");
    if (!b) return;
    const go = { first: 0, prev: index - 1, next: index + 1, last: frames.length - 1 }[b.dataset.step];
    index = Math.max(0, Math.min(frames.length - 1, go));
    show();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") index = Math.min(frames.length - 1, index + 1);
    else if (e.key === "ArrowLeft") index = Math.max(0, index - 1);
    else return;
    show();
  });
  show();
  return { frames, num };
}
