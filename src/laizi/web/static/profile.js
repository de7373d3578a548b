// A player's page: "/me" (the logged-in account) or "/players/NAME" — rank, points and rating
// per game, the statistics the server computes from the stored records (GET /api/me/stats,
// /api/players/NAME/stats) drawn as small SVG charts, and for "/me" the past matches with their
// replays, a page at a time (GET /api/me/matches?before=T).

import { average, barsSvg, lineSvg, percent, ratingText } from "./charts.js";
import { pick, t } from "./i18n.js";
import { esc, getJson, num, say } from "./util.js";
import { named, SCHEMA } from "./words.js";

const PAGE = 10;

function gameName(game) {
  const g = ((SCHEMA && SCHEMA.rules.games) || []).find((x) => x.value === game);
  return g ? say(g.label) : game;
}

function presetName(preset) {
  const p = ((SCHEMA && SCHEMA.rules.presets) || []).find((x) => x.name === preset);
  return p ? say(p.label) : String(preset ?? "");
}

function signed(x) {
  const n = Number(String(x).split("/")[0]);
  return `<span class="points ${n > 0 ? "plus" : n < 0 ? "minus" : ""}">${n > 0 ? "+" : ""}${num(x)}</span>`;
}

/** One game's standing and statistics. */
export function gameHtml(game, standing, stats) {
  const rank = standing ? `<p class="standing-line">${t("rank")}: <b>${esc(pick([standing.rank.zh, standing.rank.en]))}</b> · ${t("points")} <b>${num(standing.points_exact ?? standing.points)}</b>` +
    (standing.next_rank ? ` · ${esc(t("to_next", pick([standing.next_rank.zh, standing.next_rank.en]), num(standing.next_rank.missing)))}` : "") +
    ` · <span title="${esc(t("rating_note"))}">${t("rating")} <b data-rating>${ratingText(standing.rating)}</b></span></p>` : "";
  if (!stats || !stats.matches) {
    return `<section class="card game-stats" data-game="${esc(game)}"><h2>${esc(gameName(game))}</h2>${rank}<p class="muted">${t("none_played")}</p></section>`;
  }
  const best = stats.best_hand;
  const bestLine = best
    ? `<a href="${esc(best.replay)}" data-best>${esc(best.wins.map((w) => named("wins", w, game)).join(" · ") || t("replay"))} ${signed(best.points_exact)}</a>`
    : t("none");
  const figures = [
    ["matches", t("matches"), String(stats.matches)],
    ["hands", t("hands_n"), String(stats.hands)],
    ["win_rate", t("win_rate"), percent(stats.win_rate)],
    ["deal_in_rate", t("deal_in_rate"), percent(stats.deal_in_rate)],
    ["per_hand", t("per_hand"), average(stats.points_per_hand)],
  ].map(([key, label, value]) => `<div class="figure" data-figure="${key}"><span class="muted">${label}</span><b>${esc(value)}</b></div>`).join("");
  const rates = barsSvg([
    { key: "win", label: t("win_rate"), value: stats.win_rate, text: percent(stats.win_rate) },
    { key: "deal_in", label: t("deal_in_rate"), value: stats.deal_in_rate, text: percent(stats.deal_in_rate) },
  ], { max: 1 });
  const places = barsSvg(stats.places.map((n, i) => ({ key: `place-${i + 1}`, label: t("place", i + 1), value: n })));
  const kinds = Object.entries(stats.big_wins);
  const big = kinds.length ? barsSvg(kinds.map(([k, n]) => ({ key: k, label: named("wins", k, game), value: n })))
    : `<p class="muted">${t("none")}</p>`;
  const line = lineSvg(stats.recent);
  return `<section class="card game-stats" data-game="${esc(game)}"><h2>${esc(gameName(game))}</h2>${rank}` +
    `<div class="figures">${figures}<div class="figure best" data-figure="best"><span class="muted">${t("best_hand")}</span><b>${bestLine}</b></div></div>` +
    `<div class="charts"><figure data-chart="rates">${rates}</figure><figure data-chart="places"><figcaption>${t("places_chart")}</figcaption>${places}</figure>` +
    `<figure data-chart="big-wins"><figcaption>${t("big_wins")}</figcaption>${big}</figure>` +
    (line ? `<figure data-chart="recent"><figcaption>${t("recent_chart")}</figcaption>${line}</figure>` : "") + "</div></section>";
}

/** One past match: its room, preset, kind, place, total, points moved, and every hand's replay. */
export function matchHtml(x) {
  const links = x.hands.map((_, i) => `<a href="/replay/${esc(x.room)}/${i}">${t("hand_no", i + 1)}</a>`).join(" ");
  const kind = x.kind ? ` · ${t(`kind_${x.kind}`)}` : "";
  const moved = x.points_before != null ? ` · ${t("points")} ${num(x.points_before)} → ${num(x.points_after)}` : "";
  return `<li data-room="${esc(x.room)}"><b><a href="/r/${esc(x.room)}">${esc(x.room)}</a></b> ${esc(presetName(x.preset))}${kind} · ${t("place", x.place)} · ${signed(x.total)}${moved} ` +
    `<a href="${esc(x.record)}" download>${t("download_record")}</a><br><span class="replays">${links}</span></li>`;
}

/** Draw the profile of `name` (null: the logged-in account's). */
export async function renderProfile(root, name = null) {
  root.innerHTML = `<div class="profile"><p class="muted">…</p></div>`;
  const box = root.querySelector(".profile");
  const who = name == null ? "/api/me" : `/api/players/${encodeURIComponent(name)}`;
  const [profile, stats] = await Promise.all([getJson(who), getJson(`${who}/stats`)]);
  if (!profile.ok || !stats.ok) {
    const why = profile.status === 401 ? t("login_to_see") : profile.status === 404 && name != null ? t("no_player") : t("no_accounts");
    box.innerHTML = `<section class="card"><h2>${t("profile")}</h2><p class="muted" data-profile-missing>${esc(why)}</p><a href="/" class="button">${t("back_lobby")}</a></section>`;
    return;
  }
  const games = Object.keys(stats.body.games);
  const title = name == null ? t("my_profile") : t("profile_of", profile.body.name);
  box.innerHTML = `<h1 class="profile-name" data-profile="${esc(profile.body.name)}">${esc(title)}${name == null ? ` · ${esc(profile.body.name)}` : ""}</h1>` +
    games.map((g) => gameHtml(g, profile.body.games[g], stats.body.games[g])).join("") +
    (name == null ? `<section class="card past"><h2>${t("my_matches")}</h2><ul class="past-matches"></ul><button type="button" class="more-matches" hidden>${t("more_matches")}</button></section>` : "") +
    `<p><a href="/" class="button">${t("back_lobby")}</a></p>`;
  if (name == null) pastMatches(box);
}

/** "/me"'s past matches, PAGE at a time: "More matches" asks for those finished before the last. */
function pastMatches(box) {
  const list = box.querySelector(".past-matches");
  const more = box.querySelector(".more-matches");
  let before = null;
  const load = async () => {
    more.disabled = true;
    const page = await getJson(`/api/me/matches?limit=${PAGE}${before != null ? `&before=${before}` : ""}`);
    more.disabled = false;
    if (!page.ok) return;
    const matches = page.body.matches;
    if (!matches.length && before == null) list.innerHTML = `<li class="muted">${t("none_yet")}</li>`;
    list.insertAdjacentHTML("beforeend", matches.map(matchHtml).join(""));
    if (matches.length) before = matches[matches.length - 1].finished;
    more.hidden = matches.length < PAGE;
  };
  more.addEventListener("click", load);
  load();
}
