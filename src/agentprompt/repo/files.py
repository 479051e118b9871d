"""Discovery: which files of a repository a prompt may show, and why each other file may not.

Inside a git work tree the candidates are git's own view (tracked files plus untracked files
that no ``.gitignore``, ``.git/info/exclude`` or global excludes file ignores), from a single
``git ls-files`` call. Outside git, the tree is walked and ``.gitignore`` files at every depth
are applied with ``pathspec``. Then, in both cases, the default exclusions, the caller's extra
patterns and ``.agentpromptignore`` files (gitignore syntax, any depth; a ``!`` line there can
re-include a default exclusion) are applied, followed by the per-file checks: symlinks that
leave the root or point at directories, the size cap, binary content and generated-file
headers (reading at most the first 8 KiB of a file).
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from agentprompt.errors import AgentPromptError
from agentprompt.repo.ignore import BINARY_SUFFIXES, DEFAULT_EXCLUDES, RuleSet, parse_rules
from agentprompt.repo.sniff import UNREADABLE as _UNREADABLE
from agentprompt.repo.sniff import sniff

__all__ = [
    "AGENTPROMPTIGNORE",
    "Discovery",
    "DiscoveryOptions",
    "Exclusion",
    "NotADirectory",
    "RepoFile",
    "discover",
    "explain",
]

AGENTPROMPTIGNORE = ".agentpromptignore"
"""The name of the ignore files (gitignore syntax, any depth) that only agentprompt reads."""

_SNIFF_THREADS = 2
_PARALLEL_FROM = 256


class NotADirectory(AgentPromptError):
    """The root given to discovery is not a directory."""

    def __init__(self, root: Path) -> None:
        super().__init__(f"{root} is not a directory; give the repository's folder as the root")
        self.root = root
        """The path that was given."""


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
class Discovery:
    """The result of :func:`discover`."""

    root: Path
    """The resolved root directory."""
    files: tuple[RepoFile, ...]
    """The included files, sorted by path."""
    excluded: tuple[Exclusion, ...]
    """Reportable exclusions, sorted by path (whole directories summarised as ``dir/``)."""
    problems: tuple[str, ...]
    """Files that could not be read, each reported once."""
    git: bool
    """True when git's view of the files was used."""


@dataclass(frozen=True, kw_only=True)
class _Candidate:
    path: str
    size: int
    mtime_ns: int


def _git_listing(root: Path) -> list[str] | None:
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


def _read_rules(root: Path, relpath: str, *, base: str) -> RuleSet:
    try:
        text = (root / relpath).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return RuleSet(())
    return RuleSet(parse_rules(text.splitlines(), source=relpath, base=base))


def _policy(root: Path, options: DiscoveryOptions) -> RuleSet:
    """Default exclusions, then the caller's patterns, then the root ``.agentpromptignore``."""
    rules = []
    if options.include_default_excludes:
        rules += parse_rules(DEFAULT_EXCLUDES, source="default exclusion", numbered=False)
    rules += parse_rules(options.extra_excludes, source="option --exclude", numbered=False)
    base = RuleSet(rules)
    if (root / AGENTPROMPTIGNORE).is_file():
        base = base.extended(_read_rules(root, AGENTPROMPTIGNORE, base="").rules)
    return base


def _reason(rule_desc: str, *, git_layer: bool) -> str:
    return f"ignored by {rule_desc}" if git_layer else f"excluded by {rule_desc}"


def _sniff_many(paths: list[str]) -> list[str | None]:
    return [sniff(p) for p in paths]


class _Walk:
    """The state of one discovery: what is in, what is out, what could not be read."""

    def __init__(self, root: Path, options: DiscoveryOptions) -> None:
        self.root = root
        self.options = options
        self.candidates: list[_Candidate] = []
        self.excluded: list[Exclusion] = []
        self.problems: list[str] = []

    def out(self, path: str, reason: str) -> None:
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
            policy = policy.extended(_read_rules(self.root, name, base=base).rules)
        venvs = {name[: -len("pyvenv.cfg")] for name in listing if name.endswith("pyvenv.cfg")}
        venvs.discard("")
        reported_venvs: set[str] = set()
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
                self.out(name, _reason(rule.describe(), git_layer=False))
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
                _read_rules(self.root, rel + ".gitignore", base=rel).rules
            )
        if rel and AGENTPROMPTIGNORE in names:
            policy = policy.extended(
                _read_rules(self.root, rel + AGENTPROMPTIGNORE, base=rel).rules
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
            if verdict.startswith(_UNREADABLE):
                self.problems.append(
                    f"{cand.path}: cannot read ({verdict.removeprefix(_UNREADABLE)})"
                )
            self.out(cand.path, verdict)
        return files


def _resolve_root(root: Path) -> Path:
    if not root.is_dir():
        raise NotADirectory(root)
    return root.resolve()


def discover(root: Path, options: DiscoveryOptions | None = None) -> Discovery:
    """The files under ``root`` a prompt may show, and the reason for every one left out.

    Raises :class:`NotADirectory` when ``root`` is not a directory.
    """
    options = options or DiscoveryOptions()
    resolved = _resolve_root(root)
    walk = _Walk(resolved, options)
    policy = _policy(resolved, options)
    listing = _git_listing(resolved) if options.follow_git else None
    if listing is not None:
        walk.walk_git(listing, policy)
    else:
        walk.walk_tree("", RuleSet(()), policy)
    files = walk.sniff_all()
    return Discovery(
        root=resolved,
        files=tuple(sorted(files, key=lambda f: f.path)),
        excluded=tuple(sorted(walk.excluded, key=lambda e: e.path)),
        problems=tuple(walk.problems),
        git=listing is not None,
    )


def _relative(root: Path, path: str) -> str | None:
    """``path`` (relative to ``root`` or absolute) as a POSIX path relative to ``root``."""
    given = Path(path)
    full = given if given.is_absolute() else root / given
    normal = os.path.normpath(os.path.abspath(full))
    if normal == str(root):
        return ""
    if not normal.startswith(str(root) + os.sep):
        return None
    return Path(normal).relative_to(root).as_posix()


def _git_ignore_reason(root: Path, rel: str) -> str | None:
    """Which git ignore rule (file, line, pattern) leaves ``rel`` out, if any."""
    try:
        done = subprocess.run(
            ["git", "check-ignore", "-z", "-v", "--no-index", "--stdin"],
            cwd=root,
            input=os.fsencode(rel) + b"\0",
            capture_output=True,
            check=False,
        )
    except OSError:
        return None
    fields = os.fsdecode(done.stdout).split("\0")
    if done.returncode != 0 or len(fields) < 3 or not fields[0]:
        return None
    source, line, pattern = fields[0], fields[1], fields[2]
    return f"ignored by git: {source}:{line} (`{pattern}`)"


def _covering(excluded: Iterable[Exclusion], rel: str) -> Exclusion | None:
    for item in excluded:
        if item.path == rel or (item.path.endswith("/") and (rel + "/").startswith(item.path)):
            return item
    return None


def explain(root: Path, path: str, options: DiscoveryOptions | None = None) -> Exclusion | RepoFile:
    """Why ``path`` is in (its :class:`RepoFile`) or out (an :class:`Exclusion` with the reason).

    ``path`` is relative to ``root`` or absolute. Raises :class:`NotADirectory` when ``root``
    is not a directory.
    """
    found = discover(root, options)
    rel = _relative(found.root, path)
    if rel is None:
        return Exclusion(path=path, reason="outside the root")
    if rel == "":
        return Exclusion(path="./", reason="the root directory itself, not a file")
    for item in found.files:
        if item.path == rel:
            return item
    covering = _covering(found.excluded, rel)
    if covering is not None:
        return Exclusion(path=rel, reason=covering.reason)
    full = found.root / rel
    if not full.exists() and not full.is_symlink():
        return Exclusion(path=rel, reason="does not exist")
    if found.git:
        why = _git_ignore_reason(found.root, rel)
        if why is not None:
            return Exclusion(path=rel, reason=why)
    if full.is_dir():
        return Exclusion(path=rel, reason="a directory, not a file")
    return Exclusion(path=rel, reason="not listed by git (inside an ignored or nested repository)")
