"""The model-facing reasons an edit fails, and the reply readers' diagnostics, from the
packaged edit catalogue (``edits/catalogue.yaml``: its ``reason_*`` and ``diagnostic_*``
entries).

A reason is part of the report's data (the ``reason`` field) as well as of the feedback, so
it comes from the packaged catalogue only (not a project's overrides, which reword the
feedback around it); so does a diagnostic (the report's ``diagnostics``). The catalogue is
read once. Each is worded in the language of the apply in progress
(:func:`~agentprompt.edits.wording.speaking`), whose catalogue holds every key.
"""

from __future__ import annotations

from agentprompt.edits.wording import EDIT_MESSAGES, current_lang, punctuation

__all__ = ["diagnostic", "joined_reasons", "listed", "reason"]


def reason(name: str, /, **values: object) -> str:
    """The reason ``reason_<name>`` with ``values`` filled in, as one line."""
    return EDIT_MESSAGES.render(f"reason_{name}", current_lang(), **values).strip()


def diagnostic(name: str, /, **values: object) -> str:
    """The reply readers' note ``diagnostic_<name>`` with ``values`` filled in."""
    return EDIT_MESSAGES.render(f"diagnostic_{name}", current_lang(), **values)


def joined_reasons(reasons: list[str]) -> str:
    """Several reasons given as one, joined as the current language joins clauses."""
    return punctuation(current_lang()).join.join(reasons)


def listed(items: list[str]) -> str:
    """Items (line numbers) listed in a reason, as the current language lists them."""
    return punctuation(current_lang()).items.join(items)
