"""One round's prompt from a bridge session: what ``agentprompt pack`` prints and copies.

:func:`build_prompt` reads the repository and the state and returns the prompt; it never
changes the state, so building it twice gives the same prompt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, partial
from pathlib import Path
from typing import Any, Literal, TextIO

from agentprompt.bridge._fitting import Fitted, fit_files
from agentprompt.bridge._followup import Changed, FollowUp, render_followup, unified_diff
from agentprompt.bridge._ranked import (
    CODE_SHARE,
    DETAILED_FILES,
    CodeBlock,
    SummaryForms,
    TaskFocus,
    TreeGrowth,
    detail_key,
    is_file_key,
    keeping_order,
    key_path,
    led_summary,
    task_focus,
)
from agentprompt.bridge._render import (
    FOLD_OVER,
    EditPieces,
    Level,
    RenderedUser,
    UserPart,
    continuation_prompt,
    render_edit_pieces,
    render_system,
    render_user_keyed,
    section_headings,
)
from agentprompt.bridge._screening import screen_prompt_texts
from agentprompt.bridge._secretcache import text_digest
from agentprompt.bridge._sentstore import recall_texts, remember_texts
from agentprompt.bridge._streamed import FileBody, Piece, PromptText, read_batches
from agentprompt.bridge._survey import Survey, survey_files
from agentprompt.bridge._textfacts import text_facts
from agentprompt.bridge.split import (
    DEFAULT_SPLIT_CHARS,
    SplitLimit,
    SplitPlan,
    plan_chunks_split,
    plan_split,
)
from agentprompt.bridge.state import BridgeState
from agentprompt.bridge.view import (
    Overlay,
    RepoView,
    overlay_view,
    resolve_paths,
    view_repository,
)
from agentprompt.budget import Cut
from agentprompt.composition import PlacedSection
from agentprompt.messages import Message
from agentprompt.repo.discovery import SniffStamp, read_texts
from agentprompt.repo.map import build_tree, folders_holding
from agentprompt.repo.secrets import SecretFinding
from agentprompt.store import default_cache_path
from agentprompt.tokens import CountCache, is_piece_boundary, shared_counter

__all__ = [
    "BridgePrompt",
    "build_prompt",
    "pack_repository",
    "session_view",
    "shows_every_file_whole",
    "split_limit",
    "starting_state",
]


@dataclass(frozen=True, kw_only=True)
class BridgePrompt:
    """One round's prompt."""

    system: str
    """The system part (identity, modes, reply formats, split sending)."""
    body: PromptText
    """What the user pastes (:attr:`text`) as pieces: a whole repository's files are read
    only when it is written (:mod:`agentprompt.bridge._streamed`)."""
    user_start: int
    """Where the user part starts in ``text``."""
    tokens: int
    """The exact token count of ``text``."""
    tokenizer: str
    """The encoding counted with."""
    mode: str
    """The mode of the round."""
    lang: str
    """The prompt's language."""
    left_out: tuple[tuple[str, Level], ...] = ()
    """Files cut down to fit the budget, with what was kept."""
    withheld: tuple[SecretFinding, ...] = ()
    """Likely secrets that kept a file's text out."""
    continuation: bool = False
    """This is the follow-up asking the model to continue."""
    split: SplitPlan | None = None
    """Where ``text`` is cut into parts for sending (one part when it fits whole); None
    when it was not split (:attr:`parts` is then the whole text)."""
    shown_in_full: tuple[str, ...] = ()
    """The files whose whole text the prompt holds."""
    summarised: tuple[str, ...] = ()
    """The files the prompt shows by their summary, in the order it shows them."""
    relevant_code: tuple[CodeBlock, ...] = ()
    """The definitions the prompt shows in full under "Relevant code"."""
    sends: tuple[tuple[str, str], ...] = ()
    """What the chat holds once it has this prompt, as ``(path, digest)`` (an empty digest:
    the file is known to the chat but not its text, cut by the budget)."""
    followup: bool = False
    """This is a follow-up: only what is new since the chat's earlier prompts."""
    shown: tuple[tuple[str, Piece], ...] = ()
    """Each file's text as the prompt shows it (content, summary or diff; a file read only
    when asked for), for the size report."""
    fitted: Fitted | None = None
    """How the budget fitted the prompt (None: no fitting was done); :attr:`sections` and
    :attr:`cuts` are made from it when first asked for."""
    states_task: bool = False
    """The prompt states the task (a whole prompt, or a follow-up that restates it); else
    it refers to the statement the chat holds, or asks to continue."""

    @property
    def sections(self) -> tuple[PlacedSection, ...]:
        """The prompt as the core composer's sections (``frame``, all the prompt but the
        files, then ``file:PATH`` per file shown at more than its path, its block as the
        prompt shows it), each with its tokens; empty unless a budget cut the prompt or a
        report was asked for (:mod:`agentprompt.bridge._fitting`)."""
        return self.fitted.sections if self.fitted else ()

    @property
    def cuts(self) -> tuple[Cut, ...]:
        """What the budget cut to fit, in rank order."""
        return self.fitted.cuts if self.fitted else ()

    @property
    def task_told(self) -> tuple[bool, int]:
        """Whether the prompt states the task, and how many of its tokens the chat reads
        after that statement (:attr:`BridgeState.pending_task`): a follow-up restates it
        last; a whole prompt states it first (all its tokens counted)."""
        return self.states_task, 0 if self.states_task and self.followup else self.tokens

    @cached_property
    def text(self) -> str:
        """What the user pastes: the system part and the user part on the first round, the
        user part alone afterwards (the chat already holds the system part). Joined when
        asked for: write a large prompt with :meth:`write` instead."""
        return self.body.join()

    @cached_property
    def parts(self) -> tuple[str, ...]:
        """``text`` split for sending (one part when it fits whole or was not split), every
        part held: go through a large prompt's parts with :meth:`each_part` instead."""
        return tuple(self.each_part())

    @property
    def part_count(self) -> int:
        """How many parts :attr:`parts` has (without making any)."""
        return self.split.count if self.split else 1

    def each_part(self) -> Iterator[str]:
        """The parts of :attr:`parts`, one at a time: the prompt is read piece by piece
        and only one part's text is held."""
        if self.split is None:
            yield self.text
        else:
            yield from self.split.assemble(self.body.chunks())

    def part(self, number: int) -> str:
        """Part ``number`` (from 1) of :attr:`parts`: only the files it shows are read."""
        if self.split is None:
            return self.parts[number - 1]
        start, end = self.split.bounds[number - 1 : number + 1]
        return self.split.headers[number - 1] + "".join(self.body.span(start, end))

    def write(self, stream: TextIO) -> None:
        """Write :attr:`text` to ``stream`` piece by piece (a whole repository's prompt
        is never held whole)."""
        self.body.write(stream)

    @cached_property
    def user(self) -> str:
        """The round's user part (or the continuation follow-up): the end of ``text``,
        copied out only when asked for (a whole repository's prompt is large)."""
        return self.text[self.user_start :]

    def messages(self) -> tuple[Message, ...]:
        """The prompt as API messages: the system part and the user part."""
        return (
            Message(role="system", content=self.system),
            Message(role="user", content=self.user),
        )

    def to_json(self) -> dict[str, Any]:
        """The prompt as JSON-ready data."""
        return {
            "mode": self.mode,
            "lang": self.lang,
            "system": self.system,
            "user": self.user,
            "text": self.text,
            "tokens": self.tokens,
            "tokenizer": self.tokenizer,
            "left_out": [{"path": p, "kept": k} for p, k in self.left_out],
            "summarised": list(self.summarised),
            "relevant_code": [
                {"path": c.path, "name": c.name, "start": c.start, "end": c.end}
                for c in self.relevant_code
            ],
            "withheld": [{"path": f.path, "line": f.line, "kind": f.kind} for f in self.withheld],
            "continuation": self.continuation,
            "followup": self.followup,
            "states_task": self.states_task,
            "parts": list(self.parts),
            "sections": [
                {"id": s.id, "tokens": s.tokens, "priority": s.priority} for s in self.sections
            ],
            "cuts": [
                {
                    "section": c.section,
                    "action": c.action,
                    "tokens_before": c.tokens_before,
                    "tokens_after": c.tokens_after,
                    "detail": c.detail,
                }
                for c in self.cuts
            ],
        }


def split_limit(state: BridgeState) -> SplitLimit | None:
    """The session's split limit: in tokens, in characters, or (no limit given) the
    default in characters; None when the session has a token budget and no split limit
    of its own: the budget is the size of one paste, so the prompt is one part."""
    if state.split_tokens is not None:
        counter = shared_counter()
        return SplitLimit(size=state.split_tokens, unit="tokens", measure=counter.count)
    if state.split_chars is None and state.max_tokens is not None:
        return None
    return SplitLimit(size=state.split_chars or DEFAULT_SPLIT_CHARS, unit="chars")


_SPAN = re.compile(r"\[(\d+)(?:-(\d+))?\]\s*$")
_WORD = re.compile(r"[A-Za-z0-9_+/=.\-]{12,}")


def _real_line(summary: str, line: int, text: str) -> int:
    """The line of ``text`` that line ``line`` of its ``summary`` was taken from: within
    the lines the summary line names (``[46-47]``), the one sharing a long word with it;
    else the first line holding the same code; else ``line``."""
    lines = summary.split("\n")
    wanted = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    if not wanted:
        return line
    source = text.split("\n")
    span = _SPAN.search(wanted)
    if span is not None:
        start = int(span.group(1))
        end = int(span.group(2) or start)
        words = set(_WORD.findall(wanted))
        for number in range(start, min(end, len(source)) + 1):
            if words & set(_WORD.findall(source[number - 1])):
                return number
        return start
    for number, candidate in enumerate(source, start=1):
        if candidate.strip() == wanted:
            return number
    return line


def _in_files(
    root: Path,
    findings: tuple[SecretFinding, ...],
    summaries: Mapping[str, str],
    contents: Collection[str],
) -> tuple[SecretFinding, ...]:
    """``findings`` with the lines of those found in a file's summary (not its text) moved
    to the file's own lines, so a finding names the line to look at."""
    in_summary = sorted(
        {f.path for f in findings if f.path not in contents and f.path in summaries}
    )
    if not in_summary:
        return findings
    texts, _ = read_texts(root, in_summary)
    moved = []
    for finding in findings:
        text = texts.get(finding.path)
        if finding.path in contents or text is None:
            moved.append(finding)
            continue
        line = _real_line(summaries[finding.path], finding.line, text)
        moved.append(replace(finding, line=line))
    return tuple(moved)


def session_view(
    root: Path,
    state: BridgeState,
    *,
    strict: bool = False,
    whole: Callable[[RepoView], bool] | None = None,
) -> RepoView:
    """The repository as the session shows it (its generated-files choice and its
    include and exclude patterns; ``strict``: a pattern matching no file is an
    error). A session that shows every file whole needs no notes or summaries, so its view
    parses nothing (``whole`` says so of a new session's bare view, whose files are not yet
    the state's)."""
    return view_repository(
        root,
        include_generated=state.include_generated,
        includes=state.includes,
        excludes=state.excludes,
        strict_patterns=strict,
        whole=whole or partial(shows_every_file_whole, state),
    )


def starting_state(
    root: Path, paths: Sequence[str], make: Callable[[tuple[str, ...]], BridgeState]
) -> tuple[BridgeState, RepoView]:
    """A new session's state and the view it starts from: ``make`` turns the files
    ``paths`` name (resolved against the repository as the session shows it) into the
    state. The view takes the new session's patterns strictly (one that matches no file is
    an error) and parses nothing when the session will show every file whole."""
    view = session_view(
        root,
        make(()),
        strict=True,
        whole=lambda bare: shows_every_file_whole(make(resolve_paths(bare, paths)), bare),
    )
    return make(resolve_paths(view, paths)), view


def shows_every_file_whole(state: BridgeState, view: RepoView) -> bool:
    """Whether ``state``'s prompts show every file of ``view`` in full: edit mode, no token
    budget (which could cut a file to its summary) and every file in context."""
    return (
        state.mode == "edit"
        and state.max_tokens is None
        and bool(view.paths)
        and set(view.paths) <= set(state.files)
    )


def _read_overlaid(
    root: Path, paths: list[str], overlay: Overlay | None
) -> tuple[dict[str, str], dict[str, str]]:
    """The texts of ``paths``, ``overlay``'s where it has one, and the reasons for those
    that cannot be read (``deleted`` for the overlay's deletions)."""
    overlay = overlay or {}
    contents, unreadable = read_texts(root, [p for p in paths if p not in overlay])
    for path in paths:
        if path in overlay:
            text = overlay[path]
            if text is None:
                unreadable[path] = "deleted"
            else:
                contents[path] = text
    return contents, unreadable


def _followup_prompt(
    root: Path,
    state: BridgeState,
    view: RepoView,
    *,
    system: str,
    cache: Path,
    overlay: Overlay | None,
    split: bool,
    remember: bool,
    report: bool,
) -> BridgePrompt:
    """The follow-up prompt (see :mod:`agentprompt.bridge._followup`)."""
    sent = dict(state.sent)
    files = list(state.files) if state.mode == "edit" else []
    contents, _unreadable = _read_overlaid(root, files, overlay)
    digests = {p: text_digest(t) for p, t in contents.items()}
    added = [p for p in files if p in contents and p not in sent]
    changed = [p for p in files if p in contents and sent.get(p) and sent[p] != digests[p]]
    gone = [p for p in files if p not in contents and sent.get(p)]
    screen = screen_prompt_texts(
        [(p, contents[p]) for p in (*added, *changed)], cache_path=cache, digests=digests
    )
    held = set(screen.withheld)
    withheld = tuple(f for f in screen.findings if f.path in held)
    added = [p for p in added if p not in held]
    earlier = recall_texts(default_cache_path(root), [sent[p] for p in changed])
    changes: list[Changed] = []
    for path in changed:
        if path in held:
            continue
        old = earlier.get(sent[path])
        diff = unified_diff(path, old, contents[path]) if old is not None else None
        keep = diff if diff is not None and len(diff) < len(contents[path]) else None
        changes.append(Changed(path=path, text=contents[path], diff=keep))
    changes += [Changed(path=p, text=None) for p in gone]
    part = FollowUp(
        added=added,
        contents=contents,
        summaries=view.summaries,
        changed=changes,
        withheld=withheld,
    )
    levels: dict[str, Level] = {p: "full" for p in added}
    blocks: dict[tuple[str, Level], str] = {(p, "full"): contents[p] for p in added}
    blocks.update({(p, "summary"): view.summaries[p] for p in added if p in view.summaries})

    def render(current: Any, left_out: Any) -> RenderedUser:
        return render_followup(state, part, current, left_out, root)

    fitted = fit_files(
        render,
        levels,
        added,
        blocks,
        state.max_tokens,
        shared_counter(store=cache),
        report=report,
    )
    in_full = tuple(p for p, lv in fitted.levels.items() if lv == "full")
    sends = {p: digests[p] for p in in_full}
    sends.update({c.path: digests[c.path] for c in changes if c.text is not None})
    if remember:
        remember_texts(default_cache_path(root), {d: contents[p] for p, d in sends.items()})
    shown = [(p, blocks[(p, lv)]) for p, lv in fitted.levels.items() if (p, lv) in blocks]
    shown += [(c.path, c.diff or c.text or "") for c in changes]
    return _finish(
        state,
        root,
        system=system,
        text=fitted.text,
        tokens=fitted.tokens,
        left_out=fitted.left_out,
        withheld=withheld,
        split=split,
        shown_in_full=(*in_full, *(c.path for c in changes if c.text and c.diff is None)),
        sends=tuple(sends.items()),
        followup=True,
        shown=tuple(shown),
        fitted=fitted,
    )


def _initial_levels(state: BridgeState, view: RepoView) -> dict[str, Level]:
    if state.mode == "browse":
        return {p: "summary" for p in view.paths if p in view.summaries}
    return {p: "full" for p in state.files}


def build_prompt(
    root: Path,
    state: BridgeState,
    *,
    view: RepoView | None = None,
    split: bool = True,
    secret_cache: Path | None = None,
    overlay: Overlay | None = None,
    remember: bool = False,
    report: bool = False,
) -> BridgePrompt:
    """The prompt for the state's next round (the state is not changed): the whole prompt
    on the session's first round or a resend (:attr:`BridgeState.full_next`), else a
    follow-up with only what is new (:mod:`agentprompt.bridge._followup`). With
    ``remember``, the texts it shows in full are kept so a later follow-up can send a diff
    against them (:mod:`agentprompt.bridge._sentstore`). ``split=False``
    leaves the whole text as the only part. Secret scans and token counts are remembered
    in the cache database ``secret_cache`` (default ``ROOT/.agentprompt/cache/cache.db``).
    ``overlay``: files' texts as a reply's edits would leave them (``None``: deleted),
    shown instead of the disk's, so a dry run previews the prompt a real apply would make
    next. ``report``: give the prompt's sections with their tokens even when no budget cut it
    (:attr:`BridgePrompt.sections`)."""
    system = render_system(state.lang, root)
    if state.continuation is not None and not state.resend:
        user = continuation_prompt(state, root)
        return _finish(
            state, root, system=system, text=user, tokens=None, continuation=True, split=split
        )
    cache = secret_cache or default_cache_path(root)
    view = overlay_view(view or session_view(root, state), overlay or {})
    if not state.full_next:
        return _followup_prompt(
            root,
            state,
            view,
            system=system,
            cache=cache,
            overlay=overlay,
            split=split,
            remember=remember,
            report=report,
        )
    if state.mode == "edit" and state.max_tokens is None and not report and not overlay:
        return _whole_prompt(
            root, state, view, system=system, cache=cache, split=split, remember=remember
        )
    levels = _initial_levels(state, view)
    counter = shared_counter(store=cache)
    focus = (
        task_focus(
            view,
            (*state.files, *state.focus),
            state.task,
            code_tokens=int(state.max_tokens * CODE_SHARE),
            counter=counter,
            code=state.mode == "browse",
        )
        if state.max_tokens is not None
        else None
    )
    summaries = _led_summaries(view, focus)
    detailed = _detailed_summaries(view, focus, state)
    wanted = [p for p, lv in levels.items() if lv == "full"]
    stamps: dict[str, SniffStamp] = {}
    contents, unreadable = read_texts(
        root, [p for p in wanted if p not in (overlay or {})], stamps=stamps
    )
    if overlay:
        disk, contents = contents, {}
        for path in (p for p in wanted if p not in unreadable):
            text = overlay[path] if path in overlay else disk[path]
            if text is None:
                unreadable[path] = "deleted"
            else:
                contents[path] = text
    for path in unreadable:
        levels[path] = "summary" if path in summaries else "path"
    code = _code_blocks(focus, overlay)
    included = [(p, contents[p]) for p in contents]
    # A summary's forms are made of its own lines (and its definitions' names): the
    # summary's verdict is theirs.
    included += [(p, view.summaries[p]) for p, lv in levels.items() if lv == "summary"]
    included += [(c.path, c.text) for c in code]
    before = {p: (s[0], s[1], s[2], s[3]) for p, s in view.discovery.sniffed.items()}
    facts = text_facts(contents, before, stamps, cache)
    digests = {p: f.digest for p, f in facts.items()}
    screen = screen_prompt_texts(included, cache_path=cache, digests=digests)
    for path in screen.withheld:
        levels[path] = "path"
    held = set(screen.withheld)
    withheld = _in_files(
        root, tuple(f for f in screen.findings if f.path in held), view.summaries, contents
    )
    code = [c for c in code if c.path not in held]
    levels.update({c.key: "full" for c in code})
    details = [p for p in detailed if levels.get(p) == "summary"]
    levels.update({detail_key(p): "full" for p in details})
    order = (
        keeping_order([p for p in focus.order if p in levels], code, details)
        if focus is not None
        else list(view.paths)
    )
    blocks: Blocks = Blocks(summaries)
    blocks.update({(p, "full"): t for p, t in contents.items()})
    blocks.update({(c.key, "full"): c.text for c in code})
    blocks.update({(detail_key(p), "full"): detailed[p] for p in details})
    head = system + "\n\n" if state.full_next else ""
    tree = build_tree(view.paths, annotations=view.notes)
    always_open = frozenset(folders_holding([*state.files, *state.focus]))

    def render(current: Any, left_out: Any) -> RenderedUser:
        part = UserPart(
            paths=view.paths,
            notes=view.notes,
            levels=current,
            contents=contents,
            summaries=summaries,
            left_out=left_out,
            withheld=withheld,
            fences={p: f.fence for p, f in facts.items()},
            digests=digests,
            tree=tree,
            folded=focus is not None,
            open_folders=always_open,
            order=order,
            code=code,
            detailed=detailed,
        )
        return render_user_keyed(state, part, root, lead=head)

    fitted = fit_files(
        render,
        levels,
        order,
        blocks,
        state.max_tokens,
        counter,
        report=report,
        growth=TreeGrowth(
            tree if focus is not None and len(view.paths) > FOLD_OVER else None,
            counter,
            always_open,
            section_headings(state.lang, root),
        ),
        credits={detail_key(p): summaries[p] for p in details},
        shown_chars=sum(len(contents.get(p) or view.summaries.get(p, "")) for p in levels),
    )
    in_full = tuple(p for p, level in fitted.levels.items() if level == "full" and is_file_key(p))
    # Every file in context is known to the chat: those cut by the budget (or withheld)
    # with no text, so a follow-up does not send them unless they are asked for.
    sends = {p: "" for p in state.files}
    sends.update({p: digests[p] for p in in_full if p in digests})
    if remember:
        remember_texts(default_cache_path(root), {digests[p]: contents[p] for p in in_full})
    return _finish(
        state,
        root,
        system=system,
        text=fitted.text,
        user_start=len(head),
        tokens=fitted.tokens,
        left_out=tuple((p, lv) for p, lv in fitted.left_out if is_file_key(p)),
        withheld=withheld,
        split=split,
        shown_in_full=in_full,
        sends=tuple(sends.items()),
        shown=_shown(fitted.levels, blocks, detailed),
        fitted=fitted,
        summarised=tuple(p for p in order if fitted.levels.get(p) == "summary"),
        relevant_code=tuple(c for c in code if fitted.levels.get(c.key) == "full"),
    )


class Blocks(Mapping[tuple[str, Level], str]):
    """Each file's text at each level it may be shown at: the texts stored, and every
    file's summary (from ``summaries``, made when first asked for)."""

    def __init__(self, summaries: Mapping[str, str]) -> None:
        self.stored: dict[tuple[str, Level], str] = {}
        self.summaries = summaries

    def update(self, texts: Mapping[tuple[str, Level], str]) -> None:
        """Store ``texts``."""
        self.stored.update(texts)

    def __getitem__(self, key: tuple[str, Level]) -> str:
        stored = self.stored.get(key)
        if stored is not None:
            return stored
        path, level = key
        if level == "summary" and path in self.summaries:
            return self.summaries[path]
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if key in self.stored:
            return True
        return isinstance(key, tuple) and key[1] == "summary" and key[0] in self.summaries

    def __iter__(self) -> Iterator[tuple[str, Level]]:
        yield from self.stored
        yield from ((p, "summary") for p in self.summaries if (p, "summary") not in self.stored)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _led_summaries(view: RepoView, focus: TaskFocus | None) -> Mapping[str, str]:
    """Each file's summary as a budgeted prompt shows it by default
    (:class:`~agentprompt.bridge._ranked.SummaryForms`); the view's own without a budget."""
    if focus is None:
        return view.summaries
    return SummaryForms(view.summaries, focus)


def _detailed_summaries(
    view: RepoView, focus: TaskFocus | None, state: BridgeState
) -> dict[str, str]:
    """The detailed summaries a budgeted prompt may show instead of the brief ones: of
    the best-ranked files in browse mode, of the files in context in edit mode (their
    summary is what a file cut down keeps)."""
    if focus is None:
        return {}
    if state.mode == "browse":
        chosen = [p for p in focus.order if p in view.summaries][:DETAILED_FILES]
    else:
        chosen = [p for p in state.files if p in view.summaries]
    return {p: led_summary(view.summaries[p], focus.relevant(p)) for p in chosen}


def _shown(
    levels: Mapping[str, Level],
    blocks: Mapping[tuple[str, Level], str],
    detailed: Mapping[str, str],
) -> tuple[tuple[str, Piece], ...]:
    """Each file's text as the prompt shows it (its detailed summary where that was
    chosen), and each relevant definition's, for the size report."""
    shown: list[tuple[str, Piece]] = []
    for key, level in levels.items():
        if key.startswith("\0detail:") or (key, level) not in blocks:
            continue
        text = blocks[(key, level)]
        if level == "summary" and levels.get(detail_key(key)) == "full":
            text = detailed[key]
        shown.append((key_path(key), text))
    return tuple(shown)


def _code_blocks(focus: TaskFocus | None, overlay: Overlay | None) -> list[CodeBlock]:
    """The relevant definitions a budgeted prompt may show in full (none of a file a dry
    run's overlay changes: their lines are the disk's)."""
    if focus is None:
        return []
    return [c for c in focus.code if c.path not in (overlay or {})]


def _whole_prompt(
    root: Path,
    state: BridgeState,
    view: RepoView,
    *,
    system: str,
    cache: Path,
    split: bool,
    remember: bool,
) -> BridgePrompt:
    """The first prompt of an edit session without a budget: every file in context in
    full, each file's text looked at a batch at a time (:mod:`agentprompt.bridge._survey`)
    and read again only when the prompt is written (:mod:`agentprompt.bridge._streamed`),
    so a whole repository's texts are never all held at once."""
    levels = _initial_levels(state, view)
    discovered = {p: (s[0], s[1], s[2], s[3]) for p, s in view.discovery.sniffed.items()}
    # The tokenizer's tables (tens of megabytes) are loaded when first needed, after the
    # secret rules' prefilter, if any text needs it, was built (its building takes as much
    # again for a moment).
    survey = survey_files(
        root, list(levels), discovered, cache, partial(shared_counter, store=cache)
    )
    counter = shared_counter(store=cache)
    for path in survey.unreadable:
        levels[path] = "summary" if path in view.summaries else "path"
    summarised = [(p, view.summaries[p]) for p, lv in levels.items() if lv == "summary"]
    found = [f for p in survey.facts for f in survey.findings[p]]
    found += screen_prompt_texts(summarised, cache_path=cache).findings
    held = {f.path for f in found}
    for path in held:
        levels[path] = "path"
    withheld = _in_files(root, tuple(found), view.summaries, survey.facts)
    part = UserPart(
        paths=view.paths,
        notes=view.notes,
        levels=levels,
        contents={},
        summaries=view.summaries,
        withheld=withheld,
    )
    wholes = {p: survey.whole(p) for p in survey.facts if p not in held}
    head = system + "\n\n"
    rendered = render_edit_pieces(state, part, wholes, root, lead=head)
    in_full = tuple(p for p, level in levels.items() if level == "full")
    sends = {p: "" for p in state.files}
    sends.update({p: survey.facts[p].digest for p in in_full})
    if remember:
        _remember_whole(root, survey, in_full)
    shown = tuple(
        (p, survey.bodies[p] if level == "full" else view.summaries[p])
        for p, level in levels.items()
        if level == "full" or (level == "summary" and p in view.summaries)
    )
    return _finish(
        state,
        root,
        system=system,
        text=PromptText(rendered.pieces()),
        user_start=len(head),
        tokens=_count_whole(rendered, survey, counter),
        withheld=withheld,
        split=split,
        shown_in_full=in_full,
        sends=tuple(sends.items()),
        shown=shown,
    )


def _remember_whole(root: Path, survey: Survey, in_full: Sequence[str]) -> None:
    """Keep the texts of ``in_full`` for later diffs, a batch at a time."""
    where = default_cache_path(root)
    kept = {p: b for p in in_full if isinstance(b := survey.bodies[p], str)}
    remember_texts(where, {survey.facts[p].digest: t for p, t in kept.items()})
    read = [b for p in in_full if isinstance(b := survey.bodies[p], FileBody)]
    for texts in read_batches(read):
        remember_texts(where, {survey.facts[p].digest: t for p, t in texts.items()})


def _read_piece(piece: Piece) -> str:
    """A piece's text (a file's read from disk)."""
    if isinstance(piece, str):
        return piece
    return next(read_batches([piece]))[piece.path]


def _count_whole(rendered: EditPieces, survey: Survey, counter: CountCache) -> int:
    """The exact token count of ``rendered``, as :meth:`CountCache.count_keyed` counts
    the joined text with a keyed span per file block: the text before the first block and
    after the last cut at headings, each block by its remembered (or surveyed) count; the
    last block, not joined to a next one, counted on its own, or with what follows when
    its end is not a piece boundary. Only that last file may be read again."""
    blocks = rendered.blocks
    if not blocks:
        return counter.count_keyed(rendered.head + rendered.tail)
    total = counter.count_keyed(rendered.head + "\n")
    total += sum(survey.counts[b.path] for b in blocks[:-1])
    last = blocks[-1]
    tail = rendered.tail
    if not is_piece_boundary("\n" + tail, 1):
        text = last.counted_text(_read_piece(last.body), joined=False) + tail
        return total + counter.count_keyed(text)
    key = last.key(survey.facts[last.path].digest, joined=False)
    remembered = counter.remembered_each_keyed([key]).get(key)
    if remembered is None:
        text = last.counted_text(_read_piece(last.body), joined=False)
        remembered = counter.count_each_keyed([(key, text)])[0]
    return total + remembered + (counter.count_keyed(tail) if tail else 0)


def pack_repository(
    root: Path,
    task: str,
    *,
    signatures: bool = False,
    lang: str = "en",
    cache_path: Path | None = None,
    include_generated: bool = False,
) -> BridgePrompt:
    """The whole repository in one first-round prompt, with exact token count and secret
    scanning: every file in full (edit mode), or with ``signatures`` every code file's
    summary (browse mode); generated and minified files only with ``include_generated``.
    No session is involved."""
    view = view_repository(
        root,
        cache_path=cache_path,
        include_generated=include_generated,
        whole=None if signatures else lambda _bare: True,
    )
    mode: Literal["browse", "edit"] = "browse" if signatures else "edit"
    state = BridgeState(
        task=task,
        lang=lang,
        mode=mode,
        files=() if signatures else view.paths,
        include_generated=include_generated,
    )
    return build_prompt(root, state, view=view, split=False, secret_cache=cache_path)


def _finish(
    state: BridgeState,
    root: Path,
    *,
    system: str,
    text: str | PromptText,
    tokens: int | None,
    user_start: int = 0,
    continuation: bool = False,
    left_out: tuple[tuple[str, Level], ...] = (),
    withheld: tuple[SecretFinding, ...] = (),
    split: bool = True,
    shown_in_full: tuple[str, ...] = (),
    sends: tuple[tuple[str, str], ...] = (),
    followup: bool = False,
    shown: tuple[tuple[str, Piece], ...] = (),
    summarised: tuple[str, ...] = (),
    relevant_code: tuple[CodeBlock, ...] = (),
    fitted: Fitted | None = None,
) -> BridgePrompt:
    counter = shared_counter()
    limit = split_limit(state) if split else None
    whole: str | None = None
    plan: SplitPlan | None = None
    if isinstance(text, PromptText) and tokens is not None and (not limit or limit.measure is len):
        body = text  # read only when written (and, to plan its split, once before)
        if limit:
            plan = plan_chunks_split(body.chunks(), body.chars, limit, state.lang, root)
    else:
        # Joined (a token limit measures parts as texts), the prompt is kept as that one
        # string, not read again.
        whole = text if isinstance(text, str) else text.join()
        body = PromptText((whole,))
        plan = plan_split(whole, limit, state.lang, root) if whole and limit else None
    return BridgePrompt(
        system=system,
        body=body,
        user_start=user_start,
        tokens=tokens if tokens is not None else counter.count(whole or ""),
        tokenizer=counter.name,
        mode=state.mode,
        lang=state.lang,
        left_out=left_out,
        withheld=withheld,
        continuation=continuation,
        split=plan,
        shown_in_full=shown_in_full,
        summarised=summarised,
        relevant_code=relevant_code,
        sends=sends,
        followup=followup,
        shown=shown,
        fitted=fitted,
        states_task=not continuation and (not followup or state.restates_task),
    )
