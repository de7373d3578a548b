// The record viewer's file mode (/replay/file, `laizi replay FILE --html OUT`): a hand record
// (JSON Lines, as `laizi verify` reads) or a `laizi export --format events` log (mjai-style, a full
// log or one seat's) read in the browser — never uploaded — and folded into replay frames, the
// same shape as the server's (laizi.web.replay): {events, first, actor, legal, view, hands, drawn}.
//
// The fold moves tiles only: it computes no rule. What the rules decide (multipliers, fans, the
// tiles left in the wall, what was legal) is not in a file the browser reads, so a folded frame
// has no multiplier, `tiles_left` null (its `draws` counts the draws instead) and `legal` null
// (every action counts as a decision). The settlement is the record's own `end` event.

export const HIDDEN = "?";

const HONOURS = ["E", "S", "W", "N", "P", "F", "C"];
const SUITS = "mpsz";

/** A file that is not a record or an events log: `code` names the problem, `line` the 1-based line. */
export class FoldError extends Error {
  constructor(code, line = null, detail = "") {
    super(`${code}${line != null ? ` (line ${line})` : ""}${detail ? `: ${detail}` : ""}`);
    this.code = code;
    this.line = line;
    this.detail = detail;
  }
}

/** "244569m1p" → ["2m", "4m", "4m", "5m", "6m", "9m", "1p"]. */
export function tilesOf(text) {
  const out = [];
  let digits = [];
  for (const ch of text || "") {
    if (ch >= "0" && ch <= "9") digits.push(ch);
    else if (SUITS.includes(ch)) {
      for (const d of digits) out.push(d + ch);
      digits = [];
    }
  }
  return out;
}

/** Tiles in notation, sorted by kind ("?" last): ["5z", "2m", "2m"] → "22m5z". */
export function notation(tiles) {
  const id = (x) => (x === HIDDEN ? 99 : SUITS.indexOf(x[1]) * 9 + Number(x[0]));
  const sorted = [...tiles].sort((a, b) => id(a) - id(b));
  let out = "";
  let run = "";
  let suit = "";
  for (const x of sorted) {
    if (x === HIDDEN) continue;
    if (x[1] !== suit && run) { out += run + suit; run = ""; }
    suit = x[1];
    run += x[0];
  }
  return out + (run ? run + suit : "");
}

/** An mjai tile ("E", "5m", "?") in RULES.md notation ("1z", "5m", "?"). */
export function fromMjai(tile) {
  if (tile == null || tile === HIDDEN) return HIDDEN;
  const honour = HONOURS.indexOf(tile);
  if (honour >= 0) return `${honour + 1}z`;
  if (/^[1-9][mps]$/.test(tile)) return tile;
  throw new FoldError("bad_tile", null, String(tile));
}

/** A file's text → {kind: "record" | "log", seat (a per-seat log's seat, else null), hands: [events of
 * each hand]}. A record's hands begin with `start`, a log's with `start_game`. FoldError else. */
export function readFile(text) {
  const events = [];
  const lines = String(text).replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    let event;
    try {
      event = JSON.parse(lines[i]);
    } catch {
      // a whole file of one pretty-printed object: a replay script is one
      if (events.length === 0) scriptOrNot(text);
      throw new FoldError("not_json", i + 1);
    }
    if (event && typeof event === "object" && !Array.isArray(event) && events.length === 0 && typeof event.type !== "string") {
      scriptOrNot(text);
    }
    if (!event || typeof event !== "object" || typeof event.type !== "string") throw new FoldError("not_event", i + 1);
    events.push({ event, line: i + 1 });
  }
  if (!events.length) throw new FoldError("empty");
  const head = events[0].event.type;
  const kind = head === "start" ? "record" : head === "start_game" ? "log" : null;
  if (!kind) throw new FoldError("unknown_format", events[0].line, head);
  const hands = [];
  for (const { event } of events) {
    if (event.type === head) hands.push([]);
    hands[hands.length - 1].push(event);
  }
  const first = events[0].event;
  return { kind, seat: kind === "log" && Number.isInteger(first.id) ? first.id : null, hands };
}

function scriptOrNot(text) {
  let whole = null;
  try {
    whole = JSON.parse(text);
  } catch {
    return;
  }
  if (whole && typeof whole === "object" && !Array.isArray(whole) && "actions" in whole) throw new FoldError("script");
}

/** An mjai-style log of one hand in the record's words: start, deal (the dealer's first tsumo is
 * its fourteenth tile), draw, discard (`lay_out` for nukidora, `declare_ready` after reach),
 * chow/pung/kong/concealed_kong/added_kong, kong_paid, win, abandon and end — hidden tiles "?". */
export function logAsRecord(log) {
  const out = [];
  let deal = null;
  let dealerTsumo = false;
  let reach = false;
  let win = null;
  let stop = null;
  const tiles = (list) => (list || []).map(fromMjai);
  log.forEach((e, i) => {
    const at = (fields) => ({ ...fields, line: i + 1 });
    const seat = e.actor;
    switch (e.type) {
      case "start_game":
        out.push(at({ type: "start", game: e.game ?? null, rules: e.rules ?? null, seat: null, id: e.id ?? null }));
        break;
      case "start_kyoku": {
        const hands = (e.tehais || []).map(tiles);
        if (hands.length !== 4) throw new FoldError("bad_event", i + 1, "start_kyoku tehais");
        deal = at({ type: "deal", hands, dealer: e.oya ?? 0, hand: (e.kyoku ?? 1) - 1, scores: e.scores || [0, 0, 0, 0],
          indicator: e.dora_marker ? fromMjai(e.dora_marker) : null, laizi: e.laizi ? fromMjai(e.laizi) : null,
          pi: tiles(e.pi), must_gang: tiles(e.must_gang) });
        out.push(deal);
        dealerTsumo = true;
        break;
      }
      case "tsumo":
        if (dealerTsumo && deal && seat === deal.dealer) {
          deal.hands[seat].push(fromMjai(e.pai)); // mjai deals 13 and draws: the record deals 14
        } else {
          out.push(at({ type: "draw", seat, tile: fromMjai(e.pai), from: e.rinshan ? "back" : "front", final: !!e.haitei }));
        }
        dealerTsumo = false;
        break;
      case "reach":
        reach = true;
        break;
      case "dahai":
        out.push(at({ type: "discard", seat, tile: fromMjai(e.pai), moqie: !!e.tsumogiri, ...(reach ? { declare_ready: true } : {}) }));
        reach = false;
        dealerTsumo = false;
        break;
      case "nukidora":
        out.push(at({ type: "discard", seat, tile: fromMjai(e.pai), lay_out: true }));
        dealerTsumo = false;
        break;
      case "chi":
      case "pon":
      case "daiminkan": {
        const type = { chi: "chow", pon: "pung", daiminkan: "kong" }[e.type];
        const tile = fromMjai(e.pai);
        out.push(at({ type, seat, tile, from: e.target, tiles: notation([tile, ...tiles(e.consumed)]) }));
        break;
      }
      case "ankan": {
        const consumed = tiles(e.consumed);
        out.push(at({ type: "concealed_kong", seat, tile: consumed[0] === HIDDEN ? null : consumed[0] }));
        dealerTsumo = false;
        break;
      }
      case "kakan":
        out.push(at({ type: "added_kong", seat, tile: fromMjai(e.pai) }));
        dealerTsumo = false;
        break;
      case "kong_paid":
        out.push(at({ type: "kong_paid", seat, kind: e.kind, tile: e.pai === HIDDEN ? null : fromMjai(e.pai), payments: e.deltas }));
        break;
      case "hora":
        win = e;
        out.push(at({ type: "win", seat, how: e.how || (e.target === seat ? "self_draw" : "discard"), tile: fromMjai(e.pai), from: e.target === seat ? null : e.target }));
        dealerTsumo = false;
        break;
      case "abandon":
        out.push(at({ type: "abandon", seat }));
        break;
      case "ryukyoku":
        stop = e;
        break;
      case "end_kyoku": {
        const settled = win || stop || {};
        out.push(at({
          type: "end", reason: win ? "win" : (stop && stop.reason) || "drawn", winner: win ? win.actor : null,
          seat: stop && stop.reason === "abandon" ? stop.actor : null,
          payments: settled.deltas || [0, 0, 0, 0], wins: win ? win.wins || [] : [],
          hands: (e.tehais || []).map((h) => notation(tiles(h))),
        }));
        break;
      }
      case "end_game":
        break;
      default:
        throw new FoldError("bad_event", i + 1, String(e.type));
    }
  });
  return out;
}

const DECISIONS = new Set(["discard", "lay_out", "concealed_kong", "added_kong", "claim", "pass", "abandon"]);
const CALLS = new Set(["chow", "pung", "kong"]);

/** Does `e` begin a step? A decision, as the server's frames (laizi.web.replay) cut them; in a log,
 * which has no claim/pass, a call or a win on a discard begins its own step. */
function beginsStep(e, claims) {
  if (DECISIONS.has(e.type)) return true;
  if (e.type === "win") return e.how === "self_draw" || !claims;
  return !claims && CALLS.has(e.type);
}

function take(hand, tile) {
  let i = hand.indexOf(tile);
  if (i < 0) i = hand.indexOf(HIDDEN); // another seat's hand in a per-seat log
  if (i >= 0) hand.splice(i, 1);
  return i >= 0;
}

function newPlayer(seat) {
  return { seat, hand_size: 0, melds: [], laid_out: [], discards: [], claimed: [], moqie: [], declared_ready: false };
}

/** The frames of one hand: a record's events (or a log's, through logAsRecord). FoldError when an
 * event cannot follow the ones before it. */
export function foldHand(events, { source = "record" } = {}) {
  const list = source === "log" ? logAsRecord(events) : events;
  const start = list[0];
  const deal = list[1];
  if (!start || start.type !== "start" || !deal || deal.type !== "deal") throw new FoldError("no_deal", 1);
  const claims = list.some((e) => e.type === "claim" || e.type === "pass");
  const dealer = start.dealer ?? deal.dealer ?? 0;
  const hands = deal.hands.map((h, s) => (h == null ? Array(s === dealer ? 14 : 13).fill(HIDDEN) : Array.isArray(h) ? [...h] : tilesOf(h)));
  const players = [0, 1, 2, 3].map(newPlayer);
  const justDrew = [null, null, null, null];
  const view = {
    seat: null, game: start.game ?? (start.rules && start.rules.game) ?? null, hand: start.hand ?? deal.hand ?? 0, dealer,
    phase: "turn", turn: dealer, to_act: [dealer], indicator: deal.indicator ?? null, laizi: deal.laizi ?? null,
    pi: deal.pi || [], must_gang: deal.must_gang || [], tiles_left: null, draws: 0, scores: start.scores || deal.scores || [0, 0, 0, 0],
    commitment: start.commitment ?? null, players,
  };
  let drawn = null;
  let adding = null; // an added kong waiting for the claims on its tile
  const snapshot = (step, first, actor) => ({
    events: step.map(({ line, ...e }) => e),
    first,
    actor,
    legal: null,
    view: structuredClone({ ...view, players: players.map((p, s) => ({ ...p, hand_size: hands[s].length })) }),
    hands: hands.map((h) => [...h]),
    drawn,
  });
  const frames = [];
  let step = [deal];
  let first = 0;
  let actor = null;
  const close = () => frames.push(snapshot(step, first, actor));
  for (let i = 2; i < list.length; i++) {
    const e = list[i];
    const line = e.line ?? i + 1;
    if (beginsStep(e, claims)) {
      close();
      step = [];
      first = i;
      actor = e.seat;
    }
    step.push(e);
    const s = e.seat;
    const p = players[s];
    if (e.type !== "end" && e.type !== "kong_paid" && !p) throw new FoldError("bad_event", line, `${e.type}: seat`);
    switch (e.type) {
      case "draw":
        if (adding && adding.seat === s) {
          const pung = p.melds.find((m) => m.kind === "pung" && tilesOf(m.tiles)[0] === adding.tile);
          if (pung) Object.assign(pung, { kind: "added_kong", tiles: notation(Array(4).fill(adding.tile)) });
          adding = null;
        }
        hands[s].push(e.tile == null ? HIDDEN : e.tile);
        justDrew[s] = e.tile ?? HIDDEN;
        drawn = e.tile ?? HIDDEN;
        view.draws += 1;
        Object.assign(view, { turn: s, phase: e.final ? "final" : "turn", to_act: [s] });
        break;
      case "discard":
      case "lay_out":
        if (!take(hands[s], e.tile)) throw new FoldError("bad_event", line, `${e.type} ${e.tile}: not in the hand`);
        if (e.type === "lay_out" || e.lay_out) p.laid_out.push(e.tile);
        else {
          const moqie = e.moqie ?? (justDrew[s] === e.tile);
          if (moqie) p.moqie.push(p.discards.length);
          p.discards.push(e.tile);
          if (e.declare_ready) p.declared_ready = true;
          Object.assign(view, { turn: s, phase: "claim", to_act: [], claim: { tile: e.tile, from: s } });
        }
        justDrew[s] = null;
        drawn = null;
        break;
      case "chow":
      case "pung":
      case "kong": {
        const own = e.type === "chow" ? tilesOf(e.tiles) : Array(e.type === "pung" ? 3 : 4).fill(e.tile);
        own.splice(own.indexOf(e.tile), 1);
        for (const x of own) if (!take(hands[s], x)) throw new FoldError("bad_event", line, `${e.type} ${x}: not in the hand`);
        const from = players[e.from];
        if (from && from.discards.length) from.claimed.push(from.discards.length - 1);
        const meldTiles = e.type === "chow" ? e.tiles : notation(Array(e.type === "pung" ? 3 : 4).fill(e.tile));
        p.melds.push({ kind: e.type === "kong" ? "exposed_kong" : e.type, tiles: meldTiles, from: e.from });
        Object.assign(view, { turn: s, phase: "turn", to_act: [s] });
        delete view.claim;
        break;
      }
      case "concealed_kong": {
        const tile = e.tile ?? HIDDEN;
        for (let k = 0; k < 4; k++) if (!take(hands[s], tile)) throw new FoldError("bad_event", line, `concealed_kong ${tile}: not in the hand`);
        p.melds.push({ kind: "concealed_kong", tiles: tile === HIDDEN ? null : notation([tile, tile, tile, tile]), from: null });
        justDrew[s] = null;
        break;
      }
      case "added_kong":
        if (!take(hands[s], e.tile)) throw new FoldError("bad_event", line, `added_kong ${e.tile}: not in the hand`);
        // the kong stands once nobody robs it (抢杠): at its replacement draw
        adding = { seat: s, tile: e.tile };
        justDrew[s] = null;
        Object.assign(view, { turn: s, phase: "claim", to_act: [], claim: { tile: e.tile, from: s, kong: true } });
        break;
      case "win":
        adding = null; // a robbed kong stays a pung
        break;
      case "end":
        (e.hands || []).forEach((h, seat) => { hands[seat] = tilesOf(h); });
        Object.assign(view, { phase: "over", to_act: [], result: e });
        delete view.claim;
        drawn = null;
        break;
      default: // claim, pass, abandon, kong_paid: nothing moves on the table
        break;
    }
  }
  close();
  return frames;
}

/** The record's or log's hands as frames: {kind, seat, hands: [{number, game, frames}]}. */
export function foldFile(text) {
  const file = readFile(text);
  return {
    kind: file.kind,
    seat: file.seat,
    hands: file.hands.map((events, i) => {
      const frames = foldHand(events, { source: file.kind });
      return { number: frames[0].view.hand ?? i, game: frames[0].view.game, frames };
    }),
  };
}

/** Is frame `f` a decision of `seat` (null: of any seat)? A step the seat's action began, unless
 * it had one legal action only (`legal` 1: forced); without `legal` (a folded file) every action counts. */
export function isDecision(f, seat = null) {
  if (f.actor == null) return false;
  if (seat != null && f.actor !== seat) return false;
  return f.legal == null || f.legal > 1;
}

/** The index of the next (dir 1) or previous (dir -1) decision of `seat` from `index`, or null. */
export function nextDecision(frames, index, seat = null, dir = 1) {
  for (let i = index + dir; i >= 0 && i < frames.length; i += dir) if (isDecision(frames[i], seat)) return i;
  return null;
}

/** Frame `f` as seat `seat` saw it: another seat's concealed tiles, draws and concealed kongs
 * hidden ("?"), until the end shows every hand. `seat` null: the frame itself, every hand open. */
export function seatFrame(f, seat) {
  if (seat == null) return f;
  const over = f.view.phase === "over";
  const hide = (s) => s !== seat && !over;
  const events = f.events.map((e) => {
    if (e.type === "deal") return { ...e, hands: e.hands.map((h, s) => (s === seat ? h : null)) };
    if ((e.type === "draw" || e.type === "concealed_kong") && e.seat !== seat) return { ...e, tile: null };
    if (e.type === "kong_paid" && e.seat !== seat && e.kind === "concealed_kong") return { ...e, tile: null };
    return e;
  });
  const players = f.view.players.map((p, s) => (s === seat ? p : {
    ...p, melds: p.melds.map((m) => (m.kind === "concealed_kong" && !over ? { ...m, tiles: null } : m)),
  }));
  const hands = f.hands.map((h, s) => {
    const tiles = typeof h === "string" ? tilesOf(h) : h;
    return hide(s) ? tiles.map(() => HIDDEN) : tiles;
  });
  const drawn = f.view.turn === seat || over ? f.drawn : null;
  return { ...f, events, hands, drawn, view: { ...f.view, players } };
}
