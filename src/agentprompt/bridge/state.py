"""A bridge session's state and where it is kept: the project's state database.

The state is a frozen value; a round makes a new one, and only the CLI's ``apply`` saves it.
Reading the current prompt (``pack``) never changes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from agentprompt.bridge.inputs import CommandRun, UserNote
from agentprompt.errors import UsageError, literal
from agentprompt.store import Store, StoreError, default_store_path

__all__ = [
    "DEFAULT_RESTATE_TOKENS",
    "KIND",
    "BridgeState",
    "NoBridgeSession",
    "clear_session",
    "find_session",
    "held_session",
    "load_session",
    "save_state",
    "start_session",
]

KIND = "bridge"
"""The store's session kind for bridge sessions."""

Mode = Literal["browse", "edit"]

DEFAULT_RESTATE_TOKENS = 12_000
"""A follow-up states the task again once the chat has read this many tokens since it was
last stated. The smallest window a web chat keeps is about 16K tokens (ChatGPT's free
plan): a task stated more than 12K tokens ago may be pushed out of it by the next prompt
and reply. Restating costs a few hundred tokens, so a few percent of what is sent."""


class NoBridgeSession(UsageError):
    """A command needs a bridge session and there is none for the root."""

    def __init__(self, root: Path) -> None:
        super().__init__(
            f"no bridge session in {literal(str(root))}", fix="start one with: {start_session}"
        )
        self.root = root
        """The repository root that was looked at."""


@dataclass(frozen=True, kw_only=True)
class BridgeState:
    """Everything a bridge session remembers between rounds."""

    task: str
    """The user's task, shown in every prompt."""
    mode: Mode = "browse"
    """The current mode: summaries only (browse) or files in full (edit)."""
    lang: str = "en"
    """The prompts' language (``en`` or ``ja``)."""
    files: tuple[str, ...] = ()
    """Files in context in full (edit mode), in the order they were added."""
    rounds: int = 0
    """How many replies were applied in this session."""
    continuation: tuple[str, ...] | None = None
    """When the last reply ended with CONTINUE: the changes still owed (maybe none named)."""
    missing: tuple[tuple[str, str], ...] = ()
    """Files the last reply asked for that cannot be shown, with the reason."""
    feedback: str = ""
    """The edit engine's feedback on the last reply's edits that failed."""
    max_tokens: int | None = None
    """The prompt's token budget, if any."""
    split_chars: int | None = None
    """The split limit in characters (when neither limit is set, the default applies)."""
    split_tokens: int | None = None
    """The split limit in tokens."""
    focus: tuple[str, ...] = field(default=())
    """Paths the session started with, ranked first when the budget is tight."""
    include_generated: bool = False
    """Show generated and minified files too (discovery leaves them out by default)."""
    commit_rounds: bool = False
    """Commit the files each applied round changes (one git commit per round)."""
    shown: tuple[str, ...] = ()
    """Files the model has seen whole in this session: shown in full by one of its prompts,
    or written whole by one of its replies. A reply may replace only these whole."""
    sent: tuple[tuple[str, str], ...] = ()
    """The files' texts the chat holds, as ``(path, digest)``: what earlier prompts showed
    in full (or as a diff) and what the session's replies wrote. A follow-up prompt sends
    only what differs from these."""
    pending: tuple[tuple[str, str], ...] = ()
    """What the current prompt sends, as ``(path, digest)``: the chat holds it once a reply
    to that prompt is applied."""
    resend: bool = False
    """The next prompt sends everything again, system part included (a new chat)."""
    dropped: tuple[str, ...] = ()
    """Files taken out of the context by hand: a reply's edits do not bring them back."""
    includes: tuple[str, ...] = ()
    """Gitignore patterns: when any is given, only the files they match are listed."""
    excludes: tuple[str, ...] = ()
    """Gitignore patterns of files never listed."""
    warn_tokens: int | None = None
    """Warn when a prompt is larger than this many tokens (``None``: the default)."""
    restate_tokens: int | None = None
    """A follow-up states the task again once the chat has read this many tokens since it
    was last stated (``None``: :data:`DEFAULT_RESTATE_TOKENS`; 0: every follow-up)."""
    since_task: int = 0
    """Tokens the chat has read (prompts and replies) since it last read the task, up to
    the current prompt."""
    pending_task: tuple[bool, int] = (False, 0)
    """Whether the current prompt states the task, and how many of its tokens come after
    that statement (all of them when it does not): the chat has read them once a reply to it
    is applied."""
    notes: tuple[UserNote, ...] = ()
    """The user's notes for the next prompt (and the current one's, until a reply to it)."""
    runs: tuple[CommandRun, ...] = ()
    """Commands the user ran, for the next prompt (and the current one's, until a reply)."""
    answer: str = ""
    """The model's last reply when it held nothing to apply: its answer (the work is done,
    or it asks the user something)."""

    @classmethod
    def starting(
        cls,
        task: str,
        files: tuple[str, ...],
        *,
        mode: str | None,
        lang: str,
        max_tokens: int | None = None,
        split_chars: int | None = None,
        split_tokens: int | None = None,
        include_generated: bool = False,
        includes: tuple[str, ...] = (),
        excludes: tuple[str, ...] = (),
        warn_tokens: int | None = None,
        commit_rounds: bool = False,
    ) -> BridgeState:
        """A new session over ``files`` (already resolved): in edit mode, the default when
        files are given, they are shown in full; in browse mode they are only ranked first."""
        edit = (mode or ("edit" if files else "browse")) == "edit"
        return cls(
            task=task,
            mode="edit" if edit else "browse",
            lang=lang,
            files=files if edit else (),
            focus=files,
            max_tokens=max_tokens,
            split_chars=split_chars,
            split_tokens=split_tokens,
            include_generated=include_generated,
            commit_rounds=commit_rounds,
            includes=includes,
            excludes=excludes,
            warn_tokens=warn_tokens,
        )

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-ready data (what the store keeps)."""
        return {
            "task": self.task,
            "mode": self.mode,
            "lang": self.lang,
            "files": list(self.files),
            "rounds": self.rounds,
            "continuation": None if self.continuation is None else list(self.continuation),
            "missing": [list(m) for m in self.missing],
            "feedback": self.feedback,
            "max_tokens": self.max_tokens,
            "split_chars": self.split_chars,
            "split_tokens": self.split_tokens,
            "focus": list(self.focus),
            "include_generated": self.include_generated,
            "commit_rounds": self.commit_rounds,
            "shown": list(self.shown),
            "sent": [list(s) for s in self.sent],
            "pending": [list(s) for s in self.pending],
            "resend": self.resend,
            "dropped": list(self.dropped),
            "includes": list(self.includes),
            "excludes": list(self.excludes),
            "warn_tokens": self.warn_tokens,
            "restate_tokens": self.restate_tokens,
            "since_task": self.since_task,
            "pending_task": list(self.pending_task),
            "notes": [n.to_json() for n in self.notes],
            "runs": [r.to_json() for r in self.runs],
            "answer": self.answer,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BridgeState:
        """The state stored as ``data``; :class:`InvalidBridgeState` when it is not one."""
        try:
            mode = data.get("mode", "browse")
            if mode not in ("browse", "edit"):
                raise ValueError(f"unknown mode {mode!r}")
            more = data.get("continuation")
            return cls(
                task=str(data["task"]),
                mode=mode,
                lang=str(data.get("lang", "en")),
                files=tuple(str(p) for p in data.get("files", ())),
                rounds=int(data.get("rounds", 0)),
                continuation=None if more is None else tuple(str(p) for p in more),
                missing=tuple((str(p), str(r)) for p, r in data.get("missing", ())),
                feedback=str(data.get("feedback", "")),
                max_tokens=_optional_int(data.get("max_tokens")),
                split_chars=_optional_int(data.get("split_chars")),
                split_tokens=_optional_int(data.get("split_tokens")),
                focus=tuple(str(p) for p in data.get("focus", ())),
                include_generated=bool(data.get("include_generated", False)),
                commit_rounds=bool(data.get("commit_rounds", False)),
                # A session stored before this was kept: its files in context were shown.
                shown=tuple(str(p) for p in data.get("shown", data.get("files", ()))),
                sent=tuple((str(p), str(d)) for p, d in data.get("sent", ())),
                pending=tuple((str(p), str(d)) for p, d in data.get("pending", ())),
                resend=bool(data.get("resend", False)),
                dropped=tuple(str(p) for p in data.get("dropped", ())),
                includes=tuple(str(p) for p in data.get("includes", ())),
                excludes=tuple(str(p) for p in data.get("excludes", ())),
                warn_tokens=_optional_int(data.get("warn_tokens")),
                restate_tokens=_optional_int(data.get("restate_tokens")),
                since_task=int(data.get("since_task", 0)),
                pending_task=_pending_task(data.get("pending_task")),
                notes=tuple(UserNote.from_json(n) for n in data.get("notes", ())),
                runs=tuple(CommandRun.from_json(r) for r in data.get("runs", ())),
                answer=str(data.get("answer", "")),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise StoreError(
                f"the stored bridge session cannot be read ({literal(str(exc))})",
                fix="clear it with {reset_session} and start again with {start_session}",
            ) from None

    def with_files(self, paths: tuple[str, ...]) -> BridgeState:
        """The state with ``paths`` added to the files in context (no duplicates)."""
        return replace(self, files=tuple(dict.fromkeys((*self.files, *paths))))

    @property
    def full_next(self) -> bool:
        """The next prompt is a whole one (the first of the session, or a resend for a new
        chat), not a follow-up."""
        return self.rounds == 0 or self.resend

    def after_prompt(
        self,
        shown: tuple[str, ...],
        sends: tuple[tuple[str, str], ...],
        *,
        task: tuple[bool, int] = (False, 0),
    ) -> BridgeState:
        """The state once a prompt showing ``shown`` in full and sending ``sends`` was
        made: what it sends is pending until a reply to it is applied, and so are the
        user's notes and command runs it holds. ``task``: whether it states the task, and
        the tokens after that statement (:attr:`pending_task`)."""
        new = replace(self.with_shown(shown), pending=sends, pending_task=task)
        if any(not n.in_prompt for n in self.notes) or any(not r.in_prompt for r in self.runs):
            new = replace(
                new,
                notes=tuple(replace(n, in_prompt=True) for n in self.notes),
                runs=tuple(replace(r, in_prompt=True) for r in self.runs),
            )
        return new

    def with_reply(self, reply_tokens: int = 0) -> BridgeState:
        """The state once a reply to the current prompt came back (``reply_tokens`` long):
        the chat holds what the prompt sent (only that, when it was a whole prompt for a new
        chat), and the user's notes and runs it held are done with."""
        if self.full_next:
            sent = dict(self.pending)
        else:
            sent = dict(self.sent)
            sent.update(self.pending)
        stated, after = self.pending_task
        return replace(
            self,
            sent=tuple(sent.items()),
            pending=(),
            resend=False,
            since_task=(0 if stated else self.since_task) + after + reply_tokens,
            pending_task=(False, 0),
            notes=tuple(n for n in self.notes if not n.in_prompt),
            runs=tuple(r for r in self.runs if not r.in_prompt),
            answer="",
        )

    @property
    def restate_limit(self) -> int:
        """The tokens the chat may read before a follow-up states the task again
        (:attr:`restate_tokens`, or the default)."""
        return self.restate_tokens if self.restate_tokens is not None else DEFAULT_RESTATE_TOKENS

    @property
    def restates_task(self) -> bool:
        """A follow-up made now states the task again: the chat has read at least
        :attr:`restate_limit` tokens since it last read it."""
        return self.since_task >= self.restate_limit

    def with_note(self, text: str) -> BridgeState:
        """The state with the user's note ``text`` (checked) for the next prompt."""
        return replace(self, notes=(*self.notes, UserNote(text=text)))

    def with_run(self, run: CommandRun) -> BridgeState:
        """The state with ``run`` for the next prompt (replacing an earlier run of the same
        command not yet in a prompt)."""
        kept = tuple(r for r in self.runs if r.in_prompt or r.command != run.command)
        return replace(self, runs=(*kept, run))

    @property
    def waiting_input(self) -> bool:
        """The user added a note or a command's output no prompt holds yet."""
        return any(not n.in_prompt for n in self.notes) or any(not r.in_prompt for r in self.runs)

    def with_sent(self, known: dict[str, str]) -> BridgeState:
        """The state with the chat holding ``known``'s digests (by path)."""
        sent = dict(self.sent)
        sent.update(known)
        return replace(self, sent=tuple(sent.items()))

    def with_shown(self, paths: tuple[str, ...]) -> BridgeState:
        """The state with ``paths`` added to the files the model has seen whole."""
        if all(p in self.shown for p in paths):
            return self
        return replace(self, shown=tuple(dict.fromkeys((*self.shown, *paths))))


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _pending_task(value: Any) -> tuple[bool, int]:
    if not value:
        return (False, 0)
    stated, after = value
    return (bool(stated), int(after))


def _store_path(root: Path) -> Path:
    return default_store_path(root)


_HELD: ContextVar[tuple[Path, Store] | None] = ContextVar("bridge_held_session", default=None)
"""The store of the session :func:`held_session` holds (its path and open store)."""


@contextmanager
def _opened(root: Path, *, create: bool) -> Iterator[Store | None]:
    """The root's store: the one :func:`held_session` holds, else a fresh connection (none
    when there is no database and ``create`` is false)."""
    path = _store_path(root)
    held = _HELD.get()
    if held is not None and held[0] == path.resolve():
        yield held[1]
        return
    store = Store(path) if create else Store.open_existing(path)
    if store is None:
        yield None
        return
    with store:
        yield store


def find_session(root: Path) -> tuple[str, BridgeState] | None:
    """The session in progress for ``root`` (its id and state), or None.

    A root with no state database has no session, and none is created by looking.
    """
    with _opened(root, create=False) as store:
        record = store.latest_session(KIND) if store is not None else None
    if record is None:
        return None
    return record.id, BridgeState.from_json(record.state)


@contextmanager
def held_session(root: Path) -> Iterator[tuple[str, BridgeState] | None]:
    """The session in progress for ``root``, held for a critical section (an apply).

    The state database's write lock is taken first and the session is read afresh under
    it, after a test write proves it can be saved: a locked or read-only database is
    refused (:class:`~agentprompt.store.StoreError`) before the caller writes anything.
    Every :func:`save_state` inside the block joins the one transaction, which commits on
    leaving it (an exception rolls it back): two applies of one session never both start
    from the same state, so neither update is lost. No database: no session, ``None``.
    """
    path = _store_path(root)
    store = Store.open_existing(path)
    if store is None:
        yield None
        return
    with store:
        if store.latest_session(KIND) is None:
            # No bridge session: nothing to save, so no lock to take (a database another
            # runtime is busy with does not hold up an apply).
            yield None
            return
        with store.writing():
            record = store.latest_session(KIND)
            if record is None:
                yield None
                return
            record = store.claim(record.id)
            token = _HELD.set((path.resolve(), store))
            try:
                yield record.id, BridgeState.from_json(record.state)
            finally:
                _HELD.reset(token)


def load_session(root: Path) -> tuple[str, BridgeState]:
    """The session in progress for ``root``; :class:`NoBridgeSession` when there is none."""
    found = find_session(root)
    if found is None:
        raise NoBridgeSession(root)
    return found


def start_session(root: Path, state: BridgeState) -> str:
    """Store a new session for ``root`` (replacing any in progress) and return its id."""
    with Store(_store_path(root)) as store:
        for old in store.list_sessions(KIND):
            store.delete_session(old.id)
        return store.create_session(KIND, state.to_json()).id


def save_state(root: Path, session_id: str, state: BridgeState) -> None:
    """Save ``state`` as session ``session_id``'s new state."""
    with _opened(root, create=True) as store:
        assert store is not None
        store.save_session(session_id, state.to_json())


def clear_session(root: Path) -> int:
    """Remove every bridge session of ``root``; how many there were."""
    path = _store_path(root)
    if not path.exists():
        return 0
    with Store(path) as store:
        sessions = store.list_sessions(KIND)
        for old in sessions:
            store.delete_session(old.id)
    return len(sessions)
