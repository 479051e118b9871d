"""The runtime's block markers, and the wrapper that keeps user text inside its block.

Every layer is a tagged block (``<run-directive>`` ... ``</run-directive>``). Text that does
not come from the runtime (the user's input, step files, persona fields, run variables) is
escaped before it goes into a block: a ``<`` that would open or close one of the runtime's
tags becomes ``&lt;``, and an existing ``&lt;`` (or ``&amp;...lt;``) in that position gains
one more ``amp;``. So no runtime tag can appear inside foreign text, whatever it contains,
and :func:`unescape_markers` gets the exact text back.

The user's input is wrapped in ``<user-input boundary="...">`` ... ``</user-input
boundary="...">``: the boundary is derived from the (escaped) text and chosen so that it
does not occur in it, so the closing tag can be neither typed nor guessed by the user.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

__all__ = [
    "LAYER_TAGS",
    "WrappedInput",
    "escape_markers",
    "find_markers",
    "is_id",
    "unescape_markers",
    "unwrap_user_input",
    "wrap_user_input",
]

LAYER_TAGS: tuple[str, ...] = (
    "base-runtime-rules",
    "tool-policy",
    "persona",
    "run-directive",
    "node-brief",
    "step-file",
    "user-input",
)
"""The tags of the runtime's blocks; foreign text can never contain one of them."""

_TAG_AHEAD = r"(?=\s*/?\s*(?:" + "|".join(LAYER_TAGS) + r")(?![\w-]))"
_ESCAPE = re.compile(r"(?:<|&(?:amp;)*lt;)" + _TAG_AHEAD, re.IGNORECASE)
_UNESCAPE = re.compile(r"&((?:amp;)*)lt;" + _TAG_AHEAD, re.IGNORECASE)
_MARKER = re.compile(r"<" + _TAG_AHEAD, re.IGNORECASE)
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_OPEN = re.compile(r'\A<user-input(?: forNodeId="([^"]*)")? boundary="([0-9a-f]+)">\n')


def is_id(text: str) -> bool:
    """Whether ``text`` is an agent or node id (the schemas' ``id``), safe in a tag attribute."""
    return _ID.fullmatch(text) is not None


def escape_markers(text: str) -> str:
    """``text`` with every would-be runtime tag neutralised (reversibly)."""

    def escape(match: re.Match[str]) -> str:
        found = match.group(0)
        return "&lt;" if found == "<" else "&amp;" + found[1:]

    return _ESCAPE.sub(escape, text)


def unescape_markers(text: str) -> str:
    """The text :func:`escape_markers` was given."""
    return _UNESCAPE.sub(lambda m: "<" if not m.group(1) else "&" + m.group(1)[4:] + "lt;", text)


def find_markers(text: str) -> list[str]:
    """Every runtime tag in ``text`` (``<run-directive``, ``</user-input``...), in order."""
    tags = []
    for match in _MARKER.finditer(text):
        rest = text[match.end() :]
        tag = re.match(r"\s*/?\s*[\w-]+", rest)
        tags.append("<" + (tag.group(0) if tag else ""))
    return tags


def _boundary(body: str) -> str:
    data = body.encode("utf-8", "surrogatepass")
    attempt = 0
    while True:  # a text holds fewer 16-digit substrings than it has characters
        digest = hashlib.sha256(data + attempt.to_bytes(8, "big")).hexdigest()[:16]
        if digest not in body:
            return digest
        attempt += 1


@dataclass(frozen=True, kw_only=True)
class WrappedInput:
    """The user's text as it was before wrapping, and the node it was bound to."""

    text: str
    """The user's text, exactly."""
    for_node_id: str | None
    """The node the input is for (only for a run with an active step)."""


def wrap_user_input(text: str, for_node_id: str | None = None) -> str:
    """The user's ``text`` in a ``<user-input>`` block it cannot close or forge.

    ``for_node_id`` (a graph id, so it needs no quoting) binds the input to the current
    step of a run; anything else raises ValueError.
    """
    if for_node_id is not None and not is_id(for_node_id):
        raise ValueError(f"forNodeId {for_node_id!r} is not a node id")
    body = escape_markers(text)
    boundary = _boundary(body)
    node = f' forNodeId="{for_node_id}"' if for_node_id is not None else ""
    return f'<user-input{node} boundary="{boundary}">\n{body}\n</user-input boundary="{boundary}">'


def unwrap_user_input(block: str) -> WrappedInput:
    """The text and node of a block made by :func:`wrap_user_input`.

    Raises ValueError when ``block`` is not such a block (a forged or broken wrapper).
    """
    opening = _OPEN.match(block)
    if opening is None:
        raise ValueError("the block does not start with a user-input tag")
    closing = f'\n</user-input boundary="{opening.group(2)}">'
    if not block.endswith(closing):
        raise ValueError("the block does not end with the matching closing tag")
    body = block[opening.end() : len(block) - len(closing)]
    if find_markers(body):
        raise ValueError("the block's body holds a runtime tag")
    return WrappedInput(text=unescape_markers(body), for_node_id=opening.group(1))
