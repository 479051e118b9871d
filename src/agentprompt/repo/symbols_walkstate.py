"""The state of one file's syntax-tree walk: what was found so far, and call scanning.

:class:`WalkState` is what every step of :mod:`agentprompt.repo.symbols_walk` records
definitions and imports into; it also reads the names a definition's body calls (lexically,
from the first few KiB of the body).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from agentprompt.repo.symbols import RESERVED_WORDS, ImportEntry, SymbolEntry
from agentprompt.repo.symbols_grammars import Grammar

__all__ = ["WalkState", "end_line"]

_CALL_REVERSED = re.compile(rb"\(([A-Za-z0-9_$]*[A-Za-z_$])")
"""A call read backwards: ``(`` and the name before it, reversed. In forward text a call is
the run of name characters before a ``(``, less its leading digits; searched for from the
``(`` in the reversed text, the regex engine jumps from one ``(`` to the next instead of
trying every letter of every word (five times faster, the same matches)."""
_NOT_CALLS = frozenset(
    b"if for while switch catch return function def elif and or not in is with await async "
    b"sizeof typeof new delete super self this print len str int defined lambda match case "
    b"foreach using lock fn unless until elseif isset empty array list static "
    b"isinstance issubclass getattr setattr hasattr range enumerate zip sorted dict set tuple "
    b"min max sum any all repr type iter next map filter bool float bytes".split()
)
_MAX_CALLS = 12
_CALL_SCAN_BYTES = 4096


@dataclass
class WalkState:
    """The state of one file's walk: its grammar, source and what was found so far."""

    language: str
    """The language being read."""
    grammar: Grammar
    """Its grammar table."""
    source: bytes
    """The file's bytes."""
    symbols: list[SymbolEntry] = field(default_factory=list)
    """Definitions found so far, in source order."""
    imports: list[ImportEntry] = field(default_factory=list)
    """Imports found so far."""
    names_only: bool = False
    """Whether only each definition's kind, name, lines, parent and depth are wanted (and no
    imports): the walk's steps then skip what costs and only fills those in."""
    declared: set[str] = field(default_factory=set)
    """Qualified names of methods declared in a class body (C++), whose out-of-class
    definitions are then not listed a second time."""

    def add(
        self, node: Node, kind: str, name: str, parent: str | None, depth: int, **extra: object
    ) -> None:
        """Record one definition spanning ``node``."""
        if not name or (depth == 0 and name in RESERVED_WORDS):
            return
        self.symbols.append(
            SymbolEntry(
                kind=kind,
                name=name,
                line=node.start_point[0] + 1,
                end_line=end_line(node),
                parent=parent,
                depth=depth,
                **extra,  # type: ignore[arg-type]
            )
        )

    def calls(self, node: Node, own: str) -> tuple[str, ...]:
        """The names called inside ``node``'s text, first-seen order, its own name left out."""
        body = node.child_by_field_name("body")
        if body is None:
            return ()  # a declaration or signature calls nothing
        start = body.start_byte
        span = self.source[start : min(body.end_byte, start + _CALL_SCAN_BYTES)]
        seen: dict[str, None] = {}
        for backwards in reversed(_CALL_REVERSED.findall(span[::-1])):
            match = backwards[::-1]
            if match in _NOT_CALLS:
                continue
            name = match.decode("ascii")
            if name != own:
                seen[name] = None
                if len(seen) >= _MAX_CALLS:
                    break
        return tuple(seen)


def end_line(node: Node) -> int:
    """The last line ``node`` covers (1-based); a trailing newline ends the line before."""
    row, column = node.end_point
    return row if column == 0 and row > node.start_point[0] else row + 1
