"""parse_reply: auto-detection, mixing dialects, tolerances, errors, instructions, corpora."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentprompt.edits import (
    DIALECTS,
    EditError,
    detect_dialects,
    parse_reply,
)
from agentprompt.edits.dialect_names import AUTO, DIALECT_NAMES
from agentprompt.edits.instructions import dialect_instructions
from agentprompt.errors import UsageError

MIXED = """I will make three changes.

<<<FILE: a.ts>>>
export {};
<<<END>>>

b.py
<<<<<<< SEARCH
x
=======
y
>>>>>>> REPLACE

```diff
--- a/c.txt
+++ b/c.txt
@@ -1 +1 @@
-1
+2
```

d.py
««« EDIT
p
═══════ REPL
q
»»» EDIT END

*** Begin Patch
*** Delete File: e.py
*** End Patch

f.json
```json
{}
```
"""


def test_one_reply_may_mix_every_dialect_and_blocks_are_numbered_in_order() -> None:
    result = parse_reply(MIXED)
    assert [(a.block, a.dialect) for a in result.actions] == [
        (0, "bridge"),
        (1, "searchreplace"),
        (2, "udiff"),
        (3, "editrepl"),
        (4, "applypatch"),
        (5, "whole"),
    ]
    assert result.diagnostics == ()


def test_a_named_dialect_reads_only_its_own_blocks() -> None:
    result = parse_reply(MIXED, "udiff")
    assert [a.dialect for a in result.actions] == ["udiff"]
    assert result.actions[0].block == 0


def test_detect_dialects_names_the_markers_present() -> None:
    assert detect_dialects(MIXED) == tuple(DIALECTS)
    assert detect_dialects("just prose") == ()


def test_the_names_offered_before_parsing_are_the_registered_dialects() -> None:
    # The MCP server's schema lists DIALECT_NAMES without importing the readers.
    assert tuple(DIALECTS) == DIALECT_NAMES
    assert AUTO not in DIALECT_NAMES


def test_unknown_dialect_names_the_valid_ones() -> None:
    with pytest.raises(EditError) as caught:
        parse_reply("x", "ed")
    assert isinstance(caught.value, EditError)
    for name in ("auto", *DIALECTS):
        assert name in str(caught.value)


def test_crlf_reply_parses_like_lf() -> None:
    crlf = MIXED.replace("\n", "\r\n")
    assert parse_reply(crlf) == parse_reply(MIXED)


def test_trailing_spaces_on_marker_lines_are_tolerated() -> None:
    spaced = "\n".join(
        line + "  "
        if line.startswith(("<<<", "»»»", "═══", "«««", "***", "=====", ">>>"))
        else line
        for line in MIXED.split("\n")
    )
    assert spaced != MIXED
    assert parse_reply(spaced).actions == parse_reply(MIXED).actions


def test_prose_only_reply_gives_a_no_blocks_warning() -> None:
    result = parse_reply("Sure, here is an explanation.\n")
    assert result.actions == ()
    assert [(d.code, d.severity) for d in result.diagnostics] == [("no-blocks", "warning")]


def test_empty_reply_gives_nothing() -> None:
    assert parse_reply("").diagnostics == ()


def test_cut_off_final_block_keeps_what_was_complete() -> None:
    cut = MIXED[: MIXED.rindex("{}")]
    result = parse_reply(cut)
    assert len(result.actions) == 5
    assert result.truncated
    assert result.diagnostics[-1].block == 5


def test_to_json_has_actions_and_diagnostics() -> None:
    data = parse_reply("b.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n").to_json()
    assert set(data) == {"actions", "diagnostics"}
    (action,) = data["actions"]
    assert (action["kind"], action["search"], action["replace"]) == ("replace", "x\n", "y\n")


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_every_dialect_has_instructions_whose_examples_parse(name: str) -> None:
    text = dialect_instructions(name)
    result = parse_reply(text, name)
    assert result.actions
    assert not [d for d in result.diagnostics if d.severity == "error"]


def test_bridge_instructions_are_japanese_with_the_bridge_markers_and_english_exists() -> None:
    ja = dialect_instructions("bridge")
    assert "<<<SWITCH_MODE: edit>>>\n対象ファイル:\n- path/to/file.ts\n" in ja
    assert "残り: N個のファイル変更があります" in ja
    en = dialect_instructions("bridge", lang="en")
    assert "Target files:" in en and "Remaining: N file changes" in en
    assert dialect_instructions("bridge", lang="ja") == ja


def test_editrepl_instructions_carry_the_spec_block() -> None:
    block = (
        "path/to/file.ext\n««« EDIT\n[context lines]\n[old lines]\n═══════ REPL\n"
        "[the same context lines]\n[new lines]\n»»» EDIT END\n"
    )
    assert block in dialect_instructions("editrepl")


def test_instructions_in_a_missing_language_name_the_available_ones() -> None:
    with pytest.raises(UsageError, match="available languages: en, ja"):
        dialect_instructions("bridge", lang="fr")


def test_a_project_prompt_overrides_the_packaged_instructions(tmp_path: Path) -> None:
    override = tmp_path / "config" / "prompts" / "edits" / "dialect_udiff.md"
    override.parent.mkdir(parents=True)
    override.write_text("Use diffs.\n", encoding="utf-8")
    assert dialect_instructions("udiff", root=tmp_path) == "Use diffs."


def _corpora() -> Path | None:
    here = Path(__file__).resolve()
    for candidate in (here.parents[3] / "shared" / "corpora", Path("/work/shared/corpora")):
        if (candidate / "gpt-engineer-diffs").is_dir():
            return candidate
    return None


CORPORA = _corpora()
CHATS = sorted((CORPORA / "gpt-engineer-diffs").glob("*_chat")) if CORPORA else []


YML = "src/main/resources/application"
GPT_ENGINEER_EXPECTED = {
    "apps_benchmark_6_chat": [("write", "main.py"), ("patch", "main.py")],
    "apps_benchmark_6_v2_chat": [("patch", "main.py")],
    "controller_chat": [("patch", "controller.py")],
    "create_two_new_files_chat": [("write", "service_history_evaluator.py"), ("write", "main.py")],
    "simple_calculator_chat": [("patch", "calculator.py"), ("write", "main.py")],
    "task_master_chat": [("patch", "taskmaster.py")],
    "temperature_converter_chat": [("patch", "temperatureconverter.py")],
    "theo_case_chat": [
        ("write", "run.py"),
        ("patch", "dockerfile"),
        ("write", "run.py"),
        ("patch", "dockerfile"),
    ],
    "vgvishesh_example_2_chat": [("patch", "src/App.tsx")],
    "vgvishesh_example_chat": [("patch", "src/components/SocialLinks.tsx")],
    "wheaties_example_chat": [("patch", "VMClonetest.ps1")],
    "zbf_yml_missing_chat": [
        ("write", f"{YML}-local.yml"),
        ("patch", f"{YML}.yml"),
        ("patch", f"{YML}.yml"),
        ("patch", f"{YML}-local.yml"),
    ],
}
"""What each gpt-engineer reply parses into (kind, path), reviewed by reading the replies."""


@pytest.mark.skipif(CORPORA is None, reason="../shared/corpora is not present")
@pytest.mark.parametrize("chat", CHATS, ids=lambda p: p.name)
def test_every_gpt_engineer_reply_parses_into_its_reviewed_actions(chat: Path) -> None:
    result = parse_reply(chat.read_text(encoding="utf-8"))
    assert [(a.kind, getattr(a, "path", None)) for a in result.actions] == (
        GPT_ENGINEER_EXPECTED[chat.name]
    )
    assert all(a.dialect == "udiff" for a in result.actions)
    assert result.diagnostics == ()


@pytest.mark.skipif(CORPORA is None, reason="../shared/corpora is not present")
def test_gpt_engineer_new_files_from_dev_null_are_create_only_writes() -> None:
    assert CORPORA is not None
    text = (CORPORA / "gpt-engineer-diffs" / "create_two_new_files_chat").read_text()
    result = parse_reply(text)
    assert [(a.kind, getattr(a, "create_only", None)) for a in result.actions] == [
        ("write", True),
        ("write", True),
    ]


def _seed_003() -> Path | None:
    here = Path(__file__).resolve()
    for seeds in (here.parents[3] / "shared" / "seeds", Path("/work/shared/seeds")):
        found = sorted(seeds.glob("003_*.md")) if seeds.is_dir() else []
        if found:
            return found[0]
    return None


SEED_003 = _seed_003()


@pytest.mark.skipif(SEED_003 is None, reason="../shared/seeds is not present")
def test_bridge_instructions_carry_every_marker_block_of_seed_003_byte_for_byte() -> None:
    assert SEED_003 is not None
    blocks = re.findall(r"```\n(.*?)```", SEED_003.read_text(encoding="utf-8"), re.DOTALL)
    marker_blocks = [b for b in blocks if "<<<" in b]
    assert len(marker_blocks) >= 9
    ja = dialect_instructions("bridge")
    assert [b for b in marker_blocks if b not in ja + "\n"] == []


@pytest.mark.skipif(SEED_003 is None, reason="../shared/seeds is not present")
def test_bridge_instructions_keep_seed_003_headings_byte_for_byte() -> None:
    assert SEED_003 is not None
    seed = SEED_003.read_text(encoding="utf-8").split("\n")
    headings = [
        "## LLMからの出力形式",
        "### コード変更フォーマット",
        "#### 全体置換 (ファイル全体を書き換える場合)",
        "#### 新規ファイル作成",
        "#### 差分更新 (一部のみ変更する場合)",
        "#### ファイル削除",
        "#### 複数ファイルの変更",
        "## ファイルリクエスト形式",
        "### 単一ファイルのリクエスト",
        "### 複数ファイルのリクエスト",
        "### 編集モードへの切替をリクエスト",
        "## 分割送信の対応",
        "### 出力が長い場合（LLM→ユーザー）",
    ]
    prompt = dialect_instructions("bridge").split("\n")
    assert [h for h in headings if h not in seed] == []
    assert [h for h in headings if h not in prompt] == []
