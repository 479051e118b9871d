"""``agentprompt apply``: exit codes, dry run, partial, recover, JSON, and bad input."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Result, snapshot_tree

Run = Callable[..., Result]

GOOD = """Here is the change:

```diff
--- a/src/app/core.py
+++ b/src/app/core.py
@@ -1 +1 @@
-VALUE = 1
+VALUE = 2
```
"""

BAD = """```diff
--- a/src/app/cli.py
+++ b/src/app/cli.py
@@ -1,2 +1,2 @@
 def main() -> None:
-    print('bye')
+    print('hello')
```
"""


def _reply(tmp_path: Path, text: str) -> str:
    path = tmp_path / "reply.md"
    path.write_text(text)
    return str(path)


def test_apply_writes_the_change_and_exits_0(run: Run, repo: Path, tmp_path: Path) -> None:
    result = run("apply", _reply(tmp_path, GOOD), "--root", str(repo))
    assert result.code == 0, result.out + result.err
    assert (repo / "src" / "app" / "core.py").read_text() == "VALUE = 2\n"
    assert "+VALUE = 2" in result.out and "applied" in result.out


def test_dry_run_prints_the_diff_and_writes_nothing(run: Run, repo: Path, tmp_path: Path) -> None:
    before = snapshot_tree(repo)
    result = run("apply", _reply(tmp_path, GOOD), "--root", str(repo), "--dry-run")
    assert result.code == 0
    assert "-VALUE = 1\n+VALUE = 2" in result.out
    assert snapshot_tree(repo) == before


def test_failure_exits_1_and_writes_nothing(run: Run, repo: Path, tmp_path: Path) -> None:
    before = snapshot_tree(repo)
    result = run("apply", _reply(tmp_path, GOOD + BAD), "--root", str(repo))
    assert result.code == 1
    assert "Feedback for the model" in result.out
    assert snapshot_tree(repo) == before


def test_partial_writes_what_matched_and_still_exits_1(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    result = run("apply", _reply(tmp_path, GOOD + BAD), "--root", str(repo), "--partial")
    assert result.code == 1
    assert (repo / "src" / "app" / "core.py").read_text() == "VALUE = 2\n"


def test_json_report_has_the_documented_shape(run: Run, repo: Path, tmp_path: Path) -> None:
    result = run("apply", _reply(tmp_path, GOOD + BAD), "--root", str(repo), "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert {"applied", "failed", "requests", "switch_mode", "continue", "diff"} <= set(data)
    assert data["applied"] == []
    assert data["matched"][0] == {
        "index": 0,
        "path": "src/app/core.py",
        "action": "patch",
        "stage": "exact",
    }
    failed = data["failed"][0]
    assert (failed["index"], failed["path"]) == (1, "src/app/cli.py")
    assert failed["reason"] and "Block 2" in failed["feedback"]


def test_reply_from_standard_input(run: Run, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GOOD.encode())))
    result = run("apply", "-", "--root", str(repo), "--json")
    assert result.code == 0
    assert json.loads(result.out)["applied"][0]["path"] == "src/app/core.py"


def test_requests_are_reported(run: Run, repo: Path, tmp_path: Path) -> None:
    reply = "<<<REQUEST_FILE: src/app/cli.py>>>\n"
    result = run("apply", _reply(tmp_path, reply), "--root", str(repo), "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["requests"] == ["src/app/cli.py"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing-reply.md"], "cannot read"),
        (["--root", "no-such-dir"], "not a directory"),
        (["--dialect", "klingon"], "klingon"),
    ],
)
def test_unusable_input_exits_2_without_a_traceback(
    run: Run, repo: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    before = snapshot_tree(repo)
    reply = _reply(tmp_path, GOOD)
    full = ["apply", *args] if args[0].startswith("missing") else ["apply", reply, *args]
    if "--root" not in args:
        full += ["--root", str(repo)]
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        result = run(*full)
    finally:
        os.chdir(old)
    assert result.code == 2
    assert message in result.err and "Traceback" not in result.err
    assert snapshot_tree(repo) == before


def test_pending_journal_is_refused_then_recovered(run: Run, repo: Path, tmp_path: Path) -> None:
    journal = repo / ".agentprompt" / "journal"
    journal.mkdir(parents=True)
    (journal / "orig-0").write_text("VALUE = 1\n")
    (repo / "src" / "app" / "core.py").write_text("VALUE = half-written\n")
    entry = {
        "path": "src/app/core.py",
        "backup": "orig-0",
        "mode": 0o644,
        "temp": ".core.py.agentprompt-0123456789abcdef.tmp",
        "after": None,
    }
    manifest = {"version": 2, "nonce": "00", "files": [entry], "dirs": []}
    (journal / "manifest.json").write_text(json.dumps(manifest))
    refused = run("apply", _reply(tmp_path, GOOD), "--root", str(repo))
    assert refused.code == 2 and "--recover" in refused.err
    before = snapshot_tree(repo)
    dry = run("apply", "--recover", "--dry-run", "--root", str(repo), "--json")
    assert dry.code == 0 and json.loads(dry.out)["restored"] == ["src/app/core.py"]
    assert snapshot_tree(repo) == before
    recovered = run("apply", "--recover", "--root", str(repo), "--json")
    assert recovered.code == 0
    assert json.loads(recovered.out) == {
        "found": True,
        "restored": ["src/app/core.py"],
        "removed": [],
        "kept": [],
        "dry_run": False,
    }
    assert (repo / "src" / "app" / "core.py").read_text() == "VALUE = 1\n"
    assert not journal.exists()


def test_recover_with_nothing_to_recover(run: Run, repo: Path) -> None:
    result = run("apply", "--recover", "--root", str(repo))
    assert result.code == 0 and "No interrupted apply" in result.out


def test_a_cut_off_block_fails_the_apply_and_writes_nothing(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    before = snapshot_tree(repo)
    cut = GOOD + "<<<FILE: src/app/new.py>>>\nprint('half\n"
    result = run("apply", _reply(tmp_path, cut), "--root", str(repo), "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert data["lost"] == 1 and data["written"] is False
    assert "could not be read" in data["feedback"]
    assert snapshot_tree(repo) == before


@pytest.mark.parametrize("text", ["", "I think you should change core.py.\n"])
def test_a_reply_without_edit_blocks_exits_2(
    run: Run, repo: Path, tmp_path: Path, text: str
) -> None:
    before = snapshot_tree(repo)
    result = run("apply", _reply(tmp_path, text), "--root", str(repo))
    assert result.code == 2 and "holds no edit blocks" in result.err
    assert snapshot_tree(repo) == before


def test_dry_run_with_a_cut_off_block_shows_the_diff_of_what_matched(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    cut = GOOD + "<<<FILE: src/app/new.py>>>\nprint('half\n"
    result = run("apply", _reply(tmp_path, cut), "--root", str(repo), "--dry-run", "--json")
    data = json.loads(result.out)
    assert result.code == 1 and data["lost"] == 1
    assert "+VALUE = 2" in data["diff"]


def test_write_failure_json_keeps_the_report_shape(
    run: Run, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentprompt.edits import journal

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal, "create_new", full)
    result = run("apply", _reply(tmp_path, GOOD), "--root", str(repo), "--json")
    data = json.loads(result.out)
    assert result.code == 1
    assert "No space left" in data["error"]
    assert {"applied", "failed", "diff", "written", "feedback"} <= set(data)
    assert data["written"] is False


def test_paths_with_brackets_are_shown_as_written(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "app" / "[slug]").mkdir(parents=True)
    (root / "app" / "[slug]" / "page.tsx").write_text("  return null;\n")
    reply = (
        "app/[slug]/page.tsx\n```tsx\n<<<<<<< SEARCH\n  return null;\n=======\n"
        "  return <div/>;\n>>>>>>> REPLACE\n```\n"
    )
    result = run("apply", _reply(tmp_path, reply), "--root", str(root))
    assert result.code == 0, result.out + result.err
    assert "│ app/[slug]/page.tsx │" in result.out


def test_a_path_that_looks_like_markup_does_not_break_the_report(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    reply = "<<<FILE: src/[/red]x.py>>>\nprint(1)\n<<<END>>>\n"
    result = run("apply", _reply(tmp_path, reply), "--root", str(root))
    assert result.code == 0, result.out + result.err
    assert "src/[/red]x.py" in result.out and "Traceback" not in result.err


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [
        (b"", 2, "holds no edit blocks"),
        (b"<<<END>>>\n<<<END>>>\n", 2, "holds no edit blocks"),
        (b"\xff\xfe\x00\x01binary\x00", 2, "not UTF-8 text"),
        (b"x" * 50_000_000, 2, "holds no edit blocks"),
        (b"<<<FILE: src/app/cli.py>>>\n<<<END>>>\n", 1, "would empty src/app/cli.py"),
    ],
    ids=["empty", "markers-only", "binary", "50-MB", "empty-file-block"],
)
def test_bad_replies_end_clearly_and_write_nothing(
    run: Run, repo: Path, tmp_path: Path, content: bytes, code: int, message: str
) -> None:
    before = snapshot_tree(repo)
    reply = tmp_path / "reply.md"
    reply.write_bytes(content)
    result = run("apply", str(reply), "--root", str(repo))
    assert result.code == code
    assert message in result.err + result.out and "Traceback" not in result.err
    assert snapshot_tree(repo) == before
    assert not (repo / ".agentprompt" / "journal").exists()


LOOSE = """```diff
--- a/src/app/cli.py
+++ b/src/app/cli.py
@@ -1,2 +1,2 @@
 def main()  ->  None:
-    print('hi')
+    print('hello')
```
"""


def test_strict_refuses_a_loose_placement_and_the_table_says_where_it_would_land(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    (repo / "src" / "app" / "cli.py").write_text("def main() -> None:\n    print('hi')\n")
    before = snapshot_tree(repo)
    loose = run("apply", _reply(tmp_path, LOOSE), "--root", str(repo), "--dry-run", "--json")
    assert loose.code == 0, loose.out + loose.err
    (placement,) = json.loads(loose.out)["matched"][0]["placements"]
    assert placement["stage"] == "whitespace" and placement["lines"] == [1, 2]
    shown = run("apply", _reply(tmp_path, LOOSE), "--root", str(repo), "--dry-run")
    assert "hunk 1: whitespace match at lines 1-2" in shown.out
    strict = run("apply", _reply(tmp_path, LOOSE), "--root", str(repo), "--strict")
    assert strict.code == 1
    assert "only exact matches" in strict.out
    assert snapshot_tree(repo) == before
