"""``pack``'s budget: 25,000 tokens by default, --max-tokens N (or none: the whole
repository), --chat PRESET, AGENTPROMPT_MAX_TOKENS and .agentprompt/config.toml, in that
order; bad input is one line naming it, exit 2, the session unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import Result

Run = Callable[..., Result]


def _big(root: Path) -> Path:
    """Twelve source files of about 3,000 tokens each: together over the default budget."""
    for n in range(12):
        lines = "".join(f"def step_{n}_{i}(value):\n    return value + {i}\n\n" for i in range(220))
        (root / "src" / f"steps_{n}.py").write_text(lines, encoding="utf-8")
    return root


def _pack(run: Run, root: Path, *args: str) -> Result:
    return run("pack", "src", "--mode", "edit", "--root", str(root), "--lang", "en", *args)


def _tokens(result: Result) -> int:
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return int(data["tokens"])


def _status(run: Run, root: Path) -> str:
    return run("bridge", "status", "--root", str(root), "--json").out


def _one_error_line(result: Result) -> str:
    assert result.code == 2, result.out + result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("agentprompt: error: ")
    return lines[0]


def test_help_lists_the_default_and_every_preset(run: Run) -> None:
    text = " ".join(run("pack", "--help").out.split())
    assert "Default 25,000" in text and "--max-tokens N|none" in text
    for preset in (
        "chatgpt (25,000 tokens)",
        "claude (50,000 tokens)",
        "gemini (100,000",
        "copilot (8,000 tokens)",
        "small (6,000 tokens)",
    ):
        assert preset in text
    assert "AGENTPROMPT_MAX_TOKENS" in text and ".agentprompt/config.toml" in text


def test_a_first_prompt_fits_the_default_budget(run: Run, example: Path) -> None:
    _big(example)
    done = _pack(run, example, "--task", "t", "--json")
    assert 20_000 < _tokens(done) <= 25_000
    status = json.loads(_status(run, example))
    assert status["max_tokens"] == 25_000


def test_none_sends_the_whole_repository(run: Run, example: Path) -> None:
    _big(example)
    whole = _tokens(_pack(run, example, "--task", "t", "--json", "--max-tokens", "none"))
    assert whole > 36_000
    status = json.loads(_status(run, example))
    assert status["max_tokens"] is None


def test_a_chat_preset_sets_the_budget_and_max_tokens_wins(run: Run, example: Path) -> None:
    _big(example)
    assert _tokens(_pack(run, example, "--task", "t", "--json", "--chat", "small")) <= 6_000
    both = _pack(
        run, example, "--task", "t", "--new", "--json", "--chat", "small", "--max-tokens", "9000"
    )
    assert 6_000 < _tokens(both) <= 9_000
    again = run("pack", "--root", str(example), "--json", "--chat", "claude")
    assert 25_000 < _tokens(again) <= 50_000


def test_the_environment_and_the_config_file_set_the_default(
    run: Run, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _big(example)
    config = example / ".agentprompt" / "config.toml"
    config.parent.mkdir()
    config.write_text('chat = "small"\n', encoding="utf-8")
    assert _tokens(_pack(run, example, "--task", "t", "--json")) <= 6_000
    monkeypatch.setenv("AGENTPROMPT_MAX_TOKENS", "12000")
    assert 9_000 < _tokens(_pack(run, example, "--task", "t", "--json", "--new")) <= 12_000
    monkeypatch.setenv("AGENTPROMPT_MAX_TOKENS", "none")
    assert _tokens(_pack(run, example, "--task", "t", "--json", "--new")) > 36_000
    chosen = _pack(run, example, "--task", "t", "--json", "--new", "--max-tokens", "15000")
    assert 12_000 < _tokens(chosen) <= 15_000


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--max-tokens", "lots"), "--max-tokens: 'lots' is not a number of tokens"),
        (("--max-tokens", "-5"), "--max-tokens: -5 is not a budget (it must be 1 or more)"),
        (("--max-tokens", "0"), "--max-tokens: 0 is not a budget"),
        (("--chat", "grok"), "--chat: there is no chat preset 'grok'; choose one of chatgpt"),
        (("--max-tokens", "300"), "--max-tokens 300 is too small: the prompt's fixed text"),
    ],
)
def test_bad_budget_input_is_one_line_and_changes_nothing(
    run: Run, example: Path, args: tuple[str, ...], said: str
) -> None:
    run("pack", "--root", str(example), "--task", "first")
    before = _status(run, example)
    line = _one_error_line(run("pack", "--root", str(example), "--task", "t", "--new", *args))
    assert said in line
    assert "Traceback" not in line
    line = _one_error_line(run("pack", "--root", str(example), *args))
    assert said in line
    assert _status(run, example) == before


def test_the_smallest_budget_is_named(run: Run, example: Path) -> None:
    line = _one_error_line(run("pack", "--root", str(example), "--task", "t", "--max-tokens", "9"))
    floor = line.split("takes ")[1].split(" tokens")[0]
    assert f"give a budget of at least {floor} tokens" in line
    assert "no bridge session" in run("bridge", "status", "--root", str(example)).err


def test_a_bad_environment_or_config_file_is_one_line_naming_it(
    run: Run, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTPROMPT_MAX_TOKENS", "lots")
    line = _one_error_line(run("pack", "--root", str(example), "--task", "t"))
    assert "AGENTPROMPT_MAX_TOKENS: 'lots' is not a budget" in line
    # A budget given on the command line does not read the environment's.
    assert run("pack", "--root", str(example), "--task", "t", "--chat", "claude").code == 0
    monkeypatch.delenv("AGENTPROMPT_MAX_TOKENS")
    config = example / ".agentprompt" / "config.toml"
    config.write_text("max_tokens = -1\n", encoding="utf-8")
    line = _one_error_line(run("pack", "--root", str(example), "--task", "t", "--new"))
    assert f"{config}: max_tokens is -1, not a budget" in line
