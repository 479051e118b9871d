"""What extraction finds in one file: its definitions, its imports, and the file's
symbols as a whole; the words no definition is named.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "RESERVED_WORDS", "FileSymbols", "ImportEntry", "SymbolEntry"]


KINDS = ("class", "method", "function", "async function", "async method", "variable", "property")
"""Every kind a :class:`SymbolEntry` may have."""


@dataclass(frozen=True, kw_only=True)
class SymbolEntry:
    """One definition in a source file."""

    kind: str
    """One of :data:`KINDS`."""
    name: str
    """The defined name, without its parent."""
    line: int
    """First line of the definition (1-based)."""
    end_line: int
    """Last line of the definition (1-based)."""
    signature: str = ""
    """Parameters and return type as written, whitespace collapsed (empty for non-callables)."""
    params: tuple[str, ...] = ()
    """Parameter names; ``?`` marks an optional one, ``*``/``**``/``...`` a variadic one
    (``...`` alone: C's unnamed one); Python's bare ``*`` and ``/`` separators are kept."""
    returns: str | None = None
    """The declared return type, ``?T`` when it may be absent (None if not declared)."""
    parent: str | None = None
    """The enclosing class (dotted when nested), or None at module level."""
    depth: int = 0
    """Nesting depth: 0 at module level, 1 inside a class, and so on."""
    bases: tuple[str, ...] = ()
    """Base classes and implemented interfaces, for classes."""
    markers: tuple[str, ...] = ()
    """Extra facts: ``optional``, ``static``, ``abstract``, ``exported``, ``decorated``."""
    calls: tuple[str, ...] = ()
    """Names its body calls, first-seen order (read from the code of the first 4 KiB of
    the body: never from a comment or string, nor a nested ``def name(``)."""

    @property
    def qualname(self) -> str:
        """The name with its parent, e.g. ``Store.fetch``."""
        return f"{self.parent}.{self.name}" if self.parent else self.name


@dataclass(frozen=True, kw_only=True)
class ImportEntry:
    """One import statement's target."""

    module: str
    """What is imported from, as written (``os.path``, ``./utils``, ``.models``)."""
    names: tuple[str, ...] = ()
    """The names it brings in (empty when the whole module is imported)."""
    local: bool = False
    """True when the syntax makes it repository-local (relative path, quoted include...)."""
    line: int = 0
    """The line the import is on (1-based)."""


@dataclass(frozen=True, kw_only=True)
class FileSymbols:
    """Everything extracted from one file."""

    path: str
    """POSIX path relative to the repository root."""
    language: str | None
    """The language it was read as, or None when no grammar knows it."""
    symbols: tuple[SymbolEntry, ...] = ()
    """Definitions in source order; a parent always comes before its members."""
    imports: tuple[ImportEntry, ...] = ()
    """Imports in source order."""
    references: tuple[str, ...] = ()
    """Distinct identifiers the file uses, sorted: those of three characters or more, and
    in Python, JavaScript and TypeScript the shorter ones it defines or imports by name;
    keywords and the commonest builtins left out, and in Python a builtin's name unless
    the file defines or imports it."""
    lines: int = 0
    """Number of lines in the file."""
    syntax_errors: bool = False
    """True when the parser had to recover from errors (the symbols are what it could read)."""
    problem: str | None = None
    """Why the file could not be read, when it could not (it then has no symbols)."""
    detailed: bool = True
    """False when only the names were read (``details=False``): each definition's kind,
    name, lines, parent and depth are there (a Python function's last line is its
    header's), its signature, calls, bases and markers and the file's imports are not."""


RESERVED_WORDS = frozenset(
    str.split(
        "and await break case catch class const continue def elif else export for function if "
        "import instanceof lambda let not pass raise return switch throw try typeof var void "
        "while yield None True False null true false"
    )
)
"""Words no module-level definition can be named (keywords of the common grammars); a
parser recovering from an error may still offer them as names, and they are dropped.
Class members may use them (``promise.catch``)."""
