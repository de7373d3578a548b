"""A bot-protocol process that leaves processes behind (``python forking_bot.py MODE PIDFILE
TOKEN [THEN]``): at its hello it starts a child that sleeps for ten minutes and appends the
child's pid to PIDFILE, then answers every prompt with its first legal action and exits at
``bye`` — or, with THEN ``crash``, exits at the first prompt, with ``sleep`` never answers one.

Modes: ``group`` (the child stays in the bot's process group), ``setsid`` (the child starts a
session of its own), ``daemon`` (a child that starts a session and forks again, its parent
exiting at once: the grandchild is an orphan in another session).  TOKEN is only there so the
test can tell these processes (the children keep the bot's command line) from any other.
"""

import json
import os
import sys
import time


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def leave_a_child(mode, pidfile):
    """Start the sleeping process; its pid is in PIDFILE before the bot goes on."""
    child = os.fork()
    if child != 0:
        if mode == "daemon":
            os.waitpid(child, 0)  # the middle process wrote its child's pid and exited
        else:
            note(pidfile, child)
        return
    null = os.open(os.devnull, os.O_RDWR)  # off the protocol's pipes, as a daemon would be
    for fd in (0, 1):
        os.dup2(null, fd)
    if mode in ("setsid", "daemon"):
        os.setsid()
    if mode == "daemon":
        grandchild = os.fork()
        if grandchild != 0:
            note(pidfile, grandchild)
            os._exit(0)
    time.sleep(600)
    os._exit(0)


def note(pidfile, pid):
    with open(pidfile, "a", encoding="utf-8") as out:
        out.write(f"{pid}\n")


def main():
    mode, pidfile = sys.argv[1], sys.argv[2]
    then = sys.argv[4] if len(sys.argv) > 4 else "play"
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            leave_a_child(mode, pidfile)
            say({"type": "hello", "name": f"forking-{mode}", "version": 1})
        elif kind == "bye":
            break
        elif kind == "prompt":
            if then == "crash":
                sys.exit(3)
            if then == "sleep":
                time.sleep(600)
            say({"type": "act", "prompt": message["id"], "action": message["legal"][0]})


if __name__ == "__main__":  # a process of its own (pytest only imports it)
    main()
