// The client's entry point: the header (language switch) and the page for the address —
// "/" the lobby, "/r/CODE" a room's table, "/replay/CODE/N" a finished hand, "/replay/file" a
// record or events log opened from a file (never uploaded), "/me" and "/players/NAME" a player's
// profile.

import { flashUntilVisible } from "./attention.js";
import { playerName } from "./guestname.js";
import { getLang, setLang, t } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { FLASH } from "./matchstate.js";
import { renderProfile } from "./profile.js";
import { renderReplay } from "./replay.js";
import { startFileReplay } from "./replayfile.js";
import { TablePage } from "./table.js";

const root = document.getElementById("app");
let page = null;

function header() {
  const box = document.getElementById("top");
  box.innerHTML = `<a href="/" class="brand">癞子 <span>${t("title")}</span></a><span class="spacer"></span>` +
    `<button id="lang" data-lang="${getLang()}">${t("lang_switch")}</button>`;
  box.querySelector("#lang").addEventListener("click", () => {
    setLang(getLang() === "zh" ? "en" : "zh");
    if (page) { header(); page.render(); } else location.reload();
  });
}

function route() {
  header();
  const path = location.pathname;
  const room = path.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  const replay = path.match(/^\/replay\/([A-Za-z0-9]+)\/(\d+)\/?$/);
  if (room) {
    const watch = new URLSearchParams(location.search).has("watch");
    page = new TablePage(root, room[1].toUpperCase(), { name: playerName(), spectate: watch });
    window.laiziPage = page;
    if (sessionStorage.getItem(FLASH)) { // matched while the tab was hidden: call the person back
      sessionStorage.removeItem(FLASH);
      flashUntilVisible(t("match_title"));
    }
  } else if (/^\/me\/?$/.test(path)) {
    page = { render: () => renderProfile(root) };
    page.render();
  } else if (path.startsWith("/players/")) {
    const name = decodeURIComponent(path.slice("/players/".length).replace(/\/$/, ""));
    page = { render: () => renderProfile(root, name) };
    page.render();
  } else if (/^\/replay\/file\/?$/.test(path)) {
    page = startFileReplay(root);
  } else if (replay) {
    renderReplay(root, replay[1].toUpperCase(), Number(replay[2])).then((viewer) => { if (viewer) page = viewer; });
  } else {
    renderLobby(root);
  }
}

route();
