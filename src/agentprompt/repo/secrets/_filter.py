"""Which texts detect-secrets could possibly flag, decided quickly with its own rules.

detect-secrets' ``scan_file`` reads every line with every plugin in Python, which makes a
cold pack of a large repository take minutes. Almost every file holds nothing it could
report, and that can be decided much faster with detect-secrets' *own* rules: each
regex-based plugin's ``denylist``, the high-entropy plugins' quoted-string regex with
their own entropy function and limit, and the keyword plugin's regexes (all of them,
whatever the file type; :mod:`agentprompt.repo.secrets._keywords`). A file with no possible
hit is not scanned at all (:func:`may_hold_secret`), and in the others the same rules
name the lines detect-secrets could flag (:func:`candidate_lines`), so that it reads only
those (:mod:`agentprompt.repo.secrets._lines`) and reports what ``scan_file`` reports.

Most regexes are run over the whole text at once. That can only find *more* than
detect-secrets' per-line matching: the lines it scans are the text split at ``\\n`` (after
Python's universal-newline reading, reproduced here) with trailing whitespace stripped;
none of the rules' regexes uses ``\\A``, ``\\Z`` or ``\\B``, the ``^``/``$`` anchors are
given ``re.MULTILINE`` and sit beside ``\\s`` alternatives, and every negative lookaround
rejects only word characters, dots or hex digits, never the whitespace or line break that
follows a line in the whole text. So a match within a line is still a match at the same
place in the whole text. A regex that cannot match without certain plain words
(:mod:`agentprompt.repo.secrets._regexneeds`) is skipped when the text lacks them, and tried line
by line, exactly as detect-secrets reads lines, where its rarest word occurs. The
costliest regexes have quicker necessary gates (:mod:`agentprompt.repo.secrets._gates`) and
are tried only on the lines where those hit. Which words and gates a text holds, and where
the keywords begin, is asked of it in one pass where that can be done
(:mod:`agentprompt.repo.secrets._presence`); the answers are those of the searches it spares.

Files whose lines detect-secrets may rewrite before scanning (:func:`may_be_rewritten`)
are always scanned, whatever their own lines, and the scan asks its transformers for the
rewritten lines: YAML files (its YAML transformer), and files its INI transformer may
parse, which adds quotes around unquoted values. That transformer is tried on every file first;
configparser stops at the first meaningful line unless it is a ``[section]`` header. It is
tried again with a ``[global]`` header on files of no known type when the first pass found
nothing, and then parses only if no line at column 0 is something other than a comment,
a section header or an option (``key = value`` / ``key: value``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from agentprompt.repo.secrets._gates import Gate, gate_for, gated_lines
from agentprompt.repo.secrets._keywords import Keyword, keyword_rule, keyword_spans
from agentprompt.repo.secrets._presence import Held, PresenceIndex, presence_index
from agentprompt.repo.secrets._regexneeds import (
    Words,
    lacks_required,
    lines_matching,
    matching_lines,
    required_words,
    selective,
    whole_text,
)
from agentprompt.repo.secrets.stores import extra_findings

__all__ = ["candidate_lines", "may_be_rewritten", "may_hold_secret"]

# The first line configparser reads as more than blank or a comment; a file can parse as
# INI without a header only if this line is a section header.
_FIRST_MEANINGFUL = re.compile(r"^[^\S\n]*([^#;\s][^\n]*)", re.MULTILINE)
_SECTION = re.compile(r"\[.+\]")
# A column-0 line that is not a comment, section header or option: configparser fails.
_NOT_INI = re.compile(r"^[^\s#;\[][^\n=:]*$", re.MULTILINE)


@dataclass(frozen=True)
class _Entropy:
    """One high-entropy plugin: its quoted-string regex, a quick necessary gate, its
    entropy function and limit."""

    regex: re.Pattern[str]
    gates: tuple[re.Pattern[str], ...]
    entropy: Callable[[str], float]
    limit: float


@dataclass(frozen=True)
class _Regex:
    """One regex-based plugin's regex, with what a text needs for it to match."""

    regex: re.Pattern[str]
    needs: tuple[Words, ...]
    """Sets of words: the text holds one of each, or the regex cannot match."""
    selective: bool
    """Whether its rarest word is worth a line-by-line search."""
    gate: Gate | None
    """A quick necessary gate (:mod:`agentprompt.repo.secrets._gates`), if one was written."""


def _regex_rule(regex: re.Pattern[str]) -> _Regex:
    needs = required_words(regex)
    return _Regex(regex=regex, needs=needs, selective=selective(needs), gate=gate_for(regex))


@dataclass(frozen=True)
class _Rules:
    """detect-secrets' default plugins' rules, ready for whole-text matching."""

    regexes: tuple[_Regex, ...]
    """Each regex-based plugin's regexes."""
    entropy: tuple[_Entropy, ...]
    keyword: Keyword | None
    folded: frozenset[str]
    """Characters that match a letter of the rules' words case-insensitively but do not
    lowercase to it (``ſ`` matches ``s``): a text holding one is searched without words."""
    unknown: bool
    """A plugin of a kind not understood here: every text must be scanned."""
    presence: PresenceIndex | None = None
    """The words and gates above, asked of a text in one pass
    (:mod:`agentprompt.repo.secrets._presence`), when that can be done."""


def _entropy_rule(plugin: Any) -> _Entropy:
    limit = float(plugin.entropy_limit)
    # An entropy above L bits needs more than 2**L distinct characters.
    shortest = int(2**limit) + 1
    charset = re.escape(plugin.charset)
    # One gate per quote: a pattern that begins with a literal is searched at C speed.
    gates = tuple(re.compile(rf"{quote}[{charset}]{{{shortest},}}{quote}") for quote in "'\"")
    return _Entropy(
        regex=plugin.regex, gates=gates, entropy=plugin.calculate_shannon_entropy, limit=limit
    )


@lru_cache(maxsize=1)
def _rules() -> _Rules:
    from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
    from detect_secrets.plugins.keyword import KeywordDetector
    from detect_secrets.settings import default_settings, get_plugins

    regexes: list[_Regex] = []
    entropy: list[_Entropy] = []
    keyword: Keyword | None = None
    unknown = False
    with default_settings():
        for plugin in get_plugins():
            if type(plugin).analyze_line is not BasePlugin.analyze_line and not isinstance(
                plugin, (HighEntropyStringsPlugin, KeywordDetector)
            ):
                unknown = True  # reads lines its own way: not covered by these rules
            elif isinstance(plugin, RegexBasedDetector):
                regexes.extend(_regex_rule(whole_text(r)) for r in plugin.denylist)
            elif isinstance(plugin, HighEntropyStringsPlugin):
                entropy.append(_entropy_rule(plugin))
            elif isinstance(plugin, KeywordDetector) and not plugin.keyword_exclude:
                keyword = keyword_rule()
            else:
                unknown = True
    return _Rules(
        regexes=tuple(regexes),
        entropy=tuple(entropy),
        keyword=keyword,
        folded=_folded({*"".join(w for rule in regexes for ws in rule.needs for w in ws)}),
        unknown=unknown,
        presence=_presence(regexes, entropy, keyword),
    )


def _presence(
    regexes: list[_Regex], entropy: list[_Entropy], keyword: Keyword | None
) -> PresenceIndex | None:
    """One index of every word the rules need, every gate pattern and the keyword cores."""
    gates = [rule.gate for rule in regexes if rule.gate is not None]
    words = [word for rule in regexes for words in rule.needs for word in words]
    words += [core for core, _held in keyword.cores] if keyword is not None else []
    return presence_index(
        words,
        [p for gate in gates if gate.lowered for p in gate.patterns],
        [
            *(p for gate in gates if not gate.lowered for p in gate.patterns),
            *(p for rule in entropy for p in rule.gates),
        ],
        keywords=keyword.words if keyword is not None else (),
    )


def _folded(letters: set[str]) -> frozenset[str]:
    """The characters beyond ASCII that ``re.IGNORECASE`` matches to one of ``letters``
    although their lowercase differs (asked of ``re`` itself)."""
    letters = {c for c in letters | {*"abcdefghijklmnopqrstuvwxyzñ"} if c.isalpha()}
    every = "".join(map(chr, range(0x80, 0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))
    # One pass over every character for any of the letters, then each candidate is asked
    # of each letter's own pattern (a few dozen candidates instead of a pass per letter).
    anyone = re.compile(f"[{''.join(map(re.escape, sorted(letters)))}]", re.IGNORECASE)
    candidates = set(anyone.findall(every))
    found: set[str] = set()
    for letter in letters:
        own = re.compile(re.escape(letter), re.IGNORECASE)
        found.update(c for c in candidates if own.fullmatch(c) and c.lower() != letter)
    return frozenset(found)


def _lowered(rules: _Rules, text: str) -> str | None:
    """``text`` in lower case with every character where it was, when plain word search
    in it finds what a case-insensitive search finds; else None."""
    if text.isascii():
        return text.lower()
    if any(c in text for c in rules.folded):
        return None
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else None


def _rewritten(name: str, text: str) -> bool:
    """Whether detect-secrets may scan lines rewritten by a transformer, not the text's own."""
    from detect_secrets.util.filetype import FileType, determine_file_type

    kind = determine_file_type(name)
    if kind == FileType.YAML:
        return True
    first = _FIRST_MEANINGFUL.search(text)
    if first is not None and _SECTION.match(first.group(1)):
        return True
    return kind == FileType.OTHER and _NOT_INI.search(text) is None


def _as_read(text: str) -> str:
    """``text`` with the line breaks detect-secrets reads (universal newlines)."""
    if "\r" in text:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def may_be_rewritten(path: str, text: str) -> bool:
    """Whether detect-secrets' transformers may scan rewritten lines, not the text's own
    (YAML, INI), so that they must be asked (see the module docstring)."""
    return _rewritten(PurePosixPath(path).name, _as_read(text))


def may_hold_secret(path: str, text: str) -> bool:
    """False only when detect-secrets' ``scan_file`` (default plugins) cannot report
    anything in ``text`` stored under ``path``'s file name; True means it must be scanned."""
    if extra_findings(path, text):
        return True  # named like a secret store, or a URL password detect-secrets misses
    rules = _rules()
    if rules.unknown or may_be_rewritten(path, text):
        return True
    text = _as_read(text)
    return next(_spans(rules, text, _lowered(rules, text)), None) is not None


def candidate_lines(path: str, text: str) -> frozenset[int] | None:
    """The 1-based numbers of the lines of ``text`` (as detect-secrets reads and numbers
    them) that ``scan_file`` could report anything on when it reads the text's own lines;
    it reports nothing on the others. None when the rules do not cover detect-secrets'
    plugins (it must read every line). Lines a transformer rewrites are another matter
    (:func:`may_be_rewritten`).

    Why no flagged line is missed: a rule matching within a line at offset ``p`` also
    matches the whole text at ``p`` (module docstring). ``finditer`` tries every offset it
    has not stepped over, so either it tries ``p`` and reports a match starting there, or
    ``p`` lies inside a match it reported; either way the line of ``p`` lies between that
    match's first and last line, all of which are candidates. The keyword regexes are
    tried on every line where a keyword begins, a line-by-line search tries every line
    holding the words a rule needs, and a gated rule every line holding a hit of its gate
    (:mod:`agentprompt.repo.secrets._gates`). A text with characters that fold to the rules'
    letters gets no word gates nor lowered gates: those regexes run over all of it."""
    rules = _rules()
    if rules.unknown:
        return None
    text = _as_read(text)
    return _line_numbers(text, _spans(rules, text, _lowered(rules, text)))


def _spans(rules: _Rules, text: str, lowered: str | None) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` offsets of the rules' matches in ``text`` that hold every
    offset at which detect-secrets' per-line matching could match (none means the text
    holds nothing it reports); lazily, so asking for the first is quick."""
    gated: dict[tuple[re.Pattern[str], ...], list[tuple[int, int]]] = {}  # once per gate
    # What the text holds of the words and gates, in one pass (None: ask each in turn).
    held = None
    if lowered is not None and rules.presence is not None:
        held = rules.presence.held(text, lowered)
    for rule in rules.regexes:
        gate = rule.gate
        if gate is not None and (lowered is not None or not gate.lowered):
            if held is not None and not _any_pattern(held, gate.patterns):
                continue  # no gate hit: no line the regex could match within
            if gate.patterns not in gated:
                hay = text if lowered is None else lowered
                gated[gate.patterns] = gated_lines(gate, text, hay)
            yield from lines_matching(rule.regex, text, gated[gate.patterns])
        elif _lacks(rule, held, lowered):
            continue
        elif lowered is not None and rule.selective:
            yield from matching_lines(rule.regex, rule.needs, text, lowered)
        else:
            yield from (found.span() for found in rule.regex.finditer(text))
    for entropy in rules.entropy:
        if held is None or _any_pattern(held, entropy.gates):
            yield from _entropy_spans(entropy, text)
    keyword = rules.keyword
    if keyword is not None and (
        held is None or not keyword.cores or any(core in held.words for core, _ in keyword.cores)
    ):
        # With cores, a keyword starts only where one of them is (see keyword_spans).
        starts = None
        if lowered is not None and rules.presence is not None and keyword.words:
            starts = rules.presence.starts(text, lowered)
        yield from keyword_spans(keyword, text, lowered, starts)


def _lacks(rule: _Regex, held: Held | None, lowered: str | None) -> bool:
    """Whether the text misses every word of one of the sets ``rule`` needs (so its
    regex cannot match), from the index where it was asked, else by search."""
    if held is not None:
        return any(not words & held.words for words in rule.needs)
    return lowered is not None and lacks_required(rule.needs, lowered)


def _any_pattern(held: Held, patterns: Iterable[re.Pattern[str]]) -> bool:
    """Whether one of ``patterns`` may match: it has a hit, or the text was not asked."""
    if held.patterns is None:
        return True
    return any(p.pattern in held.patterns for p in patterns)


def _line_numbers(text: str, spans: Iterable[tuple[int, int]]) -> frozenset[int]:
    """The 1-based numbers of the lines the spans touch, first to last line of each, found
    by counting line breaks between sorted offsets (C speed, one pass over the text)."""
    pairs = [(start, max(start, end - 1)) for start, end in spans]
    line_of: dict[int, int] = {}
    line, at = 1, 0
    for offset in sorted({offset for pair in pairs for offset in pair}):
        line += text.count("\n", at, offset)
        at = offset
        line_of[offset] = line
    numbers: set[int] = set()
    for first, last in pairs:
        numbers.update(range(line_of[first], line_of[last] + 1))
    return frozenset(numbers)


def _entropy_spans(rule: _Entropy, text: str) -> Iterator[tuple[int, int]]:
    """The quoted strings (one line each: the charsets hold no line break) whose entropy
    is over the plugin's limit; the plugin's per-line ``findall`` finds exactly these."""
    if all(gate.search(text) is None for gate in rule.gates):
        return
    for found in rule.regex.finditer(text):
        value = found.group(2)
        if len(value) > 2**rule.limit and rule.entropy(value) > rule.limit:
            yield found.span()
