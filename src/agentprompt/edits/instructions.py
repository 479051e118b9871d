"""The text that teaches a model a reply dialect, from the dialect's prompt file."""

from __future__ import annotations

from pathlib import Path

from agentprompt.edits.dialects import get_dialect
from agentprompt.errors import UsageError
from agentprompt.prompts.loader import PromptLibrary

__all__ = ["dialect_instructions", "instruction_prompt"]


def instruction_prompt(name: str, lang: str | None = None) -> str:
    """The prompt name holding dialect ``name``'s instructions in ``lang`` (default: the
    dialect's own language; the bridge's is Japanese)."""
    dialect = get_dialect(name)
    if lang is None or lang == dialect.lang:
        return dialect.prompt
    return f"{dialect.prompt}_{lang}"


def dialect_instructions(name: str, lang: str | None = None, *, root: Path | None = None) -> str:
    """The instructions for dialect ``name`` in ``lang``, with worked examples.

    The prompt file resolves like every prompt (a project's ``config/prompts/edits/`` first,
    the packaged default last). Raises an :class:`~agentprompt.edits.EditError` for an
    unknown dialect and :class:`~agentprompt.errors.UsageError` for a missing language.
    """
    prompt = instruction_prompt(name, lang)
    library = PromptLibrary(root)
    if library.find(prompt) is None:
        dialect = get_dialect(name)
        available = sorted(
            {dialect.lang}
            | {
                source.name.removeprefix(f"{dialect.prompt}_")
                for source in library.list()
                if source.name.startswith(f"{dialect.prompt}_")
            }
        )
        raise UsageError(
            f"no {lang} instructions for the {name} dialect; available languages: "
            f"{', '.join(available)}"
        )
    return library.render(prompt)
