// The client's picture of the hand: built from a snapshot's view, kept up to date by events.
//
// The fields are named as in the engine's view (docs/engine.md, "Views") so a snapshot can replace
// the model at any time; tests/test_web_model.py checks, in the browser, that the model after every
// event equals the engine's view of the same seat. The client computes no rule: every seat's
// multiplier with its factors arrives from the server (the snapshot's view, then `multipliers` on
// each event that changes them, computed by the same ruleset code as the settlement), and so does
// the number of tiles a normal draw may still take (`live`, on the deal and each draw).

import { parseTiles, sortTiles } from "./tiles.js";

function emptyPlayer(seat) {
  return { seat, hand_size: 0, melds: [], laid_out: [], discards: [], claimed: [], openings: 0, multiplier: null };
}

/** A model from a view (the engine's `view(state, seat)`), with the room's rules. */
export function fromView(view, rules) {
  const model = JSON.parse(JSON.stringify(view));
  model.rules = rules || model.rules || null;
  model.hand_tiles = view.concealed != null ? parseTiles(view.concealed) : null;
  model.rob = null;
  model.last = null;
  return model;
}

function meldText(tile, n) {
  return tile[0].repeat(n) + tile[1];
}

function removeTiles(model, tiles) {
  if (!model.hand_tiles) return;
  for (const tile of tiles) {
    const i = model.hand_tiles.indexOf(tile);
    if (i >= 0) model.hand_tiles.splice(i, 1);
  }
}

function afterDraw(model, seat) {
  model.turn = seat;
  model.claim = undefined;
  delete model.claim;
}

/** Apply one event (as the seat's stream gives it) to the model; returns the model. */
export function applyEvent(model, ev) {
  const p = model.players ? model.players[ev.seat] : undefined;
  switch (ev.type) {
    case "start": {
      const seat = model.seat;
      const rules = ev.rules || model.rules;
      for (const k of Object.keys(model)) delete model[k];
      Object.assign(model, {
        seat, game: ev.game, hand: ev.hand, dealer: ev.dealer, phase: "turn", turn: ev.dealer,
        to_act: [ev.dealer], indicator: null, laizi: null, pi: [], must_gang: [],
        tiles_left: 136 - 53, live: 0, scores: ev.scores, commitment: ev.commitment,
        players: [0, 1, 2, 3].map(emptyPlayer), hand_tiles: seat == null ? null : [],
        drawn: null, rules, rob: null, last: null,
      });
      break;
    }
    case "deal": {
      model.indicator = ev.indicator ?? null;
      model.laizi = ev.laizi ?? null;
      model.pi = ev.pi || [];
      model.must_gang = ev.must_gang || [];
      if (ev.indicator) model.tiles_left -= 1;
      model.players.forEach((pl, s) => { pl.hand_size = s === model.dealer ? 14 : 13; });
      if (model.seat != null && ev.hands[model.seat]) model.hand_tiles = parseTiles(ev.hands[model.seat]);
      break;
    }
    case "draw": {
      p.hand_size += 1;
      model.tiles_left -= 1;
      if (ev.seat === model.seat && ev.tile) {
        model.hand_tiles.push(ev.tile);
        model.drawn = ev.tile;
      }
      if (model.rob && ev.from === "back" && ev.seat === model.rob.seat) {
        const meld = p.melds.find((m) => m.kind === "pung" && m.tiles === meldText(model.rob.tile, 3));
        if (meld) { meld.kind = "added_kong"; meld.tiles = meldText(model.rob.tile, 4); }
      }
      model.rob = null;
      model.phase = ev.final ? "final" : "turn";
      afterDraw(model, ev.seat);
      break;
    }
    case "discard":
    case "lay_out": {
      p.hand_size -= 1;
      if (ev.seat === model.seat) removeTiles(model, [ev.tile]);
      model.drawn = null;
      if (ev.type === "lay_out" || ev.lay_out) {
        p.laid_out.push(ev.tile);
      } else {
        p.discards.push(ev.tile);
        model.phase = "claim";
        model.claim = { tile: ev.tile, from: ev.seat };
      }
      break;
    }
    case "concealed_kong": {
      p.hand_size -= 4;
      if (ev.seat === model.seat) removeTiles(model, [ev.tile, ev.tile, ev.tile, ev.tile]);
      p.melds.push({ kind: "concealed_kong", tiles: ev.tile ? meldText(ev.tile, 4) : null });
      model.drawn = null;
      break;
    }
    case "added_kong": {
      p.hand_size -= 1;
      if (ev.seat === model.seat) removeTiles(model, [ev.tile]);
      model.rob = { seat: ev.seat, tile: ev.tile };
      model.phase = "rob";
      model.claim = { tile: ev.tile, from: ev.seat };
      model.drawn = null;
      break;
    }
    case "chow":
    case "pung":
    case "kong": {
      const source = model.players[ev.from];
      source.claimed.push(source.discards.length - 1);
      let kind = ev.type;
      let tiles;
      let used;
      if (ev.type === "chow") {
        tiles = ev.tiles;
        used = parseTiles(ev.tiles);
        used.splice(used.indexOf(ev.tile), 1);
      } else {
        const n = ev.type === "pung" ? 3 : 4;
        if (ev.type === "kong") kind = "exposed_kong";
        tiles = meldText(ev.tile, n);
        used = Array(n - 1).fill(ev.tile);
      }
      p.hand_size -= used.length;
      if (ev.seat === model.seat) removeTiles(model, used);
      p.melds.push({ kind, tiles, from: ev.from });
      p.openings += 1;
      model.phase = "turn";
      model.drawn = null;
      afterDraw(model, ev.seat);
      break;
    }
    case "win":
      model.last = ev;
      model.rob = null;
      break;
    case "end": {
      model.phase = "over";
      model.to_act = [];
      model.result = {
        reason: ev.reason, winner: ev.winner, payments: ev.payments, hands: ev.hands, seed: ev.seed,
      };
      model.end = ev;
      model.drawn = null;
      delete model.claim;
      break;
    }
    default:
      break;
  }
  if (model.players && model.phase !== "over") {
    model.to_act = model.phase === "turn" || model.phase === "final" ? [model.turn] : [];
  }
  // As sent: the tiles a normal draw may still take (after the 海底 reserve) come with the deal
  // and each draw.
  if (ev.live != null) model.live = ev.live;
  if (ev.counts && model.players) {
    // As sent (minor 2): each seat's 开口 and 杠 counts.
    ev.counts.forEach((c, s) => { if (c) { model.players[s].opened = c.opened; model.players[s].kongs = c.kongs; } });
  }
  if (ev.fans && model.players) {
    // As sent (minor 2, in a game of fans): each seat's running public fans.
    ev.fans.forEach((f, s) => { model.players[s].fans = f; });
  }
  if (ev.multipliers && model.players) {
    // As sent: the server's ruleset computed them (none in a game without multipliers).
    ev.multipliers.forEach((m, s) => { model.players[s].multiplier = m; });
  }
  return model;
}

const DECISIONS = new Set(["discard", "lay_out", "concealed_kong", "added_kong", "claim", "pass", "chow", "pung", "kong", "win", "abandon"]);

/** Whether the event `ev` is the seat `seat` deciding: it answers that seat's pending prompt,
 * whichever connection of the seat (another tab, 托管) made it; the seat's next prompt follows. */
export function answers(ev, seat) {
  return seat != null && ev.seat === seat && DECISIONS.has(ev.type);
}

/** The seat's own concealed tiles, sorted, the drawn tile last (as the table shows them). */
export function ownHand(model) {
  if (!model.hand_tiles) return { tiles: [], drawn: null };
  const tiles = [...model.hand_tiles];
  let drawn = null;
  if (model.drawn && model.turn === model.seat) {
    const i = tiles.lastIndexOf(model.drawn);
    if (i >= 0) { tiles.splice(i, 1); drawn = model.drawn; }
  }
  return { tiles: sortTiles(tiles), drawn };
}
