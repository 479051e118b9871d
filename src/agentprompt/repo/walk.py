"""The scanning behind discovery: git's listing or a directory walk, the rules, the checks.

:mod:`agentprompt.repo.files` is the public face; this module holds the values it shares
with its callers and the one-pass state (:class:`Walk`) that sorts paths into files kept and
exclusions with reasons.
"""

from __future__ import annotations

import os
import stat
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from agentprompt.repo.ignore import BINARY_SUFFIXES, DEFAULT_EXCLUDES, Rule, RuleSet, parse_rules
from agentprompt.repo.sniff import UNREADABLE, sniff

__all__ = [
    "AGENTPROMPTIGNORE",
    "DiscoveryOptions",
    "Exclusion",
    "RepoFile",
    "Walk",
    "git_listing",
    "policy_rules",
]

AGENTPROMPTIGNORE = ".agentpromptignore"
"""The name of the ignore files (gitignore syntax, any depth) that only agentprompt reads."""

_SNIFF_THREADS = 2
_PARALLEL_FROM = 256


@dataclass(frozen=True, kw_only=True)
class DiscoveryOptions:
    """What discovery leaves out besides what git (or ``.gitignore``) already ignores."""

    max_file_bytes: int = 1_000_000
    """Files larger than this many bytes are left out."""
    include_default_excludes: bool = True
    """Leave out lock files, minified/generated files, dependencies, venvs, build output..."""
    extra_excludes: tuple[str, ...] = ()
    """More gitignore-style patterns to leave out (applied after the defaults)."""
    follow_git: bool = True
    """Use git's view of the files when the root is inside a git work tree."""


@dataclass(frozen=True, kw_only=True)
class RepoFile:
    """A file a prompt may show."""

    path: str
    """POSIX path relative to the root."""
    size: int
    """Size in bytes."""
    mtime_ns: int
    """Modification time in nanoseconds."""


@dataclass(frozen=True, kw_only=True)
class Exclusion:
    """A path left out, and the exact reason."""

    path: str
    """POSIX path relative to the root; a directory left out as a whole ends in ``/``."""
    reason: str
    """Why, naming the rule, its file and line where there is one."""


@dataclass(frozen=True, kw_only=True)
class _Candidate:
    path: str
    size: int
    mtime_ns: int


def git_listing(root: Path) -> list[str] | None:
    """git's view of the files under ``root``, or ``None`` when it is not in a work tree."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=False,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    names = os.fsdecode(done.stdout).split("\0")
    return sorted({n for n in names if n})


def _read_rules(root: Path, relpath: str, *, base: str, problems: list[str]) -> RuleSet:
    """The rules of the ignore file ``relpath``; problems reading it are reported, not raised."""
    try:
        text = (root / relpath).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        problems.append(f"{relpath}: cannot read ({exc.strerror}); its rules are not applied")
        return RuleSet(())
    return RuleSet(parse_rules(text.splitlines(), source=relpath, base=base, problems=problems))


def policy_rules(root: Path, options: DiscoveryOptions, problems: list[str]) -> RuleSet:
    """Default exclusions, then the caller's patterns, then the root ``.agentpromptignore``.

    Raises :class:`~agentprompt.repo.ignore.InvalidIgnorePattern` for an invalid extra pattern.
    """
    rules = []
    if options.include_default_excludes:
        rules += parse_rules(DEFAULT_EXCLUDES, source="default exclusion", numbered=False)
    rules += parse_rules(options.extra_excludes, source="option --exclude", numbered=False)
    base = RuleSet(rules)
    if (root / AGENTPROMPTIGNORE).is_file():
        found = _read_rules(root, AGENTPROMPTIGNORE, base="", problems=problems)
        base = base.extended(found.rules)
    return base


def _reason(rule_desc: str, *, git_layer: bool) -> str:
    return f"ignored by {rule_desc}" if git_layer else f"excluded by {rule_desc}"


def _excluded_folder(policy: RuleSet, path: str, rule: Rule) -> str | None:
    """The outermost folder of ``path`` that ``rule`` (a folder pattern) leaves out, if any."""
    if not rule.pattern.endswith("/"):
        return None
    end = path.find("/")
    while end != -1:
        prefix = path[: end + 1]
        if policy.decide(prefix) is rule:
            return prefix
        end = path.find("/", end + 1)
    return None


def _sniff_many(paths: list[str]) -> list[str | None]:
    return [sniff(p) for p in paths]


class Walk:
    """The state of one discovery: what is in, what is out, what could not be read."""

    def __init__(self, root: Path, options: DiscoveryOptions) -> None:
        self.root = root
        self.options = options
        self.candidates: list[_Candidate] = []
        self.excluded: list[Exclusion] = []
        self.problems: list[str] = []

    def out(self, path: str, reason: str) -> None:
        """Record ``path`` as left out for ``reason``."""
        self.excluded.append(Exclusion(path=path, reason=reason))

    def stat_candidate(self, path: str, full: str) -> None:
        """Check a path that passed the rules: symlinks, kind, size."""
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            self.out(path, "tracked by git but deleted from the work tree")
            return
        except OSError as exc:
            self.problems.append(f"{path}: cannot read ({exc.strerror})")
            self.out(path, f"unreadable ({exc.strerror})")
            return
        if stat.S_ISLNK(st.st_mode):
            target = os.path.realpath(full)
            inside = target == str(self.root) or target.startswith(str(self.root) + os.sep)
            if not inside:
                self.out(path, "symlink pointing outside the root (not followed)")
                return
            try:
                st = os.stat(full)
            except OSError:
                self.out(path, "broken symlink")
                return
            if stat.S_ISDIR(st.st_mode):
                self.out(path, "symlink to a directory inside the root (its target is listed)")
                return
        if stat.S_ISDIR(st.st_mode):
            self.out(path, "a git submodule (its files are not listed)")
            return
        if not stat.S_ISREG(st.st_mode):
            self.out(path, "not a regular file")
            return
        if st.st_size > self.options.max_file_bytes:
            self.out(
                path,
                f"over the {self.options.max_file_bytes}-byte size cap ({st.st_size} bytes)",
            )
            return
        suffix = os.path.splitext(path)[1].lower()
        if suffix in BINARY_SUFFIXES:
            self.out(path, f"binary file type ({suffix})")
            return
        self.candidates.append(_Candidate(path=path, size=st.st_size, mtime_ns=st.st_mtime_ns))

    def walk_git(self, listing: list[str], policy: RuleSet) -> None:
        """Apply the policy (and nested ``.agentpromptignore`` files) to git's listing."""
        nested = [name for name in listing if name.endswith("/" + AGENTPROMPTIGNORE)]
        for name in sorted(nested, key=lambda n: n.count("/")):
            base = name[: -len(AGENTPROMPTIGNORE)]
            found = _read_rules(self.root, name, base=base, problems=self.problems)
            policy = policy.extended(found.rules)
        venvs = {name[: -len("pyvenv.cfg")] for name in listing if name.endswith("/pyvenv.cfg")}
        reported_venvs: set[str] = set()
        reported_folders: set[str] = set()
        root = str(self.root)
        for name in listing:
            if name.endswith("/"):
                self.out(name, "a nested git repository (its files are not listed)")
                continue
            if venvs and self.options.include_default_excludes:
                venv = next((v for v in venvs if name.startswith(v)), None)
                if venv is not None:
                    if venv not in reported_venvs:
                        reported_venvs.add(venv)
                        self.out(venv, "a Python virtual environment (has pyvenv.cfg)")
                    continue
            rule = policy.decide(name)
            if rule is not None and rule.excludes:
                folder = _excluded_folder(policy, name, rule)
                if folder is None:
                    self.out(name, _reason(rule.describe(), git_layer=False))
                elif folder not in reported_folders:
                    reported_folders.add(folder)
                    self.out(folder, _reason(rule.describe(), git_layer=False))
                continue
            self.stat_candidate(name, os.path.join(root, name))

    def walk_tree(self, rel: str, gitignore: RuleSet, policy: RuleSet) -> None:
        """Walk the directory ``rel`` (``""`` or ending in ``/``) applying ``.gitignore`` files."""
        full = os.path.join(str(self.root), rel)
        try:
            entries = sorted(os.scandir(full), key=lambda e: e.name)
        except OSError as exc:
            self.problems.append(f"{rel or './'}: cannot list ({exc.strerror})")
            self.out(rel or "./", f"unreadable directory ({exc.strerror})")
            return
        names = {e.name for e in entries}
        if rel and "pyvenv.cfg" in names and self.options.include_default_excludes:
            self.out(rel, "a Python virtual environment (has pyvenv.cfg)")
            return
        if ".gitignore" in names:
            gitignore = gitignore.extended(
                _read_rules(self.root, rel + ".gitignore", base=rel, problems=self.problems).rules
            )
        if rel and AGENTPROMPTIGNORE in names:
            policy = policy.extended(
                _read_rules(
                    self.root, rel + AGENTPROMPTIGNORE, base=rel, problems=self.problems
                ).rules
            )
        for entry in entries:
            path = rel + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            key = path + "/" if is_dir else path
            if entry.name == ".git":
                continue
            rule = gitignore.decide(key)
            if rule is not None and rule.excludes:
                self.out(key, _reason(rule.describe(), git_layer=True))
                continue
            rule = policy.decide(key)
            if rule is not None and rule.excludes:
                self.out(key, _reason(rule.describe(), git_layer=False))
                continue
            if is_dir:
                self.walk_tree(key, gitignore, policy)
            else:
                self.stat_candidate(path, entry.path)

    def sniff_all(self) -> list[RepoFile]:
        """Read the head of each candidate: binary, non-UTF-8 and generated files are out."""
        root = str(self.root)
        paths = [os.path.join(root, c.path) for c in self.candidates]
        if len(paths) >= _PARALLEL_FROM:
            size = -(-len(paths) // _SNIFF_THREADS)
            chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
            with ThreadPoolExecutor(max_workers=_SNIFF_THREADS) as pool:
                verdicts = [v for part in pool.map(_sniff_many, chunks) for v in part]
        else:
            verdicts = _sniff_many(paths)
        files = []
        for cand, verdict in zip(self.candidates, verdicts, strict=True):
            if verdict is None:
                files.append(RepoFile(path=cand.path, size=cand.size, mtime_ns=cand.mtime_ns))
                continue
            if verdict.startswith(UNREADABLE):
                self.problems.append(
                    f"{cand.path}: cannot read ({verdict.removeprefix(UNREADABLE)})"
                )
            self.out(cand.path, verdict)
        return files
