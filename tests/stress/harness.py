"""The adversarial probe's shapes, rerun: each function sets up its own temporary trees,
runs the shape ``n`` times and returns its counts (the test suite runs them small, the
bench command, ``bench/stress_bench.py``, at the probe's full counts).

- :func:`concurrent_applies`: ``n`` ``agentprompt apply`` processes on one bridge session,
  ``parallel`` at a time, each asking for its own file: the updates the session lost.
- :func:`kill_during_apply`: ``kill -9`` at a random moment of a many-file apply, then
  ``apply --recover``: trees left mixed (some files old, some new).
- :func:`enospc_at_each_write`: a full disk at each ``write``/``fsync``/``replace`` of an
  apply: trees left mixed.
- :func:`planted_secrets`: secrets planted in a repository, packed in browse and edit mode
  and asked for by a reply (also after the reply un-ignores them): secrets that reached a
  prompt.
- :func:`workflow_spellings`: spellings of a mount's path in texts a workflow model sees:
  leaks.
"""

from __future__ import annotations

import errno
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Outcome",
    "concurrent_applies",
    "enospc_at_each_write",
    "kill_during_apply",
    "planted_secrets",
    "workflow_spellings",
]

CLI = str(Path(sys.executable).with_name("agentprompt"))


@dataclass
class Outcome:
    """One shape's counts: ``runs`` tried, ``bad`` the failures the shape looks for."""

    shape: str
    runs: int = 0
    bad: int = 0
    notes: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """What the runs that did not exit 0 said (not failures by themselves)."""

    def note(self, key: str) -> None:
        self.notes[key] = self.notes.get(key, 0) + 1

    def fail(self, example: str) -> None:
        self.bad += 1
        if len(self.examples) < 5:
            self.examples.append(example)

    def line(self) -> str:
        extra = ", ".join(f"{k} {v}" for k, v in sorted(self.notes.items()))
        return f"{self.shape}: {self.runs} runs, {self.bad} bad" + (f" ({extra})" if extra else "")


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], capture_output=True, text=True, cwd=cwd, check=False)


@contextmanager
def _workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="agentprompt-stress-") as folder:
        yield Path(folder)


def _git_repo(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=root, check=True)


# -- concurrent applies on one session ------------------------------------------------------


def concurrent_applies(n: int, parallel: int) -> Outcome:
    """``n`` applies on one session, ``parallel`` at once; each creates its own file and
    asks for its own existing one. Bad: a run whose request the session lost, or a run
    that exited 0 without its file."""
    out = Outcome("concurrent applies on one session")
    with _workdir() as work:
        root = work / "repo"
        files = {f"src/f{i:03d}.py": f"X = {i}\n" for i in range(n)}
        _git_repo(root, {"README.md": "# r\n", **files})
        started = _cli("pack", "--root", str(root), "--task", "stress", "--lang", "en")
        assert started.returncode == 0, started.stderr
        replies = []
        for i in range(n):
            reply = work / f"r{i}.md"
            reply.write_text(
                f"<<<FILE: [NEW] made/m{i:03d}.py>>>\nM = {i}\n<<<END>>>\n\n"
                f"<<<REQUEST_FILE: src/f{i:03d}.py>>>\n",
                encoding="utf-8",
            )
            replies.append(reply)

        errors: list[str] = []

        def one(reply: Path) -> int:
            done = _cli("apply", str(reply), "--root", str(root), "--json")
            if done.returncode:
                errors.append(f"{reply.name}: exit {done.returncode}: {done.stderr.strip()[:300]}")
            return done.returncode

        with ThreadPoolExecutor(parallel) as pool:
            codes = list(pool.map(one, replies))
        out.errors = errors
        status = json.loads(_cli("bridge", "status", "--root", str(root), "--json").stdout)
        in_context = set(status["files"])
        for i, code in enumerate(codes):
            out.runs += 1
            out.note(f"exit {code}")
            made = (root / "made" / f"m{i:03d}.py").exists()
            if code == 0 and (f"src/f{i:03d}.py" not in in_context or not made):
                out.fail(f"run {i}: exit 0, request kept {f'src/f{i:03d}.py' in in_context}")
            if code == 2 and made:
                out.fail(f"run {i}: exit 2 but its file was written")
        if status["rounds"] != codes.count(0):
            out.fail(f"rounds {status['rounds']} != successful runs {codes.count(0)}")
    return out


# -- kill -9 during a many-file apply, then recover -----------------------------------------


def _tree_state(root: Path, old: dict[str, str], new: dict[str, str]) -> str:
    """``old``, ``new`` or ``mixed``: which version every file of the change set holds."""
    seen = set()
    for path in old:
        target = root / path
        text = target.read_text(encoding="utf-8") if target.exists() else None
        if text == old[path]:
            seen.add("old")
        elif text == new[path]:
            seen.add("new")
        else:
            seen.add("other")
    if seen == {"old"}:
        return "old"
    if seen == {"new"}:
        return "new"
    return "mixed"


def kill_during_apply(n: int, files: int = 300, seed: int = 7) -> Outcome:
    """``n`` runs: an apply of ``files`` whole-file writes killed with SIGKILL after a
    random delay, then ``apply --recover``. Bad: a tree left mixed, or a recovery that
    failed."""
    out = Outcome("kill -9 during apply, then recover")
    rng = random.Random(seed)
    with _workdir() as work:
        old = {f"d{i % 7}/file{i:04d}.txt": f"old {i}\n" * 20 for i in range(files)}
        new = {p: t.replace("old", "new") for p, t in old.items()}
        reply = work / "reply.md"
        reply.write_text(
            "".join(f"<<<FILE: {p}>>>\n{t}<<<END>>>\n\n" for p, t in new.items()),
            encoding="utf-8",
        )
        # How long a whole apply takes here, to kill within it.
        base = work / "base"
        for path, text in old.items():
            (base / path).parent.mkdir(parents=True, exist_ok=True)
            (base / path).write_text(text, encoding="utf-8")
        clock = time.monotonic()
        _cli("apply", str(reply), "--root", str(base), "--dialect", "bridge")
        whole = time.monotonic() - clock
        for run in range(n):
            root = work / f"t{run}"
            for path, text in old.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text, encoding="utf-8")
            proc = subprocess.Popen(
                [CLI, "apply", str(reply), "--root", str(root), "--dialect", "bridge"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(rng.uniform(0.2, 0.9) * whole)
            killed = proc.poll() is None
            if killed:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            out.runs += 1
            out.note("killed" if killed else "finished first")
            journal = (root / ".agentprompt" / "journal" / "manifest.json").exists()
            if journal:
                out.note("journal left")
            recovered = _cli("apply", "--recover", "--root", str(root))
            if recovered.returncode != 0:
                out.fail(f"run {run}: recover exited {recovered.returncode}")
            state = _tree_state(root, old, new)
            out.note(f"tree {state}")
            if state == "mixed":
                out.fail(f"run {run}: mixed tree after recovery")
    return out


# -- a full disk at each write ----------------------------------------------------------------


def enospc_at_each_write(files: int = 8, limit: int = 400) -> Outcome:
    """An apply of ``files`` changed files (one new) in-process, with ``ENOSPC`` raised at
    the k-th ``write``/``fsync``/``replace``/``link`` for k = 1, 2, ... until a run passes
    without the fault. Bad: a tree left mixed, or an exit status other than 1 after a fault
    (a rolled-back write, the old tree) or 0 with the new tree."""
    from agentprompt.cli.main import main

    out = Outcome("ENOSPC at each write")
    ops = ("write", "fsync", "replace", "link")
    old = {f"d{i % 3}/f{i}.txt": f"old {i}\n" for i in range(files)}
    new = {p: t.replace("old", "new") for p, t in old.items()}
    new_file = "fresh/new.txt"
    with _workdir() as work:
        reply = work / "reply.md"
        blocks = "".join(f"<<<FILE: {p}>>>\n{t}<<<END>>>\n\n" for p, t in new.items())
        reply.write_text(blocks + f"<<<FILE: [NEW] {new_file}>>>\nfresh\n<<<END>>>\n")
        for k in range(1, limit):
            root = work / f"t{k}"
            for path, text in old.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text, encoding="utf-8")
            fired = _with_full_disk(ops, k, lambda root=root: _run_main(main, reply, root))
            code = fired[1]
            out.runs += 1
            state = _tree_state(root, old, new)
            created = (root / new_file).exists()
            if (state == "old" and created) or (state == "new" and not created):
                state = "mixed"
            out.note(f"tree {state}")
            if state == "mixed":
                out.fail(f"fault at call {k}: mixed tree")
            # A fault before the commit is rolled back (exit 1, the old tree); one after it
            # (a directory's fsync, say) leaves the new tree, and the apply succeeded.
            if (code == 0 and state != "new") or (code != 0 and state != "old"):
                out.fail(f"fault at call {k}: exit {code} with the {state} tree")
            if fired[0]:
                out.note(f"fault exit {code}")
            if not fired[0]:
                if code != 0 or state != "new":
                    out.fail(f"no fault: exit {code}, tree {state}")
                break
    return out


def _run_main(main: Callable[[list[str]], None], reply: Path, root: Path) -> int:
    sink = io.StringIO()
    try:
        with redirect_stdout(sink), redirect_stderr(sink):
            main(["apply", str(reply), "--root", str(root), "--dialect", "bridge", "--json"])
        return 0
    except SystemExit as done:
        return int(done.code or 0)


def _with_full_disk(ops: tuple[str, ...], k: int, body: Callable[[], int]) -> tuple[bool, int]:
    """Run ``body`` with the k-th call of ``ops`` failing with ENOSPC (and every write and
    fsync after it: a full disk stays full). Returns (whether it fired, body's result)."""
    real = {op: getattr(os, op) for op in {*ops, "write", "fsync"}}
    state = {"calls": 0, "fired": False}

    def wrap(op: str) -> Callable[..., Any]:
        def faulty(*args: Any, **kwargs: Any) -> Any:
            if state["fired"] and op in ("write", "fsync"):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            if op in ops and not state["fired"]:
                state["calls"] += 1
                if state["calls"] == k:
                    state["fired"] = True
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real[op](*args, **kwargs)

        return faulty

    for op in real:
        setattr(os, op, wrap(op))
    try:
        result = body()
    finally:
        for op, fn in real.items():
            setattr(os, op, fn)
    return bool(state["fired"]), result


# -- planted secrets ----------------------------------------------------------------------------

URL_PASSWORDS = ["Tr0ub4dor&3xK9", "S3cr!tPass77", "pa$$w0rdZ42", "semi;colon9Q", "it'sQuote81"]
"""Passwords with the characters detect-secrets' URL rule misses."""


def _planted() -> dict[str, tuple[str, str]]:
    """path -> (text, the secret value that must never reach a prompt)."""
    planted: dict[str, tuple[str, str]] = {}
    for i, password in enumerate(URL_PASSWORDS):
        url = f"postgres://app:{password}@db.internal:5432/app"
        planted[f"config/db{i}.txt"] = (f"DATABASE_URL={url}\n", password)
    aws = "AKIAZ7QWERTYUIOP3X9B"
    planted.update(
        {
            ".env": ("API_TOKEN=tok_9fJ2kLm4Np6Qr8St\n", "tok_9fJ2kLm4Np6Qr8St"),
            ".env.local": ("SESSION=plain-looking-value-41\n", "plain-looking-value-41"),
            ".env.production": ("X=shortval99\n", "shortval99"),
            "deploy/server.pem": ("not really a pem 5550\n", "not really a pem 5550"),
            "deploy/tls.key": ("keymaterial-0x7731\n", "keymaterial-0x7731"),
            "home/id_rsa": ("rsa-material-8842\n", "rsa-material-8842"),
            "home/id_ed25519": ("ed-material-1207\n", "ed-material-1207"),
            "aws/credentials": ("[default]\nregion = eu\nlabel = cred-6631\n", "cred-6631"),
            "certs/bundle.p12": ("p12-bytes-0042\n", "p12-bytes-0042"),
            ".netrc": ("machine h login u password netrcpw-77\n", "netrcpw-77"),
            ".npmrc": ("//npm.example.invalid/:_authToken=npm_tok_5566\n", "npm_tok_5566"),
            "src/settings.py": (f'AWS_ACCESS_KEY_ID = "{aws}"\n', aws),
            "src/keys.ts": (
                'const key = "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA7y";\n',
                "MIIEowIBAAKCAQEA7y",
            ),
            "scripts/deploy.sh": (
                "export GITHUB_TOKEN=ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5\n",
                "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5",
            ),
            "config/app.yaml": ("smtp:\n  password: 'Wq8#zL!p2@Rt'\n", "Wq8#zL!p2@Rt"),
            "config/conn.ini": ("[db]\nurl = mysql://root:Ab&cd!ef$9@h/x\n", "Ab&cd!ef$9"),
        }
    )
    return planted


def _prompts(root: Path, printed: str) -> str:
    """Everything a run showed: stdout, and any prompt files written for the clipboard."""
    texts = [printed]
    folder = root / ".agentprompt" / "bridge"
    if folder.is_dir():
        texts += [p.read_text(encoding="utf-8", errors="replace") for p in folder.glob("*.md")]
    return "\n".join(texts)


def planted_secrets() -> Outcome:
    """Each planted secret, through: a browse-mode pack, an edit-mode pack naming every
    planted file, a reply asking for every one (after un-ignoring them in ``.gitignore``),
    and a dry run of that reply. Bad: a secret value seen in any of them."""
    out = Outcome("planted secrets")
    planted = _planted()
    with _workdir() as work:
        root = work / "repo"
        files = {path: text for path, (text, _) in planted.items()}
        files["src/app.py"] = "def main():\n    return 1\n"
        _git_repo(root, {**files, ".gitignore": ".env*\n*.pem\n"})
        names = sorted(planted)
        views: dict[str, str] = {}
        browse = _cli("pack", "--root", str(root), "--task", "t", "--lang", "en")
        views["browse"] = _prompts(root, browse.stdout + browse.stderr)
        edit = _cli("pack", *names, "--root", str(root), "--task", "t")
        views["edit"] = _prompts(root, edit.stdout + edit.stderr)
        _cli("pack", "--root", str(root), "--task", "t", "--lang", "en")
        reply = work / "reply.md"
        asks = "".join(f"- {p}\n" for p in names)
        reply.write_text(
            "<<<FILE: .gitignore>>>\n# nothing ignored\n<<<END>>>\n\n"
            f"<<<REQUEST_FILES>>>\n{asks}<<<END>>>\n",
            encoding="utf-8",
        )
        dry = _cli("apply", str(reply), "--root", str(root), "--dry-run", "--allow-whole-file")
        views["request dry run"] = dry.stdout + dry.stderr
        real = _cli("apply", str(reply), "--root", str(root), "--allow-whole-file")
        views["request round"] = _prompts(root, real.stdout + real.stderr)
        again = _cli("pack", "--root", str(root))
        views["next pack"] = _prompts(root, again.stdout + again.stderr)
        for mode, text in views.items():
            for path, (_, secret) in planted.items():
                out.runs += 1
                if secret in text:
                    out.fail(f"{mode}: the secret of {path} reached the prompt")
    return out


# -- workflow path spellings ------------------------------------------------------------------


def _spellings(project: str) -> list[str]:
    head, name = project.rsplit("/", 1)
    nfd = unicodedata.normalize("NFD", project)
    rest = "/src/app.py"
    return [
        f"{head}/./{name}{rest}",
        f"{head}/x/../{name}{rest}",
        project.replace("/", "//") + rest,
        nfd + rest,
        project.upper() + rest.upper(),
        project.replace("/", "%2F") + rest.replace("/", "%2F"),
        "".join(f"%{b:02X}" for b in project.encode()) + rest,
        project.replace("/", "&#47;") + rest.replace("/", "&#47;"),
        project.replace("/", "&#x2F;") + rest,
        project.replace("/", "&sol;") + rest,
        project.replace("/", "\uff0f") + rest,
        project.replace("/", "\u2215") + rest,
        project[:-2] + "\u200b" + project[-2:] + rest,
        project[:-2] + "\u200e" + project[-2:] + rest,
        project[:-2] + "\u202e" + project[-2:] + rest,
        unicodedata.normalize("NFD", f"{head}//./{name}") + rest,
    ]


_WRAPS = [
    "{}",
    "see {} now",
    "'{}'",
    '"{}"',
    "`{}`",
    "[file]({})",
    "path={}",
    '{{"path": "{}"}}',
    "<{}>",
    "({}),",
    "line 1\n{}\nline 3",
    "file://{}",
]


def workflow_spellings() -> Outcome:
    """Every spelling of the project's path (and of a symlink to it), in every wrapping,
    through :func:`agentprompt.workflow._aliases.alias_text`. Bad: the project's own names readable
    in the result once normalised."""
    from agentprompt.workflow import Mounts
    from agentprompt.workflow._aliases import alias_text

    out = Outcome("workflow path spellings")
    with _workdir() as work:
        project = work / "hóme" / "üser" / "prøject-x"
        (project / "src").mkdir(parents=True)
        (project / "src" / "app.py").write_text("x = 1\n")
        package = work / "pkg-y"
        package.mkdir()
        state = project / ".agentprompt" / "state"
        state.mkdir(parents=True)
        link = work / "other-link"
        link.symlink_to(project)
        mounts = Mounts(project=project, package=package, state=state)
        names = [unicodedata.normalize("NFC", n).casefold() for n in ("üser", "prøject-x")]
        spellings = [*_spellings(str(project)), f"{link}/src/app.py", str(link)]
        for spelled in spellings:
            for wrap in _WRAPS:
                out.runs += 1
                shown = alias_text(wrap.format(spelled), mounts)
                readable = unicodedata.normalize("NFC", shown).casefold()
                if any(n in readable for n in names) or "other-link" in readable:
                    out.fail(f"{wrap.format(spelled)!r} -> {shown!r}")
    return out
