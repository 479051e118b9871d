"""The scanning behind discovery: git's listing or a directory walk, the rules, the checks.

:mod:`agentprompt.repo.discovery._files` is the public face; this module holds :func:`scan`, which
sorts paths into files kept and exclusions with reasons (the values it shares with its
callers are in :mod:`agentprompt.repo.discovery._scan_types`, and importable from here too).
Symlinks: a path whose real location (every folder and the file itself resolved) leaves
the root is out; one that resolves into ``.git`` is out; one that resolves to another file
inside the root is kept only when that file is itself included.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentprompt.repo.discovery._defaults import (
    BINARY_SUFFIXES,
    DEFAULT_EXCLUDES,
    GENERATED_EXCLUDES,
    GENERATED_SOURCE,
    UNTRACKED_DEFAULT_EXCLUDES,
)
from agentprompt.repo.discovery._git import GitListing, git_listing, root_ignored
from agentprompt.repo.discovery._ignore import InvalidIgnorePattern, Rule, RuleSet, parse_rules
from agentprompt.repo.discovery._scan_types import (
    AGENTPROMPTIGNORE,
    DiscoveryOptions,
    Exclusion,
    RepoFile,
    Scan,
    in_git_dir,
    inside,
)
from agentprompt.repo.discovery._sniff import (
    DATA_VERDICT,
    UNREADABLE,
    is_binary_verdict,
    is_generated_verdict,
    sniff,
)
from agentprompt.repo.discovery._sniff_memo import Remembered, sniff_stamped

__all__ = [
    "AGENTPROMPTIGNORE",
    "DiscoveryOptions",
    "Exclusion",
    "LeftOutKind",
    "RepoFile",
    "Scan",
    "in_git_dir",
    "inside",
    "is_generated_reason",
    "left_out_kind",
    "scan",
]


@dataclass(frozen=True, kw_only=True)
class _Candidate:
    path: str
    size: int
    mtime_ns: int
    ctime_ns: int = 0
    inode: int = 0
    alias_of: str | None = None


def _read_rules(root: Path, relpath: str, *, base: str, problems: list[str]) -> RuleSet:
    """The rules of the ignore file ``relpath``; problems reading it are reported, not raised."""
    try:
        text = (root / relpath).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        problems.append(f"{relpath}: cannot read ({exc.strerror}); its rules are not applied")
        return RuleSet(())
    return RuleSet(parse_rules(text.splitlines(), source=relpath, base=base, problems=problems))


def _policy_rules(
    root: Path, options: DiscoveryOptions, problems: list[str], *, tracked: bool
) -> RuleSet:
    """Default exclusions, then the caller's patterns, then the root ``.agentpromptignore``.

    ``tracked``: the rules for files git tracks (build-output and cache defaults left out).
    Raises :class:`~agentprompt.repo.discovery._ignore.InvalidIgnorePattern` for an invalid extra
    pattern.
    """
    rules: list[Rule] = []
    if options.include_default_excludes:
        rules += parse_rules(DEFAULT_EXCLUDES, source="default exclusion", numbered=False)
        if not options.include_generated:
            rules += parse_rules(GENERATED_EXCLUDES, source=GENERATED_SOURCE, numbered=False)
        if not tracked:
            rules += parse_rules(
                UNTRACKED_DEFAULT_EXCLUDES, source="default exclusion", numbered=False
            )
    rules += parse_rules(
        options.extra_excludes,
        source="the exclude option",
        numbered=False,
        named="option {exclude}",
    )
    base = RuleSet(rules)
    if (root / AGENTPROMPTIGNORE).is_file():
        found = _read_rules(root, AGENTPROMPTIGNORE, base="", problems=problems if tracked else [])
        base = base.extended(found.rules)
    return base


LeftOutKind = Literal["generated", "binary", "data"]
"""Why a file is left out for what it holds: generated or minified text, binary data, or
data in a text format no one reads as lines."""


def left_out_kind(reason: str) -> LeftOutKind | None:
    """What an exclusion's ``reason`` says the file holds (:data:`LeftOutKind`), or None
    when it was left out for another reason (a rule, its size, its encoding)."""
    if is_generated_reason(reason):
        return "generated"
    if is_binary_verdict(reason):
        return "binary"
    if reason.startswith(DATA_VERDICT):
        return "data"
    return None


def is_generated_reason(reason: str) -> bool:
    """Whether an exclusion's ``reason`` is that the file is generated or minified (by its
    name or its content): what :attr:`DiscoveryOptions.include_generated` keeps."""
    return is_generated_verdict(reason) or reason.startswith(f"excluded by {GENERATED_SOURCE} ")


def _sniff(path: str) -> str | None:
    """:func:`~agentprompt.repo.discovery._sniff.sniff`, looked up when called (tests replace
    it)."""
    return sniff(path)


@dataclass
class _Walk:
    """The state of one discovery: what is in, what is out, what could not be read."""

    root: Path
    options: DiscoveryOptions
    candidates: list[_Candidate] = field(default_factory=list)
    excluded: list[Exclusion] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    folders: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    reported: set[str] = field(default_factory=set)

    def out(self, path: str, reason: str) -> None:
        """Record ``path`` as left out for ``reason``."""
        self.excluded.append(Exclusion(path=path, reason=reason))

    def out_once(self, path: str, reason: str) -> None:
        """Record ``path`` (a folder) as left out, the first time only."""
        if path not in self.reported:
            self.reported.add(path)
            self.out(path, reason)

    def folder(self, rel: str) -> tuple[str, str | None]:
        """The real location of folder ``rel`` (``""`` or ``a/b``), and its first symlinked
        folder (``None`` when no folder on the way is a symlink)."""
        known = self.folders.get(rel)
        if known is not None:
            return known
        root = str(self.root)
        if not rel:
            verdict: tuple[str, str | None] = (root, None)
        else:
            parent = self.folder(rel.rpartition("/")[0])
            full = os.path.join(root, rel)
            link = parent[1] if parent[1] is not None else (rel if os.path.islink(full) else None)
            verdict = (os.path.realpath(full) if link is not None else full, link)
        self.folders[rel] = verdict
        return verdict

    def _through_folder_link(self, path: str, link: str, full: str) -> None:
        root = str(self.root)
        real = os.path.realpath(full)
        if not inside(root, real):
            self.out_once(link + "/", "a symlinked folder pointing outside the root (not followed)")
        elif in_git_dir(root, real):
            self.out_once(link + "/", "a symlinked folder pointing into .git (never followed)")
        else:
            self._alias(path, full, real)

    def _alias(self, path: str, full: str, real: str) -> None:
        try:
            st = os.stat(full)
        except OSError:
            self.out(path, "broken symlink")
            return
        if stat.S_ISDIR(st.st_mode):
            self.out(path, "symlink to a directory inside the root (its target is listed)")
            return
        target = Path(real).relative_to(self.root).as_posix()
        self.candidates.append(
            _Candidate(path=path, size=st.st_size, mtime_ns=st.st_mtime_ns, alias_of=target)
        )

    def stat_candidate(self, path: str, full: str) -> None:
        """Check a path that passed the rules: symlinks, kind, size."""
        _real, link = self.folder(path.rpartition("/")[0])
        if link is not None:
            self._through_folder_link(path, link, full)
            return
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
            root = str(self.root)
            real = os.path.realpath(full)
            if not inside(root, real):
                self.out(path, "symlink pointing outside the root (not followed)")
            elif in_git_dir(root, real):
                self.out(path, "symlink into .git (never followed)")
            else:
                self._alias(path, full, real)
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
        size, mtime, ctime, inode = st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino
        self.candidates.append(
            _Candidate(path=path, size=size, mtime_ns=mtime, ctime_ns=ctime, inode=inode)
        )

    def _venv_of(self, name: str, venvs: set[str]) -> bool:
        if not venvs or not self.options.include_default_excludes:
            return False
        venv = next((v for v in venvs if name.startswith(v)), None)
        if venv is None:
            return False
        self.out_once(venv, "a Python virtual environment (has pyvenv.cfg)")
        return True

    def walk_git(self, listing: GitListing, tracked: RuleSet, untracked: RuleSet) -> None:
        """Apply the policy (and nested ``.agentpromptignore`` files) to git's listing."""
        nested = [n for n in listing.names if n.endswith("/" + AGENTPROMPTIGNORE)]
        for name in sorted(nested, key=lambda n: n.count("/")):
            base = name[: -len(AGENTPROMPTIGNORE)]
            found = _read_rules(self.root, name, base=base, problems=self.problems)
            tracked = tracked.extended(found.rules)
            untracked = untracked.extended(found.rules)
        venvs = {n[: -len("pyvenv.cfg")] for n in listing.names if n.endswith("/pyvenv.cfg")}
        root = str(self.root)
        for name in listing.names:
            if name.endswith("/"):
                self.out(name, "a nested git repository (its files are not listed)")
                continue
            if self._venv_of(name, venvs):
                continue
            policy = untracked if name in listing.untracked else tracked
            rule, folder = policy.decide(name)
            if rule is not None and rule.excludes:
                reason = f"excluded by {rule.describe()}"
                if folder is None:
                    self.out(name, reason)
                else:
                    self.out_once(folder, reason)
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
            if entry.name == ".git":
                continue
            path = rel + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            key = path + "/" if is_dir else path
            rule = gitignore.match(key)
            if rule is not None and rule.excludes:
                self.out(key, f"ignored by {rule.describe()}")
                continue
            rule = policy.match(key)
            if rule is not None and rule.excludes:
                self.out(key, f"excluded by {rule.describe()}")
                continue
            if is_dir:
                self.walk_tree(key, gitignore, policy)
            else:
                self.stat_candidate(path, entry.path)

    def sniff_all(
        self, known: Mapping[str, Remembered]
    ) -> tuple[list[RepoFile], dict[str, Remembered]]:
        """Read the head of each candidate (unless ``known`` holds its verdict): binary,
        non-UTF-8 files are out; then keep a symlink inside the root only when
        its target file is included. Generated and minified files are out too, unless the
        options keep them (their verdicts are remembered either way). Also returns the
        verdicts to remember."""
        plain = [c for c in self.candidates if c.alias_of is None]
        verdicts, remembered = sniff_stamped(
            str(self.root),
            [(c.path, (c.size, c.mtime_ns, c.ctime_ns, c.inode)) for c in plain],
            known,
            read=_sniff,
        )
        files = []
        keep_generated = self.options.include_generated
        for cand, verdict in zip(plain, verdicts, strict=True):
            if verdict is None or (keep_generated and is_generated_verdict(verdict)):
                files.append(RepoFile(path=cand.path, size=cand.size, mtime_ns=cand.mtime_ns))
                continue
            if verdict.startswith(UNREADABLE):
                self.problems.append(
                    f"{cand.path}: cannot read ({verdict.removeprefix(UNREADABLE)})"
                )
            self.out(cand.path, verdict)
        kept = {f.path for f in files}
        for cand in self.candidates:
            if cand.alias_of is None:
                continue
            if cand.alias_of in kept:
                files.append(RepoFile(path=cand.path, size=cand.size, mtime_ns=cand.mtime_ns))
            else:
                self.out(
                    cand.path,
                    f"symlink to {cand.alias_of}, which is not included itself "
                    f"(see why {cand.alias_of} is left out)",
                )
        return files, remembered


def scan(
    root: Path,
    options: DiscoveryOptions,
    known: Mapping[str, Remembered] | None = None,
    listing: GitListing | None = None,
) -> Scan:
    """Scan the resolved folder ``root`` (see :func:`agentprompt.repo.discovery.discover`),
    reusing the content verdicts in ``known`` of files whose stamp has not changed, and
    ``listing`` (git's, when the caller already asked git for it)."""
    walk = _Walk(root=root, options=options)
    policy = _policy_rules(root, options, walk.problems, tracked=True)
    if not options.follow_git:
        listing = None
    elif listing is None:
        listing = git_listing(root)
    if listing is not None and not listing.names and root_ignored(root):
        # The root itself is ignored by the enclosing work tree, so git's view of it is
        # empty; the folder the caller named is walked instead.
        listing = None
    if listing is not None:
        untracked = _policy_rules(root, options, [], tracked=False)
        walk.walk_git(listing, policy, untracked)
    else:
        everything = _policy_rules(root, options, [], tracked=False)
        walk.walk_tree("", RuleSet(()), everything)
    files, sniffed = walk.sniff_all(known or {})
    return Scan(
        files=tuple(sorted(files, key=lambda f: f.path)),
        excluded=tuple(sorted(walk.excluded, key=lambda e: e.path)),
        problems=tuple(walk.problems),
        git=listing is not None,
        sniffed=sniffed,
    )


def likely_kept(root: Path, names: Iterable[str], options: DiscoveryOptions) -> list[str]:
    """Those of ``names`` (git's listing of the resolved ``root``) that the root's rules do
    not leave out by their path: a cheap guess, before :func:`scan` runs, at which files it
    will keep (nested ignore files, sizes and contents are not looked at, and a file git
    does not track is judged by the tracked files' rules). Empty when the rules are
    unusable (:func:`scan` then says why)."""
    try:
        policy = _policy_rules(root, options, [], tracked=True)
    except InvalidIgnorePattern:
        return []
    kept = []
    for name in names:
        rule, _folder = policy.decide(name)
        if rule is None or not rule.excludes:
            kept.append(name)
    return kept
