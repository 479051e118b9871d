"""The system reminder as a constant: the compact EDIT/REPL rules of ``system_reminder.md``.

Like the loader's own layout, this module is imported directly by the code that needs it
and is not re-exported from :mod:`agentprompt.prompts`. ``SYSTEM_REMINDER`` is the packaged
text; a project's override of ``system_reminder.md`` is what
``agentprompt.tiers.get_system_reminder(root=...)`` returns. The reminder is never injected
unless asked (``agentprompt inspect --system-reminder`` puts it before the latest user
message).
"""

from __future__ import annotations

from typing import Final

from agentprompt.prompts.loader import PACKAGED_DIR, parse_prompt_file

__all__ = ["SYSTEM_REMINDER"]

_PATH = PACKAGED_DIR / "system_reminder.md"

SYSTEM_REMINDER: Final[str] = parse_prompt_file(
    "system_reminder", _PATH, _PATH.read_text(encoding="utf-8")
).render()
"""The packaged system reminder text, wrapped in ``<system-reminder>`` tags."""
