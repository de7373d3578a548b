"""A bot-protocol process that misbehaves on purpose (``python misbehaving_bot.py MODE [LOG]``).

Modes: ``good`` (answers every prompt with its first legal action), ``sleep`` (never answers a
prompt), ``garbage`` (answers with a line that is not JSON), ``exit`` (exits at the first
prompt), ``flood`` (writes thousands of lines per prompt), ``huge`` (a 3 MB line, then a good
answer), ``illegal`` (answers with a win or pung it was not offered), ``no_hello`` (never says
hello), ``stale`` (answers an older prompt id first, then the right one), ``no_bye`` (ignores
bye and the end of its input).  With LOG, every line received is appended to that file.
"""

import json
import sys
import time


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    mode = sys.argv[1]
    log = open(sys.argv[2], "a", encoding="utf-8") if len(sys.argv) > 2 else None  # noqa: SIM115

    for line in sys.stdin:
        if log is not None:
            log.write(line)
            log.flush()
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if mode == "no_hello":
                continue
            say({"type": "hello", "name": f"misbehaving-{mode}", "version": 1})
        elif kind == "bye" and mode != "no_bye":
            break
        elif kind == "prompt":
            good = {"type": "act", "prompt": message["id"], "action": message["legal"][0]}
            if mode == "sleep":
                time.sleep(3600)
            elif mode == "garbage":
                sys.stdout.write("I think I'll discard the red dragon\n")
                sys.stdout.flush()
            elif mode == "exit":
                sys.exit(3)
            elif mode == "flood":
                sys.stdout.write("flood flood flood\n" * 5000)
                say(good)
            elif mode == "huge":
                sys.stdout.write("x" * 3_000_000 + "\n")
                say(good)
            elif mode == "illegal":
                # a win, a pung or a kong it was not offered (one of the three never is: a
                # prompt practically never offers all three)
                tries = ({"type": "win"}, {"type": "pung"}, {"type": "kong", "tile": "1m"})
                wrong = next(a for a in tries if a not in message["legal"])
                say({"type": "act", "prompt": message["id"], "action": wrong})
            elif mode == "stale":
                say({"type": "act", "prompt": message["id"] - 1, "action": {"type": "pass"}})
                say(good)
            else:
                say(good)
    if mode == "no_bye":
        time.sleep(3600)


if __name__ == "__main__":  # a process of its own (pytest only imports it)
    main()
