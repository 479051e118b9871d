"""The model-facing reasons an edit fails, from the packaged ``edits/reason_*.md`` prompts.

A reason is part of the report's data (the ``reason`` field) as well as of the feedback, so
it comes from the packaged prompt files only (not a project's overrides, which reword the
feedback around it); each file is read once. It is worded in the language of the apply in
progress (:func:`~agentprompt.edits.wording.speaking`): ``reason_<name>_<lang>.md``, or the
English ``reason_<name>.md`` when that language has no such file.
"""

from __future__ import annotations

from functools import cache

from agentprompt.edits.wording import current_lang, localized_name, punctuation
from agentprompt.prompts.loader import PACKAGED_DIR, PromptTemplate, parse_prompt_file

__all__ = ["joined_reasons", "listed", "reason"]


@cache
def _template(name: str, lang: str) -> PromptTemplate:
    local = localized_name(f"edits/reason_{name}", lang)
    path = PACKAGED_DIR / f"{local}.md"
    if not path.is_file():
        local = f"edits/reason_{name}"
        path = PACKAGED_DIR / f"{local}.md"
    return parse_prompt_file(local, path, path.read_text(encoding="utf-8"))


def reason(name: str, /, **values: object) -> str:
    """The reason ``edits/reason_<name>.md`` with ``values`` filled in, as one line."""
    return _template(name, current_lang()).render(**values).strip()


def joined_reasons(reasons: list[str]) -> str:
    """Several reasons given as one, joined as the current language joins clauses."""
    return punctuation(current_lang()).join.join(reasons)


def listed(items: list[str]) -> str:
    """Items (line numbers) listed in a reason, as the current language lists them."""
    return punctuation(current_lang()).items.join(items)
