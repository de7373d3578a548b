"""The bot protocol (docs/bot-protocol.md): bots in any language, as processes or over a
WebSocket, given exactly their seat's events and asked for one legal action per prompt.

* :mod:`laizi.botproto.protocol` — the messages, reading a bot's answer;
* :mod:`laizi.botproto.messages` — every message as a type, and the JSON Schema made from them;
* :mod:`laizi.botproto.process` — a bot process on a leash (bounded lines, queues, time);
* :mod:`laizi.botproto.session` — handshake, hands, prompts, and 托管 for a failed decision;
* :mod:`laizi.botproto.check` — ``laizi bot-check``, the conformance suite.

``cmd:COMMAND`` names such a bot wherever a bot name is taken (:mod:`laizi.bots.external`).
"""

from laizi.botproto.protocol import MAX_LINE_BYTES, PROTOCOL, VERSION

__all__ = ["MAX_LINE_BYTES", "PROTOCOL", "VERSION"]
