"""laizi — Wuhan (武汉麻将) and Baishan (白山麻将) mahjong: rules, scoring, bots, online table."""

__version__ = "0.1.0"
