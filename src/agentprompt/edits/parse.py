"""Parse a model's reply into actions: every dialect, detected by its markers, mixed freely.

``parse_reply`` never raises for odd text: blocks it cannot use become diagnostics. It raises
only an :class:`~agentprompt.edits.EditError` for a dialect name that does not exist.
"""

from __future__ import annotations

from agentprompt.edits._stream import StreamParser
from agentprompt.edits.actions import ParseResult
from agentprompt.edits.dialects import AUTO, DIALECTS

__all__ = ["StreamParser", "detect_dialects", "parse_reply"]


def parse_reply(text: str, dialect: str = AUTO) -> ParseResult:
    """Every action ``text`` holds, in reply order, with what the parser noticed.

    ``dialect`` is ``auto`` (each block's dialect is detected by its markers; one reply may
    mix them) or a registered name, which reads only that dialect's blocks.
    """
    parser = StreamParser(dialect)
    parser.feed(text)
    return parser.close()


def detect_dialects(text: str) -> tuple[str, ...]:
    """The names of the dialects whose markers appear in ``text``, in registry order."""
    return tuple(name for name, d in DIALECTS.items() if d.detect(text))
