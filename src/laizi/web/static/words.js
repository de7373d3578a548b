// The game's words, as the server says them: the names of every win, fan, factor, cap, contract
// and refusal reason, per game, and how its settlement is laid out (GET /api/settings/schema,
// `words`: each game's explain module). The client declares none of them; a module that imports
// this one finds them loaded (the schema is fetched once, before any page draws).

import { pick } from "./i18n.js";

async function load() {
  // the page `laizi replay FILE --html OUT` writes carries the schema: it fetches nothing
  const given = globalThis.document?.getElementById?.("laizi-schema");
  if (given) return JSON.parse(given.textContent);
  try {
    const r = await fetch("/api/settings/schema", { credentials: "same-origin" });
    return r.ok ? await r.json() : null;
  } catch {
    return null; // the pages still work: they show the ids
  }
}

/** The server's schema (the lobby's form), or null when it could not be read. */
export const SCHEMA = await load();

const WORDS = (SCHEMA && SCHEMA.words) || {};
const GAME_OF = Object.fromEntries(((SCHEMA && SCHEMA.rules.presets) || []).map((p) => [p.name, p.game]));

/** The words of a game, named by its id or by one of its presets ({} when unknown). */
export function wordsOf(gameOrPreset) {
  return WORDS[gameOrPreset] || WORDS[GAME_OF[gameOrPreset]] || {};
}

/** The name of `id` among a game's `kind` ("wins", "fans", "factors", "caps", "contracts",
 * "reasons") in the reader's language; without the game, the first game that names it; else
 * the id itself. */
export function named(kind, id, game = null) {
  const own = game != null ? (wordsOf(game)[kind] || {})[id] : null;
  const label = own || Object.values(WORDS).map((w) => (w[kind] || {})[id]).find(Boolean);
  return label ? pick([label.zh, label.en]) : String(id ?? "");
}

/** Every game's `counted` factors (a factor named without its game). */
export function anyCounted() {
  return Object.values(WORDS).flatMap((w) => w.counted || []);
}
