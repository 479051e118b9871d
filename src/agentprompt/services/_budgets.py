"""The token budget of a bridge session's prompts: the default, the chat presets, and how a
budget is chosen.

A first prompt fits one paste into a web chat by default: without a budget it holds the
whole repository (169,000 tokens at the median of real repositories, more than any chat
takes in one message). Where the budget comes from, first that is set:

1. the request's own budget (``max_tokens``: a number of tokens, or ``none`` for none);
2. the request's chat preset (``chat``, see :data:`CHAT_BUDGETS`);
3. the environment: ``AGENTPROMPT_MAX_TOKENS`` (a number, a preset's name or ``none``);
4. the project's config file ``.agentprompt/config.toml`` (``max_tokens = 30000``,
   ``max_tokens = "none"`` or ``chat = "claude"``);
5. :data:`DEFAULT_MAX_TOKENS`.

No budget at all (``none``) shows the whole repository, as prompts did before there was a
default. A budget is refused when it cannot hold the prompt's fixed text (the system part
and the task): :func:`check_floor` names the smallest that can.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Final, Literal

from agentprompt.errors import UsageError, literal

__all__ = [
    "BUDGET_ENV",
    "CHAT_BUDGETS",
    "DEFAULT_MAX_TOKENS",
    "NO_BUDGET",
    "PROJECT_CONFIG",
    "BudgetChoice",
    "chat_budget",
    "check_floor",
    "chosen_budget",
    "parse_budget",
    "project_budget",
    "requested_budget",
]

DEFAULT_MAX_TOKENS: Final = 25_000
"""A session's budget when nothing sets one: a first prompt that fits one paste into the
common web chats (our choice, on the conservative side: a larger paste may be refused or
turned into an attachment the chat reads only in part)."""

NO_BUDGET: Final = "none"
"""The budget that asks for none: every file of the repository, nothing cut."""

NoBudget = Literal["none"]
"""The type of :data:`NO_BUDGET`."""

BUDGET_ENV: Final = "AGENTPROMPT_MAX_TOKENS"
"""The environment variable that sets the budget of every session a request sets none
for: a number of tokens, a chat preset's name, or ``none``."""

PROJECT_CONFIG: Final = ".agentprompt/config.toml"
"""The project's config file (relative to the root), holding ``max_tokens`` or ``chat``."""

CHAT_BUDGETS: Final[Mapping[str, int]] = MappingProxyType(
    {
        "chatgpt": 25_000,
        "claude": 50_000,
        "copilot": 8_000,
        "gemini": 100_000,
        "small": 6_000,
    }
)
"""The chat presets: a budget, in tokens, for one paste into each chat. Our own choices,
set well below what each chat is said to take (we cannot measure the chats, and their
limits change with the plan and the model): ``chatgpt`` (ChatGPT), ``claude`` (Claude),
``copilot`` (Microsoft and GitHub Copilot chat, whose message box is small), ``gemini``
(Gemini, the largest context), ``small`` (a small local model or any short message box)."""

_PROJECT_KEYS = ("chat", "max_tokens")
"""The settings the project's config file may hold."""

_TOKENS_FIX = "give a whole number of tokens, 1 or more, a chat preset's name, or none"


@dataclass(frozen=True, kw_only=True)
class BudgetChoice:
    """A session's budget and where it was set, so an error about it names that place."""

    tokens: int | None
    """The budget in tokens (None: no budget)."""
    source: str
    """Where it was set, as an error message names it: an input (``{max_tokens} 500``,
    ``{chat} small``), the environment variable or the config file (literal text), or the
    default."""
    input: str | None = None
    """The input that set it, when a request did (``max_tokens``, ``chat``)."""


def _presets() -> str:
    return ", ".join(f"{name} ({tokens:,})" for name, tokens in CHAT_BUDGETS.items())


def chat_budget(name: str, *, where: str = "{chat}", input: str | None = "chat") -> int:
    """The budget of the chat preset ``name``; a :class:`UsageError` listing the presets
    when there is none (``where`` names the place it was given, ``input`` the input)."""
    tokens = CHAT_BUDGETS.get(name.strip().lower())
    if tokens is None:
        raise UsageError(
            f"{where}: there is no chat preset {literal(repr(name))}",
            input=input,
            fix=f"choose one of {_presets()}",
        )
    return tokens


def parse_budget(
    value: str | int, *, where: str = "{max_tokens}", input: str | None = "max_tokens"
) -> int | NoBudget:
    """A budget given as a whole number of tokens (text or number), or ``none``
    (:data:`NO_BUDGET`); a :class:`UsageError` naming ``where`` (and ``input``) for
    anything else: not a number, zero or negative. A chat preset's name is not read here
    (see :func:`chat_budget`)."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == NO_BUDGET:
            return NO_BUDGET
        try:
            value = int(text.replace("_", "").replace(",", ""))
        except ValueError:
            raise UsageError(
                f"{where}: {literal(repr(value))} is not a number of tokens",
                input=input,
                fix="give a whole number, 1 or more, or none for no budget",
            ) from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(
            f"{where}: {literal(repr(value))} is not a whole number of tokens",
            input=input,
            fix="give a whole number, 1 or more, or none for no budget",
        )
    if value < 1:
        raise UsageError(
            f"{where}: {value} is not a budget (it must be 1 or more)",
            input=input,
            fix="give a whole number of tokens, or none for no budget",
        )
    return value


def _setting(value: str, *, where: str) -> int | None:
    """A budget written as text outside a request (the environment): a number of tokens,
    a chat preset's name, or ``none``."""
    text = value.strip()
    if text.lower() in CHAT_BUDGETS:
        return CHAT_BUDGETS[text.lower()]
    try:
        parsed = parse_budget(text, where=where, input=None)
    except UsageError:
        raise UsageError(
            f"{where}: {literal(repr(value))} is not a budget", fix=_TOKENS_FIX
        ) from None
    return None if parsed == NO_BUDGET else parsed


def project_budget(root: Path) -> BudgetChoice | None:
    """The budget the project's config file (:data:`PROJECT_CONFIG`) sets: its
    ``max_tokens`` (a number or ``"none"``), else its ``chat``; None when the file is not
    there or sets neither. A file that cannot be read, is not TOML, holds another key or a
    value that is not a budget is a :class:`UsageError` naming the file and the key."""
    path = root / PROJECT_CONFIG
    shown = literal(str(path))
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(
            f"cannot read the config file {shown}: {exc.strerror or exc}",
            fix="make it readable, or remove it",
        ) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(
            f"the config file {shown} is not valid TOML ({literal(str(exc))})",
            fix="fix or remove it",
        ) from None
    unknown = sorted(set(data) - set(_PROJECT_KEYS))
    if unknown:
        raise UsageError(
            f"the config file {shown} has an unknown key {literal(repr(unknown[0]))}",
            fix='it may hold max_tokens (a number of tokens, or "none") and chat (a chat '
            "preset's name)",
        )
    if "max_tokens" in data:
        where = f"{shown}: max_tokens"
        raw = data["max_tokens"]
        if not isinstance(raw, (str, int)) or isinstance(raw, bool):
            raise UsageError(
                f"{where} is {literal(repr(raw))}, not a budget",
                fix='write a whole number of tokens, such as 30000, or "none"',
            )
        try:
            parsed = parse_budget(raw, where=where, input=None)
        except UsageError:
            raise UsageError(
                f"{where} is {literal(repr(raw))}, not a budget",
                fix='write a whole number of tokens, 1 or more, such as 30000, or "none"',
            ) from None
        tokens = None if parsed == NO_BUDGET else parsed
        return BudgetChoice(tokens=tokens, source=f"{where} = {literal(repr(raw))}")
    if "chat" in data:
        raw = data["chat"]
        where = f"{shown}: chat"
        if not isinstance(raw, str):
            raise UsageError(
                f"{where} is {literal(repr(raw))}, not a chat preset's name",
                fix=f"choose one of {_presets()}",
            )
        tokens = chat_budget(raw, where=where, input=None)
        return BudgetChoice(tokens=tokens, source=f"{where} = {literal(repr(raw))}")
    return None


def chosen_budget(
    max_tokens: int | NoBudget | None,
    chat: str | None,
    *,
    environ: str | None,
    root: Path,
) -> BudgetChoice:
    """The budget a new session gets: ``max_tokens`` (:data:`NO_BUDGET`: none), else the
    ``chat`` preset's, else the environment's (``environ``: the value of
    :data:`BUDGET_ENV`), else the project's config file's, else
    :data:`DEFAULT_MAX_TOKENS` (see the module's docstring for each form and its errors)."""
    given = requested_budget(max_tokens, chat)
    if given is not None:
        return given
    if environ is not None and environ.strip():
        where = f"{BUDGET_ENV}={literal(environ)}"
        return BudgetChoice(tokens=_setting(environ, where=BUDGET_ENV), source=where)
    return project_budget(root) or BudgetChoice(
        tokens=DEFAULT_MAX_TOKENS, source=f"the default budget ({DEFAULT_MAX_TOKENS:,})"
    )


def requested_budget(max_tokens: int | NoBudget | None, chat: str | None) -> BudgetChoice | None:
    """The budget a request sets itself (``max_tokens`` first, then ``chat``), or None
    when it sets none."""
    if max_tokens is not None:
        parsed = parse_budget(max_tokens)
        if parsed == NO_BUDGET:
            return BudgetChoice(tokens=None, source="{max_tokens} none", input="max_tokens")
        return BudgetChoice(tokens=parsed, source=f"{{max_tokens}} {parsed}", input="max_tokens")
    if chat is not None:
        tokens = chat_budget(chat)
        return BudgetChoice(
            tokens=tokens, source=f"{{chat}} {literal(chat)} ({tokens:,} tokens)", input="chat"
        )
    return None


def check_floor(choice: BudgetChoice, floor: int) -> None:
    """Refuse ``choice`` when it is below ``floor``, the tokens the prompt's fixed text
    (the system part and the task) takes with no file at all: a :class:`UsageError`
    naming where the budget was set and the smallest budget that can work."""
    if choice.tokens is None or choice.tokens >= floor:
        return
    raise UsageError(
        f"{choice.source} is too small: the prompt's fixed text (the system part and the "
        f"task) takes {floor:,} tokens alone",
        input=choice.input,
        fix=f"give a budget of at least {floor:,} tokens (more to show any file), a larger "
        "chat preset, or a shorter task",
    )
