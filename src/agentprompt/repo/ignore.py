"""Gitignore-style rules that remember where they came from, and the default exclusions.

Discovery needs more than "is this path ignored": it must say *which* rule of *which* file
decided, so every rule carries its source and line. Patterns are compiled by ``pathspec``
(git's wildmatch semantics); a rule read from ``dir/.gitignore`` applies to paths under
``dir/`` relative to that directory, and the last matching rule wins (a ``!`` rule
re-includes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

__all__ = [
    "BINARY_SUFFIXES",
    "DEFAULT_EXCLUDES",
    "Rule",
    "RuleSet",
    "parse_rules",
]

DEFAULT_EXCLUDES: tuple[str, ...] = (
    # version control and tool state
    ".git/",
    ".hg/",
    ".svn/",
    ".agentprompt/cache/",
    # dependencies and virtual environments
    "node_modules/",
    "bower_components/",
    "jspm_packages/",
    ".venv/",
    "venv/",
    ".pnpm-store/",
    "vendor/bundle/",
    # caches
    "__pycache__/",
    ".tox/",
    ".nox/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".hypothesis/",
    ".cache/",
    ".parcel-cache/",
    ".gradle/",
    ".terraform/",
    ".eggs/",
    "*.egg-info/",
    # build output
    "dist/",
    "build/",
    "target/",
    "out/",
    ".next/",
    ".nuxt/",
    ".svelte-kit/",
    "coverage/",
    "htmlcov/",
    ".coverage",
    # lock files
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "Pipfile.lock",
    "pdm.lock",
    "uv.lock",
    "Cargo.lock",
    "composer.lock",
    "Gemfile.lock",
    "go.sum",
    "flake.lock",
    "mix.lock",
    "pubspec.lock",
    "Podfile.lock",
    "packages.lock.json",
    # minified and generated files
    "*.min.js",
    "*.min.mjs",
    "*.min.css",
    "*.map",
    "*_pb2.py",
    "*_pb2_grpc.py",
    "*.pb.go",
    "*.pyc",
    "*.pyo",
    # operating-system litter
    ".DS_Store",
    "Thumbs.db",
)
"""Patterns (gitignore syntax) a user expects left out of a prompt; see the README."""

BINARY_SUFFIXES: frozenset[str] = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".bmp",
        ".ico",
        ".icns",
        ".webp",
        ".tif",
        ".tiff",
        ".psd",
        ".avif",
        ".heic",
        ".pdf",
        ".doc",
        ".docx",
        ".xls",
        ".xlsx",
        ".ppt",
        ".pptx",
        ".odt",
        ".ods",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".zst",
        ".7z",
        ".rar",
        ".tar",
        ".jar",
        ".war",
        ".whl",
        ".egg",
        ".deb",
        ".rpm",
        ".dmg",
        ".iso",
        ".exe",
        ".dll",
        ".so",
        ".dylib",
        ".o",
        ".a",
        ".lib",
        ".obj",
        ".class",
        ".pyd",
        ".wasm",
        ".bin",
        ".dat",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
        ".mp3",
        ".mp4",
        ".m4a",
        ".wav",
        ".ogg",
        ".flac",
        ".avi",
        ".mov",
        ".mkv",
        ".webm",
        ".sqlite",
        ".sqlite3",
        ".db",
        ".pkl",
        ".pickle",
        ".npy",
        ".npz",
        ".parquet",
        ".h5",
        ".onnx",
        ".pt",
        ".safetensors",
    ]
)
"""File name suffixes known to hold binary data: left out without reading the file."""

_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


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
    regex: re.Pattern[str] = field(repr=False, compare=False)
    """The compiled pattern, matched against the path relative to ``base``."""

    def describe(self) -> str:
        """``source:line (`pattern`)``, as an exclusion reason names it."""
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where} (`{self.pattern}`)"


def parse_rules(
    lines: Iterable[str], *, source: str, base: str = "", numbered: bool = True
) -> list[Rule]:
    """The rules in the lines of an ignore file (blank lines and comments skipped)."""
    rules = []
    for number, raw in enumerate(lines, start=1):
        text = raw.rstrip("\r\n")
        if not text.strip():
            continue
        pattern = GitIgnoreSpecPattern(text)
        if pattern.include is None or pattern.regex is None:
            continue
        rules.append(
            Rule(
                pattern=text.rstrip(),
                source=source,
                line=number if numbered else None,
                base=base,
                excludes=bool(pattern.include),
                regex=pattern.regex,
            )
        )
    return rules


class RuleSet:
    """An ordered list of rules (later wins) with a fast test for "no rule matches"."""

    __slots__ = ("_groups", "rules")

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        """The rules, earliest first."""
        bases: dict[str, list[str]] = {}
        for rule in self.rules:
            bases.setdefault(rule.base, []).append(
                "(?:" + _NAMED_GROUP.sub("(?:", rule.regex.pattern) + ")"
            )
        self._groups = tuple((base, re.compile("|".join(parts))) for base, parts in bases.items())

    def extended(self, rules: Sequence[Rule]) -> RuleSet:
        """This set followed by ``rules`` (which win over it)."""
        return self if not rules else RuleSet((*self.rules, *rules))

    def decide(self, path: str) -> Rule | None:
        """The last rule matching ``path`` (relative to the root; directories end in ``/``)."""
        if not any(
            path.startswith(base) and combined.search(path[len(base) :])
            for base, combined in self._groups
        ):
            return None
        for rule in reversed(self.rules):
            if path.startswith(rule.base) and rule.regex.search(path[len(rule.base) :]):
                return rule
        return None
