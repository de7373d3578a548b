// The bots' reasons in the replay (table setting explain_bots): the notes a room keeps of a
// finished hand (GET /api/rooms/CODE/hands/N/notes, laizi.server.bot_notes) shown at the step of
// the decision each explains. A note's `seq` is the record index of the decision's first event;
// a frame's `first` is the record index of its step's first event (laizi.web.replay).
// replay.js calls it twice: once to load, once per shown step.

import { getLang } from "./i18n.js";
import { noteItem } from "./botnotes.js";

const HEADING = { zh: "机器人的理由", en: "Why the bot played so" };

/** The notes of hand `number` grouped by frame: `at(index)` gives that step's HTML ("" if none). */
export async function replayNotes(code, number, frames) {
  let notes = [];
  try {
    const res = await fetch(`/api/rooms/${code}/hands/${number}/notes`);
    if (res.ok) notes = (await res.json()).notes || [];
  } catch {
    notes = []; // the replay stands without them
  }
  const byStep = new Map();
  for (const n of notes) {
    // The last step starting at or before the note's event: the step of its decision.
    let step = 0;
    frames.forEach((f, i) => { if (f.first <= n.seq) step = i; });
    if (!byStep.has(step)) byStep.set(step, []);
    byStep.get(step).push(n);
  }
  return (index) => {
    const here = byStep.get(index);
    if (!here) return "";
    const lang = getLang() === "en" ? "en" : "zh";
    return `<div class="bot-notes-step"><span>${HEADING[lang]}</span><ul>${here.map((n) => noteItem(n, lang)).join("")}</ul></div>`;
  };
}
