"""detect-secrets' per-line scan, run over chosen lines of a text held in memory.

``scan_file`` opens a file, reads its lines (``f.readlines()``: universal newlines, the
locale's encoding) and passes every line through ``_process_line_based_plugins``: a line
filter (the allowlist pragmas, which read the previous line from the line's code snippet),
every plugin's ``analyze_line``, and the secret filters. That costs tens of microseconds a
line. The lines it could report anything on are known beforehand
(:func:`agentprompt.repo.secrets._filter.candidate_lines`), so :class:`LineScanner` runs the
same loop body for just those lines, building each line's code snippet from the full list
of the text's lines, so the filters see what they see in ``scan_file``.

The rest of ``scan_file`` is kept as follows. Its file-name filters run on the file name,
except ``is_invalid_file``, which asks whether the file exists: there is no file here, and
in ``scan_file`` there always was one. Where its transformers may rewrite the lines (YAML,
INI: the caller says so), they are asked, over the text in memory, exactly when
``scan_file`` asks them: a non-eager transformer's lines replace the text's own in the
first pass, and the eager transformers' lines are read in a second pass when the first
found nothing; those lines are all read, by detect-secrets' own loop. Elsewhere the
transformers give no lines, so the first pass reads the text's own candidate lines and
there is no second pass. A text that would not read back unchanged from a UTF-8 file in
the locale's encoding (lone surrogates, a non-UTF-8 locale) is not scanned here
(:meth:`LineScanner.scan` returns None).

The loop calls detect-secrets' private helpers, so it runs only with the version it was
written against (:data:`SUPPORTED_VERSION`); with another version, or when a helper cannot
be imported, :func:`line_scanner` yields None and the caller scans whole files as before.
"""

from __future__ import annotations

import codecs
import io
import locale
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = ["SUPPORTED_VERSION", "LineScanner", "line_scanner", "read_lines"]

SUPPORTED_VERSION = "1.5.0"
"""The detect-secrets version whose ``_process_line_based_plugins`` the scan reproduces."""

_INVALID_FILE = "detect_secrets.filters.common.is_invalid_file"

Finding = tuple[int, str]
"""A finding: the 1-based line number and detect-secrets' kind of secret."""


@dataclass(frozen=True)
class _Helpers:
    """The detect-secrets internals the per-line loop is made of."""

    is_filtered_out: Callable[..., bool]
    scan_line: Callable[..., Iterator[Any]]
    code_snippet: Callable[..., Any]
    plugins: Callable[[], list[Any]]
    settings: Callable[[], Any]
    transformed: Callable[..., list[str] | None]
    scan_lines: Callable[..., Iterator[Any]]


def _helpers() -> _Helpers | None:
    """detect-secrets' helpers, or None unless the installed version is the supported one
    and all of them import."""
    try:
        from detect_secrets.__version__ import VERSION
        from detect_secrets.core.scan import (
            _is_filtered_out,
            _process_line_based_plugins,
            _scan_line,
        )
        from detect_secrets.settings import default_settings, get_plugins
        from detect_secrets.transformers import get_transformed_file
        from detect_secrets.util.code_snippet import get_code_snippet
    except ImportError:
        return None
    if VERSION != SUPPORTED_VERSION:
        return None
    return _Helpers(
        is_filtered_out=_is_filtered_out,
        scan_line=_scan_line,
        code_snippet=get_code_snippet,
        plugins=get_plugins,
        settings=default_settings,
        transformed=get_transformed_file,
        scan_lines=_process_line_based_plugins,
    )


def read_lines(text: str) -> list[str] | None:
    """The lines ``open(name).readlines()`` returns for a file holding ``text`` written as
    UTF-8 (universal newlines, each line keeping its ``\\n``); None when reading that file
    would not give back ``text`` (lone surrogates, or a locale encoding other than UTF-8)."""
    if codecs.lookup(locale.getpreferredencoding(False)).name != "utf-8":
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return io.StringIO(text, newline=None).readlines()


class LineScanner:
    """Runs ``scan_file``'s per-line loop over chosen lines, inside detect-secrets' default
    settings (opened by :func:`line_scanner`)."""

    def __init__(self, helpers: _Helpers) -> None:
        self._helpers = helpers

    def scan(
        self, name: str, text: str, numbers: Collection[int], *, rewritten: bool
    ) -> tuple[Finding, ...] | None:
        """What ``scan_file`` reports for ``text`` in a file called ``name``, provided every
        one of the text's own lines it could report on is in ``numbers``, and that its
        transformers rewrite no lines unless ``rewritten``; None when this text must go to
        ``scan_file`` (see :func:`read_lines`).

        Like ``scan_file``: the first pass reads the lines a (non-eager) transformer gives,
        else the text's own; only if it finds nothing, the eager transformers are asked
        and the lines they give are read too."""
        lines = read_lines(text)
        if lines is None:
            return None
        helpers = self._helpers
        if not helpers.plugins() or helpers.is_filtered_out(
            required_filter_parameters=["filename"], filename=name
        ):
            return ()
        rewrite = self._transformed(name, text, eager=False) if rewritten else None
        if rewrite:
            found = self._scan_all(name, rewrite)
        else:
            found = [hit for n in sorted(numbers) for hit in self._scan_line(name, lines, n)]
        if found or not rewritten:
            return tuple(found)
        eager = self._transformed(name, text, eager=True)
        return tuple(self._scan_all(name, eager)) if eager else ()

    def _transformed(self, name: str, text: str, *, eager: bool) -> list[str] | None:
        """The lines detect-secrets' (eager) transformers make of the file, if any does."""
        file = io.StringIO(text, newline=None)
        file.name = name
        return self._helpers.transformed(file, use_eager_transformers=eager)

    def _scan_all(self, name: str, lines: list[str]) -> list[Finding]:
        """``scan_file``'s pass over every one of ``lines`` (by detect-secrets itself)."""
        secrets = self._helpers.scan_lines(lines=list(enumerate(lines, start=1)), filename=name)
        return [(int(s.line_number), str(s.type)) for s in secrets]

    def _scan_line(self, name: str, lines: list[str], number: int) -> Iterator[Finding]:
        """The body of ``_process_line_based_plugins``' loop for line ``number``."""
        helpers = self._helpers
        if not 1 <= number <= len(lines):
            return
        line = lines[number - 1].rstrip()
        snippet = helpers.code_snippet(lines=lines, line_number=number)
        if helpers.is_filtered_out(
            required_filter_parameters=["line"], filename=name, line=line, context=snippet
        ):
            return
        for plugin in helpers.plugins():
            for secret in helpers.scan_line(
                plugin=plugin, filename=name, line=line, line_number=number, context=snippet
            ):
                if not helpers.is_filtered_out(
                    required_filter_parameters=["context"],
                    filename=secret.filename,
                    secret=secret.secret_value,
                    plugin=plugin,
                    line=line,
                    context=snippet,
                ):
                    yield int(secret.line_number), str(secret.type)


@contextmanager
def line_scanner() -> Iterator[LineScanner | None]:
    """A scanner inside detect-secrets' default settings (without ``is_invalid_file``), or
    None when the installed detect-secrets is not the supported version."""
    helpers = _helpers()
    if helpers is None:
        yield None
        return
    with helpers.settings() as settings:
        settings.disable_filters(_INVALID_FILE)
        yield LineScanner(helpers)
