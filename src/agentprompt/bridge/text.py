"""The bridge's prompt files, chosen by language, and the default language from the locale.

The bridge's prompts were written in Japanese, so ``bridge/NAME.md`` holds the Japanese text and
``bridge/NAME_en.md`` the English one (the convention of ``edits/dialect_bridge.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from agentprompt.edits.wording import UnknownLanguage
from agentprompt.errors import literal
from agentprompt.prompts.loader import PromptLibrary

__all__ = ["LANGS", "default_lang", "prompt_name", "render_prompt"]

LANGS = ("en", "ja")
"""The languages the bridge's prompts are written in."""


def default_lang(environ: Mapping[str, str]) -> str:
    """``ja`` when the locale (``LC_ALL``, then ``LC_MESSAGES``, then ``LANG``) is Japanese,
    else ``en``."""
    for key in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(key)
        if value:
            return "ja" if value.lower().startswith("ja") else "en"
    return "en"


def prompt_name(base: str, lang: str) -> str:
    """The prompt name of ``bridge/BASE`` in ``lang`` (Japanese is the original text)."""
    if lang not in LANGS:
        raise UnknownLanguage(
            lang,
            f"no bridge prompts in {literal(repr(lang))}",
            fix="use {lang} " + " or {lang} ".join(LANGS),
        )
    return f"bridge/{base}" if lang == "ja" else f"bridge/{base}_{lang}"


def render_prompt(base: str, lang: str, root: Path | None = None, /, **values: object) -> str:
    """``bridge/BASE`` in ``lang`` rendered with ``values`` (a project's override first)."""
    return PromptLibrary(root).render(prompt_name(base, lang), **values)
