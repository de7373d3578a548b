"""What every subcommand shares: the Typer app, exit codes, JSON output, input reading.

Exit codes (INTERFACES.md): 0 success, 1 bad input, 2 usage error (Typer/Click's own),
3 illegal action in a replayed script, 4 a record failed verification.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

import typer
from typer.core import TyperOption

from laizi import jsonsafe
from laizi.i18n import Lang, resolve_lang
from laizi.rules.settings import PRESETS

EXIT_OK = 0
EXIT_BAD_INPUT = 1
EXIT_USAGE = 2
EXIT_ILLEGAL_ACTION = 3
EXIT_VERIFY_FAILED = 4

app = typer.Typer(
    name="laizi",
    help="Wuhan (武汉麻将) and Baishan (白山麻将) mahjong: analyse hands, score, replay, play.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

RULES_HELP = (
    "The game: a preset (" + ", ".join(PRESETS) + ") or a JSON rules object "
    '(\'{"preset": "wuhan-hongzhong-kaikou", "mode": "koukou"}\').'
)
"""``--rules`` help, the same for every command that takes it: it lists the presets."""

_option_type = TyperOption.display_type_rich


def _flag_has_no_value(self: TyperOption, ctx: Any) -> str | None:
    """A flag (``--json``, ``--help``) takes no value: show none, not a made-up ``<bool>``."""
    return None if self.is_flag else _option_type(self, ctx)


TyperOption.display_type_rich = _flag_has_no_value  # type: ignore[method-assign]  # see above

LangOption = typer.Option(
    None, "--lang", help="Language of the text: zh or en (else LAIZI_LANG, else the locale)."
)


def lang_or_exit(explicit: str | None) -> Lang:
    """The language to use, or exit 2 naming the bad ``--lang`` value."""
    try:
        return resolve_lang(explicit)
    except ValueError as error:
        fail(str(error), code=EXIT_USAGE)


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``message`` to stderr and exit with ``code`` — never a traceback."""
    typer.echo(f"laizi: {message}", err=True)
    raise typer.Exit(code)


def json_number(value: Fraction | int | float) -> int | float:
    """A number for JSON: an integer when whole, a decimal otherwise (``37.5``)."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return int(value.numerator)
        return float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def dumps(obj: Any) -> str:
    """Compact JSON for one output line, keeping Chinese text readable."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=_default)


def _default(value: Any) -> Any:
    if isinstance(value, Fraction):
        return json_number(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def read_text(source: str) -> str:
    """The text of ``source``: a file path, or ``-`` for standard input.  Exit 1 if unreadable."""
    if source == "-":
        try:
            return sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError:
            fail("cannot read standard input: not UTF-8 text")
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError as error:
        fail(f"cannot read {source}: {error.strerror or error}")
    except UnicodeDecodeError:
        fail(f"cannot read {source}: not UTF-8 text")


def load_json(source: str) -> Any:
    """Parse strict JSON from a file or ``-``; exit 1 with the position of a syntax error."""
    text = read_text(source)
    try:
        return jsonsafe.loads(text)
    except jsonsafe.JSONInputError as error:
        fail(f"{source}: not valid JSON: {error}")


def load_json_option(name: str, text: str) -> Any:
    """An option that takes a preset name or a JSON object (``--rules``): the object parsed."""
    if not text.lstrip().startswith("{"):
        return text
    try:
        return jsonsafe.loads(text)
    except jsonsafe.JSONInputError as error:
        fail(f"{name}: not valid JSON: {error}")


def _show_version(value: bool) -> None:
    if value:
        from laizi import __version__, _native

        typer.echo(f"laizi {__version__} — {_native.describe()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_show_version,
        is_eager=True,
        help="Print the version and the build (compiled or pure Python), then exit.",
    ),
) -> None:
    """Wuhan (武汉麻将) and Baishan (白山麻将) mahjong: analyse hands, score, replay, play."""
