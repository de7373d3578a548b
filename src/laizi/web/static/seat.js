// One seat around the table: its name and badges (庄, bot, guest, 托管, offline), its score, its
// live multiplier (click for the factors), 开口N 杠N where openings count, its running fans, its
// hidden tiles, melds and laid-out tiles, the banner of its last call and its clock.

import { pick, t } from "./i18n.js";
import { factorText, multiplierHtml } from "./settle.js";
import { meldHtml } from "./melds.js";
import { tileSvg } from "./tiles.js";
import { esc, num } from "./util.js";
import { named, wordsOf } from "./words.js";

/** 开口N 杠N of a player, from its melds (public), or the server's counts when sent. */
export function seatCounts(p) {
  const opened = p.opened ?? p.openings ?? p.melds.filter((x) => x.from != null).length;
  const kongs = p.kongs ?? p.melds.filter((x) => /kong/.test(x.kind)).length;
  return { opened, kongs };
}

/** A player's running fans as the server sends them ({id, zh, en, fans}), named in its words. */
export function fansHtml(p, game) {
  const fans = p.fans || p.running_fans;
  if (!fans || !fans.length) return "";
  return `<span class="fans" data-fans>${fans.map((f) => {
    const code = typeof f === "string" ? f : f.id || f.code || f.name;
    const label = f.zh && f.en ? pick([f.zh, f.en]) : named("fans", code, game);
    return `<span class="fan">${esc(label)}${f.fans != null ? ` +${f.fans}` : ""}</span>`;
  }).join("")}</span>`;
}

function badgesHtml(page, seat) {
  const info = page.room.seats[seat] || {};
  const badges = [];
  if (seat === page.model.dealer) badges.push(`<span class="badge dealer">${t("dealer")}</span>`);
  if (info.kind === "bot" && !/^bot \d+$/.test(info.name || "")) badges.push(`<span class="badge">${t("bot")}</span>`);
  if (info.guest) badges.push(`<span class="badge guest">${t("guest")}</span>`);
  if (info.auto || (seat === page.seat && page.auto)) badges.push(`<span class="badge auto">${t("auto")}</span>`);
  if ((info.kind === "human" && !info.connected) || page.away.has(seat)) badges.push(`<span class="badge offline" data-offline>${t("offline")}</span>`);
  return badges.join("");
}

function multHtml(page, seat, mult, game) {
  if (!mult) return "";
  const title = mult.factors.length ? mult.factors.map((f) => factorText(f, game)).join(" · ") : t("no_factors");
  return `<button class="mult" data-seat="${seat}" title="${esc(title)}" aria-expanded="${page.openMult === seat}"><span class="chip">×${num(mult.total)}</span></button>` +
    (page.openMult === seat ? `<div class="mult-detail">${multiplierHtml(mult, game)}</div>` : "");
}

export function seatHtml(page, seat, pos) {
  const m = page.model;
  const p = m.players[seat];
  const game = page.game();
  const total = page.room.totals ? page.room.totals[seat] : 0;
  const mult = p.multiplier;
  const { opened, kongs } = seatCounts(p);
  // 开口/杠 counts where openings count (the game's words say so; the stream sends a multiplier)
  const countsHtml = mult != null || wordsOf(game).counts
    ? `<span class="counts" data-counts><span>${t("opened_n", opened)}</span><span>${t("kongs_n", kongs)}</span></span>` : "";
  const active = m.to_act && m.to_act.includes(seat) && m.phase !== "over";
  const hidden = seat === page.seat ? "" : `<div class="backs" data-count="${p.hand_size}">${tileSvg(null, { marks: ["back", "small"] })}<b>×${p.hand_size}</b></div>`;
  const melds = p.melds.map((meld, i) => meldHtml(page, meld, seat, page.claimedTiles.get(`${seat}:${i}`))).join("");
  const laid = p.laid_out.map((x) => page.tile(x)).join("");
  const banner = page.banners.find((b) => b.seat === seat && b.until >= performance.now());
  const clock = active && page.seat !== seat ? `<span class="timer seat-timer"></span>` : "";
  return `<section class="seat pos-${pos} ${active ? "active" : ""}" data-seat="${seat}">` +
    `<header><b class="name">${esc(page.name(seat))}</b> ${badgesHtml(page, seat)} <span class="score">${num(total)}</span> ${multHtml(page, seat, mult, game)}${countsHtml}${fansHtml(p, game)}${clock}</header>` +
    `<div class="exposed">${hidden}<div class="melds">${melds}</div><div class="laid">${laid}</div></div>` +
    (banner ? `<div class="call-banner" role="status">${esc(banner.text)}</div>` : "") + `</section>`;
}
