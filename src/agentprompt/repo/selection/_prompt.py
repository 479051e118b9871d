"""File selection: ask a model which files to read for a request, and read its answer robustly.

:func:`ask_llm_for_files` builds the first prompt (``repo/file_select_initial``) or, once
there is a current context, the follow-up prompt (``repo/file_select_followup``), with the
``## Active Constraints`` section between the directory tree and the instructions; it calls
``llm_agent.execute_prompt(prompt, mode="fast", response_shape="json")`` and returns the
reply as ``{"done": bool, "files": [str, ...], "reason": str}`` whatever shape it came in.
The loop around it is :func:`agentprompt.repo.selection.select_files`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from agentprompt.llm.base import PromptExecutor
from agentprompt.prompts.loader import PromptLibrary

__all__ = [
    "ACTIVE_CONSTRAINTS_HEADING",
    "PARSE_FAILURE_REASON",
    "FileChoice",
    "SelectionOptions",
    "ask_llm_for_files",
    "build_constraints_section",
    "build_followup_prompt",
    "build_initial_prompt",
    "normalize_response",
    "parse_response",
]

ACTIVE_CONSTRAINTS_HEADING = "## Active Constraints"
"""The heading of the constraints section (fixed text, word for word)."""

PARSE_FAILURE_REASON = "Could not parse LLM response."
"""The reason given when a reply cannot be read (fixed text, word for word)."""

_JSON_SPAN = re.compile(r"\{[\s\S]*\}")


class FileChoice(TypedDict):
    """A model's answer, normalised: ``{ done, files, reason }``."""

    done: bool
    """True when the model needs no more files after these."""
    files: list[str]
    """The files it asks for, as it wrote them (non-empty strings only)."""
    reason: str
    """Why, in its words; ``""`` when it gave none."""


@dataclass(frozen=True, kw_only=True)
class SelectionOptions:
    """The constraints of a file selection and the limits of its loop."""

    filter: str | None = None
    """Only files whose name (last path component) matches this regular expression
    (``re.search``) may be chosen."""
    exclude: str | None = None
    """Files whose name (last path component) matches this regular expression may not be
    chosen."""
    max_files: int | None = None
    """The most files that may be read in total (forced includes count)."""
    include: tuple[str, ...] = ()
    """Files loaded before the first round, whatever the model asks for."""
    dir: str = "."
    """Only files within this directory (relative to the root) may be chosen."""
    token_budget: int = 60_000
    """The most tokens the loaded files (the current context) may hold."""
    max_rounds: int = 5
    """The most times the model is asked."""
    allow_secrets: bool = False
    """Load files that hold a likely secret instead of withholding them."""
    model: str | None = None
    """The model whose tokenizer counts the budget (default ``o200k_base``)."""
    tree_files: int = 400
    """A repository with more files the model may choose than this is shown as a tree of
    the ones most relevant to the request (task-aware ranking), with a note of how many
    more there are."""


def _option(options: SelectionOptions | Mapping[str, Any], *names: str) -> Any:
    if isinstance(options, SelectionOptions):
        return getattr(options, names[0])
    for name in names:
        if name in options:
            return options[name]
    return None


def _constraint_lines(options: SelectionOptions | Mapping[str, Any]) -> list[str]:
    lines = []
    pattern = _option(options, "filter")
    if pattern:
        lines.append(f"ONLY select files whose name matches the pattern: {pattern}")
    pattern = _option(options, "exclude")
    if pattern:
        lines.append(f"Do NOT select files whose name matches the pattern: {pattern}")
    max_files = _option(options, "max_files", "maxFiles")
    if max_files:
        lines.append(f"Maximum {max_files} files can be read in total. Be selective.")
    include = _option(options, "include")
    if include:
        listed = ", ".join(include) if isinstance(include, list | tuple) else str(include)
        lines.append(
            "The following files are already force-included and loaded. "
            f"Do NOT request them again: {listed}"
        )
    directory = _option(options, "dir")
    if directory and directory != ".":
        lines.append(f"Only select files within the directory: {directory}")
    return lines


def build_constraints_section(options: SelectionOptions | Mapping[str, Any]) -> str:
    """The ``## Active Constraints`` section for ``options``, or ``""`` when none is active.

    ``options`` is a :class:`SelectionOptions` or a mapping with these keys
    (``filter``, ``exclude``, ``maxFiles`` or ``max_files``, ``include``, ``dir``).
    """
    lines = _constraint_lines(options)
    if not lines:
        return ""
    return ACTIVE_CONSTRAINTS_HEADING + "\n" + "".join(f"- {line}\n" for line in lines)


def _constraints_slot(constraints: str) -> str:
    """The constraints text as placed before the instructions: followed by one blank line."""
    text = constraints.strip("\n")
    return text + "\n\n" if text else ""


def build_initial_prompt(
    user_request: str, directory_tree: str, constraints: str, *, prompts: PromptLibrary
) -> str:
    """The first prompt: request, tree, constraints, instructions, JSON-only reply format."""
    return prompts.render(
        "repo/file_select_initial",
        user_request=user_request,
        directory_tree=directory_tree.rstrip("\n"),
        constraints=_constraints_slot(constraints),
    )


def build_followup_prompt(
    user_request: str,
    directory_tree: str,
    current_context: str,
    constraints: str,
    *,
    prompts: PromptLibrary,
) -> str:
    """The follow-up prompt: as the first, with the files loaded so far."""
    return prompts.render(
        "repo/file_select_followup",
        user_request=user_request,
        directory_tree=directory_tree.rstrip("\n"),
        current_context=current_context.rstrip("\n"),
        constraints=_constraints_slot(constraints),
    )


def _js_truthy(value: object) -> bool:
    """JavaScript's ``Boolean(value)`` (an empty list or object is true there)."""
    if value is None or value is False:
        return False
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def _js_string(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def normalize_response(obj: Mapping[str, Any]) -> FileChoice:
    """``done`` made a boolean, ``files`` only the non-empty strings, ``reason`` a string."""
    files = obj.get("files")
    listed = (
        [f for f in files if isinstance(f, str) and f.strip()] if isinstance(files, list) else []
    )
    reason = obj.get("reason")
    return {
        "done": _js_truthy(obj.get("done")),
        "files": listed,
        "reason": "" if reason is None or reason == "" else _js_string(reason),
    }


def _failure() -> FileChoice:
    return {"done": True, "files": [], "reason": PARSE_FAILURE_REASON}


def parse_response(response: object) -> FileChoice:
    """A model's reply read as a :class:`FileChoice`.

    An object is normalised; a string is searched for its first ``{...}`` span, which is
    parsed and normalised; anything else, or a string that does not hold a JSON object,
    gives ``{"done": True, "files": [], "reason": "Could not parse LLM response."}``.
    """
    if isinstance(response, Mapping):
        return normalize_response(response)
    if isinstance(response, str):
        match = _JSON_SPAN.search(response)
        if match is None:
            return _failure()
        try:
            parsed = json.loads(match.group(0))
        except ValueError:
            return _failure()
        if isinstance(parsed, dict):
            return normalize_response(parsed)
    return _failure()


def ask_llm_for_files(
    llm_agent: PromptExecutor,
    user_request: str,
    directory_tree: str,
    current_context: str | None,
    constraints: str,
    *,
    prompts: PromptLibrary | None = None,
) -> FileChoice:
    """Ask the model which files it needs, and return its answer normalised.

    The follow-up prompt is used when ``current_context`` is truthy, the first prompt
    otherwise; ``constraints`` is the text of :func:`build_constraints_section` (or ``""``).
    """
    library = prompts or PromptLibrary()
    if current_context:
        prompt = build_followup_prompt(
            user_request, directory_tree, current_context, constraints, prompts=library
        )
    else:
        prompt = build_initial_prompt(user_request, directory_tree, constraints, prompts=library)
    response = llm_agent.execute_prompt(prompt, mode="fast", response_shape="json")
    return parse_response(response)
