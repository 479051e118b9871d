"""The model-facing reasons an edit fails, from the packaged ``edits/reason_*.md`` prompts.

A reason is part of the report's data (the ``reason`` field) as well as of the feedback, so
it comes from the packaged prompt files only (not a project's overrides, which reword the
feedback around it); each file is read once.
"""

from __future__ import annotations

from functools import cache

from agentprompt.prompts.loader import PACKAGED_DIR, PromptTemplate, parse_prompt_file

__all__ = ["reason"]


@cache
def _template(name: str) -> PromptTemplate:
    path = PACKAGED_DIR / "edits" / f"reason_{name}.md"
    return parse_prompt_file(f"edits/reason_{name}", path, path.read_text(encoding="utf-8"))


def reason(name: str, /, **values: object) -> str:
    """The reason ``edits/reason_<name>.md`` with ``values`` filled in, as one line."""
    return _template(name).render(**values).strip()
