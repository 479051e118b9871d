"""The symbol map text in its compact notation, and the bridge's browse-view summaries.

A map is a legend (only the notation the map uses, read from the prompt file
``repo/symbol_map_legend.md``) followed by one block per file::

    # c=class m=method f=function
    # i=import i→=local import
    # :N=line ->T=returns ←N=refs from other files →=calls
    # @1/=src/agentprompt/repo/
    @1/models.py: ←3
    i dataclasses,typing
    i→ @1/store.py
    c User(Base):10 ←2
      m validate()->bool:20 →_check_email
    tests/test_models.py: 2c/9m

Rendering is pure: it takes :class:`MapFile` values and returns text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import PurePosixPath

from agentprompt.prompts.loader import PACKAGED_DIR, parse_prompt_file
from agentprompt.repo.discovery import is_test_path
from agentprompt.repo.map._tree import display_name
from agentprompt.repo.symbols import FileSymbols, SymbolEntry

__all__ = [
    "KIND_PREFIXES",
    "MapFile",
    "MapParts",
    "browse_summary",
    "file_annotation",
    "is_entry_point",
    "legend_groups",
    "needs_text_for_entry",
    "render_map",
    "render_parts",
]

KIND_PREFIXES: dict[str, str] = {
    "class": "c",
    "method": "m",
    "function": "f",
    "async function": "af",
    "async method": "am",
    "variable": "v",
    "property": "p",
}
"""The map's prefix for each symbol kind."""

_MAX_IMPORTS = 8
_MAX_CALLS = 4
_DITTO = "″"
_DITTO_MIN = 12
_MAX_ALIASES = 9
_MIN_ALIAS_PREFIX = 12


@dataclass(frozen=True, kw_only=True)
class MapFile:
    """One file's block in a map: its symbols and what the ranking found about them."""

    symbols: FileSymbols
    """The file's extraction result."""
    shown: frozenset[int] | None = None
    """Indexes into ``symbols.symbols`` to show (None: all of them)."""
    file_refs: int = 0
    """How many other files refer to this one (``←N`` on its header)."""
    symbol_refs: Mapping[int, int] = field(default_factory=dict)
    """For each symbol index: how many other files use its name."""
    local_imports: tuple[str, ...] = ()
    """Repository files this one imports (resolved paths)."""
    external_imports: tuple[str, ...] = ()
    """Modules from outside the repository it imports."""

    @property
    def path(self) -> str:
        """The file's path."""
        return self.symbols.path


@cache
def legend_groups() -> tuple[tuple[tuple[str, str], ...], ...]:
    """The legend's (key, meaning) pairs in groups, from ``repo/symbol_map_legend.md``."""
    path = PACKAGED_DIR / "repo" / "symbol_map_legend.md"
    template = parse_prompt_file("repo/symbol_map_legend", path, path.read_text(encoding="utf-8"))
    groups: list[tuple[tuple[str, str], ...]] = []
    for block in template.body.split("\n\n"):
        pairs = tuple(
            (key, meaning)
            for key, _, meaning in (line.partition("=") for line in block.splitlines() if line)
        )
        if pairs:
            groups.append(pairs)
    return tuple(groups)


def _params(symbol: SymbolEntry) -> str:
    return f"({','.join(symbol.params)})" if symbol.signature else ""


def _returns(symbol: SymbolEntry) -> str:
    if not symbol.returns:
        return ""
    return "->" + symbol.returns.replace(", ", ",").replace(" | ", "|")


@dataclass
class _Writer:
    """Accumulates map lines and the notation they use."""

    aliases: Sequence[tuple[str, str]]
    lines: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    last_params: str = ""
    last_calls: str = ""

    def path(self, path: str) -> str:
        """``path`` with its longest aliased prefix replaced by the alias; a name holding a
        line break or bytes that are not UTF-8 is written escaped, as the tree writes it."""
        for prefix, alias in self.aliases:
            if path.startswith(prefix):
                return display_name(alias + path[len(prefix) :])
        return display_name(path)

    def symbol(self, symbol: SymbolEntry, refs: int, indent: int) -> None:
        """Write one definition's line."""
        prefix = KIND_PREFIXES[symbol.kind]
        self.used.add(prefix)
        text = f"{'  ' * indent}{prefix} {symbol.name}"
        # Only properties (and parameters) carry the optional mark, so a ``?`` ending a
        # method's name is always the name's own (Ruby's ``valid?``).
        if "optional" in symbol.markers and symbol.kind == "property":
            text += "?"
            self.used.add("?")
        if symbol.kind == "class" and symbol.bases:
            text += f"({','.join(symbol.bases)})"
            self.used.add("c(B)")
        params = "" if symbol.kind == "property" else _params(symbol)
        if params and params == self.last_params and len(params) > _DITTO_MIN:
            params = f"({_DITTO})"
            self.used.add(_DITTO)
        else:
            self.last_params = params
        text += params
        if "?" in params:
            self.used.add("?")
        returns = _returns(symbol)
        if returns:
            self.used.add("->T")
            if returns.startswith("->?"):
                self.used.add("?")
        text += f"{returns}:{symbol.line}"
        self.used.add(":N")
        if refs:
            text += f" ←{refs}"
            self.used.add("←N")
        if symbol.calls:
            calls = ",".join(symbol.calls[:_MAX_CALLS])
            if len(symbol.calls) > _MAX_CALLS:
                calls += f",+{len(symbol.calls) - _MAX_CALLS}"
                self.used.add("+N")
            if calls == self.last_calls:
                calls = _DITTO
                self.used.add(_DITTO)
            else:
                self.last_calls = calls
            text += f" →{calls}"
            self.used.add("→")
        else:
            self.last_calls = ""
        self.lines.append(text)

    def more(self, count: int, indent: int) -> None:
        """Write a ``+N`` line for ``count`` definitions not shown (none for zero)."""
        if count > 0:
            self.lines.append(f"{'  ' * indent}+{count}")
            self.used.add("+N")

    def names(self, key: str, names: Sequence[str]) -> None:
        """Write an import line (``i`` or ``i→``) listing ``names``."""
        if not names:
            return
        shown = ",".join(names[:_MAX_IMPORTS])
        if len(names) > _MAX_IMPORTS:
            shown += f",+{len(names) - _MAX_IMPORTS}"
            self.used.add("+N")
        self.lines.append(f"{key} {shown}")
        self.used.add(key)


def _file_block(writer: _Writer, entry: MapFile) -> None:
    symbols = entry.symbols.symbols
    header = f"{writer.path(entry.path)}:"
    if is_test_path(entry.path) and symbols:
        classes = sum(1 for s in symbols if s.kind == "class")
        methods = sum(1 for s in symbols if s.kind not in ("class", "variable", "property"))
        writer.lines.append(f"{header} {classes}c/{methods}m")
        writer.used.add("Nc/Nm")
        return
    if entry.file_refs:
        header += f" ←{entry.file_refs}"
        writer.used.add("←N")
    writer.lines.append(header)
    writer.last_params = writer.last_calls = ""
    writer.names("i", entry.external_imports)
    writer.names("i→", [writer.path(p) for p in entry.local_imports])
    shown = entry.shown if entry.shown is not None else frozenset(range(len(symbols)))
    visible: set[str] = set()
    for i, symbol in enumerate(symbols):
        if i in shown:
            visible.add(symbol.qualname)
    hidden_by_parent: dict[str | None, int] = {}
    for i, symbol in enumerate(symbols):
        if i not in shown:
            key = symbol.parent if symbol.parent in visible else None
            if symbol.parent is None or symbol.parent in visible:
                hidden_by_parent[key] = hidden_by_parent.get(key, 0) + 1
    children: dict[str | None, list[int]] = {}
    for i, symbol in enumerate(symbols):
        if i in shown:
            parent = symbol.parent if symbol.parent in visible else None
            children.setdefault(parent, []).append(i)

    def emit(parent: str | None, indent: int) -> None:
        overloads = 0
        previous: tuple[str, str] | None = None
        for i in children.get(parent, []):
            symbol = symbols[i]
            # Overloads (the same name and kind again) are counted, not repeated.
            if (symbol.qualname, symbol.kind) == previous:
                overloads += 1
                continue
            previous = (symbol.qualname, symbol.kind)
            if parent is None and symbol.parent and indent == 0:
                symbol = _qualified(symbol)
                writer.used.add(_QUALIFIED)
            writer.symbol(symbol, entry.symbol_refs.get(i, 0), indent)
            if symbol.kind == "class":
                emit(symbols[i].qualname, indent + 1)
        writer.more(hidden_by_parent.get(parent, 0) + overloads, indent)

    emit(None, 0)


def _qualified(symbol: SymbolEntry) -> SymbolEntry:
    return replace(symbol, name=symbol.qualname, parent=None)


def _aliases(paths: Sequence[str]) -> list[tuple[str, str]]:
    counts: dict[str, int] = {}
    for path in paths:
        parts = path.split("/")[:-1]
        prefix = ""
        for part in parts:
            prefix += part + "/"
            counts[prefix] = counts.get(prefix, 0) + 1
    candidates = [
        (count * (len(prefix) - 4) - len(prefix) - 6, prefix)
        for prefix, count in counts.items()
        if count >= 3 and len(prefix) >= _MIN_ALIAS_PREFIX
    ]
    candidates.sort(key=lambda c: (-c[0], c[1]))
    chosen: list[str] = []
    for saving, prefix in candidates:
        if saving <= 0 or len(chosen) >= _MAX_ALIASES:
            break
        if any(other.startswith(prefix) for other in chosen):
            continue
        chosen.append(prefix)
    chosen.sort()
    numbered = [(prefix, f"@{i}/") for i, prefix in enumerate(chosen, start=1)]
    # The longest prefix wins when aliases nest.
    return sorted(numbered, key=lambda pa: -len(pa[0]))


@dataclass(frozen=True, kw_only=True)
class MapParts:
    """A map cut into its legend and one block per file, for placing them apart (the cache
    tiers keep the legend in the most stable tier and move file blocks between tiers)."""

    legend: str
    """The legend lines (notation used, path aliases), each ending in a newline."""
    blocks: tuple[tuple[str, str], ...]
    """(path, block text) per file, in the order given, then (folder path ending in ``/``,
    or ``./``, line) per folder of files listed without symbols; each ends in a newline."""

    @property
    def text(self) -> str:
        """The whole map: the legend, then every block."""
        return self.legend + "".join(block for _, block in self.blocks)


def render_parts(files: Sequence[MapFile]) -> MapParts:
    """The legend and per-file blocks of the map of ``files`` (aliases shared by all).

    A file with nothing to show but its path (no symbols, imports or references: a text,
    data or image file, an empty module) gets no block of its own: such files are listed
    per folder after the other blocks (``docs/: index.rst,usage.rst,+3``), one block per
    folder, keyed by the folder's path (``./`` for the root)."""
    blocks = [f for f in files if not _without_symbols(f)]
    listed = _listed_by_folder(f.path for f in files if _without_symbols(f))
    alias_paths = [f.path for f in blocks] + [p for f in blocks for p in f.local_imports]
    alias_paths += [folder for folder in listed if folder != "./"]
    aliases = _aliases(alias_paths)
    writer = _Writer(aliases=aliases)
    spans: list[tuple[str, int, int]] = []
    for entry in blocks:
        first = len(writer.lines)
        _file_block(writer, entry)
        _mark_param_notation(writer, entry)
        spans.append((entry.path, first, len(writer.lines)))
    for folder, names in listed.items():
        first = len(writer.lines)
        _folder_line(writer, folder, names)
        spans.append((folder, first, len(writer.lines)))
    if not writer.lines:
        return MapParts(legend="", blocks=())
    if any(line.startswith('"') for line in writer.lines):
        writer.used.add(_ESCAPED)
    used_aliases = sorted(
        (alias, prefix) for prefix, alias in aliases if any(alias in line for line in writer.lines)
    )
    head: list[str] = []
    for group in legend_groups():
        items = [f"{key}={meaning}" for key, meaning in group if key in writer.used]
        if items:
            head.append("# " + " ".join(items))
    if used_aliases:
        head.append("# " + " ".join(f"{alias}={prefix}" for alias, prefix in used_aliases))
    rendered = tuple(
        (path, "".join(line + "\n" for line in writer.lines[a:b])) for path, a, b in spans
    )
    return MapParts(legend="".join(line + "\n" for line in head), blocks=rendered)


_QUALIFIED = "C.x"
_ESCAPED = '"P"'
_LISTED = "D/: a,b"
_MAX_LISTED = 6
_VARIADIC = "*a/**k/...a/&b"
_VARIADIC_MARKS = ("*", "...", "&")
_DESTRUCTURED = "{a,b}"


def _without_symbols(entry: MapFile) -> bool:
    """Whether ``entry``'s block would be its path alone (nothing defined, imported or
    referred to): such files are listed per folder instead."""
    symbols = entry.symbols
    return (
        not symbols.symbols
        and not symbols.imports
        and not entry.local_imports
        and not entry.external_imports
        and not entry.file_refs
    )


def _listed_by_folder(paths: Iterable[str]) -> dict[str, list[str]]:
    """File names by folder (``a/b/``, or ``./`` for the root), folders in path order."""
    found: dict[str, list[str]] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        found.setdefault(folder + "/" if folder else "./", []).append(name)
    return dict(sorted(found.items()))


def _folder_line(writer: _Writer, folder: str, names: Sequence[str]) -> None:
    """Write one folder's files without symbols: ``folder/: a,b,+N`` (the first names in
    path order; a name holding a comma is quoted so the list stays readable)."""
    shown = [
        json.dumps(n) if "," in n and display_name(n) == n else display_name(n)
        for n in names[:_MAX_LISTED]
    ]
    if len(names) > _MAX_LISTED:
        shown.append(f"+{len(names) - _MAX_LISTED}")
        writer.used.add("+N")
    where = folder if folder == "./" else writer.path(folder)
    writer.lines.append(f"{where}: {','.join(shown)}")
    writer.used.add(_LISTED)


def _mark_param_notation(writer: _Writer, entry: MapFile) -> None:
    """Note the parameter marks (variadic, block, destructured) the shown signatures use,
    so the legend explains them."""
    symbols = entry.symbols.symbols
    if is_test_path(entry.path) and symbols:
        return  # a test file is summarised as counts, without signatures
    shown = entry.shown if entry.shown is not None else range(len(symbols))
    for i in shown:
        symbol = symbols[i]
        if not symbol.signature or symbol.kind == "property":
            continue
        for param in symbol.params:
            if param.startswith(_VARIADIC_MARKS):
                writer.used.add(_VARIADIC)
            elif param.startswith(("{", "[")):
                writer.used.add(_DESTRUCTURED)


def render_map(files: Sequence[MapFile], *, legend: bool = True) -> str:
    """The map of ``files`` (in the order given), led by a legend of the notation it uses."""
    parts = render_parts(files)
    return parts.text if legend else parts.text.removeprefix(parts.legend)


_EXPORTING = frozenset({"javascript", "typescript", "tsx"})
_MAX_ANNOTATION_NAMES = 3
_INDEX_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "php"})
"""Languages whose ``index.*`` file is what runs (a package's or a site's entry)."""
_MAIN_GUARDS: dict[str, tuple[str, re.Pattern[str]]] = {
    "python": (
        "__name__",
        re.compile(
            r"""^if\s+(?:__name__\s*==\s*(['"])__main__\1|(['"])__main__\2\s*==\s*__name__)\s*:""",
            re.MULTILINE,
        ),
    ),
    "ruby": (
        "__FILE__",
        re.compile(
            r"\bif\s+(?:__FILE__\s*==\s*\$(?:0|PROGRAM_NAME)|\$(?:0|PROGRAM_NAME)\s*==\s*__FILE__)"
        ),
    ),
}
"""Per language: the identifier a script's run-as-a-program guard uses (a cheap hint, read
from the file's references) and the guard itself, looked for in the text."""


def needs_text_for_entry(entry: FileSymbols) -> bool:
    """Whether :func:`is_entry_point` needs ``entry``'s text to decide: a Python or Ruby
    file that is not an entry point by its name or symbols, and whose references hold the
    identifier of a run-as-a-program guard (``__name__``, ``__FILE__``)."""
    guard = _MAIN_GUARDS.get(entry.language or "")
    return guard is not None and guard[0] in entry.references and not is_entry_point(entry)


def is_entry_point(entry: FileSymbols, text: str | None = None, *, declared: bool = False) -> bool:
    """Whether the file is where a program starts: a code file named ``__main__.*`` or
    ``main.*``, an ``index.*`` of JavaScript, TypeScript or PHP, C#'s ``Program.cs``, a
    file defining a module-level ``main`` function (Go's ``func main``, C's, Rust's, a
    Python ``def main``) or a static ``main`` method (Java, C#), or one whose ``text`` holds
    a run-as-a-program guard (``if __name__ == "__main__":``, Ruby's ``if __FILE__ ==
    $0``), or one a project manifest ``declared`` as its program (a script with no
    suffix included). Any other file no grammar reads (documents, data, keys, images)
    never is."""
    if declared and (entry.language is not None or not PurePosixPath(entry.path).suffix):
        return True
    if entry.language is None:
        return False
    stem = PurePosixPath(entry.path).stem
    if stem in ("main", "__main__") or (stem == "index" and entry.language in _INDEX_LANGUAGES):
        return True
    if stem == "Program" and entry.language == "csharp":
        return True
    for symbol in entry.symbols:
        if symbol.name.lower() != "main":
            continue
        if symbol.depth == 0 and symbol.kind.endswith("function") and symbol.name == "main":
            return True
        if symbol.kind.endswith("method") and "static" in symbol.markers:
            return True
    guard = _MAIN_GUARDS.get(entry.language)
    return text is not None and guard is not None and guard[1].search(text) is not None


def _module_name(module: str) -> str:
    name = module.rstrip("/").rsplit("/", 1)[-1].lstrip(".")
    for ext in (".js", ".ts", ".tsx", ".jsx", ".mjs", ".py", ".h", ".hpp", ".rb", ".php"):
        name = name.removesuffix(ext)
    return name or module


def file_annotation(
    entry: FileSymbols, text: str | None = None, *, declared: bool = False
) -> str | None:
    """The note after a file in the bridge's tree: ``exports: a, b, ...`` or
    ``main entry, imports: utils`` (None when there is nothing to say). ``main entry`` is
    said of real entry points only (:func:`is_entry_point`; pass the file's ``text`` when
    :func:`needs_text_for_entry` says the rule needs it, and ``declared`` for a file a
    project manifest names as a program)."""
    top = [s for s in entry.symbols if s.depth == 0]
    is_main = is_entry_point(entry, text, declared=declared)
    if entry.language in _EXPORTING:
        exported = [s.name for s in top if "exported" in s.markers]
    else:
        exported = [s.name for s in top if not s.name.startswith("_") and s.kind != "variable"]
    local = list(dict.fromkeys(_module_name(i.module) for i in entry.imports if i.local))
    parts: list[str] = []
    if is_main:
        parts.append("main entry")
        if local:
            parts.append("imports: " + _listed(local))
    elif exported:
        parts.append("exports: " + _listed(exported))
    elif local:
        parts.append("imports: " + _listed(local))
    return ", ".join(parts) if parts else None


def _listed(names: Sequence[str]) -> str:
    unique = list(dict.fromkeys(names))
    text = ", ".join(unique[:_MAX_ANNOTATION_NAMES])
    return text + ", ..." if len(unique) > _MAX_ANNOTATION_NAMES else text


def browse_summary(entry: FileSymbols) -> str:
    """A file's signatures and structure without bodies, for the bridge's browse mode."""
    lines: list[str] = []
    if entry.imports:
        modules = list(dict.fromkeys(i.module for i in entry.imports))
        lines.append("imports: " + ", ".join(modules))
    for symbol in entry.symbols:
        text = f"{'  ' * symbol.depth}{symbol.kind} {symbol.name}"
        if symbol.kind == "class" and symbol.bases:
            text += f"({', '.join(symbol.bases)})"
        text += symbol.signature
        lines.append(f"{text}  [{symbol.line}-{symbol.end_line}]")
    if not lines:
        return f"({entry.lines} lines, no symbols)"
    return "\n".join(lines)
