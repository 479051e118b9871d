"""The state of one file's syntax-tree walk: what was found so far, and call scanning.

:class:`WalkState` is what every step of :mod:`agentprompt.repo.symbols._walk` records
definitions and imports into; it also reads the names a definition's body calls (lexically,
from the first few KiB of the body).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from agentprompt.repo.symbols._grammars import Grammar, NodeRoles
from agentprompt.repo.symbols.entries import RESERVED_WORDS, ImportEntry, SymbolEntry

__all__ = ["WalkState"]

_CALL_REVERSED = re.compile(
    rb"\((?>([A-Za-z0-9_$]*[A-Za-z_$]))(?![ \t]+(?:fed|ssalc|noitcnuf|cnuf|nf)\b)"
)
"""A call read backwards: ``(`` and the name before it, reversed. In forward text a call is
the run of name characters before a ``(``, less its leading digits, unless a ``def``,
``class``, ``function``, ``func`` or ``fn`` comes before it (a nested definition, no
call); searched for from the ``(`` in the reversed text, the regex engine jumps from one
``(`` to the next instead of trying every letter of every word (five times faster than
the forward search). The name is an atomic group: a definition's name must not be given
up for its tail, which the keyword would no longer precede."""
_NOT_CALLS = frozenset(
    b"if for while switch catch return function def elif and or not in is with await async "
    b"sizeof typeof new delete super self this print len str int defined lambda match case "
    b"foreach using lock fn unless until elseif isset empty array list static "
    b"isinstance issubclass getattr setattr hasattr range enumerate zip sorted dict set tuple "
    b"min max sum any all repr type iter next map filter bool float bytes".split()
)
_NOT_CALLS_BACKWARDS = frozenset(word[::-1] for word in _NOT_CALLS)
_MAX_CALLS = 12
_CALL_SCAN_BYTES = 4096

_new = object.__new__
_ENTRY_DEFAULTS = dict(vars(SymbolEntry(kind="", name="", line=0, end_line=0)))
"""Every field of a :class:`SymbolEntry` at its default. The walk makes one entry per
definition, and a frozen dataclass's ``__init__`` sets each of its 13 fields through
``object.__setattr__``: filling the new entry's ``__dict__`` from these defaults and the
found values instead is three times faster, and gives an equal entry (SymbolEntry has no
``__post_init__`` to skip; a test checks that)."""


@dataclass
class WalkState:
    """The state of one file's walk: its grammar, source and what was found so far."""

    language: str
    """The language being read."""
    grammar: Grammar
    """Its grammar table."""
    roles: NodeRoles
    """The grammar table by node kind id."""
    source: bytes
    """The file's bytes."""
    code: bytes
    """The file's bytes with comments and string text blanked (every other byte at its
    offset in :attr:`source`), which calls are read from: a name followed by ``(`` in a
    docstring or a comment is no call."""
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
    backwards: bytes = field(default=b"", repr=False)
    """:attr:`code` back to front, which calls are read from (made by the first
    :meth:`calls`): one reversal per file instead of a copy and a reversal per body."""

    def add(
        self,
        node: Node,
        kind: str,
        name: str,
        parent: str | None,
        depth: int,
        *,
        signature: str = "",
        params: tuple[str, ...] = (),
        returns: str | None = None,
        bases: tuple[str, ...] = (),
        markers: tuple[str, ...] = (),
        calls: tuple[str, ...] = (),
    ) -> None:
        """Record one definition spanning ``node`` (see :data:`_ENTRY_DEFAULTS` for how)."""
        if not name or (depth == 0 and name in RESERVED_WORDS):
            return
        entry = _new(SymbolEntry)
        values = entry.__dict__
        values.update(_ENTRY_DEFAULTS)
        first = node.start_point[0]
        row, column = node.end_point  # a trailing newline ends the line before
        last = row if column == 0 and row > first else row + 1
        values["kind"], values["name"], values["parent"], values["depth"] = (
            kind,
            name,
            parent,
            depth,
        )
        values["line"], values["end_line"] = first + 1, last
        # A value that is its field's default is already there (names-only: all of them).
        if signature:
            values["signature"] = signature
        if params:
            values["params"] = params
        if returns is not None:
            values["returns"] = returns
        if bases:
            values["bases"] = bases
        if markers:
            values["markers"] = markers
        if calls:
            values["calls"] = calls
        self.symbols.append(entry)

    def calls(self, node: Node, own: str) -> tuple[str, ...]:
        """The names called inside ``node``'s text, first-seen order, its own name left out."""
        body = node.child_by_field_name("body")
        if body is None:
            return ()  # a declaration or signature calls nothing
        if not self.backwards:
            self.backwards = self.code[::-1]
        size, start = len(self.code), body.start_byte
        # The body's first bytes, as they lie in the reversed text: searched in place.
        found = _CALL_REVERSED.findall(
            self.backwards, size - min(body.end_byte, start + _CALL_SCAN_BYTES), size - start
        )
        found.reverse()
        # Repeats (first-seen order kept) and keywords dropped while still reversed: most
        # bodies call a few names many times, and only the names kept need turning round.
        kept = [m for m in dict.fromkeys(found) if m not in _NOT_CALLS_BACKWARDS]
        if not kept:
            return ()
        # The first 13 (one may be the definition's own name) joined last to first: the
        # joined text turned round is then each name forwards, in first-seen order.
        names = b" ".join(kept[_MAX_CALLS::-1])[::-1].decode("ascii").split(" ")
        if own in names:
            names.remove(own)
        return tuple(names[:_MAX_CALLS])
