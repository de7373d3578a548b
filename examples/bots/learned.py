#!/usr/bin/env python3
"""The learned bot over the bot protocol (docs/bot-protocol.md): a trained network as a process.

Where ``tile_efficiency.py`` shows the protocol with nothing but the standard library, this one
shows how a bot built on laizi's trained policy (docs/bots.md, "learned") plays anywhere a
``cmd:`` bot does — an arena, ``laizi bot-check``, a live table through ``laizi bot-connect``.
It needs laizi and numpy (``pip install laizi``); torch is never needed to play.

    laizi bot-check "cmd:python3 examples/bots/learned.py"
    laizi arena "cmd:python3 examples/bots/learned.py" strong --hands 4 --seed 1
    LAIZI_LEARNED_MODEL=run/learned-wuhan.npz laizi arena "cmd:python3 examples/bots/learned.py" …

Each hand's ``start`` event carries the rules: the bot for them is made then (the shipped
model of the game, or the file ``LAIZI_LEARNED_MODEL`` names).  Each ``prompt``'s view and legal
actions go to it unchanged; it answers with the action the network likes best of the legal ones.
"""

import json
import sys

from laizi.bots.learned import LearnedBot
from laizi.engine.actions import Action
from laizi.rules import Settings

NAME = "example-learned"


def main() -> None:
    bot = None
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "hello":
            reply = {"type": "hello", "name": NAME, "version": 1}
        elif kind == "start":
            bot = LearnedBot(Settings.from_json(message["rules"]))
            continue
        elif kind == "prompt" and bot is not None:
            view = message["view"]
            legal = [Action.from_json({**a, "seat": view["seat"]}) for a in message["legal"]]
            chosen = bot.act(view, legal).to_json()
            chosen.pop("seat")
            reply = {"type": "act", "prompt": message["id"], "action": chosen}
        elif kind == "bye":
            return
        else:
            continue  # other events, notices and anything newer: nothing to answer
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
