"""Include and exclude patterns: gitignore patterns that narrow a discovery, or pick files.

Both take gitignore syntax, the same in every door that filters files: an exclude pattern
leaves out what it matches (a folder pattern leaves out all under it), and when any
include pattern is given only the files an include pattern matches (or that are under a
folder one matches) are kept. A pattern that matches no file is an error, so a typo does
not silently change what a prompt shows; :func:`matching_files` lists what one pattern
picks, strictly or not.

Errors name the input a pattern came from by its plain name (``include``, ``exclude``,
``globs``); each door words it its own way (the command line as its option)::

    UsageError
    └── InvalidIgnorePattern    a pattern that is not valid gitignore syntax

A pattern that matches none of the files is a ``UsageError`` of its input
(:func:`matches_nothing`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from agentprompt.errors import UsageError, literal
from agentprompt.repo.discovery._files import Discovery
from agentprompt.repo.discovery._ignore import InvalidIgnorePattern, RuleSet, parse_rules
from agentprompt.repo.discovery._scan_types import Exclusion
from agentprompt.repo.discovery._wildmatch import InvalidPattern, translate

__all__ = [
    "filter_discovery",
    "left_out_by",
    "matches_nothing",
    "matching_files",
    "matching_rules",
]

_SYNTAX = "check the pattern (gitignore syntax: 'docs/', '*.md', '/CHANGES.rst')"


def matches_nothing(input: str, pattern: str) -> UsageError:
    """The error for a pattern given as ``input`` (``include``, ``exclude``, ...) that
    matches none of the files."""
    return UsageError(
        "{" + input + "} " + f"{literal(repr(pattern))} matches no file of the repository",
        input=input,
        fix=_SYNTAX,
    )


def matching_rules(patterns: Sequence[str], input: str) -> RuleSet:
    """``patterns`` as a rule set; an invalid one is :class:`InvalidIgnorePattern` naming
    ``input``, the input the patterns were given as."""
    for pattern in patterns:
        text = pattern.rstrip("\r\n")
        try:
            translate(text)
        except InvalidPattern as exc:
            raise InvalidIgnorePattern(
                f"`{literal(text)}` is not a valid gitignore pattern ({literal(str(exc))})",
                input=input,
            ) from None
    return RuleSet(parse_rules(patterns, source=input, numbered=False))


def _matches(rules: RuleSet, path: str) -> bool:
    rule, _ = rules.decide(path)
    return rule is not None and rule.excludes


def left_out_by(includes: Sequence[str], excludes: Sequence[str]) -> Callable[[str], bool]:
    """Whether a path is one these patterns leave out, as :func:`filter_discovery` leaves
    it out: not matched by any include pattern (when there are some), or matched by an
    exclude pattern."""
    keep = matching_rules(includes, "include") if includes else None
    drop = matching_rules(excludes, "exclude") if excludes else None

    def left_out(path: str) -> bool:
        if keep is not None and not _matches(keep, path):
            return True
        return drop is not None and _matches(drop, path)

    return left_out


def matching_files(
    paths: Sequence[str], pattern: str, *, input: str, strict: bool = True
) -> tuple[str, ...]:
    """The files among ``paths`` (relative to the root) that the gitignore pattern
    ``pattern`` matches, or that are under a folder it matches, in their order. ``input``
    names where the pattern came from, for its errors; ``strict``: a pattern matching none
    of ``paths`` is a :class:`UsageError` naming ``input`` (else no file)."""
    rules = matching_rules([pattern], input)
    found = tuple(path for path in paths if _matches(rules, path))
    if strict and not found:
        raise matches_nothing(input, pattern)
    return found


def filter_discovery(
    found: Discovery,
    includes: Sequence[str] = (),
    excludes: Sequence[str] = (),
    *,
    strict: bool = True,
) -> Discovery:
    """``found`` with only the files ``includes`` match (all when none is given) and none
    that ``excludes`` match; each file left out is reported with the option that left it
    out. ``strict``: a pattern matching no file is a
    :class:`~agentprompt.errors.UsageError`."""
    if not includes and not excludes:
        return found
    kept = list(found.files)
    left: list[Exclusion] = []
    for input, patterns, keep_matching in (
        ("include", includes, True),
        ("exclude", excludes, False),
    ):
        if not patterns:
            continue
        for pattern in patterns:
            single = matching_rules([pattern], input)
            if strict and not any(_matches(single, f.path) for f in found.files):
                raise matches_nothing(input, pattern)
        rules = matching_rules(patterns, input)
        next_kept = []
        for item in kept:
            if _matches(rules, item.path) == keep_matching:
                next_kept.append(item)
            else:
                reason = (
                    "not matched by the include patterns"
                    if keep_matching
                    else "left out by an exclude pattern"
                )
                left.append(Exclusion(path=item.path, reason=reason))
        kept = next_kept
    excluded = tuple(sorted((*found.excluded, *left), key=lambda e: e.path))
    return replace(found, files=tuple(kept), excluded=excluded)
