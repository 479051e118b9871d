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

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentprompt.repo.discovery import read_texts
from agentprompt.repo.map import TreeNode, entry_line, folders_holding, opening_cost_lines
from agentprompt.tokens import CountCache

if TYPE_CHECKING:
    from agentprompt.bridge.view import RepoView
    from agentprompt.repo.rank import RelevantSymbol
    from agentprompt.repo.symbols import FileSymbols

__all__ = [
    "BRIEF_FILES",
    "CODE_SHARE",
    "DETAILED_FILES",
    "CodeBlock",
    "SummaryForms",
    "TaskFocus",
    "TreeGrowth",
    "code_key",
    "detail_key",
    "is_code_key",
    "is_file_key",
    "keeping_order",
    "key_label",
    "key_path",
    "led_summary",
    "names_only",
    "task_focus",
]

SYMBOL_FILES = 4
"""How many of the best files have their definitions ranked for the task."""

SYMBOLS = 30
"""How many definitions the ranking keeps (the ``relevant:`` lines name them)."""

CODE_SHARE = 0.4
"""At most this share of the budget goes to the full text of relevant definitions."""

CODE_BLOCKS = 6
"""At most this many definitions are shown in full."""

RELEVANT_PER_FILE = 6
"""At most this many definitions a summary's ``relevant:`` line names."""

SUMMARY_LINES = 40
"""A summary longer than this many lines keeps only its top-level lines and the relevant
members' in full (the other members are named)."""

MEMBERS_NAMED = 30
"""A brief summary names at most this many members of one top-level definition."""

LONG_LINE = 100
"""A brief summary cuts the parameters of a top-level line longer than this."""

BRIEF_FILES = 8
"""The best-ranked files whose summaries keep their top-level lines; the others' name
their definitions only (:func:`names_only`)."""

BRIEF_FIRST = (10, 80)
"""The summaries of the 10 best files come before any definition in full, those of the
next 70 (brief, then names only) before the best files' detailed summaries."""

CODE_FIRST = 3
"""How many definitions in full come before the next files' summaries, and how many
files' detailed summaries before the other definitions."""

DETAILED_FILES = 5
"""The best-ranked files whose summaries keep their members' signatures; the others'
summaries are brief (top-level lines, the members named)."""

_CODE = "\0code:"
"""Starts the key of a code block among the files' keys (no path holds a NUL)."""

_DETAIL = "\0detail:"
"""Starts the key of a file's detailed summary, shown instead of its brief one."""


def code_key(path: str, start: int, end: int) -> str:
    """The key of the code block of lines ``start``–``end`` of ``path``."""
    return f"{_CODE}{path}:{start}-{end}"


def is_code_key(key: str) -> bool:
    """Whether ``key`` is a code block's (not a file's path)."""
    return key.startswith(_CODE)


def detail_key(path: str) -> str:
    """The key of showing ``path``'s detailed summary instead of its brief one."""
    return f"{_DETAIL}{path}"


def is_file_key(key: str) -> bool:
    """Whether ``key`` is a file's path (not a code block's or a detail's key)."""
    return not key.startswith("\0")


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

    def relevant(self, path: str) -> list[RelevantSymbol]:
        """The relevant definitions of ``path``, most relevant first."""
        return [s for s in self.symbols if s.path == path][:RELEVANT_PER_FILE]


def _ranked(
    view: RepoView, first: Sequence[str], task: str
) -> tuple[list[tuple[str, float]], dict[str, FileSymbols]]:
    """Every file of the view with its relevance to ``task``, ``first`` leading; and the
    definitions of the :data:`SYMBOL_FILES` best with summaries, as the ranking read them
    (one pass over the symbol cache, no file parsed again)."""
    from agentprompt.repo.rank import RankOptions, ranked_repository

    leading = list(dict.fromkeys(first))
    options = RankOptions(focus=tuple(leading))
    with ranked_repository(view.root, task, options, discovery=view.discovery) as (
        _found,
        extraction,
        ranking,
    ):
        scores = ranking.scores()
        top = max(scores.values(), default=1.0) or 1.0
        placed = set(leading)
        rest = sorted(
            (p for p in view.paths if p not in placed), key=lambda p: (-scores.get(p, 0.0), p)
        )
        ranked = [(p, top) for p in leading] + [(p, scores.get(p, 0.0)) for p in rest]
        best = [p for p, _ in ranked if p in view.summaries][:SYMBOL_FILES]
        entries = dict(extraction.symbols(best))
    return ranked, entries


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

    ranked, entries = _ranked(view, first, task)
    order = tuple(p for p, _ in ranked)
    best = [(p, s) for p, s in ranked if p in entries]
    if not best or not task.strip():
        return TaskFocus(order=order)
    texts, _unreadable = read_texts(view.root, [p for p, _ in best])
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
    return TaskFocus(order=order, symbols=tuple(symbols), code=tuple(blocks))


_MEMBER = re.compile(r"^(\s+)\S+ ([^\s(\[]+)")
"""An indented line of a summary: its indentation and the member's name."""


def _member_name(line: str) -> str | None:
    """The name an indented summary line defines (None for a top-level line)."""
    found = _MEMBER.match(line)
    return found.group(2) if found else None


def _short(line: str) -> str:
    """A summary's top-level line with a long parameter list cut to ``(…)``."""
    if len(line) <= LONG_LINE:
        return line
    found = _PARAMETERS.search(line)
    return line if found is None else line[: found.start()] + "(…)" + line[found.end() :]


_PARAMETERS = re.compile(r"\(.*\)(?=[^()]*$)")
"""A line's parameter list: from its first opening parenthesis to its last closing one."""


def _led(lines: Sequence[str], relevant: Sequence[RelevantSymbol]) -> str:
    """``lines`` joined, led by a line naming the ``relevant`` definitions with their
    lines (none when there is none)."""
    if not relevant:
        return "\n".join(lines)
    named = ", ".join(f"{s.name} [{s.start}-{s.end}]" for s in relevant)
    return "\n".join([f"relevant: {named}", *lines])


def names_only(summary: str, relevant: Sequence[RelevantSymbol]) -> str:
    """The shortest summary: one line per top-level definition, its kind and name, and
    its members' names (at most :data:`MEMBERS_NAMED`), led like :func:`led_summary`."""
    entries: list[tuple[str, list[str]]] = []
    for line in summary.split("\n"):
        name = _member_name(line)
        if name is not None:
            if entries:
                entries[-1][1].append(name)
            continue
        if not line.strip() or line.startswith("imports: "):
            continue
        kind, _, rest = line.partition(" ")
        entries.append((f"{kind} {_OWN_NAME.split(rest, maxsplit=1)[0]}", []))
    lines = []
    for head, members in entries:
        if members:
            head += ": " + _named(members)
        lines.append(head)
    return _led(lines, relevant)


_OWN_NAME = re.compile(r"[\s(\[]")
"""Ends a definition's name in a summary line."""


def _named(members: Sequence[str]) -> str:
    """``members``' names, at most :data:`MEMBERS_NAMED` of them and how many more."""
    names = list(dict.fromkeys(members))
    more = len(names) - MEMBERS_NAMED
    return ", ".join(names[:MEMBERS_NAMED]) + (f" (+{more})" if more > 0 else "")


def led_summary(summary: str, relevant: Sequence[RelevantSymbol], *, detailed: bool = True) -> str:
    """``summary`` as a budgeted prompt shows it: led by a line naming the ``relevant``
    definitions with their lines. A ``detailed`` summary of at most :data:`SUMMARY_LINES`
    lines is kept whole; a longer one, or one not ``detailed`` (a file ranked lower),
    keeps its top-level lines and (detailed) the relevant members' lines, and names the
    other members of each top-level definition on one line (``+ name, name``) without
    their signatures; a brief one also leaves out the imports."""
    lines = summary.split("\n")
    names = {s.name.rpartition(".")[2] for s in relevant}
    if not detailed or len(lines) > SUMMARY_LINES:
        kept: list[str] = []
        others: list[str] = []

        def close() -> None:
            if others:
                kept.append("  + " + _named(others))
                others.clear()

        for line in lines:
            name = _member_name(line)
            if name is None:
                close()
                if detailed:
                    kept.append(line)
                elif not line.startswith("imports: "):
                    kept.append(_short(line))
            elif detailed and name in names:
                kept.append(line)
            else:
                others.append(name)
        close()
        lines = kept
    return _led(lines, relevant)


def keeping_order(
    files: Sequence[str], code: Sequence[CodeBlock], details: Sequence[str]
) -> list[str]:
    """The order a budget keeps things in, breadth first: the best files' brief
    summaries, the most relevant definitions in full, more files, the best files'
    detailed summaries, the other definitions, then every other file by rank."""
    keys = [c.key for c in code]
    detail = [detail_key(p) for p in details]
    near, far = BRIEF_FIRST
    return [
        *files[:near],
        *keys[:CODE_FIRST],
        *files[near:far],
        *detail[:CODE_FIRST],
        *keys[CODE_FIRST:],
        *detail[CODE_FIRST:],
        *files[far:],
    ]


class SummaryForms(Mapping[str, str]):
    """Each file's summary as a budgeted prompt shows it by default: brief for the
    :data:`BRIEF_FILES` best-ranked files, names only for the others, each led by the
    definitions the task touches; made when first asked for (a prompt shows a few hundred
    of a large repository's thousands)."""

    def __init__(self, raw: Mapping[str, str], focus: TaskFocus) -> None:
        self.raw = raw
        self.focus = focus
        self.brief = set([p for p in focus.order if p in raw][:BRIEF_FILES])
        self.made: dict[str, str] = {}

    def __getitem__(self, path: str) -> str:
        made = self.made.get(path)
        if made is None:
            summary, relevant = self.raw[path], self.focus.relevant(path)
            if path in self.brief:
                made = led_summary(summary, relevant, detailed=False)
            else:
                made = names_only(summary, relevant)
            self.made[path] = made
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __contains__(self, path: object) -> bool:
        return path in self.raw


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
    """A key as a report names its section: ``file:PATH``, ``code:PATH:A-B`` or
    ``detail:PATH``."""
    if is_code_key(key):
        return "code:" + key[len(_CODE) :]
    if key.startswith(_DETAIL):
        return "detail:" + key[len(_DETAIL) :]
    return f"file:{key}"


def key_path(key: str) -> str:
    """The file a key (a path, a code block's or a detail's key) is of."""
    if is_code_key(key):
        return key[len(_CODE) :].rpartition(":")[0]
    if key.startswith(_DETAIL):
        return key[len(_DETAIL) :]
    return key
