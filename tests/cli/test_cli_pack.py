"""``agentprompt pack`` and the bridge loop through ``apply``: the seed 003 flow end to end."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.bridge.split import join_parts

from .conftest import BRIDGE_EDITS as EDITS
from .conftest import Result, snapshot_tree

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"
Run = Callable[..., Result]


def _files(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in snapshot_tree(root).items() if not k.startswith(".agentprompt")}


def _reply(tmp_path: Path, text: str, name: str = "reply.md") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


REQUEST = """I need to see these first.

<<<REQUEST_FILES>>>
- src/utils.ts
- src/index.ts
- src/missing.ts
<<<END>>>
"""


def test_full_loop_browse_request_edit_applies_every_block(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    first = run("pack", "--root", str(example), "--task", "Make parseJSON safe", "--lang", "en")
    assert first.code == 0, first.err
    assert "📖 Current mode: browse" in first.out
    applied = run("apply", _reply(tmp_path, REQUEST), "--root", str(example))
    assert applied.code == 0, applied.err
    assert "Files were added. Paste the prompt into the LLM." in applied.out
    assert clipboard and clipboard[-1].startswith("✏️ Current mode: edit\n")
    assert "- src/missing.ts: does not exist" in clipboard[-1]
    second = run("pack", "--root", str(example))
    assert second.out == clipboard[-1]
    assert "### src/utils.ts\n```typescript\n" in second.out
    index_before = (example / "src/index.ts").read_text()
    done = run("apply", _reply(tmp_path, EDITS, "edits.md"), "--root", str(example))
    assert done.code == 0, done.out + done.err
    # An edit round adds no file: the notice says the next prompt is ready, not that files
    # were added.
    assert "The next prompt is ready. Paste it into the LLM." in done.out
    assert "Files were added" not in done.out
    assert (example / "src/utils.ts").read_text() == (
        "export function parseJSON(str: string): unknown {\n  try {\n    return JSON.parse(str);\n"
        "  } catch {\n    return null;\n  }\n}\n"
    )
    assert (example / "src/strings.ts").read_text() == 'export const greeting = "hello";\n'
    assert (example / "src/index.ts").read_text() == index_before.replace(
        "import { formatDate, parseJSON }", "import { parseJSON }"
    )
    assert not (example / "scripts/report.py").exists()
    status = json.loads(run("bridge", "status", "--root", str(example), "--json").out)
    assert status["rounds"] == 2
    assert status["files"] == ["src/utils.ts", "src/index.ts", "src/strings.ts"]
    # The reply wrote these files: the chat knows them, the follow-up does not send them.
    assert clipboard[-1].startswith("✏️ Current mode: edit\n")
    assert "src/strings.ts" not in clipboard[-1]
    whole = run("pack", "--root", str(example), "--full")
    assert "## src/strings.ts\n" in whole.out and "# You are a coding assistant" in whole.out


def test_pack_twice_prints_the_same_prompt(run: Run, example: Path) -> None:
    started = run("pack", "--root", str(example), "--task", "t", "--lang", "ja")
    again = run("pack", "--root", str(example))
    third = run("pack", "--root", str(example))
    assert started.out == again.out == third.out
    assert "📖 現在のモード: 閲覧モード" in again.out


def test_continue_records_what_is_owed_and_asks_to_continue(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    run("pack", "src/utils.ts", "--root", str(example), "--task", "t", "--lang", "ja")
    cut = (
        "<<<FILE: src/utils.ts>>>\nexport const a = 1;\n<<<END>>>\n\n"
        "<<<CONTINUE>>>\n残り: 1個のファイル変更があります\n- src/index.ts\n<<<END>>>\n"
    )
    assert run("apply", _reply(tmp_path, cut), "--root", str(example)).code == 0
    assert clipboard[-1] == "続けて\n- src/index.ts\n"
    assert run("pack", "--root", str(example)).out == clipboard[-1]
    rest = (
        "<<<DIFF: src/index.ts>>>\n@@ -9 +9 @@\n"
        "-main(process.argv.slice(2));\n+main([]);\n<<<END>>>\n"
    )
    assert run("apply", _reply(tmp_path, rest, "rest.md"), "--root", str(example)).code == 0
    assert clipboard[-1].startswith("✏️ 現在のモード: 編集モード\n")
    assert (example / "src/index.ts").read_text().endswith("main([]);\n")


def test_a_reply_cut_off_mid_block_writes_nothing_and_asks_again(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    run("pack", "src/utils.ts", "--root", str(example), "--task", "t", "--lang", "en")
    before = _files(example)
    cut = "<<<FILE: src/utils.ts>>>\nexport const a = 1;\n"
    result = run("apply", _reply(tmp_path, cut), "--root", str(example))
    assert result.code == 1
    assert _files(example) == before
    assert "## Result of your last changes" in clipboard[-1]


def test_split_parts_join_back_and_part_k_prints_one(run: Run, example: Path) -> None:
    whole = run("pack", "--root", str(example), "--task", "t", "--lang", "ja").out
    parts_json = json.loads(
        run("pack", "--root", str(example), "--split-chars", "1500", "--json").out
    )["parts"]
    assert len(parts_json) > 2
    assert all(len(p) <= 1500 for p in parts_json)
    assert join_parts(parts_json, "ja") == whole
    second = run("pack", "--root", str(example), "--split-chars", "1500", "--part", "2")
    assert second.out == parts_json[1]
    assert second.out.startswith(f"---\n**📦 分割送信: パート 2/{len(parts_json)}**\n")


def test_copy_puts_part_one_on_the_clipboard_and_tells_the_next(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    run("pack", "--root", str(example), "--task", "t", "--lang", "en")
    result = run("pack", "--root", str(example), "--split-chars", "2000", "--copy")
    assert result.code == 0
    assert clipboard[-1].startswith("---\n**📦 Split message: part 1/")
    assert "--part 2 --copy" in result.err


def test_no_clipboard_writes_the_prompt_to_a_file_and_stdout(
    run: Run, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", "")
    result = run("pack", "--root", str(example), "--task", "t", "--lang", "en", "--copy")
    assert result.code == 0
    saved = example / ".agentprompt" / "bridge" / "prompt.md"
    [line] = [x for x in result.err.splitlines() if "clipboard" in x.lower()]
    assert line == f"No clipboard: the prompt was written to {saved} (also printed below)."
    assert "http" not in result.err
    assert saved.read_text(encoding="utf-8") == result.out
    assert "Traceback" not in result.err


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_api_formats_hold_the_system_and_user_parts(run: Run, example: Path, fmt: str) -> None:
    result = run("pack", "--root", str(example), "--task", "t", "--lang", "en", "--format", fmt)
    data = json.loads(result.out)
    text = json.dumps(data, ensure_ascii=False)
    assert "# You are a coding assistant" in text
    assert "📖 Current mode: browse" in text


def test_max_tokens_fits_and_says_what_was_left_out(run: Run, example: Path) -> None:
    result = run(
        "pack",
        ".",
        "--root",
        str(example),
        "--task",
        "t",
        "--lang",
        "en",
        "--max-tokens",
        "1250",
        "--json",
    )
    data = json.loads(result.out)
    assert data["tokens"] <= 1250
    assert data["left_out"]
    assert "## Files left out" in data["user"]
    # The budget's own cut report: each cut names the file's section and what it became.
    cut = {c["section"]: c["action"] for c in data["cuts"] if c["section"].startswith("file:")}
    assert {f"file:{p}" for p, _kept in ((x["path"], x["kept"]) for x in data["left_out"])} == set(
        cut
    )
    assert "kept to fit --max-tokens, best ranked first: " in result.err


def test_what_a_budget_kept_is_one_line_and_the_report_lists_every_cut(
    run: Run, tmp_path: Path
) -> None:
    for i in range(12):
        body = "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n" for j in range(10 + 5 * i))
        (tmp_path / f"mod{i:02}.py").write_text(body, encoding="utf-8")
    args = ("pack", "--root", str(tmp_path), "--task", "t", "--lang", "en", "--new")
    data = json.loads(run(*args, "--max-tokens", "2500", "--json").out)
    assert len(data["cuts"]) > 5
    err = run(*args, "--max-tokens", "2500").err
    kept = [line for line in err.splitlines() if line.startswith("kept to fit --max-tokens")]
    assert len(kept) == 1 and "cut to fit" not in err
    assert f"{len(data['summarised'])} summaries ({data['summarised'][0]}, " in kept[0]
    assert kept[0].endswith("(--report lists every cut)")
    everything = run(*args, "--max-tokens", "2500", "--report").err
    assert everything.count("cut to fit --max-tokens: ") == len(data["cuts"])


def test_report_gives_the_tokens_of_every_section(run: Run, example: Path) -> None:
    args = ("pack", "src/utils.ts", "scripts/report.py", "--root", str(example), "--task", "t")
    result = run(*args, "--lang", "en", "--report", "--json")
    data = json.loads(result.out)
    ids = [s["id"] for s in data["sections"]]
    assert ids[0] == "frame" and set(ids[1:]) == {"file:src/utils.ts", "file:scripts/report.py"}
    assert data["cuts"] == []
    assert all(s["tokens"] > 0 for s in data["sections"])
    assert "tokens per section (3, largest first):" in result.err
    assert "file:src/utils.ts" in result.err
    plain = json.loads(run("pack", "--root", str(example), "--json").out)
    assert plain["sections"] == [] and plain["text"] == data["text"]


def _untouched(run: Run, root: Path, *args: str) -> Result:
    before = snapshot_tree(root)
    status = run("bridge", "status", "--root", str(root), "--json").out
    result = run(*args)
    assert result.code == 2, result.out + result.err
    assert "agentprompt: error:" in result.err or "Error" in result.err
    assert "Traceback" not in result.err
    assert snapshot_tree(root) == before
    assert run("bridge", "status", "--root", str(root), "--json").out == status
    return result


def test_unknown_file_is_bad_input(run: Run, example: Path) -> None:
    run("pack", "--root", str(example), "--task", "t")
    result = _untouched(run, example, "pack", "nope.ts", "--root", str(example), "--task", "u")
    assert "nope.ts" in result.err


@pytest.mark.parametrize("text", ["", "  \n\t\n"], ids=["empty", "whitespace"])
def test_an_empty_reply_is_bad_input(run: Run, example: Path, tmp_path: Path, text: str) -> None:
    run("pack", "--root", str(example), "--task", "t")
    _untouched(run, example, "apply", _reply(tmp_path, text), "--root", str(example))


def test_part_out_of_range_is_bad_input(run: Run, example: Path) -> None:
    # Unbudgeted: a budgeted prompt refreshes the cache database's last-use times (a
    # cache, not the project's files or its session), which the snapshot would see.
    run("pack", "--root", str(example), "--task", "t", "--max-tokens", "none")
    result = _untouched(run, example, "pack", "--root", str(example), "--part", "9")
    assert "--part 9 is out of range" in result.err


def test_corrupt_session_database_is_bad_input(run: Run, example: Path, tmp_path: Path) -> None:
    db = example / ".agentprompt" / "state.db"
    db.parent.mkdir()
    db.write_bytes(b"this is not a database" * 100)
    edits = _reply(tmp_path, "<<<DELETE: README.md>>>\n")
    for args in (("pack", "--root", str(example)), ("apply", edits, "--root", str(example))):
        result = run(*args)
        assert result.code == 2
        assert "damaged" in result.err
    assert (example / "README.md").exists()
    assert db.read_bytes() == b"this is not a database" * 100


def test_pack_without_a_session_or_task_is_bad_input(run: Run, example: Path) -> None:
    result = run("pack", "--root", str(example))
    assert result.code == 2
    assert "agentprompt pack --task TEXT" in result.err
    assert not (example / ".agentprompt" / "state.db").exists()


def test_apply_without_a_session_creates_no_state(run: Run, example: Path, tmp_path: Path) -> None:
    result = run("apply", _reply(tmp_path, "<<<DELETE: README.md>>>\n"), "--root", str(example))
    assert result.code == 0
    assert "Paste the prompt" not in result.out
    assert not (example / ".agentprompt").exists()


def test_dry_run_shows_the_next_prompt_and_keeps_the_session(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    run("pack", "--root", str(example), "--task", "t", "--lang", "en")
    status = run("bridge", "status", "--root", str(example), "--json").out
    result = run("apply", str(EXAMPLE / "reply.md"), "--root", str(example), "--dry-run")
    assert result.code == 0, result.err
    assert "+  try {" in result.out
    assert "Next prompt (dry run" in result.out
    assert "## scripts/report.py\n```python\n" in result.out
    assert run("bridge", "status", "--root", str(example), "--json").out == status
    assert clipboard == []


def test_the_continue_follow_up_still_reports_failed_edits_and_missing_files(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    run("pack", "src/utils.ts", "--root", str(example), "--task", "t", "--lang", "ja")
    before = _files(example)
    reply = (
        "<<<DIFF: src/utils.ts>>>\n@@ -1 +1 @@\n-no such line\n+x\n<<<END>>>\n\n"
        "<<<REQUEST_FILE: src/missing.ts>>>\n\n"
        "<<<CONTINUE>>>\n残り: 1個のファイル変更があります\n- src/index.ts\n<<<END>>>\n"
    )
    assert run("apply", _reply(tmp_path, reply), "--root", str(example)).code == 1
    assert _files(example) == before
    follow_up = clipboard[-1]
    assert follow_up.startswith("続けて\n- src/index.ts\n")
    assert "\n## 前回の変更の結果\n" in follow_up
    assert "\n## 提供できないファイル\n" in follow_up
    assert "- src/missing.ts: 存在しません" in follow_up
    assert run("pack", "--root", str(example)).out == follow_up
    status = run("bridge", "status", "--root", str(example)).out
    assert "still owed: src/index.ts" in status
    assert "cannot show src/missing.ts: 存在しません" in status


def test_a_reply_cut_off_mid_block_gets_the_continue_follow_up(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    run("pack", "src/utils.ts", "--root", str(example), "--task", "t", "--lang", "en")
    cut = "<<<FILE: src/utils.ts>>>\nexport const a = 1;\n"
    assert run("apply", _reply(tmp_path, cut), "--root", str(example)).code == 1
    follow_up = clipboard[-1]
    assert follow_up.startswith("continue\n\n## Result of your last changes\n")
    assert "cut off inside the <<<FILE: src/utils.ts>>> block" in follow_up
    assert "waiting for the rest of a reply" in run("bridge", "status", "--root", str(example)).out
    whole = "<<<FILE: src/utils.ts>>>\nexport const a = 1;\n<<<END>>>\n"
    assert run("apply", _reply(tmp_path, whole, "whole.md"), "--root", str(example)).code == 0
    assert (example / "src/utils.ts").read_text() == "export const a = 1;\n"
    assert clipboard[-1].startswith("✏️ Current mode: edit\n")


def test_the_next_part_hint_keeps_the_root(run: Run, example: Path, clipboard: list[str]) -> None:
    run("pack", "--root", str(example), "--task", "t", "--lang", "en")
    result = run("pack", "--root", str(example), "--split-chars", "2000", "--copy")
    assert f"agentprompt pack --root {example} --part 2 --copy" in result.err


def test_printing_every_part_says_how_to_take_one(run: Run, example: Path) -> None:
    run("pack", "--root", str(example), "--task", "t", "--lang", "en")
    result = run("pack", "--root", str(example), "--split-chars", "2000")
    assert result.code == 0
    assert f"agentprompt pack --root {example} --part 1 --copy" in result.err


def test_a_dry_run_says_its_next_prompt_shows_the_files_edited(run: Run, example: Path) -> None:
    run("pack", "--root", str(example), "--task", "t", "--lang", "en")
    result = run("apply", str(EXAMPLE / "reply.md"), "--root", str(example), "--dry-run")
    assert "it shows the files as the reply's edits would leave them" in result.out
    assert "Would be added to the context: scripts/report.py" in result.out


@pytest.mark.parametrize("fmt", ["json", "openai", "anthropic"])
def test_copy_or_part_with_an_api_format_is_bad_input(run: Run, example: Path, fmt: str) -> None:
    for extra in (("--copy",), ("--part", "1")):
        result = run("pack", "--root", str(example), "--task", "t", "--format", fmt, *extra)
        assert result.code == 2
        assert f"--format {fmt}" in result.err
        assert not (example / ".agentprompt").exists()


def test_no_clipboard_and_no_room_for_the_file_still_prints_the_prompt(
    run: Run, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_clipboard(text: str) -> None:
        raise RuntimeError("no clipboard here")

    monkeypatch.setattr("agentprompt.bridge.clipboard.system_copy", no_clipboard)
    (example / ".agentprompt").mkdir()
    (example / ".agentprompt" / "bridge").write_text("in the way\n")
    result = run("pack", "--root", str(example), "--task", "t", "--lang", "en", "--copy")
    assert result.code == 0
    assert result.out.startswith("# You are a coding assistant\n")
    assert "No clipboard, and the prompt could not be saved (" in result.err
    assert "it is printed below" in result.err


def test_a_next_prompt_over_the_sessions_limit_keeps_the_applied_round(
    run: Run, example: Path, tmp_path: Path
) -> None:
    (example / "scripts" / "long.py").write_text('x = "' + "a" * 600 + '"\n')
    run("pack", "--root", str(example), "--task", "t", "--lang", "en", "--split-chars", "600")
    reply = (
        "<<<FILE: [NEW] src/a.ts>>>\nexport const a = 1;\n<<<END>>>\n"
        "<<<REQUEST_FILE: scripts/long.py>>>\n"
    )
    result = run("apply", _reply(tmp_path, reply), "--root", str(example))
    # Files were written: exit 1, naming them (exit 2 means nothing was written).
    assert result.code == 1
    assert "the reply's edits were written (src/a.ts), but the next prompt cannot" in result.err
    assert "raise --split-chars" in result.err
    assert (example / "src" / "a.ts").read_text() == "export const a = 1;\n"
    state = json.loads(run("bridge", "status", "--root", str(example), "--json").out)
    assert (state["rounds"], state["mode"]) == (1, "edit")
    assert state["files"] == ["scripts/long.py", "src/a.ts"]
    printed = run("pack", "--root", str(example), "--split-chars", "2000")
    assert printed.code == 0
    assert "## scripts/long.py\n" in printed.out


def test_a_whole_repository_prompt_prints_and_copies_the_parts_json_holds(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    run("pack", ".", "--root", str(example), "--task", "t", "--lang", "en")
    parts = json.loads(run("pack", "--root", str(example), "--split-chars", "1500", "--json").out)[
        "parts"
    ]
    assert len(parts) > 2
    printed = run("pack", "--root", str(example), "--split-chars", "1500")
    assert printed.out == "".join(parts)
    assert f"The prompt is in {len(parts)} parts" in printed.err
    run("pack", "--root", str(example), "--split-chars", "1500", "--part", "2", "--copy")
    assert clipboard[-1] == parts[1]
