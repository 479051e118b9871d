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

from agentprompt.errors import UsageError

__all__ = [
    "BINARY_SUFFIXES",
    "DEFAULT_EXCLUDES",
    "InvalidIgnorePattern",
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
    regex: re.Pattern[str] = field(repr=False, compare=False)
    """The compiled pattern, matched against the path relative to ``base``."""

    def describe(self) -> str:
        """``source:line (`pattern`)``, as an exclusion reason names it."""
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where} (`{self.pattern}`)"


def parse_rules(
    lines: Iterable[str],
    *,
    source: str,
    base: str = "",
    numbered: bool = True,
    problems: list[str] | None = None,
) -> list[Rule]:
    """The rules in the lines of an ignore file (blank lines and comments skipped).

    An invalid pattern is skipped with a line in ``problems``; without a ``problems`` list
    it raises :class:`InvalidIgnorePattern`.
    """
    rules = []
    for number, raw in enumerate(lines, start=1):
        text = raw.rstrip("\r\n")
        if not text.strip():
            continue
        try:
            pattern = GitIgnoreSpecPattern(text)
        except (ValueError, re.error) as exc:
            where = f"{source}:{number}" if numbered else source
            message = f"{where}: `{text}` is not a valid gitignore pattern ({exc})"
            if problems is None:
                raise InvalidIgnorePattern(message) from None
            problems.append(message + "; skipped")
            continue
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


_ANYWHERE = "^(?:.+/)?"
_DIR_MARK = "(?P<ps_d>/)"


def _named(index: int, body: str) -> str:
    return f"(?P<r{index}>{_NAMED_GROUP.sub('(?:', body)})"


def _winner(found: re.Match[str] | None) -> int:
    """The rule index of the alternative that matched (see :class:`RuleSet`), or -1."""
    if found is None:
        return -1
    name = found.lastgroup
    if name is None or not name.startswith("r"):
        name = next(k for k, v in found.groupdict().items() if v is not None)
    return int(name[1:])


class _BaseRules:
    """The rules of one base folder, split into per-name rules and whole-path rules.

    A pattern without an inner slash (``node_modules/``, ``*.log``) matches a path exactly
    when it matches one of the path's components, so those are tested per component, with
    the answer for every folder prefix and every file name remembered: most paths then cost
    two dictionary lookups. Other patterns are tested on the whole path. In each regex the
    alternatives run from the latest rule to the earliest, each anchored at the start, so
    the alternative that matches is the latest matching rule.
    """

    __slots__ = ("_dirs", "_names", "_per_name", "_whole")

    def __init__(self, indexed: list[tuple[int, Rule]]) -> None:
        per_name, whole = [], []
        for index, rule in reversed(indexed):
            pattern = rule.regex.pattern
            rest = pattern[len(_ANYWHERE) :]
            plain = rest.replace(_DIR_MARK, "").replace("[^/]", "")
            if pattern.startswith(_ANYWHERE) and "/" not in plain:
                per_name.append(_named(index, rest))
            elif pattern.startswith("^"):
                whole.append(_named(index, pattern))
            else:
                whole.append(_named(index, "[\\s\\S]*?(?:" + pattern + ")"))
        self._per_name = re.compile("|".join(per_name)) if per_name else None
        self._whole = re.compile("|".join(whole)) if whole else None
        self._dirs: dict[str, int] = {"": -1}
        self._names: dict[str, int] = {}

    def _dir(self, prefix: str) -> int:
        """The latest per-name rule matching any folder of ``prefix`` (``""`` or ``a/b/``)."""
        known = self._dirs.get(prefix)
        if known is not None:
            return known
        parent, _, name = prefix[:-1].rpartition("/")
        best = max(self._dir(parent + "/" if parent else ""), self._name(name + "/"))
        self._dirs[prefix] = best
        return best

    def _name(self, name: str) -> int:
        known = self._names.get(name)
        if known is None:
            known = self._names[name] = (
                -1 if self._per_name is None else _winner(self._per_name.match(name))
            )
        return known

    def decide(self, rel: str) -> int:
        """The index of the latest rule matching ``rel``, or -1."""
        if rel.endswith("/"):
            best = self._dir(rel)
        else:
            folder, _, name = rel.rpartition("/")
            best = max(self._dir(folder + "/" if folder else ""), self._name(name))
        if self._whole is not None:
            best = max(best, _winner(self._whole.match(rel)))
        return best


class RuleSet:
    """An ordered list of rules (later wins), decided quickly (see :class:`_BaseRules`)."""

    __slots__ = ("_groups", "rules")

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        """The rules, earliest first."""
        bases: dict[str, list[tuple[int, Rule]]] = {}
        for index, rule in enumerate(self.rules):
            bases.setdefault(rule.base, []).append((index, rule))
        self._groups = tuple((base, _BaseRules(indexed)) for base, indexed in bases.items())

    def extended(self, rules: Sequence[Rule]) -> RuleSet:
        """This set followed by ``rules`` (which win over it)."""
        return self if not rules else RuleSet((*self.rules, *rules))

    def decide(self, path: str) -> Rule | None:
        """The last rule matching ``path`` (relative to the root; directories end in ``/``)."""
        best = -1
        for base, group in self._groups:
            if path.startswith(base):
                best = max(best, group.decide(path[len(base) :]))
        return self.rules[best] if best >= 0 else None
