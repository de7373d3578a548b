// The lobby: the match card first (matchcard.js: queue for a ranked or casual table), name or
// account, create a room from a preset (a field for every setting, defaults
// shown, the server validates), join by code or link, open rooms, leaderboard and past matches.
// The form is built from the server's schema (GET /api/settings/schema): every setting's kind,
// bounds, choices and names come from there; this file declares none.

import { ratingText } from "./charts.js";
import { playerName } from "./guestname.js";
import { pick, t } from "./i18n.js";
import { MatchCard } from "./matchcard.js";
import { errorText, esc, getJson, num, say } from "./util.js";
import { SCHEMA } from "./words.js";

/** A room's status in words. */
function statusText(status) {
  return ["waiting", "playing", "over"].includes(status) ? t(`status_${status}`) : status;
}

/** Names by value: presets, games, and every choice of every field. */
function namesOf(schema) {
  const names = {};
  for (const group of [schema.rules.fields, schema.table.fields]) {
    for (const f of group) (f.choices || []).forEach((c) => { names[c.value] = c.label; });
  }
  schema.rules.presets.forEach((p) => { names[p.name] = p.label; });
  schema.rules.games.forEach((g) => { names[g.value] = g.label; });
  return names;
}

function fieldHtml(field, value, group, names) {
  const id = `${group}-${field.key}`;
  const label = `<label for="${id}">${esc(say(field.label))}</label>`;
  const shown = field.type === "choice" ? say(names[String(value)]) || String(value)
    // a number as its field holds it (1.5, not 1½ beside a field that says 1.5)
    : field.type === "bool" ? t(value ? "yes" : "no") : value == null ? num(value) : String(value);
  const def = `<small class="default" data-default-for="${field.key}">${t("default_is")}: ${esc(shown)}</small>`;
  // A setting the preset fixes (its game) is shown, not sent.
  const attrs = field.fixed ? " disabled"
    : ` data-group="${group}" data-type="${field.type}"${field.optional ? " data-optional" : ""}`;
  let input;
  if (field.type === "choice") {
    input = `<select id="${id}" name="${field.key}"${attrs}>${field.choices.map((c) => `<option value="${c.value}"${c.value === value ? " selected" : ""}>${esc(say(c.label))}</option>`).join("")}</select>`;
  } else if (field.type === "bool") {
    input = `<input type="checkbox" id="${id}" name="${field.key}"${attrs}${value ? " checked" : ""}>`;
  } else {
    const bounds = (field.min != null ? ` min="${field.min}"` : "") + (field.max != null ? ` max="${field.max}"` : "");
    input = `<input type="number" id="${id}" name="${field.key}"${attrs} value="${value ?? ""}"${bounds} step="${field.type === "int" ? 1 : "any"}">`;
  }
  return `<div class="field" data-field="${field.key}">${label}${input}${def}</div>`;
}

function readValue(input) {
  if (input.dataset.type === "bool") return input.checked;
  if (input.dataset.type === "choice") return input.value;
  const text = input.value.trim();
  if (text === "" && "optional" in input.dataset) return null;  // left empty: the default
  const n = Number(text);
  return text === "" || Number.isNaN(n) ? text : n;
}

export async function renderLobby(root) {
  const name = playerName();
  root.innerHTML = `<div class="lobby">
    <section class="card match-card" id="match-card"><h2>${t("match")}</h2></section>
    <section class="card create"><h2>${t("create_room")}</h2><form id="create-form" novalidate>
      <div class="quick" data-quick><h3>${t("quick_play")}</h3>
        <div class="quick-row"><div class="field"><label for="qp-variant">${t("variant")}</label><select id="qp-variant"></select></div>
        <div class="field"><label for="qp-mode">${t("mode")}</label><select id="qp-mode"></select></div>
        <button type="submit" class="primary go" id="create-room">${t("go")}</button></div>
        <p class="muted quick-note">${t("quick_note")}</p>
        <p class="muted friendly-note">${t("friendly_note")}</p>
        <p class="muted ranks-rule" data-ranks-rule>${t("ranks_rule")}</p></div>
      <div class="form-error" role="alert"></div>
      <details class="more" id="more-settings"><summary>${t("more_settings")}</summary>
      <div class="field"><label for="preset">${t("preset")}</label><select id="preset"></select></div>
      <h3>${t("rules")}</h3><div class="fields rules-fields"></div>
      <h3>${t("table_settings")}</h3><div class="fields table-fields"></div>
      <button type="submit" class="primary" id="create-room-more">${t("create")}</button> <button type="button" id="reset-form">${t("reset")}</button>
      </details>
    </form></section>
    <section class="card who"><h2>${t("your_name")}</h2>
      <input id="player-name" maxlength="32" value="${esc(name)}" placeholder="${t("guest")}">
      <div class="account"></div></section>
    <section class="card join"><h2>${t("join_room")}</h2>
      <form id="join-form"><input id="join-code" placeholder="${t("room_code")}" maxlength="64" autocapitalize="characters">
      <button type="submit">${t("join")}</button> <button type="button" id="watch">${t("spectate")}</button></form>
      <p class="muted ranks-rule" data-ranks-rule>${t("ranks_rule")}</p>
      <div class="open-rooms"></div>
      <p><a href="/replay/file" id="open-record">${t("open_file")}</a></p></section>

    <section class="card ranks"><h2>${t("leaderboard")}</h2><p class="muted ranked-only">${t("ranked_only")}</p><div class="leaderboard"></div></section>
    <section class="card bots"><h2>${t("bot_ladder")}</h2><p class="muted">${t("bot_ladder_note")}</p><div class="bot-ladder"></div></section>
    <section class="card mine"><h2>${t("my_matches")}</h2><div class="my-matches"></div></section>
  </div>`;
  const nameInput = root.querySelector("#player-name");
  nameInput.addEventListener("change", () => localStorage.setItem("laizi.name", nameInput.value.trim()));

  const joinCode = () => {
    const raw = root.querySelector("#join-code").value.trim();
    const match = raw.match(/\/r\/([A-Za-z0-9]+)/);
    return (match ? match[1] : raw).toUpperCase();
  };
  root.querySelector("#join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    localStorage.setItem("laizi.name", nameInput.value.trim());
    if (joinCode()) location.href = `/r/${joinCode()}`;
  });
  root.querySelector("#watch").addEventListener("click", () => {
    if (joinCode()) location.href = `/r/${joinCode()}?watch=1`;
  });

  const schema = SCHEMA || (await getJson("/api/settings/schema")).body;
  const names = namesOf(schema);
  const card = new MatchCard(root.querySelector("#match-card"), {
    presets: schema.rules.presets.map((p) => ({ name: p.name, label: say(p.label) })), say,
  });
  const presets = Object.fromEntries(schema.rules.presets.map((p) => [p.name, p.values]));
  const presetSelect = root.querySelector("#preset");
  presetSelect.innerHTML = schema.rules.presets.map((p) => `<option value="${p.name}">${esc(say(p.label))}</option>`).join("");
  // RULES.md A1: the (variant, mode) pair is the preset. The quick selects and the variant / mode
  // fields below pick the preset; every other field then shows that preset's defaults.
  // Presets that are a (variant, mode) pair, and those of games without the pair.
  const paired = schema.rules.presets.filter((p) => p.values.variant != null && p.values.mode != null);
  const singles = schema.rules.presets.filter((p) => !paired.includes(p));
  const presetOf = (variant, mode) => {
    if (singles.some((p) => p.name === variant)) return variant;  // a game without the pair
    return schema.rules.presets.find((p) => p.values.variant === variant && p.values.mode === mode)?.name;
  };
  const fieldOf = (key) => schema.rules.fields.find((f) => f.key === key);
  const variantField = fieldOf("variant");
  const modeField = fieldOf("mode");
  const pairVariants = [...new Set(paired.map((p) => p.values.variant))];
  const modes = [...new Set(paired.map((p) => p.values.mode))];
  const choiceLabel = (field, value) => say((field.choices.find((c) => c.value === value) || {}).label) || value;
  const qpVariant = root.querySelector("#qp-variant");
  const qpMode = root.querySelector("#qp-mode");
  qpVariant.innerHTML = pairVariants.map((v) => `<option value="${v}">${esc(choiceLabel(variantField, v))}</option>`).join("") +
    singles.map((p) => `<option value="${p.name}">${esc(say(p.label))}</option>`).join("");
  qpMode.innerHTML = modes.map((v) => `<option value="${v}">${esc(choiceLabel(modeField, v))}</option>`).join("");
  const fill = () => {
    const rules = presets[presetSelect.value];
    // The preset is the select above; a game has only its own settings.
    const fields = schema.rules.fields.filter((f) => f.key !== "preset" && f.key in rules);
    root.querySelector(".rules-fields").innerHTML = fields.map((f) => fieldHtml(f, rules[f.key], "rules", names)).join("");
    root.querySelector(".table-fields").innerHTML = schema.table.fields.map((f) => fieldHtml(f, schema.table.defaults[f.key], "table", names)).join("");
    const single = rules.variant == null;  // a game whose preset is not a (variant, mode) pair
    qpVariant.value = single ? presetSelect.value : rules.variant;
    if (!single) qpMode.value = rules.mode;
    qpMode.disabled = single;
    for (const key of ["variant", "mode"]) {
      const select = root.querySelector(`#rules-${key}`);
      if (!select) continue;
      select.addEventListener("change", () => {
        const other = key === "variant" ? root.querySelector("#rules-mode").value : root.querySelector("#rules-variant").value;
        const name = key === "variant" ? presetOf(select.value, other) : presetOf(other, select.value);
        if (name) { presetSelect.value = name; fill(); }
      });
    }
  };
  const pickQuick = () => {
    const name = presetOf(qpVariant.value, qpMode.value);
    if (name) { presetSelect.value = name; fill(); }
  };
  qpVariant.addEventListener("change", pickQuick);
  qpMode.addEventListener("change", pickQuick);
  presetSelect.addEventListener("change", fill);
  root.querySelector("#reset-form").addEventListener("click", fill);
  fill();

  root.querySelector("#create-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    localStorage.setItem("laizi.name", nameInput.value.trim());
    const rules = { preset: presetSelect.value };
    const table = {};
    const defaults = presets[presetSelect.value];
    root.querySelectorAll("[data-group]").forEach((input) => {
      const value = readValue(input);
      if (input.name === "variant" || input.name === "mode") return; // the preset says them
      if (input.dataset.group === "rules") {
        if (value !== defaults[input.name]) rules[input.name] = value;
      } else if (value !== schema.table.defaults[input.name]) table[input.name] = value;
    });
    const r = await fetch("/api/rooms", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ rules, table }),
    });
    const body = await r.json();
    if (!r.ok) {
      root.querySelector(".form-error").textContent = `${t("error")}: ${errorText(body) || r.status}`;
      return;
    }
    location.href = `/r/${body.code}`;
  });

  renderAccounts(root, schema, names, card);
}

async function renderAccounts(root, schema, names, card) {
  const box = root.querySelector(".account");
  const me = await getJson("/api/me");
  card.setAccount(me.ok);
  if (me.status === 404) {
    box.innerHTML = `<p class="muted">${t("no_accounts")}</p>`;
    root.querySelector(".leaderboard").innerHTML = `<p class="muted">${t("no_accounts")}</p>`;
    root.querySelector(".my-matches").innerHTML = `<p class="muted">${t("no_accounts")}</p>`;
    root.querySelector(".bot-ladder").innerHTML = `<p class="muted">${t("no_accounts")}</p>`;
    return;
  }
  if (me.ok) {
    box.innerHTML = `<p>${t("logged_in_as", `<b>${esc(me.body.name)}</b>`)} <button id="logout">${t("logout")}</button> <a href="/me" class="button" data-my-profile>${t("my_profile")}</a></p>`;
    root.querySelector("#player-name").value = me.body.name;
    root.querySelector("#logout").addEventListener("click", async () => {
      await fetch("/api/logout", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      renderLobby(root);
    });
  } else {
    box.innerHTML = `<p class="muted">${t("playing_as_guest")}</p><form id="login-form">
      <input id="login-name" placeholder="${t("your_name")}" autocomplete="username">
      <input id="login-password" type="password" placeholder="${t("password")}" autocomplete="current-password">
      <button type="submit">${t("login")}</button> <button type="button" id="register">${t("register")}</button>
      <div class="form-error" role="alert"></div></form>`;
    const send = async (path) => {
      const r = await fetch(path, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: root.querySelector("#login-name").value, password: root.querySelector("#login-password").value }),
      });
      if (r.ok) renderLobby(root);
      else {
        const body = await r.json().catch(() => ({}));
        box.querySelector(".form-error").textContent = `${t("error")}: ${errorText(body) || r.status}`;
      }
    };
    box.querySelector("#login-form").addEventListener("submit", (e) => { e.preventDefault(); send("/api/login"); });
    box.querySelector("#register").addEventListener("click", () => send("/api/register"));
  }
  const lobby = await getJson("/api/lobby");
  if (lobby.ok) {
    const rooms = lobby.body.rooms.map((r) => `<li><a href="/r/${esc(r.code)}">${esc(r.code)}</a> ${esc(say(names[r.preset]) || r.preset)} · ${esc(statusText(r.status))} · ${r.seated}/${r.players}</li>`).join("");
    root.querySelector(".open-rooms").innerHTML = `<h3>${t("open_rooms")}</h3><ul>${rooms || `<li class="muted">${t("none_yet")}</li>`}</ul>`;
  }
  const games = schema.rules.games.map((g) => g.value);
  const showBoard = async (game) => {
    const board = await getJson(`/api/leaderboard/${game}`);
    if (!board.ok) return;
    const tabs = games.map((g) => `<button type="button" data-board="${g}" class="${g === game ? "primary" : ""}">${esc(say(names[g]))}</button>`).join(" ");
    const rows = board.body.players.map((p) => `<tr data-player="${esc(p.name)}"><td>${p.place}</td><td><a href="/players/${encodeURIComponent(p.name)}">${esc(p.name)}</a></td>` +
      `<td class="rank">${esc(pick([p.rank.zh, p.rank.en]))}</td><td>${num(p.points)}</td><td data-rating>${ratingText(p.rating)}</td><td>${p.matches}</td></tr>`).join("");
    root.querySelector(".leaderboard").innerHTML = `<div class="tabs">${tabs}</div><table><thead><tr><th>#</th><th>${t("player")}</th><th>${t("rank")}</th>` +
      `<th>${t("points")}</th><th title="${esc(t("rating_note"))}">${t("rating")}</th><th>${t("matches")}</th></tr></thead><tbody>${rows || `<tr><td colspan="6" class="muted">${t("none_yet")}</td></tr>`}</tbody></table>`;
    root.querySelectorAll("[data-board]").forEach((b) => { b.addEventListener("click", () => showBoard(b.dataset.board)); });
  };
  showBoard(games[0]);
  showBots(root, games, names, games[0]);
  if (me.ok) {
    const standing = games.map((g) => me.body.games[g]).find(Boolean);
    if (standing) {
      box.insertAdjacentHTML("beforeend", `<p class="my-rank">${t("rank")}: <b>${esc(pick([standing.rank.zh, standing.rank.en]))}</b> · ${t("points")} ${num(standing.points)}` +
        (standing.next_rank ? ` · ${t("to_next", esc(pick([standing.next_rank.zh, standing.next_rank.en])), num(standing.next_rank.missing))}` : "") + "</p>");
    }
    const mine = await getJson("/api/me/matches");
    if (mine.ok) {
      const items = mine.body.matches.map((x) => {
        const links = x.hands.map((_, i) => `<a href="/replay/${esc(x.room)}/${i}">${t("hand_no", i + 1)}</a>`).join(" ");
        const kind = x.kind ? ` · ${t(`kind_${x.kind}`)}` : "";
        return `<li data-room="${esc(x.room)}"><b>${esc(x.room)}</b> ${esc(say(names[x.preset]) || x.preset)}${kind} · ${t("place", x.place)} · ${num(x.total)} ` +
          `<a href="${esc(x.record)}" download>${t("download_record")}</a><br>${links}</li>`;
      }).join("");
      root.querySelector(".my-matches").innerHTML = `<ul>${items || `<li class="muted">${t("none_yet")}</li>`}</ul><p><a href="/me" data-all-matches>${t("my_profile")} →</a></p>`;
    }
  } else {
    root.querySelector(".my-matches").innerHTML = `<p class="muted">${t("playing_as_guest")}</p>`;
  }
}

/** The bot ladder's leaderboard of one game (GET /api/bots/leaderboard), with a tab per game. */
async function showBots(root, games, names, game) {
  const box = root.querySelector(".bot-ladder");
  const board = await getJson(`/api/bots/leaderboard?game=${encodeURIComponent(game)}`);
  if (!box || !board.ok) return;
  const tabs = games.map((g) => `<button type="button" data-bot-board="${g}" class="${g === game ? "primary" : ""}">${esc(say(names[g]))}</button>`).join(" ");
  const ladder = board.body.ladder;
  const waiting = ladder ? Object.values(ladder.waiting).reduce((a, b) => a + b, 0) : 0;
  const state = ladder ? t("bot_ladder_waiting", waiting) : t("bot_ladder_off");
  const rows = board.body.bots.map((b) => `<tr data-bot="${esc(b.name)}"><td>${b.place}</td><td>${esc(b.bot)}</td><td>${esc(b.owner)}</td>` +
    `<td data-rating title="μ ${num(b.mu)} · σ ${num(b.sigma)}">${ratingText(b.ordinal)}</td><td>${b.matches}</td></tr>`).join("");
  box.innerHTML = `<div class="tabs">${tabs}</div><p class="muted" data-ladder-state>${esc(state)}</p><table><thead><tr><th>#</th><th>${t("bot_name")}</th><th>${t("bot_owner")}</th>` +
    `<th title="${esc(t("rating_note"))}">${t("rating")}</th><th>${t("matches")}</th></tr></thead><tbody>${rows || `<tr><td colspan="5" class="muted">${t("none_yet")}</td></tr>`}</tbody></table>`;
  box.querySelectorAll("[data-bot-board]").forEach((b) => { b.addEventListener("click", () => showBots(root, games, names, b.dataset.botBoard)); });
}
