"""What a budgeted prompt shows first: the files and the code a task touches, best first.

A prompt with a token budget cannot show a large repository whole, so what it keeps
follows the task's ranking (:func:`task_focus`):

* the files in rank order (those the session names first), each file's summary led by a
  ``relevant:`` line naming the definitions the task touches (:func:`led_summary`), and a
  long summary cut to its top-level definitions and those;
* the full text of the most relevant functions and classes of the best files
  (:class:`CodeBlock`), within a share of the budget, so the model can often change the
  code in its first reply without asking for a file;
* a tree folded around what is shown (:class:`TreeGrowth` says what showing a file opens,
  and at what cost, so the fitter counts it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentprompt.repo.discovery import read_texts
from agentprompt.repo.map import TreeNode, entry_line, folders_holding, opening_cost_lines
from agentprompt.tokens import CountCache

if TYPE_CHECKING:
    from agentprompt.bridge.view import RepoView
    from agentprompt.repo.rank import RelevantSymbol

__all__ = [
    "CODE_SHARE",
    "CodeBlock",
    "TaskFocus",
    "TreeGrowth",
    "code_key",
    "is_code_key",
    "key_label",
    "key_path",
    "led_summary",
    "task_focus",
]

SYMBOL_FILES = 8
"""How many of the best files have their definitions ranked for the task."""

SYMBOLS = 30
"""How many definitions the ranking keeps (the ``relevant:`` lines name them)."""

CODE_SHARE = 0.4
"""At most this share of the budget goes to the full text of relevant definitions."""

CODE_BLOCKS = 6
"""At most this many definitions are shown in full."""

RELEVANT_PER_FILE = 6
"""At most this many definitions a summary's ``relevant:`` line names."""

SUMMARY_LINES = 60
"""A summary longer than this many lines is cut to its top-level definitions and the
relevant ones (a note says how many lines were left out)."""

_CODE = "\0code:"
"""Starts the key of a code block among the files' keys (no path holds a NUL)."""


def code_key(path: str, start: int, end: int) -> str:
    """The key of the code block of lines ``start``–``end`` of ``path``."""
    return f"{_CODE}{path}:{start}-{end}"


def is_code_key(key: str) -> bool:
    """Whether ``key`` is a code block's (not a file's path)."""
    return key.startswith(_CODE)


@dataclass(frozen=True, kw_only=True)
class CodeBlock:
    """The full text of one relevant definition."""

    key: str
    """Its key among the files' (:func:`code_key`)."""
    path: str
    """The file it is in."""
    name: str
    """Its qualified name (``Config.from_pyfile``)."""
    start: int
    """Its first line (1-based)."""
    end: int
    """Its last line (1-based, inclusive)."""
    text: str
    """Its lines, as the file has them."""


@dataclass(frozen=True, kw_only=True)
class TaskFocus:
    """What a task's ranking says a budgeted prompt should show first."""

    order: tuple[str, ...]
    """Every file of the view, most relevant first."""
    symbols: tuple[RelevantSymbol, ...] = ()
    """The definitions of the best files the task touches, most relevant first."""
    code: tuple[CodeBlock, ...] = ()
    """The relevant definitions to show in full, most relevant first."""
    texts: Mapping[str, str] | None = None
    """The texts of the files whose definitions were ranked."""

    def relevant(self, path: str) -> list[RelevantSymbol]:
        """The relevant definitions of ``path``, most relevant first."""
        return [s for s in self.symbols if s.path == path][:RELEVANT_PER_FILE]


def _ranked(view: RepoView, first: Sequence[str], task: str) -> list[tuple[str, float]]:
    """Every file of the view with its relevance to ``task``, ``first`` leading."""
    from agentprompt.repo.rank import RankOptions, rank_repository

    leading = list(dict.fromkeys(first))
    scores = rank_repository(
        view.root, task, RankOptions(focus=tuple(leading)), discovery=view.discovery
    ).ranking.scores()
    top = max(scores.values(), default=1.0) or 1.0
    placed = set(leading)
    rest = sorted(
        (p for p in view.paths if p not in placed), key=lambda p: (-scores.get(p, 0.0), p)
    )
    return [(p, top) for p in leading] + [(p, scores.get(p, 0.0)) for p in rest]


def _overlaps(symbol: RelevantSymbol, chosen: Iterable[CodeBlock]) -> bool:
    """Whether ``symbol`` holds, or is held by, a definition already chosen."""
    return any(
        c.path == symbol.path and c.start <= symbol.end and symbol.start <= c.end for c in chosen
    )


def task_focus(
    view: RepoView,
    first: Sequence[str],
    task: str,
    *,
    code_tokens: int,
    counter: CountCache,
    code: bool = True,
) -> TaskFocus:
    """The files of ``view`` ranked for ``task`` (``first`` leading), the definitions of
    the best code files the task touches, and (``code``) those to show in full, within
    ``code_tokens``."""
    from agentprompt.repo.rank import rank_symbols_in
    from agentprompt.repo.symbols import extract_symbols

    ranked = _ranked(view, first, task)
    order = tuple(p for p, _ in ranked)
    best = [(p, s) for p, s in ranked if p in view.summaries][:SYMBOL_FILES]
    if not best or not task.strip():
        return TaskFocus(order=order)
    texts, _unreadable = read_texts(view.root, [p for p, _ in best])
    entries = {p: extract_symbols(p, t.encode("utf-8", "surrogatepass")) for p, t in texts.items()}
    symbols = rank_symbols_in(
        task, [(p, s) for p, s in best if p in texts], entries, texts, limit=SYMBOLS
    )
    blocks: list[CodeBlock] = []
    room = code_tokens
    for symbol in symbols if code else ():
        if len(blocks) >= CODE_BLOCKS or room <= 0:
            break
        if _overlaps(symbol, blocks):
            continue
        lines = texts[symbol.path].split("\n")[symbol.start - 1 : symbol.end]
        text = "\n".join(lines) + "\n"
        cost = counter.count(text)
        if cost > room:
            continue
        room -= cost
        blocks.append(
            CodeBlock(
                key=code_key(symbol.path, symbol.start, symbol.end),
                path=symbol.path,
                name=symbol.name,
                start=symbol.start,
                end=symbol.end,
                text=text,
            )
        )
    return TaskFocus(order=order, symbols=tuple(symbols), code=tuple(blocks), texts=texts)


def _names_in(line: str, names: set[str]) -> bool:
    words = line.replace("(", " ").replace(".", " ").split()
    return any(w in names for w in words)


def led_summary(summary: str, relevant: Sequence[RelevantSymbol]) -> str:
    """``summary`` led by a line naming the ``relevant`` definitions with their lines; a
    summary over :data:`SUMMARY_LINES` lines keeps its top-level lines and those naming a
    relevant definition, and says how many lines it left out."""
    lines = summary.split("\n")
    names = {s.name.rpartition(".")[2] for s in relevant}
    if len(lines) > SUMMARY_LINES:
        kept = [ln for ln in lines if not ln.startswith(" ") or _names_in(ln, names)]
        left = len(lines) - len(kept)
        if left:
            lines = [*kept, f"(+{left} more lines: ask for the file)"]
    if relevant:
        named = ", ".join(f"{s.name} [{s.start}-{s.end}]" for s in relevant)
        lines = [f"relevant: {named}", *lines]
    return "\n".join(lines)


class TreeGrowth:
    """What showing a file adds around it: in a tree folded around what a prompt shows,
    each folder holding it, with the tokens its listing adds (``tree`` None: the tree is
    not folded); and the heading of the section its block goes in (``headings``: by
    level, a code block's under ``code``)."""

    def __init__(
        self,
        tree: TreeNode | None,
        counter: CountCache,
        always_open: Iterable[str] = (),
        headings: Mapping[str, str] | None = None,
    ):
        self.tree = tree
        self.counter = counter
        self.costs: dict[str, int] = {}
        self.always_open = set(always_open)
        self.headings = {k: counter.count(v) for k, v in (headings or {}).items()}
        self.large: set[str] = set()

    def cost(self, folder: str) -> int:
        """The tokens opening ``folder`` adds (a large folder: its line for what it does
        not list; each file shown in it then adds its own)."""
        cost = self.costs.get(folder)
        if cost is None:
            listing, only_shown = (
                opening_cost_lines(self.tree, folder) if self.tree is not None else ("", False)
            )
            if only_shown:
                self.large.add(folder)
            cost = self.costs[folder] = self.counter.count(listing)
        return cost

    def __call__(self, key: str, level: str) -> Mapping[str, int]:
        """What showing ``key`` (a file, or a code block of a file) at ``level`` adds:
        the folders it opens with their costs (those always open cost nothing), and its
        section's heading (keyed ``\0LEVEL``)."""
        section = "code" if is_code_key(key) else level
        grows = {}
        if section in self.headings:
            grows["\0" + section] = self.headings[section]
        if self.tree is not None:
            path = key_path(key)
            for folder in folders_holding([path]):
                if folder not in self.always_open:
                    grows[folder] = self.cost(folder)
            if path.rpartition("/")[0] in self.large:
                grows["\0line:" + path] = self.counter.count(entry_line(self.tree, path))
        return grows


def key_label(key: str) -> str:
    """A key as a report names its section: ``file:PATH``, or ``code:PATH:A-B``."""
    if is_code_key(key):
        return "code:" + key[len(_CODE) :]
    return f"file:{key}"


def key_path(key: str) -> str:
    """The file a key (a path, or a code block's key) is of."""
    if not is_code_key(key):
        return key
    return key[len(_CODE) :].rpartition(":")[0]
