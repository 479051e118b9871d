"""Options given to ``pack`` on a session in progress are the session's from then on."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import Result

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"
Run = Callable[..., Result]

REQUEST = "I need it.\n\n<<<REQUEST_FILE: src/utils.ts>>>\n"


def _status(run: Run, root: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(run("bridge", "status", "--root", str(root), "--json").out)
    return data


def test_pack_options_on_a_session_are_stored_and_used_by_the_next_apply(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    assert run("pack", "--root", str(example), "--task", "t", "--lang", "en").code == 0
    changed = run("pack", "--root", str(example), "--lang", "ja", "--split-chars", "400")
    assert changed.code == 0, changed.err
    assert changed.out.startswith("---\n**📦 分割送信: パート 1/")
    # pack twice prints the same prompt: the stored options, the same round.
    assert run("pack", "--root", str(example)).out == changed.out
    state = _status(run, example)
    assert (state["lang"], state["split_chars"], state["rounds"]) == ("ja", 400, 0)
    reply = tmp_path / "reply.md"
    reply.write_text(REQUEST, encoding="utf-8")
    assert run("apply", str(reply), "--root", str(example)).code == 0
    assert clipboard[-1].startswith("---\n**📦 分割送信: パート 1/")
    assert "✏️ 現在のモード: 編集モード" in clipboard[-1]  # part 1 of the edit prompt
    assert len(clipboard[-1]) <= 400
    budget = run("pack", "--root", str(example), "--max-tokens", "5000", "--split-tokens", "4000")
    assert budget.code == 0, budget.err
    state = _status(run, example)
    assert (state["max_tokens"], state["split_tokens"], state["split_chars"]) == (5000, 4000, None)
    assert state["rounds"] == 1


def test_a_bad_option_on_pack_leaves_the_stored_session_unchanged(run: Run, example: Path) -> None:
    run("pack", "--root", str(example), "--task", "t", "--lang", "en")
    before = _status(run, example)
    result = run("pack", "--root", str(example), "--split-chars", "20")
    assert result.code == 2
    assert _status(run, example) == before


def test_pack_help_says_the_options_are_stored(run: Run) -> None:
    text = " ".join(run("pack", "--help").out.split())
    assert "are stored for the session" in text
