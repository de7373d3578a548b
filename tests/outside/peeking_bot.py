"""A bot-protocol process that tries to see the walls of a run (``python peeking_bot.py LOG``):
an arena's, or a ``laizi simulate``'s.

It plays the first legal action and, at each hand's ``start``, predicts the hand's wall seed by
the known attacks, writing one JSON line per hand to LOG: ``hand`` (its count of hands), the
``commitment``, its ``predicted`` seed (hex, or null) and ``how``, and the seed its ``end``
revealed (``end_seed``).  The attacks, in order:

* ``memory``: a commitment seen before whose seed an ``end`` revealed (the same wall replayed);
* ``hand_seed``: a run seed below :data:`TRIED` whose public bot-seed derivation gives its
  ``hand`` seed (``laizi.sim.hand.derive_seed``: the arena's from the wall, A's seat and the
  bot's seat, simulate's from the hand and the bot's seat), then the wall from it;
* ``commitment``: a run seed below :data:`TRIED` whose wall seed hashes to the commitment.
"""

import hashlib
import json
import sys

from laizi.sim.hand import derive_seed, wall_seed

TRIED = 100
"""Run seeds tried by brute force."""
WALLS = 16
"""Wall indexes tried with each."""


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def from_hand_seed(seed):
    for run in range(TRIED):
        for index in range(WALLS):
            for s in range(4):
                arena = (derive_seed(run, index, a_seat, s) for a_seat in range(4))
                if derive_seed(run, index, s) == seed or seed in arena:
                    return wall_seed(run, index).hex()
    return None


def from_commitment(commitment):
    for run in range(TRIED):
        for index in range(WALLS):
            wall = wall_seed(run, index)
            if hashlib.sha256(wall).hexdigest() == commitment:
                return wall.hex()
    return None


def predict(commitment, seed, revealed):
    """The first attack that finds a wall seed: ``{"predicted": hex, "how": attack}``."""
    for how, attack in (
        ("memory", lambda: revealed.get(commitment)),
        ("hand_seed", lambda: from_hand_seed(seed)),
        ("commitment", lambda: from_commitment(commitment)),
    ):
        found = attack()
        if found is not None:
            return {"predicted": found, "how": how}
    return {}


def main():
    log = open(sys.argv[1], "a", encoding="utf-8")  # noqa: SIM115
    revealed = {}
    hands = 0
    seed = None
    guess = None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            say({"type": "hello", "name": "peeking", "version": 1})
        elif kind == "bye":
            break
        elif kind == "hand":
            hands += 1
            seed = message.get("seed")
        elif kind == "start":
            commitment = message.get("commitment")
            guess = {"hand": hands, "commitment": commitment, "predicted": None, "how": None}
            guess.update(predict(commitment, seed, revealed))
        elif kind == "end":
            if message.get("seed") is not None:
                revealed[guess["commitment"]] = message["seed"]
            guess["end_seed"] = message.get("seed")
            log.write(json.dumps(guess) + "\n")
            log.flush()
        elif kind == "prompt":
            say({"type": "act", "prompt": message["id"], "action": message["legal"][0]})


if __name__ == "__main__":  # a process of its own (pytest only imports it)
    main()
