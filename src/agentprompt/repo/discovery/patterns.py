"""``--include`` and ``--exclude``: gitignore patterns that narrow a discovery.

Both take gitignore syntax, the same in every command that filters files: ``--exclude``
leaves out what a pattern matches (a folder pattern leaves out all under it), and when any
``--include`` is given only the files an include pattern matches (or that are under a
folder one matches) are kept. A pattern that matches no file is an error, so a typo does
not silently change what a prompt shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agentprompt.errors import UsageError, literal
from agentprompt.repo.discovery._files import Discovery
from agentprompt.repo.discovery._ignore import RuleSet, parse_rules
from agentprompt.repo.discovery._scan_types import Exclusion

__all__ = ["filter_discovery", "matching_rules"]


def matching_rules(patterns: Sequence[str], option: str) -> RuleSet:
    """``patterns`` as a rule set (an invalid one is a usage error naming ``option``, the
    input's plain name: ``include`` or ``exclude``)."""
    return RuleSet(parse_rules(patterns, source=option, numbered=False, named=f"{{{option}}}"))


def _matches(rules: RuleSet, path: str) -> bool:
    rule, _ = rules.decide(path)
    return rule is not None and rule.excludes


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
    for option, patterns, keep_matching in (
        ("include", includes, True),
        ("exclude", excludes, False),
    ):
        if not patterns:
            continue
        for pattern in patterns:
            single = matching_rules([pattern], option)
            if strict and not any(_matches(single, f.path) for f in found.files):
                raise UsageError(
                    f"{{{option}}} {literal(repr(pattern))} matches no file of the repository",
                    fix="check the pattern (gitignore syntax: 'docs/', '*.md', '/CHANGES.rst')",
                )
        rules = matching_rules(patterns, option)
        next_kept = []
        for item in kept:
            if _matches(rules, item.path) == keep_matching:
                next_kept.append(item)
            else:
                reason = "not matched by --include" if keep_matching else "left out by --exclude"
                left.append(Exclusion(path=item.path, reason=reason))
        kept = next_kept
    excluded = tuple(sorted((*found.excluded, *left), key=lambda e: e.path))
    return replace(found, files=tuple(kept), excluded=excluded)
