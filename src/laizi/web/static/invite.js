// Invite: the room's link, shared with the phone's own share sheet (the Web Share API) where a
// touch screen has one, else copied to the clipboard, with a "copied" note beside the button.

import { t } from "./i18n.js";

export const NOTE_MS = 2500;

/** The link to the room `code` on the server at `origin`. */
export function roomLink(origin, code) {
  return `${origin}/r/${code}`;
}

/** Copy `text` with the page's old copy command (no clipboard API outside a secure context). */
function copyByCommand(doc, text) {
  if (!doc || !doc.execCommand) return false;
  const area = doc.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  doc.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = doc.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** Share or copy `url`: "shared", "cancelled" (the share sheet closed), "copied" or "failed".
 * `phone`: a touch screen, where the share sheet is preferred when the browser has one. */
export async function shareLink(url, title, { nav, doc, phone }) {
  if (phone && nav && typeof nav.share === "function") {
    try {
      await nav.share({ title, text: title, url });
      return "shared";
    } catch (error) {
      if (error && error.name === "AbortError") return "cancelled";
      // a share sheet that failed: copy instead
    }
  }
  if (nav && nav.clipboard && typeof nav.clipboard.writeText === "function") {
    try {
      await nav.clipboard.writeText(url);
      return "copied";
    } catch {
      // refused (no permission): the old way below
    }
  }
  return copyByCommand(doc, url) ? "copied" : "failed";
}

/** The bar's invite button and, for a moment after a press, what became of the link. */
export function inviteHtml(page) {
  const note = page.inviteNote && page.inviteNote.until > performance.now() ? page.inviteNote : null;
  const said = note ? `<span class="invite-note" role="status" data-invite="${note.result}">${note.result === "failed" ? `${t("invite_failed")} ${roomLink(location.origin, page.code)}` : t(`invite_${note.result}`)}</span>` : "";
  return `<button data-cmd="invite" class="invite-btn" title="${t("invite_title")}">${t("invite")}</button>${said}`;
}

/** The invite button was pressed (a `data-cmd` of the page); true if it was. */
export function inviteCommand(page, cmd) {
  if (cmd !== "invite") return false;
  const phone = window.matchMedia("(pointer: coarse)").matches;
  const url = roomLink(location.origin, page.code);
  shareLink(url, t("invite_text", page.code), { nav: navigator, doc: document, phone }).then((result) => {
    if (result === "cancelled") return;
    page.inviteNote = { result, until: performance.now() + NOTE_MS };
    page.render();
    setTimeout(() => page.render(), NOTE_MS + 50);
  });
  return true;
}
