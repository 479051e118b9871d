"""Gitignore-style rules that remember where they came from, decided with git's semantics.

Discovery needs more than "is this path ignored": it must say *which* rule of *which* file
decided, so every rule carries its source and line. A rule read from ``dir/.gitignore``
applies to paths under ``dir/``, relative to that folder. A path is decided as git decides
it: if one of its parent folders is left out (judged, folder by folder from the top, by the
last rule that matches that folder itself), the path is out with it and nothing can bring it
back; otherwise the last rule matching the path itself decides (a ``!`` rule re-includes).
Patterns are read by :mod:`agentprompt.repo.discovery._wildmatch`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from agentprompt.errors import UsageError, literal
from agentprompt.repo.discovery._wildmatch import InvalidPattern, translate

__all__ = ["InvalidIgnorePattern", "Rule", "RuleSet", "parse_rules"]


class InvalidIgnorePattern(UsageError):
    """A pattern given as an option is not valid gitignore syntax."""


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One gitignore-style pattern and where it was written."""

    pattern: str
    """The pattern as written (without trailing whitespace)."""
    source: str
    """Where it comes from: an ignore file's path relative to the root, or a label."""
    line: int | None
    """Its 1-based line in ``source``; ``None`` for built-in or option patterns."""
    base: str
    """The directory it applies under, relative to the root, ``""`` or ending in ``/``."""
    excludes: bool
    """True for an excluding pattern, False for a ``!`` pattern that re-includes."""
    dir_only: bool = False
    """True when the pattern ends in ``/`` and so matches folders only."""
    anchored: bool = False
    """True when it matches the path relative to ``base``; else any last path component."""
    regex: re.Pattern[str] = field(repr=False, compare=False, default=re.compile("(?!)"))
    """The compiled pattern (for ``fullmatch``) of the path itself, never of its parents."""

    def describe(self) -> str:
        """``source:line (`pattern`)``, as an exclusion reason names it."""
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where} (`{self.pattern}`)"

    def matches(self, rel: str, *, is_dir: bool) -> bool:
        """True when this rule matches ``rel`` (relative to ``base``, no trailing slash)."""
        if self.dir_only and not is_dir:
            return False
        subject = rel if self.anchored else rel.rpartition("/")[2]
        return self.regex.fullmatch(subject) is not None


def parse_rules(
    lines: Iterable[str],
    *,
    source: str,
    base: str = "",
    numbered: bool = True,
    problems: list[str] | None = None,
    named: str | None = None,
) -> list[Rule]:
    """The rules in the lines of an ignore file (blank lines and comments skipped).

    An invalid pattern is skipped with a line in ``problems``; without a ``problems`` list
    it raises :class:`InvalidIgnorePattern`, naming the source as ``named`` when it is
    given (patterns given as an option: ``option {exclude}``, which each front door words).
    """
    rules = []
    for number, raw in enumerate(lines, start=1):
        text = raw.rstrip("\r\n")
        try:
            read = translate(text)
        except InvalidPattern as exc:
            where = f"{source}:{number}" if numbered else source
            message = f"{where}: `{text}` is not a valid gitignore pattern ({exc})"
            if problems is None and named is not None:
                raise InvalidIgnorePattern(
                    f"{named}: `{literal(text)}` is not a valid gitignore pattern "
                    f"({literal(str(exc))})",
                    names=True,
                ) from None
            if problems is None:
                raise InvalidIgnorePattern(message) from None
            problems.append(message + "; skipped")
            continue
        if read is None:
            continue
        rules.append(
            Rule(
                pattern=text.rstrip(),
                source=source,
                line=number if numbered else None,
                base=base,
                excludes=not read.negated,
                dir_only=read.dir_only,
                anchored=read.anchored,
                regex=re.compile(read.regex, re.DOTALL),
            )
        )
    return rules


def _alternation(indexed: list[tuple[int, Rule]]) -> re.Pattern[str] | None:
    """One regex trying the rules latest first: the group that matches names the winner."""
    if not indexed:
        return None
    parts = [f"(?P<r{i}>{rule.regex.pattern})" for i, rule in reversed(indexed)]
    return re.compile("|".join(parts), re.DOTALL)


def _winner(pattern: re.Pattern[str] | None, subject: str) -> int:
    if pattern is None:
        return -1
    found = pattern.fullmatch(subject)
    if found is None or found.lastgroup is None:
        return -1
    return int(found.lastgroup[1:])


class _BaseRules:
    """The rules of one base folder, as four alternations (by component or whole path, for
    any path or folders only), with the answer for every last component remembered."""

    __slots__ = ("_name_any", "_name_dir", "_names", "_path_any", "_path_dir")

    def __init__(self, indexed: list[tuple[int, Rule]]) -> None:
        def pick(anchored: bool, dir_only: bool) -> re.Pattern[str] | None:
            return _alternation(
                [(i, r) for i, r in indexed if r.anchored is anchored and r.dir_only is dir_only]
            )

        self._name_any = pick(False, False)
        self._name_dir = pick(False, True)
        self._path_any = pick(True, False)
        self._path_dir = pick(True, True)
        self._names: dict[tuple[str, bool], int] = {}

    def match(self, rel: str, is_dir: bool) -> int:
        """The index of the latest rule matching ``rel`` itself, or -1."""
        name = rel.rpartition("/")[2]
        best = self._names.get((name, is_dir))
        if best is None:
            best = _winner(self._name_any, name)
            if is_dir:
                best = max(best, _winner(self._name_dir, name))
            self._names[(name, is_dir)] = best
        best = max(best, _winner(self._path_any, rel))
        if is_dir:
            best = max(best, _winner(self._path_dir, rel))
        return best


class RuleSet:
    """An ordered list of rules (later wins), decided with git's semantics."""

    __slots__ = ("_folders", "_groups", "rules")

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        """The rules, earliest first."""
        bases: dict[str, list[tuple[int, Rule]]] = {}
        for index, rule in enumerate(self.rules):
            bases.setdefault(rule.base, []).append((index, rule))
        self._groups = tuple((base, _BaseRules(indexed)) for base, indexed in bases.items())
        self._folders: dict[str, tuple[Rule | None, str | None]] = {"": (None, None)}

    def extended(self, rules: Sequence[Rule]) -> RuleSet:
        """This set followed by ``rules`` (which win over it)."""
        return self if not rules else RuleSet((*self.rules, *rules))

    def match(self, path: str) -> Rule | None:
        """The last rule matching ``path`` itself (relative to the root; folders end in ``/``),
        whatever its parent folders are."""
        is_dir = path.endswith("/")
        key = path[:-1] if is_dir else path
        best = -1
        for base, group in self._groups:
            if key.startswith(base) and len(key) > len(base):
                best = max(best, group.match(key[len(base) :], is_dir))
        return self.rules[best] if best >= 0 else None

    def _folder(self, prefix: str) -> tuple[Rule | None, str | None]:
        """The rule leaving out folder ``prefix`` (``a/b/``) or a parent of it, and which."""
        known = self._folders.get(prefix)
        if known is not None:
            return known
        parent = prefix[:-1].rpartition("/")[0]
        verdict = self._folder(parent + "/" if parent else "")
        if verdict[0] is None:
            rule = self.match(prefix)
            if rule is not None and rule.excludes:
                verdict = (rule, prefix)
        self._folders[prefix] = verdict
        return verdict

    def decide(self, path: str) -> tuple[Rule | None, str | None]:
        """git's verdict on ``path`` (folders end in ``/``): the deciding rule (``None`` when
        none matches), and the folder it left out when a parent folder decided."""
        trimmed = path[:-1] if path.endswith("/") else path
        parent = trimmed.rpartition("/")[0]
        rule, folder = self._folder(parent + "/" if parent else "")
        if rule is not None:
            return rule, folder
        return self.match(path), None
