"""Rendered bridge prompts: seed 003's browse and edit prompts in Japanese and English."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.bridge._render import fence_for
from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.state import BridgeState
from agentprompt.bridge.text import default_lang, prompt_name
from agentprompt.edits.wording import UnknownLanguage


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_browse_prompt_snapshot(
    example: Path, lang: str, snapshot: Callable[[str, str], None]
) -> None:
    prompt = build_prompt(example, BridgeState(task="parseJSON を安全にする", lang=lang))
    snapshot(f"bridge/browse_{lang}.md", prompt.text)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_edit_prompt_snapshot(
    example: Path, lang: str, snapshot: Callable[[str, str], None]
) -> None:
    state = BridgeState(
        task="Make parseJSON safe", lang=lang, mode="edit", files=("src/utils.ts",), rounds=0
    )
    snapshot(f"bridge/edit_{lang}.md", build_prompt(example, state).user)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_continue_follow_up_snapshot(
    example: Path, lang: str, snapshot: Callable[[str, str], None]
) -> None:
    state = BridgeState(
        task="t",
        lang=lang,
        mode="edit",
        files=("src/utils.ts",),
        rounds=2,
        continuation=("src/index.ts",),
        missing=(("src/nope.ts", "does not exist"),),
        feedback="Block 1 was not applied.",
    )
    snapshot(f"bridge/continue_{lang}.md", build_prompt(example, state).text)


def test_browse_prompt_starts_the_user_part_with_the_fixed_mode_line(example: Path) -> None:
    prompt = build_prompt(example, BridgeState(task="t", lang="ja"))
    assert prompt.user.startswith("📖 現在のモード: 閲覧モード\n")
    assert "## ファイル構造\n" in prompt.user
    assert "  utils.ts (exports: formatDate, parseJSON, slugify)\n" in prompt.user
    assert prompt.text.startswith("# あなたはコーディングアシスタントです\n")


def test_edit_prompt_shows_each_file_in_full_under_its_path(example: Path) -> None:
    state = BridgeState(task="t", lang="ja", mode="edit", files=("src/utils.ts",), rounds=0)
    prompt = build_prompt(example, state)
    content = (example / "src/utils.ts").read_text()
    assert prompt.user.startswith("✏️ 現在のモード: 編集モード\n")
    assert f"## src/utils.ts\n```typescript\n{content}```\n" in prompt.user


def test_later_rounds_leave_the_system_part_out_of_the_pasted_text(example: Path) -> None:
    prompt = build_prompt(example, BridgeState(task="t", rounds=2))
    assert prompt.text == prompt.user
    assert prompt.messages()[0].content == prompt.system


def test_fence_is_longer_than_any_fence_in_the_content() -> None:
    assert fence_for("plain") == "```"
    assert fence_for("text\n````python\ncode\n````\n") == "`````"


def test_a_file_holding_fences_cannot_close_its_own_block(example: Path) -> None:
    (example / "NOTES.md").write_text("```\nnot the end\n```\n")
    state = BridgeState(task="t", mode="edit", files=("NOTES.md",), rounds=0)
    assert "````md\n```\nnot the end\n```\n````\n" in build_prompt(example, state).user


def test_language_defaults_to_japanese_only_for_a_japanese_locale() -> None:
    assert default_lang({"LANG": "ja_JP.UTF-8"}) == "ja"
    assert default_lang({"LC_ALL": "en_US.UTF-8", "LANG": "ja_JP.UTF-8"}) == "en"
    assert default_lang({"LC_MESSAGES": "ja"}) == "ja"
    assert default_lang({}) == "en"


def test_unknown_language_is_refused() -> None:
    with pytest.raises(UnknownLanguage, match="use lang en or lang ja"):
        prompt_name("browse", "fr")


def test_a_likely_secret_keeps_the_file_out(example: Path) -> None:
    (example / "config.py").write_text('AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n')
    state = BridgeState(task="t", mode="edit", files=("config.py",), rounds=0)
    prompt = build_prompt(example, state)
    assert "AKIAIOSFODNN7EXAMPLE" not in prompt.text
    assert "- config.py:1: AWS Access Key" in prompt.user


SPLIT_HEADINGS = {"ja": "## 分割送信の対応", "en": "## Split prompts"}
LONG_INPUT = {"ja": "### 入力が長い場合（ユーザー→LLM）", "en": "### Long input (user → you)"}
LONG_OUTPUT = {"ja": "### 出力が長い場合（LLM→ユーザー）", "en": "### Long output (you → user)"}


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_system_part_has_one_split_section_last_input_then_output(lang: str) -> None:
    from agentprompt.bridge._render import render_system

    lines = render_system(lang).split("\n")
    assert lines.count(SPLIT_HEADINGS[lang]) == 1
    at = lines.index(SPLIT_HEADINGS[lang])
    # The last "## " section, holding long input first, then long output (CONTINUE).
    assert [line for line in lines[at + 1 :] if line.startswith("## ")] == []
    assert lines.index(LONG_INPUT[lang]) > at
    assert lines.index(LONG_OUTPUT[lang]) > lines.index(LONG_INPUT[lang])
    assert "<<<CONTINUE>>>" in lines[lines.index(LONG_OUTPUT[lang]) :]


def test_system_split_section_is_the_seeds_text(seed_003: str) -> None:
    from agentprompt.bridge._render import render_system

    seed = seed_003[seed_003.index("### 入力が長い場合") :]
    seed = seed[: seed.index("\n---\n\n## 使用例")]
    given = [piece for piece in seed.split("\n\n") if not piece.startswith("### 出力")]
    system = render_system("ja")
    assert [piece for piece in given if piece not in system] == []
    assert seed.split("### 出力が長い場合（LLM→ユーザー）\n")[1] in system


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_dialect_instructions_alone_still_explain_continue(lang: str) -> None:
    from agentprompt.edits.instructions import dialect_instructions

    text = dialect_instructions("bridge", lang)
    assert "<<<CONTINUE>>>" in text
    assert text.split("\n").count(SPLIT_HEADINGS[lang]) == 1
