// The record viewer's file page (/replay/file), also the page `laizi replay FILE --html OUT` writes:
// a hand record or an events log, chosen with the file picker or dropped on the page, is read here
// (File.text()) and never uploaded; recordfold.js folds it into frames and replayview.js shows them.
// A written page carries its data in <script type="application/json" id="laizi-replay">: the
// frames the engine made (laizi.web.replay), or a log's text for the fold here.

import { t } from "./i18n.js";
import { FoldError, foldFile } from "./recordfold.js";
import { ReplayView } from "./replayview.js";
import { renderSettlement } from "./settle.js";
import { esc } from "./util.js";

const code = (text) => `<code>${esc(text)}</code>`;
const COMMAND = "laizi replay FILE --html OUT";

/** A file's problem in the reader's language, as HTML (commands and the file's words as code). */
export function fileErrorHtml(error) {
  const known = error instanceof FoldError;
  const why = t(known ? `file_${error.code}` : "file_bad_event", esc(known ? error.line ?? "?" : "?"),
    code(known ? error.detail : String(error && error.message)), code("start"), code("start_game"), code("deal"), code(COMMAND));
  return t("file_error", why);
}

/** The data a written page carries, or null (the page at /replay/file). */
function embedded() {
  const box = document.getElementById("laizi-replay");
  return box ? JSON.parse(box.textContent) : null;
}

const who = (seat) => `${t("seat")} ${seat}`;

function settle(el, end, frames, hand) {
  const last = frames.at(-1).view;
  const win = frames.flatMap((x) => x.events).find((e) => e.type === "win") || null;
  renderSettlement(el, { end, room: null, dealer: last.dealer, commitment: frames[0].view.commitment, hand: hand.number, code: null, mySeat: null, replayLink: false, model: last, win });
}

/** The file page in `root`: `{render}` for the header's language switch. */
export function startFileReplay(root) {
  const state = { name: null, file: null, error: null, view: null };
  const data = embedded();
  const show = (name, file) => {
    Object.assign(state, { name, file, error: null });
    state.view = null;
    render();
  };
  const open = async (picked) => {
    if (!picked) return;
    const text = await picked.text();
    try {
      show(picked.name, foldFile(text));
    } catch (error) {
      Object.assign(state, { name: picked.name, file: null, error, view: null });
      render();
    }
  };
  function render() {
    const picker = `<section class="card file-picker"><h2>${t("open_file")}</h2>` +
      `<p class="muted">${t("open_file_note", code(".jsonl"), code("laizi verify"), code("laizi export --format events"), code(".mjson"))}</p>` +
      `<div class="drop-zone" data-drop><label class="button">${t("choose_file")} <input type="file" id="record-file" accept=".jsonl,.mjson,.json,.txt,application/json"></label> <span>${t("drop_file")}</span></div>` +
      (state.error ? `<div class="banner error" role="alert" data-file-error>${fileErrorHtml(state.error)}</div>` : "") + `</section>`;
    root.innerHTML = `<div class="record-viewer">${data ? "" : picker}<div class="file-replay"></div></div>`;
    const input = root.querySelector("#record-file");
    if (input) input.addEventListener("change", () => open(input.files[0]));
    if (!state.file) return;
    const file = state.file;
    const prev = state.view;
    const note = () => `<p class="muted file-note">${file.seat != null ? `${t("file_seat_log", file.seat)} ` : ""}${file.frames ? "" : t("file_no_rules", code(COMMAND))}</p>`;
    state.view = new ReplayView(root.querySelector(".file-replay"), {
      hands: file.hands,
      who,
      game: file.hands[0].game || null,
      hand: prev ? prev.hand : 0,
      step: prev ? prev.index : 0,
      seat: prev ? prev.seat : file.seat,
      head: () => `<div class="room-bar"><b>${t("replay_file", esc(state.name))}</b><span class="spacer"></span>${data ? "" : `<a href="/">${t("back_lobby")}</a>`}</div>`,
      note,
      settle,
    });
    state.view.render();
  }
  // drop anywhere on the page: the browser would open the file instead
  document.addEventListener("dragover", (e) => { e.preventDefault(); root.querySelector("[data-drop]")?.classList.add("over"); });
  document.addEventListener("dragleave", () => root.querySelector("[data-drop]")?.classList.remove("over"));
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    if (!data) open(e.dataTransfer && e.dataTransfer.files[0]);
  });
  if (data) {
    // frames the engine made (a record or a script) or a log to fold here
    if (data.log != null) {
      try {
        show(data.name, foldFile(data.log));
      } catch (error) {
        Object.assign(state, { name: data.name, error });
        root.innerHTML = `<div class="banner error" role="alert" data-file-error>${fileErrorHtml(error)}</div>`;
      }
    } else {
      show(data.name, { kind: data.kind, seat: null, frames: true, hands: data.hands });
    }
  } else {
    render();
  }
  return {
    render: () => {
      if (state.view) render();
      else if (!data) render();
    },
  };
}
