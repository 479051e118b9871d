"""Rendering a bridge prompt: the system part, and the browse- or edit-mode user part.

Pure functions over the state, the repository view and what the budget kept: the same
inputs give the same bytes, so prompts are snapshot-tested.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentprompt.bridge._ranked import CodeBlock, detail_key, is_file_key, key_path
from agentprompt.bridge._streamed import Piece, PromptText
from agentprompt.bridge.inputs import CommandRun, UserNote
from agentprompt.bridge.state import BridgeState
from agentprompt.bridge.text import render_prompt
from agentprompt.edits.instructions import dialect_instructions
from agentprompt.repo.map import TreeNode, build_tree, fold_tree, folders_holding, render_tree
from agentprompt.repo.secrets import SecretFinding
from agentprompt.repo.symbols import language_for_path

__all__ = [
    "EditPieces",
    "FileBlock",
    "Level",
    "RenderedUser",
    "Segment",
    "UserPart",
    "WholeText",
    "block_key",
    "continuation_prompt",
    "fence_for",
    "file_block",
    "file_segments",
    "render_edit_pieces",
    "render_inputs",
    "render_system",
    "render_user",
    "render_user_keyed",
    "section_headings",
    "segmented",
    "shown_summary",
    "slotted",
    "summary_block",
]

Level = Literal["full", "summary", "path"]
"""How much of a file a prompt shows: its content, its summary, or its path in the tree."""

_SLOT = "\0body\0"
"""Stands for the edit-mode body while its frame is rendered (never in a prompt file)."""


def fence_for(content: str) -> str:
    """A backtick fence longer than any backtick run at a line start in ``content``, so
    the content can never close it (a run of tildes cannot close a backtick fence)."""
    longest = 0
    for start, end in _runs(content, "`"):
        line = content.rfind("\n", 0, start) + 1
        if not content[line:start].strip(" \t"):
            longest = max(longest, end - start)
    return "`" * max(3, longest + 1)


def _runs(content: str, mark: str) -> Iterator[tuple[int, int]]:
    """Where each run of three or more ``mark`` characters starts and ends (found by
    literal search, far faster on a large file than trying every line start)."""
    at = content.find(mark * 3)
    while at >= 0:
        end = at + 3
        while end < len(content) and content[end] == mark:
            end += 1
        yield at, end
        at = content.find(mark * 3, end)


def _frame(content: str, info: str, fence: str) -> tuple[str, str]:
    """What goes before and after ``content`` to fence it (the closing fence on a line of
    its own)."""
    return _fence_lines(not content or content.endswith("\n"), info, fence)


def _fence_lines(ends_line: bool, info: str, fence: str) -> tuple[str, str]:
    """What goes before and after a text to fence it: ``ends_line``, the text is empty or
    ends with a line break, so the closing fence needs none before it."""
    return f"{fence}{info}\n", f"{fence}\n" if ends_line else f"\n{fence}\n"


def _fenced(content: str, info: str = "") -> str:
    opening, close = _frame(content, info, fence_for(content))
    return opening + content + close


def _info(path: str) -> str:
    language = language_for_path(path)
    if language is not None:
        return language
    name = path.rpartition("/")[2]
    dot = name.rfind(".")  # the name's suffix, as PurePosixPath.suffix reads it
    return name[dot + 1 :] if 0 < dot < len(name) - 1 else ""


_SPLIT_HEADINGS = {"ja": "## 分割送信の対応", "en": "## Split prompts"}
"""The heading of the split-sending section, in the system part and in the bridge
dialect's instructions (which hold its long-output half, CONTINUE)."""


def _split_off(formats: str, heading: str) -> tuple[str, str]:
    """The dialect's instructions before its split-sending section, and that section's
    body (empty when a project's own version has no such section)."""
    lines = formats.split("\n")
    if heading not in lines:
        return formats, ""
    at = lines.index(heading)
    return "\n".join(lines[:at]).rstrip("\n"), "\n".join(lines[at + 1 :]).strip("\n")


def render_system(lang: str, root: Path | None = None) -> str:
    """The system part: identity, the two modes, the reply formats, split sending.

    The system part has one split-sending section, the last, holding long input (the part
    headers) and then long output (CONTINUE). The dialect's own instructions must explain
    CONTINUE on their own, so their section is moved into the system part's, not repeated.
    """
    formats = dialect_instructions("bridge", lang, root=root)
    before, long_output = _split_off(formats, _SPLIT_HEADINGS.get(lang, ""))
    return render_prompt("system", lang, root, output_formats=before, long_output=long_output)


def continuation_prompt(state: BridgeState, root: Path | None = None) -> str:
    """The follow-up after a reply ended with CONTINUE (or was cut off): "続けて" /
    "continue", the changes still owed, and the notes on the last reply (edits that failed,
    files that cannot be shown), which the model would otherwise never see."""
    listed = "".join(f"\n- {p}" for p in state.continuation or ())
    head = render_prompt("continue", state.lang, root, remaining=listed) + "\n"
    return head + _notes(state, (), (), root)


@dataclass(frozen=True, kw_only=True)
class UserPart:
    """What goes into one round's user part besides the state."""

    paths: Sequence[str]
    """Every file the prompt may show (the tree)."""
    notes: Mapping[str, str]
    """The note after each file in the tree (``exports: ...``)."""
    levels: Mapping[str, Level]
    """What is shown of each file that is more than a path."""
    contents: Mapping[str, str]
    """The full text of the files shown in full."""
    summaries: Mapping[str, str]
    """The summaries of the files shown as summaries."""
    left_out: Sequence[tuple[str, Level]] = ()
    """Files the budget cut down, with what was kept of them."""
    withheld: Sequence[SecretFinding] = ()
    """Likely secrets that kept a file's text out."""
    fences: Mapping[str, str] = field(default_factory=dict)
    """:func:`fence_for` of contents already known, by path (the others are worked out)."""
    digests: Mapping[str, str] = field(default_factory=dict)
    """Contents' digests (:func:`~agentprompt.bridge._secretcache.text_digest`), by path:
    each such file's block in the prompt is given a key for remembered token counts."""
    tree: TreeNode | None = None
    """The tree of :attr:`paths` with their notes, when already built."""
    folded: bool = False
    """Fold the tree around what is shown: only the folders holding a file shown at more
    than its path (or one of :attr:`open_folders`) are open."""
    open_folders: frozenset[str] = frozenset()
    """Folders a folded tree keeps open whatever is shown."""
    order: Sequence[str] | None = None
    """The files in rank order: summaries follow it (None: path order)."""
    code: Sequence[CodeBlock] = ()
    """Relevant definitions that may be shown in full: each one whose key
    :attr:`levels` gives as ``full`` is, under "Relevant code"."""
    detailed: Mapping[str, str] = field(default_factory=dict)
    """Detailed summaries, by path: shown instead of :attr:`summaries`' when
    :attr:`levels` gives the file's detail key as ``full``."""


@dataclass(frozen=True)
class RenderedUser:
    """A user part, with the spans of it that keys identify (see
    :data:`~agentprompt.tokens.KeyedSpan`) and where each file's block is."""

    text: str
    spans: tuple[tuple[int, int, str], ...] = ()
    blocks: tuple[tuple[int, int, str], ...] = ()
    """``(start, end, path)`` of each file's block, in order: its text (``## path`` to the
    closing fence) or its summary (``### path`` and the fenced summary); empty when a
    project's own prompt files leave no place to find them."""


Segment = tuple[str | None, str]
"""A stretch of a prompt: a file's block (the file's path, then the text), or frame
(None)."""


def segmented(segments: Sequence[Segment]) -> RenderedUser:
    """The prompt ``segments`` join to, with where each file's block landed."""
    blocks: list[tuple[int, int, str]] = []
    at = 0
    for path, text in segments:
        if path is not None:
            blocks.append((at, at + len(text), path))
        at += len(text)
    return RenderedUser(text="".join(t for _, t in segments), blocks=tuple(blocks))


def slotted(
    base: str,
    lang: str,
    root: Path | None,
    name: str,
    inner: Sequence[Segment],
    *,
    after: str = "",
    **values: object,
) -> list[Segment]:
    """``bridge/BASE`` rendered with ``inner`` joined as its value ``name`` (and ``after``
    appended), as segments: the template's text before and after the value as frame, and
    ``inner`` as it is. A project's own prompt file that holds the value other than once
    gives one frame segment."""
    framed = render_prompt(base, lang, root, **{name: _SLOT}, **values)
    if framed.count(_SLOT) == 1:
        before, rest = framed.split(_SLOT)
        return [(None, before), *inner, (None, rest + after)]
    whole = render_prompt(base, lang, root, **{name: "".join(t for _, t in inner)}, **values)
    return [(None, whole + after)]


def summary_block(path: str, summary: str) -> str:
    """A file's block among the summaries (the last block loses its final line breaks)."""
    return f"\n### {path}\n{_fenced(summary)}"


def file_segments(blocks: Sequence[tuple[str, str]]) -> list[Segment]:
    """``### path`` blocks ``(path, block)`` joined as one section's files: the last
    without its final line breaks."""
    out: list[Segment] = [(p, b) for p, b in blocks]
    if out:
        path, last = out[-1]
        out[-1] = (path, last.rstrip("\n"))
    return out


def _section(base: str, lang: str, root: Path | None, **values: object) -> str:
    return render_prompt(base, lang, root, **values) + "\n"


def _notes(
    state: BridgeState,
    left_out: Sequence[tuple[str, Level]],
    withheld: Sequence[SecretFinding],
    root: Path | None,
) -> str:
    lang = state.lang
    out = ""
    files = [(p, level) for p, level in left_out if is_file_key(p)]
    if files:
        listed = files[:LEFT_OUT_LISTED]
        lines = "".join(f"- {p} ({level})\n" for p, level in listed).rstrip("\n")
        if len(files) > len(listed):
            more = render_prompt("left_out_more", lang, root, count=len(files) - len(listed))
            lines += "\n" + more
        out += _section("left_out", lang, root, paths=lines)
    if withheld:
        lines = "\n".join(f"- {f.describe()}" for f in withheld)
        out += _section("withheld", lang, root, paths=lines)
    if state.missing:
        lines = "\n".join(f"- {p}: {reason}" for p, reason in state.missing)
        out += _section("missing", lang, root, paths=lines)
    if state.feedback:
        out += _section("feedback", lang, root, feedback=state.feedback.rstrip("\n"))
    return out + render_inputs(state.notes, state.runs, lang, root)


FOLD_OVER = 40
"""A tree of at most this many files is never folded: it takes fewer tokens whole than
the note on folded folders does."""

LEFT_OUT_LISTED = 12
"""At most this many files are named in the note on the files the budget cut (the best
ranked first); a last line says how many more."""


def section_headings(lang: str, root: Path | None) -> dict[str, str]:
    """What a section adds before its first block, by what the block shows: a summary
    (the summaries), a code block (the relevant code)."""
    return {
        "summary": render_prompt("summaries", lang, root, files=""),
        "code": render_prompt("relevant_code", lang, root, blocks=""),
    }


def tree_text(part: UserPart) -> str:
    """The file structure as the prompt shows it: the whole tree, or folded around the
    files (and code) shown at more than their path."""
    tree = part.tree or build_tree(part.paths, annotations=part.notes)
    if part.folded and len(part.paths) > FOLD_OVER:
        shown = [key_path(k) for k, level in part.levels.items() if level != "path"]
        tree = fold_tree(tree, folders_holding(shown) | part.open_folders, set(shown))
    return render_tree(tree)


def _folded_note(part: UserPart, tree: str, lang: str, root: Path | None) -> str:
    """How to see what a folded folder holds, when the tree folded one."""
    folded = part.folded and "(folded: " in tree
    return render_prompt("folded", lang, root) + "\n" if folded else ""


def _code(part: UserPart, lang: str, root: Path | None) -> list[Segment]:
    """The "Relevant code" section: each code block :attr:`UserPart.levels` shows, a
    ``### path (lines A-B: name)`` heading and its fenced text (no section when none is)."""
    shown = [c for c in part.code if part.levels.get(c.key) == "full"]
    if not shown:
        return []
    blocks = file_segments(
        [
            (
                c.key,
                f"\n### {c.path} (lines {c.start}-{c.end}: {c.name})\n"
                + _fenced(c.text, _info(c.path)),
            )
            for c in shown
        ]
    )
    return slotted("relevant_code", lang, root, "blocks", blocks, after="\n")


def shown_summary(part: UserPart, path: str) -> str:
    """The summary ``part`` shows of ``path``: its detailed one when chosen."""
    if path in part.detailed and part.levels.get(detail_key(path)) == "full":
        return part.detailed[path]
    return part.summaries[path]


def _summaries(part: UserPart, paths: Sequence[str], lang: str, root: Path | None) -> list[Segment]:
    """The summaries section of ``paths``, each file's summary a block of its own (no
    section when there is none)."""
    if not paths:
        return []
    blocks = file_segments([(p, summary_block(p, shown_summary(part, p))) for p in paths])
    return slotted("summaries", lang, root, "files", blocks, after="\n")


def render_user(
    state: BridgeState, part: UserPart, root: Path | None = None, *, lead: str = ""
) -> str:
    """The user part of the round: the browse-mode or edit-mode prompt, after
    ``lead`` (the system part on the first round: a prompt of hundreds of megabytes is
    then built in one piece instead of being copied again to put the two together)."""
    return render_user_keyed(state, part, root, lead=lead).text


def block_key(path: str, info: str, fence: str, digest: str, joined: bool) -> str:
    """The key of a file's block from ``## path`` to its closing fence (and, ``joined``,
    the line break that starts the next block): all that decides its text."""
    described = "\0".join(("block1", path, info, fence, digest, "+" if joined else ""))
    return hashlib.blake2b(described.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


@dataclass(frozen=True, kw_only=True)
class WholeText:
    """A file shown in full, as much of it as the edit-mode prompt's frame needs."""

    body: Piece
    """The text, or the file to read it from when the prompt is written."""
    fence: str
    """:func:`fence_for` of the text."""
    ends_line: bool
    """The text is empty or ends with a line break."""


@dataclass(frozen=True, kw_only=True)
class FileBlock:
    """One file's ``## path`` block in an edit-mode prompt: ``lead``, ``body``, ``close``."""

    path: str
    info: str
    """The fence's info string (the language)."""
    fence: str
    lead: str
    """The line break ending what comes before, ``## path`` and the opening fence."""
    body: Piece
    close: str
    """The closing fence (after a line break when the text does not end with one)."""

    def key(self, digest: str, *, joined: bool) -> str:
        """The block's count key (:func:`block_key`), its text's digest ``digest``."""
        return block_key(self.path, self.info, self.fence, digest, joined)

    def counted_text(self, text: str, *, joined: bool) -> str:
        """What :meth:`key` identifies, the block's text being ``text``: from ``## path``
        to the closing fence, and, ``joined``, the line break that starts the next block."""
        return self.lead[1:] + text + self.close + ("\n" if joined else "")


@dataclass(frozen=True, kw_only=True)
class EditPieces:
    """An edit-mode first prompt: ``head``, each file's block, then ``tail``."""

    head: str
    blocks: tuple[FileBlock, ...]
    tail: str
    summarised: tuple[tuple[int, int, str], ...] = ()
    """``(start, end, path)`` of each summary's block in ``tail``."""

    def pieces(self) -> tuple[Piece, ...]:
        """The prompt's pieces in order (a file's text is a piece of its own)."""
        inner = (piece for b in self.blocks for piece in (b.lead, b.body, b.close))
        return (self.head, *inner, self.tail)


def file_block(path: str, whole: WholeText) -> FileBlock:
    """Edit mode's ``## path`` block of a file shown in full."""
    info = _info(path)
    opening, close = _fence_lines(whole.ends_line, info, whole.fence)
    return FileBlock(
        path=path,
        info=info,
        fence=whole.fence,
        lead=f"\n## {path}\n{opening}",
        body=whole.body,
        close=close,
    )


def _blocks(full: Sequence[str], wholes: Mapping[str, WholeText]) -> tuple[FileBlock, ...]:
    """Edit mode's ``## path`` blocks of the files ``full``, in order."""
    return tuple(file_block(path, wholes[path]) for path in full)


def render_edit_pieces(
    state: BridgeState,
    part: UserPart,
    wholes: Mapping[str, WholeText],
    root: Path | None = None,
    *,
    lead: str = "",
) -> EditPieces:
    """The edit-mode user part after ``lead``, with the files shown in full (``wholes``,
    by path; ``part.contents`` is not looked at) left as pieces of their own, so a prompt
    of hundreds of megabytes is never copied whole (nor, with :class:`FileBody` pieces,
    read whole)."""
    lang = state.lang
    tree = tree_text(part)
    summarised = [p for p in part.paths if part.levels.get(p) == "summary" and p in part.summaries]
    full = [p for p in state.files if part.levels.get(p) == "full" and p in wholes]
    shown = set(summarised)
    summaries = segmented(_summaries(part, [p for p in state.files if p in shown], lang, root))
    rest = "".join(
        [
            summaries.text,
            _section("structure", lang, root, tree=tree.rstrip("\n")) if tree else "",
            _folded_note(part, tree, lang, root),
            _notes(state, part.left_out, part.withheld, root),
        ]
    )
    blocks = _blocks(full, wholes)
    frame = render_prompt("edit", lang, root, task=state.task, body=_SLOT)
    if frame.count(_SLOT) != 1:
        body = PromptText(EditPieces(head="", blocks=blocks, tail=rest).pieces()).join()
        text = render_prompt("edit", lang, root, task=state.task, body=body)
        return EditPieces(head=lead + text + "\n", blocks=(), tail="")
    before, after = frame.split(_SLOT)
    return EditPieces(
        head=lead + before, blocks=blocks, tail=rest + after + "\n", summarised=summaries.blocks
    )


def render_user_keyed(
    state: BridgeState, part: UserPart, root: Path | None = None, *, lead: str = ""
) -> RenderedUser:
    """:func:`render_user`, with the spans of each file block whose digest is known."""
    if state.mode == "browse":
        tree = tree_text(part)
        summarised = [
            p
            for p in (part.order or part.paths)
            if part.levels.get(p) == "summary" and p in part.summaries
        ]
        body = [
            (None, _folded_note(part, tree, state.lang, root)),
            *_code(part, state.lang, root),
            *_summaries(part, summarised, state.lang, root),
            (None, _notes(state, part.left_out, part.withheld, root)),
        ]
        browse = slotted(
            "browse", state.lang, root, "body", body, after="\n", task=state.task, tree=tree
        )
        return segmented([(None, lead), *browse])
    wholes = {
        path: WholeText(
            body=content,
            fence=part.fences.get(path) or fence_for(content),
            ends_line=not content or content.endswith("\n"),
        )
        for path, content in part.contents.items()
    }
    rendered = render_edit_pieces(state, part, wholes, root, lead=lead)
    spans: list[tuple[int, int, str]] = []
    blocks: list[tuple[int, int, str]] = []
    at = len(rendered.head)
    for number, block in enumerate(rendered.blocks):
        content = part.contents[block.path]
        size = len(block.lead) + len(content) + len(block.close)
        joined = number + 1 < len(rendered.blocks)
        end = at + size + (1 if joined else 0)
        blocks.append((at + 1, end, block.path))
        digest = part.digests.get(block.path)
        if digest is not None:
            spans.append((at + 1, end, block.key(digest, joined=joined)))
        at += size
    blocks += [(at + start, at + end, path) for start, end, path in rendered.summarised]
    # The body can be hundreds of megabytes: it is joined once, with the frame around it.
    return RenderedUser(
        text=PromptText(rendered.pieces()).join(), spans=tuple(spans), blocks=tuple(blocks)
    )


def _one_line(command: str) -> str:
    """``command`` as one line of a heading's code span: line breaks written ``\\n``,
    and backticks inside made harmless (the span then opens and closes with two)."""
    line = command.replace("\r", "\\r").replace("\n", "\\n")
    return f"` {line} `" if "`" in line else line


def render_inputs(
    notes: Sequence[UserNote], runs: Sequence[CommandRun], lang: str, root: Path | None = None
) -> str:
    """The prompt's sections for the user's input: each command's output, then the notes
    (last, nearest the model's answer); empty when there is none."""
    out = ""
    for run in runs:
        if run.status is None:
            status = render_prompt("run_killed", lang, root, seconds=f"{run.timeout:g}")
        else:
            status = render_prompt("run_exit", lang, root, code=run.status)
        body = run.output if not run.output or run.output.endswith("\n") else run.output + "\n"
        fence = fence_for(body)
        fenced = f"{fence}\n{body}{fence}"
        command = _one_line(run.command)
        out += render_prompt("run", lang, root, command=command, status=status, output=fenced)
        out += "\n"
    if notes:
        joined = "\n\n".join(n.text for n in notes)
        out += render_prompt("note", lang, root, note=joined) + "\n"
    return out
