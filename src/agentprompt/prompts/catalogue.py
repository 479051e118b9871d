"""Message catalogues: many short model-facing texts in one file per language.

A text of one line (a sentence, a phrase, a one-line template) need not be a prompt file of
its own: a catalogue holds them keyed, each entry with what it is for, its declared
variables and its text::

    reason_overlap:
      description: Why a hunk overlapping an earlier one was refused.
      variables:
        other: The earlier hunk's number.
      text: |-
        it overlaps hunk {{other}}

Every entry declares its variables (``variables: {}`` for none), and its text is rendered
as a prompt file's body is (:meth:`~agentprompt.prompts.loader.PromptTemplate.render`:
``{{name}}`` placeholders, exactly the declared values). Texts of several lines (the
templates that lay paragraphs out) stay prompt files.

The catalogues of one set (:class:`MessageCatalogues`) are one file per language, every
language holding the same keys with the same variables; the packaged files are read and
checked once per process. A project or a user overrides some entries with a file of the
same name in its prompt directory holding only those keys (the lookup order of prompt
files: the project's, the user's, then the packaged one); each such entry must be one the
packaged file has, with the same variables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

import yaml

from agentprompt.errors import AgentPromptError
from agentprompt.prompts.frontmatter import InvalidFrontMatter
from agentprompt.prompts.loader import (
    PACKAGED_DIR,
    InvalidPromptFile,
    PromptLibrary,
    PromptSource,
    PromptTemplate,
    declared_variables,
    placeholders,
)
from agentprompt.prompts.stamps import StampedCache

__all__ = [
    "CATALOGUE_SUFFIX",
    "Catalogue",
    "MessageCatalogues",
    "read_catalogue",
    "read_languages",
]

CATALOGUE_SUFFIX = ".yaml"
"""How a catalogue's file name ends (its name is the rest: ``edits/catalogue``)."""

_FIELDS = frozenset({"description", "variables", "text"})
"""What an entry may say."""

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The C YAML reader when it is built, else the Python one (the same safe subset)."""


@dataclass(frozen=True, kw_only=True)
class Catalogue:
    """One catalogue file, read and checked."""

    path: Path
    """The file."""
    entries: Mapping[str, PromptTemplate]
    """Each key's text, rendered as a prompt file's body is."""

    def entry(self, key: str) -> PromptTemplate:
        """The entry ``key``; an :class:`~agentprompt.errors.AgentPromptError` when the file
        has none."""
        found = self.entries.get(key)
        if found is None:
            raise AgentPromptError(f"message catalogue {self.path} has no entry {key!r}")
        return found


def read_catalogue(path: Path, text: str, name: Callable[[str], str]) -> Catalogue:
    """The catalogue in ``text`` (the file ``path``), each entry's template named by
    ``name(key)``; :class:`~agentprompt.prompts.loader.InvalidPromptFile` names the file and
    the entry that is wrong."""
    try:
        data = yaml.load(text, Loader=_LOADER)  # the safe subset, C or Python
    except yaml.YAMLError as exc:
        raise InvalidPromptFile(path, f"is not valid YAML: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidPromptFile(path, "must map each key to its entry")
    entries = {}
    for key, entry in data.items():
        if not isinstance(key, str) or not key:
            raise InvalidPromptFile(path, f"key {key!r} is not a name; write keys as words")
        entries[key] = _entry(path, key, entry, name(key))
    return Catalogue(path=path, entries=entries)


def _entry(path: Path, key: str, entry: object, name: str) -> PromptTemplate:
    """One entry of a catalogue as a template, checked."""
    if not isinstance(entry, dict):
        raise InvalidPromptFile(
            path, "must be a mapping of description, variables and text", key=key
        )
    extra = sorted(str(f) for f in entry if f not in _FIELDS)
    if extra:
        raise InvalidPromptFile(
            path, f"has {', '.join(extra)}; an entry holds description, variables and text", key=key
        )
    text = entry.get("text")
    if not isinstance(text, str):
        raise InvalidPromptFile(path, "has no text; add 'text:'", key=key)
    if "variables" not in entry:
        raise InvalidPromptFile(
            path, "declares no variables; add 'variables:' ({} when it has none)", key=key
        )
    body = text[:-1] if text.endswith("\n") else text
    try:
        variables = declared_variables(entry, body, place="of the entry")
    except InvalidFrontMatter as exc:
        raise InvalidPromptFile(path, str(exc), key=key) from None
    if not variables and placeholders(body):
        used = ", ".join("{{" + p + "}}" for p in sorted(placeholders(body)))
        raise InvalidPromptFile(
            path, f"uses {used} but declares no variables; declare it under 'variables'", key=key
        )
    return PromptTemplate(
        name=name,
        path=path,
        body=body,
        variables=variables,
        description=str(entry.get("description") or ""),
        key=key,
    )


_OVERRIDES: StampedCache[Path, Catalogue] = StampedCache()
"""Project and user catalogue files, each read again only when it changed."""


@dataclass(frozen=True, kw_only=True)
class MessageCatalogues:
    """A set of catalogues, one per language, with the same keys and variables.

    ``base`` names the set (``edits/catalogue``); ``localize`` says what a name is in a
    language (``edits/catalogue`` in Japanese: ``edits/catalogue_ja``), for the files and
    for the entries' names (``edits/reason_overlap_ja``: the Japanese entry
    ``reason_overlap``, as ``agentprompt prompts`` shows it).
    """

    base: str
    """The set's name: its first language's file, without the suffix."""
    langs: tuple[str, ...]
    """Its languages; the first is the one the others are checked against."""
    localize: Callable[[str, str], str]
    """A name (``edits/feedback_block``) in a language."""
    fixed: tuple[str, ...] = ()
    """Prefixes of the keys only the packaged catalogues word (a project's or the user's
    entry for one is refused): texts that are data as well as words for the model."""

    @property
    def folder(self) -> str:
        """The prompt folder the catalogues sit in (``edits``)."""
        return self.base.rpartition("/")[0]

    def file(self, lang: str) -> str:
        """The catalogue file of ``lang``, below a prompt directory."""
        return self.localize(self.base, lang) + CATALOGUE_SUFFIX

    def entry_name(self, key: str, lang: str) -> str:
        """The prompt-style name of entry ``key`` in ``lang`` (``edits/reason_overlap_ja``)."""
        return self.localize(f"{self.folder}/{key}", lang)

    def packaged(self, lang: str) -> Catalogue:
        """The packaged catalogue of ``lang`` (every language read and checked once)."""
        return _packaged(self)[lang]

    def render(self, key: str, lang: str, /, **values: object) -> str:
        """The packaged text of ``key`` in ``lang`` with ``values`` filled in (no project's
        entry replaces it)."""
        return self.packaged(lang).entry(key).render(**values)

    def overridable(self, key: str) -> bool:
        """Whether a project's or the user's catalogue may word ``key``."""
        return not key.startswith(self.fixed)

    def lookup(self, library: PromptLibrary, key: str, lang: str) -> PromptTemplate:
        """The entry ``key`` in ``lang`` from the first catalogue of the lookup order that
        holds it: a project's or the user's file, else the packaged one."""
        return self.source(library, key, lang)[0]

    def source(
        self, library: PromptLibrary, key: str, lang: str
    ) -> tuple[PromptTemplate, PromptSource]:
        """The entry ``key`` in ``lang`` as :meth:`lookup` finds it, and where it comes from
        (with the files further down the lookup order that hold it, which it overrides)."""
        reference = self.packaged(lang).entry(key)
        hits: list[tuple[str, PromptTemplate]] = []
        files: list[tuple[str, Path]] = []
        if self.overridable(key):
            self._refuse_entry_files(library, key, lang)
            files = library.files(self.file(lang))
        for origin, path in files:
            if origin == "packaged":
                hits.append((origin, reference))
                continue
            override = self._override(path, lang).entries.get(key)
            if override is not None:
                hits.append((origin, override))
        origin, template = hits[0] if hits else ("packaged", reference)
        shadows = tuple(t.path for _, t in hits[1:])
        name = self.entry_name(key, lang)
        return template, PromptSource(name=name, path=template.path, origin=origin, shadows=shadows)

    def named(self, name: str) -> tuple[str, str] | None:
        """The key and language of the entry called ``name`` (``edits/reason_overlap_ja``),
        or None when no packaged entry is called so."""
        for lang in reversed(self.langs):  # a suffixed name before the base one
            for key in self.packaged(lang).entries:
                if self.entry_name(key, lang) == name:
                    return key, lang
        return None

    def sources(self, library: PromptLibrary) -> list[PromptSource]:
        """Where every entry of every language resolves to, as :meth:`source` says, by
        name."""
        return [
            self.source(library, key, lang)[1]
            for lang in self.langs
            for key in self.packaged(lang).entries
        ]

    def _refuse_entry_files(self, library: PromptLibrary, key: str, lang: str) -> None:
        """Refuse a project's or the user's prompt file named like entry ``key``
        (``edits/feedback_block.md``): the entry's text is no longer read from such a file,
        and using the packaged text instead would drop the override without a word."""
        name = self.entry_name(key, lang)
        for origin, path in library.files(f"{name}.md"):
            if origin != "packaged":
                folder = path.parents[len(Path(name).parts) - 1]
                # A project's or the user's prompt file for a text that is now an entry.
                raise InvalidPromptFile(
                    path,
                    f"it is no longer read: its text is the entry {key!r} of a message "
                    f"catalogue now; move the text under that key in {folder / self.file(lang)} "
                    "and delete the file",
                )

    def _override(self, path: Path, lang: str) -> Catalogue:
        """A project's or the user's catalogue of ``lang``, checked against the packaged
        one: each entry must be one of its keys, with the same variables."""

        def parse(text: str) -> Catalogue:
            found = read_catalogue(path, text, _naming(self.entry_name, lang))
            _check_like(found, self.packaged(lang), partial=True)
            for key in found.entries:
                if not self.overridable(key):
                    raise InvalidPromptFile(
                        path,
                        "is worded by the packaged catalogue only (the text is data of "
                        "its own as well); remove it",
                        key=key,
                    )
            return found

        return _OVERRIDES.load_text(path, path, parse, partial(InvalidPromptFile, path))


@cache
def _packaged(catalogues: MessageCatalogues) -> dict[str, Catalogue]:
    """Every packaged catalogue of the set, read, and checked against the first."""
    files = [(lang, PACKAGED_DIR / catalogues.file(lang)) for lang in catalogues.langs]
    return read_languages(files, catalogues.entry_name)


def read_languages(
    files: Sequence[tuple[str, Path]], name: Callable[[str, str], str]
) -> dict[str, Catalogue]:
    """The catalogue of each language (``files``: each language with its file), every one
    holding the keys of the first with the same variables
    (:class:`~agentprompt.prompts.loader.InvalidPromptFile` names the file and the key that
    differ); ``name(key, lang)`` names each entry's template."""
    found = {
        lang: read_catalogue(path, path.read_text(encoding="utf-8"), _naming(name, lang))
        for lang, path in files
    }
    reference = found[files[0][0]]
    for lang, _ in files[1:]:
        _check_like(found[lang], reference, partial=False)
    return found


def _naming(name: Callable[[str, str], str], lang: str) -> Callable[[str], str]:
    """``name`` for the entries of one language."""
    return lambda key: name(key, lang)


def _check_like(catalogue: Catalogue, reference: Catalogue, *, partial: bool) -> None:
    """``catalogue`` holds the keys of ``reference`` (some of them when ``partial``), each
    with the same variables; :class:`~agentprompt.prompts.loader.InvalidPromptFile` names the
    file and the key."""
    for key, entry in catalogue.entries.items():
        other = reference.entries.get(key)
        if other is None:
            raise InvalidPromptFile(
                catalogue.path,
                f"is not an entry of {reference.path}; check its spelling (or add it there)",
                key=key,
            )
        if set(entry.variables) != set(other.variables):
            raise InvalidPromptFile(
                catalogue.path,
                f"declares {_listed(entry.variables)} where {reference.path} declares "
                f"{_listed(other.variables)}; declare the same variables",
                key=key,
            )
    if not partial:
        missing = sorted(set(reference.entries) - set(catalogue.entries))
        if missing:
            raise InvalidPromptFile(
                catalogue.path,
                f"lacks {', '.join(missing)}, which {reference.path} holds; add them",
                key=missing[0],
            )


def _listed(variables: tuple[str, ...]) -> str:
    """Variables as an error names them."""
    return ", ".join(sorted(variables)) if variables else "no variables"
