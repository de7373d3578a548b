"""laizi — Wuhan (武汉麻将) and Baishan (白山麻将) mahjong: rules, scoring, bots, online table."""

__version__ = "0.1.0"

# The compiled hot modules, or their sources when forced (LAIZI_PURE=1) or stale (docs/speed.md).
from laizi import _native

_native.install()
