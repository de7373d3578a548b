"""``laizi play`` (issue 6): a person at a terminal table, driven through a pty to the end."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from laizi.engine import Action
from laizi.terminal import action_keys

ROOT = Path(__file__).parents[1]
KEY = re.compile(r"\[([a-z0-9A-Z])\] ")


def read_until(fd: int, markers: tuple[str, ...], timeout: float = 60) -> str:
    text = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536).decode("utf-8", "replace")
        except OSError:
            break
        if not chunk:
            break
        text += chunk
        if any(marker in text for marker in markers):
            return text
    return text


def test_a_hand_is_played_to_its_end_in_a_pty():
    main, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "120", "TERM": "dumb"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from laizi.cli import main; main()",
            "play",
            "--seed",
            "4",
            "--hands",
            "1",
            "--lang",
            "en",
        ],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        cwd=ROOT,
    )
    os.close(child)
    transcript = ""
    try:
        for _ in range(400):
            text = read_until(main, ("> ", "End of the hand"))
            transcript += text
            if "End of the hand" in text:
                break
            keys = KEY.findall(text.rsplit("your hand", 1)[-1])
            assert keys, text
            os.write(main, f"{keys[0]}\n".encode())
        transcript += read_until(main, ("payments:",), timeout=10)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
    assert "End of the hand" in transcript
    assert "payments:" in transcript
    assert "laizi" in transcript and "indicator" in transcript and "mult." in transcript
    assert process.returncode == 0


def test_actions_get_keys_discards_by_their_place_in_the_hand():
    hand = [0, 4, 33]
    legal = [
        Action(0, "discard", 0),
        Action(0, "discard", 33),
        Action(0, "lay_out", 33),
        Action(0, "win"),
    ]
    keys = action_keys(legal, hand)
    assert keys == {"a": legal[0], "c": legal[1], "1": legal[2], "2": legal[3]}


def test_a_baishan_hand_at_the_table_ends_with_the_settlement():
    import io

    from rich.console import Console

    from laizi.terminal import TerminalTable

    buffer = io.StringIO()
    console = Console(file=buffer, width=140)
    read_to = [0]

    def first_key() -> str:
        text = buffer.getvalue()[read_to[0] :]
        read_to[0] = len(buffer.getvalue())
        keys = KEY.findall(text.rsplit("your hand", 1)[-1])
        return keys[0] if keys else "n"

    table = TerminalTable("baishan", seed=2, lang="zh", console=console, read_line=first_key)
    totals = table.run(hands=1)
    out = buffer.getvalue()
    assert sum(totals) == 0
    assert "本局结束" in out and "本局得分" in out and "牌墙" in out
