// The replay viewer (/replay/CODE/N): a finished hand step by step, forward and back, every hand
// open or one seat's view, with jumps between decisions (replayview.js). The frames come from the
// server (laizi.web.replay): the engine replays the record.

import { t } from "./i18n.js";
import { replayNotes } from "./replaynotes.js";
import { ReplayView } from "./replayview.js";
import { renderSettlement } from "./settle.js";
import { errorText, esc, num, seatName } from "./util.js";

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
  // The step and the view live in the address (#step=N&seat=K): a language switch or a reload keeps them.
  const hash = new URLSearchParams(location.hash.slice(1));
  const seat = /^[0-3]$/.test(hash.get("seat") || "") ? Number(hash.get("seat")) : null;
  const who = (s) => seatName(room, s, null);
  const viewer = new ReplayView(root, {
    hands: [{ number, frames }],
    who,
    game: (room.rules && room.rules.game) || frames[0].view.game || null,
    step: Number(hash.get("step")) || 0,
    seat,
    head: () => `<div class="room-bar"><b>${t("replay_of", esc(code), number + 1)}</b>` +
      `<span class="spacer"></span><a href="/r/${esc(code)}">${t("room")} ${esc(code)}</a> <a href="/replay/file">${t("open_file")}</a> <a href="/">${t("back_lobby")}</a></div>`,
    notesAt: (_hand, index) => notesAt(index),
    settle: (el, end, all) => {
      const win = all.flatMap((x) => x.events).find((e) => e.type === "win") || null;
      const model = all.at(-1).view;
      renderSettlement(el, { end, room, dealer: model.dealer, commitment: all[0].view.commitment, hand: number, code, mySeat: null, replayLink: false, model, win });
    },
    onStep: (v) => history.replaceState(null, "", `#step=${v.index}${v.seat != null ? `&seat=${v.seat}` : ""}`),
  });
  viewer.render();
  return { frames, num, render: () => viewer.render() };
}
