#!/usr/bin/env node
// An example bot for the laizi bot protocol (docs/bot-protocol.md) in JavaScript, for Node with
// no packages: one JSON object per line on stdin, one answer per prompt on stdout.
//
//   laizi bot-check "cmd:node examples/bots/tile_efficiency.js"
//   laizi arena "cmd:node examples/bots/tile_efficiency.js" random --hands 4 --seed 1
//
// Its play: win whenever it may; lay out a must-gang tile (Wuhan) at once; pung whenever it
// may (an opening, which Wuhan's 开口 needs to win); never chow or kong; discard the tile with the fewest neighbours in its hand, keeping the laizi.
"use strict";

const readline = require("readline");

const NAME = "example-node";

// A small seeded generator (mulberry32), so the same seed gives the same play.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function tilesOf(text) {
  const out = [];
  for (const [, digits, suit] of (text || "").matchAll(/(\d+)([mpsz])/g)) {
    for (const d of digits) out.push(d + suit);
  }
  return out;
}

function isolation(tile, hand) {
  const number = Number(tile[0]);
  const suit = tile[1];
  let score = 3 * (hand.filter((t) => t === tile).length - 1);
  if (suit !== "z") {
    for (const other of hand) {
      if (other[1] === suit && other !== tile) {
        const gap = Math.abs(Number(other[0]) - number);
        score += gap === 1 ? 2 : gap === 2 ? 1 : 0;
      }
    }
  }
  return score;
}

function choose(prompt, random) {
  const legal = prompt.legal;
  const view = prompt.view || {};
  const win = legal.find((a) => a.type === "win");
  if (win) return win;
  const pung = legal.find((a) => a.type === "pung"); // an opening: Wuhan's 开口 needs one
  if (pung) return pung;
  const mustGang = new Set(view.must_gang || []);
  const layOut = legal.find((a) => a.type === "lay_out" && mustGang.has(a.tile));
  if (layOut) return layOut;
  const discards = legal.filter((a) => a.type === "discard");
  if (discards.length === 0) return legal.find((a) => a.type === "pass") || legal[0];
  const hand = tilesOf(view.concealed);
  const kept = discards.filter((a) => a.tile !== view.laizi);
  const candidates = kept.length ? kept : discards;
  const scores = candidates.map((a) => isolation(a.tile, hand));
  const best = Math.min(...scores);
  const tied = candidates.filter((_, i) => scores[i] === best);
  return tied[Math.floor(random() * tied.length)];
}

let random = generator(0);
const input = readline.createInterface({ input: process.stdin, terminal: false });

function say(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

input.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    return;
  }
  if (message === null || typeof message !== "object") return;
  switch (message.type) {
    case "hello":
      say({ type: "hello", name: NAME, version: 1 });
      break;
    case "hand":
      random = generator(Number(message.seed) % 4294967296);
      break;
    case "prompt":
      say({ type: "act", prompt: message.id, action: choose(message, random) });
      break;
    case "bye":
      input.close();
      break;
    default:
      break; // events, notices and anything newer: nothing to answer
  }
});

input.on("close", () => process.exit(0));
