"""The file-selection loop around :func:`~agentprompt.repo.selection.ask_llm_for_files`.

Each round shows the model the directory tree, the active constraints and (after the first)
the current context: the files loaded so far and the requests that could not be served,
each with its reason. The constraints are enforced here as well as stated in the prompt: a
requested file must exist among the discovered files, lie within the directory constraint,
match the filter, not match the exclude pattern, fit the file limit and the token budget,
and hold no likely secret (unless secrets are allowed). The loop ends when the model says it
is done, asks for nothing, or a limit (rounds, files, tokens) is reached.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.llm.base import PromptExecutor
from agentprompt.prompts.loader import InvalidPromptFile, PromptLibrary
from agentprompt.repo.discovery import (
    Discovery,
    DiscoveryOptions,
    Exclusion,
    UnreadableFile,
    discover,
    explain_in,
    read_text,
)
from agentprompt.repo.map import build_tree, render_tree
from agentprompt.repo.rank import rank_repository
from agentprompt.repo.secrets import SecretFinding, scan_text
from agentprompt.repo.selection._prompt import (
    SelectionOptions,
    ask_llm_for_files,
    build_constraints_section,
    build_initial_prompt,
)
from agentprompt.tokens import Tokenizer, shared_counter

__all__ = [
    "FileSelection",
    "Rejection",
    "SelectedFile",
    "first_selection_prompt",
    "select_files",
]


@dataclass(frozen=True, kw_only=True)
class SelectedFile:
    """A file loaded into the context."""

    path: str
    """Its path relative to the root."""
    tokens: int
    """Tokens of its block in the context."""
    round: int
    """The round that loaded it; 0 for a forced include."""
    forced: bool
    """True when it was force-included rather than chosen by the model."""


@dataclass(frozen=True, kw_only=True)
class Rejection:
    """A requested file that was not loaded, and why (the model is told in the next round)."""

    path: str
    """The path as requested."""
    reason: str
    """Why it was not loaded."""
    round: int
    """The round that asked for it; 0 for a forced include."""


@dataclass(frozen=True, kw_only=True)
class FileSelection:
    """What a file selection chose, refused and why it stopped."""

    selected: tuple[SelectedFile, ...]
    """The files loaded, in loading order."""
    rejected: tuple[Rejection, ...]
    """The requests not served, in order."""
    secrets: tuple[SecretFinding, ...]
    """Likely secrets found in files headed into the context (kind and line only)."""
    rounds: int
    """How many times the model was asked."""
    done: bool
    """True when the model said it needed nothing more."""
    reason: str
    """The model's last stated reason."""
    stopped: str
    """Why the loop ended: ``done``, ``no more files requested``, ``round limit``,
    ``file limit``, ``token budget`` or ``model error``."""
    context: str
    """The final current context: the loaded files and the notes on refused requests."""
    tokens: int
    """Tokens of the loaded files' blocks."""
    error: str | None = None
    """Why the model could not be asked again (``stopped`` is then ``model error``); what
    was selected before is kept."""


def _compile(pattern: str | None, what: str) -> re.Pattern[str] | None:
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise UsageError(
            f"the {what} pattern {pattern!r} is not a valid regular expression ({exc}); "
            "give a Python regular expression such as '\\.py$'"
        ) from None


_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def _refusal_lines(prompts: PromptLibrary) -> dict[str, str]:
    """The ``key: text`` lines of ``repo/file_select_refusals``."""
    lines: dict[str, str] = {}
    for line in prompts.load("repo/file_select_refusals").body.splitlines():
        key, sep, text = line.partition(":")
        if sep and key.strip():
            lines[key.strip()] = text.strip()
    return lines


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


@dataclass
class _State:
    """The loop's running state (private; the result is the frozen :class:`FileSelection`)."""

    discovery: Discovery
    options: SelectionOptions
    counter: Tokenizer
    prompts: PromptLibrary
    directory: str
    filter: re.Pattern[str] | None
    exclude: re.Pattern[str] | None
    listed: frozenset[str]
    blocks: list[str] = field(default_factory=list)
    selected: list[SelectedFile] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    secrets: list[SecretFinding] = field(default_factory=list)
    tokens: int = 0
    refusals: dict[str, str] | None = None

    def context(self) -> str:
        """The current context: the loaded files' blocks, then the refused requests."""
        parts = list(self.blocks)
        if self.rejected:
            refused = "\n".join(f"- {r.path}: {r.reason}" for r in self.rejected)
            parts.append(self.prompts.render("repo/file_select_refused", refused=refused))
        return "\n\n".join(parts)

    def say(self, key: str, **values: object) -> str:
        """The refusal reason ``key`` of ``repo/file_select_refusals``, filled in."""
        if self.refusals is None:
            self.refusals = _refusal_lines(self.prompts)
        line = self.refusals.get(key)
        if line is None:
            raise InvalidPromptFile(
                self.prompts.load("repo/file_select_refusals").path,
                f"it has no line for {key!r}; restore that line (`key: text`) in the override",
            )
        return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), line)

    def full(self) -> bool:
        """True when the file limit is reached."""
        limit = self.options.max_files
        return limit is not None and len(self.selected) >= limit

    def _missing(self, path: str) -> str:
        full = self.discovery.root / path
        if full.is_dir():
            return self.say("directory")
        if full.exists() or full.is_symlink():
            why = explain_in(self.discovery, path)
            if isinstance(why, Exclusion):
                return self.say("left_out", why=why.reason)
        name = posixpath.basename(path)
        alike = [p for p in self.listed if posixpath.basename(p) == name]
        if len(alike) == 1:
            return self.say("did_you_mean", suggestion=alike[0])
        return self.say("missing")

    def constraint_broken(self, path: str) -> str | None:
        """Which of the directory, filter and exclude constraints ``path`` breaks, if any.

        The filter and exclude patterns are searched in the file's name (its last path
        component), as the constraints section tells the model.
        """
        if self.directory and not path.startswith(self.directory + "/"):
            return self.say("outside_dir", dir=self.directory)
        name = posixpath.basename(path)
        if self.filter is not None and not self.filter.search(name):
            return self.say("no_filter_match", pattern=self.filter.pattern)
        if self.exclude is not None and self.exclude.search(name):
            return self.say("exclude_match", pattern=self.exclude.pattern)
        return None

    def _refusal(self, path: str, forced: bool) -> str | None:
        if path.startswith("../") or path == ".." or path.startswith("/"):
            return self.say("outside_root")
        if any(s.path == path for s in self.selected):
            return self.say("already_loaded")
        if path not in self.listed:
            return self._missing(path)
        if not forced:
            broken = self.constraint_broken(path)
            if broken is not None:
                return broken
        if self.full():
            return self.say("file_limit", limit=self.options.max_files)
        return None

    def offer(self, requested: str, round_no: int, *, forced: bool = False) -> None:
        """Load ``requested`` into the context, or record why it was not loaded."""
        path = _normal(self.discovery.root, requested)
        refusal = self._refusal(path, forced)
        if refusal is None:
            refusal = self._load(path, round_no, forced)
        if refusal is not None:
            self.rejected.append(Rejection(path=requested, reason=refusal, round=round_no))

    def _load(self, path: str, round_no: int, forced: bool) -> str | None:
        try:
            text = read_text(self.discovery.root, path)
        except UnreadableFile as exc:
            return self.say("unreadable", why=exc.why)
        found = scan_text(path, text)
        self.secrets.extend(found)
        if found and not self.options.allow_secrets:
            where = ", ".join(f"line {f.line}: {f.kind}" for f in found)
            return self.say("secret", where=where)
        block = self.prompts.render(
            "repo/file_select_context_file",
            path=path,
            fence=_fence(text),
            content=text.removesuffix("\n"),
        )
        cost = self.counter.count(block)
        left = self.options.token_budget - self.tokens
        if cost > left:
            return self.say("over_budget", needed=cost, left=max(left, 0))
        self.blocks.append(block)
        self.tokens += cost
        self.selected.append(SelectedFile(path=path, tokens=cost, round=round_no, forced=forced))
        return None


def _normal(root: Path, requested: str) -> str:
    """A requested path as a POSIX path relative to the root (an absolute path inside the
    root made relative; one outside it is kept absolute, and refused)."""
    path = posixpath.normpath(requested.strip().replace("\\", "/"))
    if path.startswith("/"):
        for base in (str(root), os.path.realpath(root)):
            if path == base:
                return "."
            if path.startswith(base.rstrip("/") + "/"):
                return path[len(base.rstrip("/")) + 1 :]
        return path
    return path.removeprefix("./")


def _directory(root: Path, directory: str) -> str:
    normal = posixpath.normpath(directory.replace("\\", "/")).strip("/")
    if normal in ("", "."):
        return ""
    if normal.startswith("..") or not (root / normal).is_dir():
        raise UsageError(
            f"the directory constraint {directory!r} is not a folder inside {root}; "
            "give a folder path relative to the repository root"
        )
    return normal


def _tree_for(
    found: Discovery,
    user_request: str,
    choosable: list[str],
    options: SelectionOptions,
    prompts: PromptLibrary,
) -> str:
    """The directory tree the model is shown: every file it may choose, or, past
    ``options.tree_files`` of them, the most relevant to ``user_request`` with a note."""
    if len(choosable) <= options.tree_files or not user_request.strip():
        return render_tree(build_tree(choosable))
    ranking = rank_repository(found.root, user_request, discovery=found).ranking
    allowed = set(choosable)
    ranked = [p for p in ranking.order() if p in allowed]
    ranked += sorted(allowed.difference(ranked))
    shown = ranked[: options.tree_files]
    note = prompts.render(
        "repo/file_select_tree_cut", shown=len(shown), hidden=len(choosable) - len(shown)
    )
    return render_tree(build_tree(shown)).rstrip("\n") + "\n" + note


def _start(
    user_request: str,
    root: Path,
    options: SelectionOptions,
    discovery: Discovery | None,
    discovery_options: DiscoveryOptions | None,
    counter: Tokenizer | None,
    prompts: PromptLibrary | None,
) -> tuple[_State, str, str]:
    """The loop's state with the forced includes loaded, the tree the model is shown and
    the constraints section."""
    found = discovery or discover(root, discovery_options)
    if options.max_rounds < 1 or options.token_budget < 1:
        raise UsageError("max_rounds and token_budget must be at least 1")
    if options.max_files is not None and options.max_files < 1:
        raise UsageError("max_files must be at least 1 when given")
    state = _State(
        discovery=found,
        options=options,
        counter=counter or shared_counter(options.model),
        prompts=prompts or PromptLibrary(found.root),
        directory=_directory(found.root, options.dir),
        filter=_compile(options.filter, "filter"),
        exclude=_compile(options.exclude, "exclude"),
        listed=frozenset(f.path for f in found.files),
    )
    for path in options.include:
        state.offer(path, 0, forced=True)
    # The model is shown only the files it may choose, and in a large repository only the
    # most relevant of them: the tree stays small, and the constraints section still
    # states the rules.
    choosable = [f.path for f in found.files if state.constraint_broken(f.path) is None]
    tree = _tree_for(found, user_request, choosable, options, state.prompts)
    loaded = tuple(s.path for s in state.selected if s.forced)
    constraints = build_constraints_section(dataclasses.replace(options, include=loaded))
    return state, tree, constraints


def first_selection_prompt(
    user_request: str,
    root: Path,
    options: SelectionOptions | None = None,
    *,
    discovery: Discovery | None = None,
    prompts: PromptLibrary | None = None,
) -> str:
    """The first prompt :func:`select_files` would send for ``user_request``: for a model
    that is asked elsewhere (an MCP client's). Forced includes are loaded (and counted)
    as the loop loads them, but only named in the prompt, as in the loop's first round."""
    options = options or SelectionOptions()
    state, tree, constraints = _start(user_request, root, options, discovery, None, None, prompts)
    return build_initial_prompt(user_request, tree, constraints, prompts=state.prompts)


def select_files(
    llm_agent: PromptExecutor,
    user_request: str,
    root: Path,
    options: SelectionOptions | None = None,
    *,
    discovery: Discovery | None = None,
    discovery_options: DiscoveryOptions | None = None,
    counter: Tokenizer | None = None,
    prompts: PromptLibrary | None = None,
) -> FileSelection:
    """Let the model choose the files needed for ``user_request``, round by round.

    When the model fails (its executor raises an :class:`~agentprompt.errors.AgentPromptError`),
    the loop stops with what was selected so far, ``stopped == "model error"`` and the
    message in ``error``.

    Raises a :class:`~agentprompt.errors.UsageError` for an unusable pattern or directory, and
    :class:`~agentprompt.errors.NotADirectory` for a root that is not a directory.
    """
    options = options or SelectionOptions()
    state, tree, constraints = _start(
        user_request, root, options, discovery, discovery_options, counter, prompts
    )
    rounds, done, reason, stopped = 0, False, "", ""
    error: str | None = None
    while not stopped:
        if rounds >= options.max_rounds:
            stopped = "round limit"
        elif state.full():
            stopped = "file limit"
        elif state.tokens >= options.token_budget:
            stopped = "token budget"
        else:
            rounds += 1
            try:
                choice = ask_llm_for_files(
                    llm_agent,
                    user_request,
                    tree,
                    state.context() or None,
                    constraints,
                    prompts=state.prompts,
                )
            except AgentPromptError as exc:
                # What was selected so far is kept; the caller reports the model's failure.
                rounds -= 1
                stopped, error = "model error", str(exc)
                break
            reason = choice["reason"]
            for path in dict.fromkeys(choice["files"]):
                state.offer(path, rounds)
            if choice["done"]:
                done, stopped = True, "done"
            elif not choice["files"]:
                stopped = "no more files requested"
    return FileSelection(
        selected=tuple(state.selected),
        rejected=tuple(state.rejected),
        secrets=tuple(state.secrets),
        rounds=rounds,
        done=done,
        reason=reason,
        stopped=stopped,
        context=state.context(),
        tokens=state.tokens,
        error=error,
    )
