// The replay viewer (/replay/CODE/N): a finished hand step by step, forward and back, every hand
// open. The frames come from the server (laizi.web.replay): the engine replays the record.

import { getLang, t } from "./i18n.js";
import { replayNotes } from "./replaynotes.js";
import { fansHtml } from "./seat.js";
import { multiplierHtml, renderSettlement } from "./settle.js";
import { parseTiles, sortTiles, tileName, tileSvg } from "./tiles.js";
import { errorText, esc, num, seatName } from "./util.js";

const POSITIONS = ["bottom", "right", "top", "left"];

const KNOWN = new Set(["chow", "pung", "kong", "win", "pass", "discard", "lay_out", "concealed_kong", "added_kong",
  "declare_ready", "abandon", "claim", "start", "deal", "draw", "end", "exposed_kong", "self_draw"]);

/** An action's or event's name in the reader's language (never a raw id). */
function actName(type) {
  return KNOWN.has(type) ? t(`act_${type}`) : type.replace(/_/g, " ");
}

function describe(ev, who) {
  // "小明 打出 二万"; in English a log line with a colon: "Ann: Discard 2 characters".
  const name = ev.seat != null ? `${who(ev.seat)}${getLang() === "en" ? ":" : ""}` : "";
  const tile = ev.tile ? tileName(ev.tile, getLang()) : "";
  const tiles = ev.tiles ? parseTiles(ev.tiles).map((x) => tileName(x, getLang())).join(" ") : "";
  switch (ev.type) {
    case "start": return t("act_start");
    case "deal": return `${t("indicator")} ${ev.indicator ? tileName(ev.indicator, getLang()) : "—"}`;
    case "draw": return `${name} ${t("act_draw")} ${tile}${ev.from === "back" ? ` ${t("drawn_back")}` : ""}`;
    case "discard": return `${name} ${ev.lay_out ? t("act_lay_out") : t("act_discard")} ${tile}`;
    case "claim": return `${name} ${actName(ev.claim || "claim")} ${tiles}`;
    case "pass": return `${name} ${t("act_pass")}`;
    case "win": return `${name} ${ev.how === "self_draw" ? t("act_self_draw") : t("act_win")} ${tile}`;
    case "abandon": return `${name} ${t("act_abandon")}`;
    case "end": return t("settlement");
    default: return `${name} ${actName(ev.type)} ${tile} ${tiles}`;
  }
}

export async function renderReplay(root, code, number) {
  const [framesRes, roomRes] = await Promise.all([
    fetch(`/api/rooms/${code}/hands/${number}/replay`),
    fetch(`/api/rooms/${code}`),
  ]);
  const body = await framesRes.json();
  if (!framesRes.ok) {
    root.innerHTML = `<div class="banner error">${esc(errorText(body))}</div><a href="/">${t("back_lobby")}</a>`;
    return;
  }
  const room = roomRes.ok ? await roomRes.json() : { seats: [0, 1, 2, 3].map((s) => ({ seat: s, name: `${t("seat")} ${s}` })), dealer: 0 };
  const frames = body.frames;
  const notesAt = await replayNotes(code, number, frames); // explain_bots: the bots' reasons
  // The step lives in the address (#step=N): a language switch or a reload keeps it.
  const fromHash = Number((location.hash.match(/step=(\d+)/) || [])[1]);
  let index = Number.isInteger(fromHash) ? Math.max(0, Math.min(frames.length - 1, fromHash)) : 0;
  const who = (seat) => seatName(room, seat, null);
  const show = () => {
    history.replaceState(null, "", `#step=${index}`);
    const f = frames[index];
    const v = f.view;
    const mark = (x) => (x === v.laizi ? ["laizi"] : v.must_gang.includes(x) ? ["gang"] : []);
    const tile = (x, extra = []) => tileSvg(x, { marks: [...mark(x), ...extra], title: tileName(x, getLang()) });
    const game = (room.rules && room.rules.game) || v.game || null;
    const seats = [0, 1, 2, 3].map((seat) => {
      const p = v.players[seat];
      const hand = sortTiles(parseTiles(f.hands[seat])).map((x) => tile(x)).join("");
      const melds = p.melds.map((m) => `<span class="meld">${parseTiles(m.tiles).map((x) => tile(x)).join("")}</span>`).join("");
      const claimed = new Set(p.claimed);
      const river = p.discards.map((x, i) => tile(x, claimed.has(i) ? ["claimed"] : [])).join("");
      const name = who(seat);
      return `<section class="seat pos-${POSITIONS[seat]} ${v.turn === seat && v.phase !== "over" ? "active" : ""}" data-seat="${seat}">` +
        `<header><b>${esc(name)}</b>${seat === v.dealer ? ` <span class="badge dealer">${t("dealer")}</span>` : ""} ` +
        // its multiplier where the game multiplies (no empty pill elsewhere), its running fans
        `${p.multiplier ? `<span class="mult-inline">${multiplierHtml(p.multiplier, game)}</span>` : ""}${fansHtml(p, game)}</header>` +
        `<div class="open-hand">${hand}</div><div class="exposed"><div class="melds">${melds}</div><div class="laid">${p.laid_out.map((x) => tile(x)).join("")}</div></div>` +
        `<div class="river">${river}</div></section>`;
    }).join("");
    const specials = v.indicator
      ? `<div class="special"><span>${t("indicator")}</span>${tileSvg(v.indicator)}</div><div class="special"><span>${t("laizi")}</span>${tile(v.laizi)}</div>` +
        (v.pi.length ? `<div class="special"><span>${t("pi")}</span><div>${v.pi.map((x) => tile(x)).join("")}</div></div>` : "")
      : "";
    const gang = v.must_gang && v.must_gang.length ? `<div class="special must-gang"><span>${t("must_gang")}</span><div>${v.must_gang.map((x) => tile(x)).join("")}</div></div>` : "";
    const said = f.events.map((e) => `<li>${esc(describe(e, who))}</li>`).join("");
    root.innerHTML = `<div class="replay"><div class="room-bar"><b>${t("replay_of", esc(code), number + 1)}</b>` +
      `<span class="spacer"></span><a href="/r/${esc(code)}">${t("room")} ${esc(code)}</a> <a href="/">${t("back_lobby")}</a></div>` +
      `<div class="controls"><button data-step="first">${t("first")}</button><button data-step="prev">${t("prev")}</button>` +
      `<span class="step" data-step-no="${index}">${t("step", index + 1, frames.length)}</span>` +
      `<button data-step="next">${t("next")}</button><button data-step="last">${t("last")}</button></div>` +
      `<div class="board replay-board">${seats}<div class="centre"><div class="specials">${specials}${gang}</div>` +
      `<div class="wall"><span>${t("tiles_left")}</span> <b>${v.tiles_left}</b></div><ul class="said">${said}</ul>${notesAt(index)}</div></div>` +
      `<div class="settlement"></div></div>`;
    const end = f.events.find((e) => e.type === "end");
    if (end) {
      const win = frames.flatMap((x) => x.events).find((e) => e.type === "win") || null;
      renderSettlement(root.querySelector(".settlement"), { end, room, dealer: v.dealer, commitment: frames[0].view.commitment, hand: number, code, mySeat: null, replayLink: false, model: v, win });
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
  return { frames, num, render: show };
}
