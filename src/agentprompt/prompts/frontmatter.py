"""Front matter: the YAML mapping between ``---`` lines that opens a prompt file or an agent
file, and the body after it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

__all__ = ["FrontMatter", "InvalidFrontMatter", "read_front_matter"]

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)


class InvalidFrontMatter(ValueError):
    """Front matter that is not a YAML mapping, or whose declared variables are malformed or
    miss a placeholder the text uses; the message says what is wrong, and the reader of the
    file names the file."""


@dataclass(frozen=True, kw_only=True)
class FrontMatter:
    """A file's front matter, read, and the text after it."""

    meta: dict[str, Any]
    """The keys and values between the ``---`` lines (empty when there are none)."""
    body: str
    """The text after the closing ``---`` line, as it is."""


def read_front_matter(text: str) -> FrontMatter | None:
    """The front matter ``text`` starts with, or None when it starts with none;
    :class:`InvalidFrontMatter` when it is not valid YAML or not a mapping."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return None
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise InvalidFrontMatter(f"front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise InvalidFrontMatter("front matter must be a mapping of keys to values")
    return FrontMatter(meta=meta, body=text[match.end() :])
