"""The symbol map text in seed 004's notation, and seed 003's browse-view summaries.

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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import PurePosixPath

from agentprompt.prompts.loader import PACKAGED_DIR, parse_prompt_file
from agentprompt.repo.symbols import FileSymbols, SymbolEntry
from agentprompt.repo.tree import display_name

__all__ = [
    "KIND_PREFIXES",
    "MapFile",
    "MapParts",
    "browse_summary",
    "file_annotation",
    "is_test_path",
    "legend_groups",
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
_TEST_NAME = re.compile(
    r"(^test_.*\.py$|_test\.(py|go|rb|c|cc|cpp)$|\.(test|spec)\.[cm]?[jt]sx?$|Tests?\.(java|cs)$"
    r"|_spec\.rb$|Test\.php$)"
)
_TEST_DIRS = frozenset({"tests", "test", "__tests__", "spec", "testing"})


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


def is_test_path(path: str) -> bool:
    """Whether ``path`` looks like a test file (a test directory or a test file name)."""
    # A plain split: ranking asks this of every file of a repository.
    parts = [p for p in path.split("/") if p and p != "."]
    return bool(parts) and (
        bool(_TEST_NAME.search(parts[-1])) or any(p in _TEST_DIRS for p in parts[:-1])
    )


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
    """A map cut into its legend and one block per file, for placing them apart (seed 004
    keeps the legend in the most stable cache tier and moves file blocks between tiers)."""

    legend: str
    """The legend lines (notation used, path aliases), each ending in a newline."""
    blocks: tuple[tuple[str, str], ...]
    """(path, block text) per file, in the order given; each block ends in a newline."""

    @property
    def text(self) -> str:
        """The whole map: the legend, then every block."""
        return self.legend + "".join(block for _, block in self.blocks)


def render_parts(files: Sequence[MapFile]) -> MapParts:
    """The legend and per-file blocks of the map of ``files`` (aliases shared by all)."""
    alias_paths = [f.path for f in files] + [p for f in files for p in f.local_imports]
    aliases = _aliases(alias_paths)
    writer = _Writer(aliases=aliases)
    spans: list[tuple[str, int, int]] = []
    for entry in files:
        first = len(writer.lines)
        _file_block(writer, entry)
        spans.append((entry.path, first, len(writer.lines)))
    if not writer.lines:
        return MapParts(legend="", blocks=())
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
    blocks = tuple(
        (path, "".join(line + "\n" for line in writer.lines[a:b])) for path, a, b in spans
    )
    return MapParts(legend="".join(line + "\n" for line in head), blocks=blocks)


def render_map(files: Sequence[MapFile], *, legend: bool = True) -> str:
    """The map of ``files`` (in the order given), led by a legend of the notation it uses."""
    parts = render_parts(files)
    return parts.text if legend else parts.text.removeprefix(parts.legend)


_MAIN_NAMES = frozenset({"index", "main", "__main__", "app", "cli", "server", "program", "Program"})
_EXPORTING = frozenset({"javascript", "typescript", "tsx"})
_MAX_ANNOTATION_NAMES = 3


def _module_name(module: str) -> str:
    name = module.rstrip("/").rsplit("/", 1)[-1].lstrip(".")
    for ext in (".js", ".ts", ".tsx", ".jsx", ".mjs", ".py", ".h", ".hpp", ".rb", ".php"):
        name = name.removesuffix(ext)
    return name or module


def file_annotation(entry: FileSymbols) -> str | None:
    """Seed 003's note after a file in the tree: ``exports: a, b, ...`` or
    ``main entry, imports: utils`` (None when there is nothing to say)."""
    stem = PurePosixPath(entry.path).stem
    top = [s for s in entry.symbols if s.depth == 0]
    is_main = stem in _MAIN_NAMES or any(
        s.name == "main" and s.kind.endswith("function") for s in top
    )
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
    """A file's signatures and structure without bodies, for seed 003's browse mode."""
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
