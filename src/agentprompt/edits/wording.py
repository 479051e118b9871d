"""The language the edit engine words its feedback and reasons in, and where the words are.

The engine's short texts (the one-line ``feedback_*`` pieces, the ``reason_*`` reasons and
the reply readers' ``diagnostic_*`` notes) are entries of one message catalogue per
language, :data:`EDIT_MESSAGES` (``edits/catalogue.yaml``, ``edits/catalogue_ja.yaml``);
the templates that lay paragraphs out (``edits/feedback.md``, ``feedback_summary.md``, ...)
are prompt files. English is each name's base (``edits/feedback.md``, ``catalogue.yaml``);
a language's text sits beside it with the language as a suffix (``edits/feedback_ja.md``).
That is the reverse of the bridge's own prompts (``bridge/NAME.md`` Japanese,
``bridge/NAME_en.md`` English): there Japanese is the original text, here English is.

A language's file or entry is looked up through the whole prompt lookup order (a project's
override of ``feedback_ja.md``, or a project's ``catalogue_ja.yaml`` holding the key, first,
then the packaged one); for a prompt file the English file is used only when no file in that
language exists anywhere, so a project's English override never displaces the packaged
Japanese text of a Japanese session. Every packaged catalogue holds every key, so an entry
is always found in the language asked for.

Reasons are worded deep inside the matcher and the guards, which only return them; the
language of one apply is set for its planning with :func:`speaking` rather than passed
through every function that may word a reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from agentprompt.errors import UsageError
from agentprompt.prompts.catalogue import MessageCatalogues
from agentprompt.prompts.loader import PromptLibrary

__all__ = [
    "EDIT_MESSAGES",
    "LANGS",
    "Punctuation",
    "UnknownLanguage",
    "check_lang",
    "current_lang",
    "localized_name",
    "message_in",
    "punctuation",
    "render_in",
    "speaking",
]

LANGS = ("en", "ja")
"""The languages the edit engine's feedback and reasons are written in."""


class UnknownLanguage(UsageError):
    """A language agentprompt has no text in: the edit engine's feedback, the bridge's
    prompts."""

    def __init__(self, lang: str, problem: str, *, fix: str | None = None) -> None:
        super().__init__(problem, fix=fix)
        self.lang = lang
        """The language asked for."""


@dataclass(frozen=True, kw_only=True)
class Punctuation:
    """The marks a language joins and ends the engine's clauses with."""

    stop: str
    """Ends a reason that is used as a sentence."""
    join: str
    """Separates several reasons given as one (one per failed hunk)."""
    items: str
    """Separates the items of a list (block numbers)."""
    sentences: str
    """Separates sentences put one after the other on a line."""


_PUNCTUATION = {
    "en": Punctuation(stop=".", join="; ", items=", ", sentences=" "),
    "ja": Punctuation(stop="。", join="。", items="、", sentences=""),
}

_LANG: ContextVar[str] = ContextVar("agentprompt_edits_lang", default="en")


def check_lang(lang: str) -> str:
    """``lang`` itself, when the engine speaks it; :class:`UnknownLanguage` otherwise."""
    if lang not in LANGS:
        raise UnknownLanguage(
            lang, f"the edit engine has no feedback in {lang!r}; use one of: {', '.join(LANGS)}"
        )
    return lang


def punctuation(lang: str) -> Punctuation:
    """How ``lang`` joins and ends the engine's clauses."""
    return _PUNCTUATION[check_lang(lang)]


def localized_name(base: str, lang: str) -> str:
    """The prompt name of ``base`` (``edits/feedback``) in ``lang`` (English: ``base``)."""
    return base if check_lang(lang) == "en" else f"{base}_{lang}"


def render_in(library: PromptLibrary, base: str, lang: str, /, **values: object) -> str:
    """``base`` in ``lang`` with ``values`` filled in, from the first directory holding it in
    that language; English only when no directory holds it in ``lang``."""
    name = localized_name(base, lang)
    if name != base and library.find(name) is None:
        name = base
    return library.render(name, **values)


EDIT_MESSAGES = MessageCatalogues(
    base="edits/catalogue",
    langs=LANGS,
    localize=localized_name,
    fixed=("reason_", "diagnostic_"),
)
"""The edit engine's message catalogues, one per language of :data:`LANGS`. The reasons and
the reply readers' diagnostics are data of the apply report, worded by the packaged
catalogues only (:mod:`~agentprompt.edits._reasons`); a project rewords the feedback."""


def message_in(library: PromptLibrary, key: str, lang: str, /, **values: object) -> str:
    """The catalogue entry ``key`` in ``lang`` with ``values`` filled in, from the first
    catalogue of the lookup order that holds it (a project's, the user's, the packaged)."""
    return EDIT_MESSAGES.lookup(library, key, check_lang(lang)).render(**values)


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Word the reasons made inside the ``with`` block in ``lang``."""
    token = _LANG.set(check_lang(lang))
    try:
        yield
    finally:
        _LANG.reset(token)


def current_lang() -> str:
    """The language reasons are worded in here (``en`` outside :func:`speaking`)."""
    return _LANG.get()
