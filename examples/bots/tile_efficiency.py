#!/usr/bin/env python3
"""An example bot for the laizi bot protocol (docs/bot-protocol.md), in plain Python.

It needs nothing but the standard library (not even laizi): it reads one JSON object per line on
standard input and answers each ``prompt`` with one of its ``legal`` actions on standard output.

    laizi bot-check "cmd:python3 examples/bots/tile_efficiency.py"
    laizi arena "cmd:python3 examples/bots/tile_efficiency.py" random --hands 4 --seed 1

Its play: win whenever it may; lay out a must-gang tile (Wuhan) at once; pung whenever it may
(an opening, which Wuhan's 开口 needs to win); never chow or kong; discard the tile with the
fewest neighbours in its hand, keeping the laizi.
"""

import json
import random
import re
import sys

NAME = "example-python"


def tiles_of(text):
    """'14m358p' -> ['1m', '4m', '3p', '5p', '8p']."""
    return [d + suit for digits, suit in re.findall(r"(\d+)([mpsz])", text or "") for d in digits]


def isolation(tile, hand):
    """How well a tile fits the hand: copies count 3, neighbours 2 (one apart) or 1 (two apart)."""
    number, suit = int(tile[0]), tile[1]
    score = 3 * (hand.count(tile) - 1)
    if suit != "z":
        for other in hand:
            if other[1] == suit and other != tile:
                gap = abs(int(other[0]) - number)
                score += 2 if gap == 1 else 1 if gap == 2 else 0
    return score


def choose(prompt, rng):
    legal = prompt["legal"]
    view = prompt.get("view") or {}
    for kind in ("win", "pung"):  # a pung also opens the hand (Wuhan needs an opening to win)
        for action in legal:
            if action["type"] == kind:
                return action
    must_gang = set(view.get("must_gang") or [])
    for action in legal:
        if action["type"] == "lay_out" and action.get("tile") in must_gang:
            return action
    discards = [a for a in legal if a["type"] == "discard"]
    if not discards:
        for action in legal:
            if action["type"] == "pass":
                return action
        return legal[0]
    hand = tiles_of(view.get("concealed"))
    laizi = view.get("laizi")
    candidates = [a for a in discards if a["tile"] != laizi] or discards
    best = min(isolation(a["tile"], hand) for a in candidates)
    tied = [a for a in candidates if isolation(a["tile"], hand) == best]
    return rng.choice(tied)


def main():
    rng = random.Random(0)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": NAME, "version": 1}
        elif kind == "hand":
            rng = random.Random(message.get("seed", 0))
            continue
        elif kind == "prompt":
            reply = {"type": "act", "prompt": message["id"], "action": choose(message, rng)}
        elif kind == "bye":
            return
        else:
            continue  # events, notices and anything newer: nothing to answer
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
