// The entry of the page `laizi replay FILE --html OUT` writes (laizi.web.standalone inlines it,
// the modules it imports and the style sheets): the header's language switch and the replay of
// the data the page carries (replayfile.js). It opens from file://, fetching nothing.

import { getLang, setLang, t } from "./i18n.js";
import { startFileReplay } from "./replayfile.js";

const root = document.getElementById("app");
let page = null;

function header() {
  const box = document.getElementById("top");
  box.innerHTML = `<span class="brand">癞子 <span>${t("title")}</span></span><span class="spacer"></span>` +
    `<button id="lang" data-lang="${getLang()}">${t("lang_switch")}</button>`;
  box.querySelector("#lang").addEventListener("click", () => {
    setLang(getLang() === "zh" ? "en" : "zh");
    header();
    page.render();
  });
}

header();
page = startFileReplay(root);
