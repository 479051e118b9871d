"""A whole repository's prompt made piece by piece: written, it is the joined text byte for
byte, counted exactly, never holding every file's text at once, and a file changed between
being screened and being written is an error, not an unscreened text in the prompt."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import pytest

from agentprompt.bridge import _streamed as streamed
from agentprompt.bridge import _survey as survey
from agentprompt.bridge import pack_repository
from agentprompt.bridge._streamed import FileBody, FileChanged
from agentprompt.bridge.pack import BridgePrompt, build_prompt
from agentprompt.bridge.state import BridgeState
from agentprompt.tokens import get_tokenizer

_TEXTS = (
    "def f():\n    return 'héllo'\n",
    "# Title 日本語\n\n```python\nx = 1\n```\n",
    "no final line break 😀",
    "",
    "~~~~\nfenced ```` text\n~~~~\n",
    "plain ascii\n" * 40,
)


def _repository(root: Path, files: int, repeat: int = 1) -> Path:
    """``files`` files in a few folders, cycling through texts with non-ASCII characters
    (two- and four-byte ones), fences, an empty text and one without a final line break."""
    for number in range(files):
        folder = root / f"pkg{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        text = _TEXTS[number % len(_TEXTS)] * repeat
        (folder / f"m{number:04d}.{('py', 'md', 'txt')[number % 3]}").write_text(
            text, encoding="utf-8"
        )
    return root


def _written(prompt: BridgePrompt) -> str:
    out = io.StringIO()
    prompt.write(out)
    return out.getvalue()


def test_the_written_prompt_is_the_joined_text_the_composer_path_renders(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo", 120)
    cache = tmp_path / "cache" / "symbols.db"
    prompt = pack_repository(root, "Review it", cache_path=cache)
    assert any(isinstance(p, FileBody) for p in prompt.body.pieces)
    written = _written(prompt)
    assert written == prompt.text
    assert prompt.tokens == get_tokenizer("o200k_base").count(written)
    # The path through the core composer (a report asked for) renders the same text.
    state = BridgeState(task="Review it", mode="edit", files=tuple(p for p, _ in prompt.sends))
    reported = build_prompt(
        root, state, split=False, report=True, secret_cache=tmp_path / "other.db"
    )
    assert reported.text == written and reported.tokens == prompt.tokens
    # Again, with every fact, verdict and count remembered: no file is read before writing.
    again = pack_repository(root, "Review it", cache_path=cache)
    assert _written(again) == written and again.tokens == prompt.tokens


def test_a_file_changed_after_it_was_screened_is_an_error(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo", 12)
    prompt = pack_repository(root, "Review it", cache_path=tmp_path / "cache" / "symbols.db")
    (root / "pkg0" / "m0000.py").write_text("password = 'hunter2hunter2hunter2'\n")
    with pytest.raises(FileChanged, match=r"pkg0/m0000\.py changed"):
        _written(prompt)


def test_making_and_writing_a_prompt_holds_a_batch_of_texts_not_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = 64_000
    monkeypatch.setattr(streamed, "BATCH_BYTES", batch)
    monkeypatch.setattr(survey, "BATCH_BYTES", batch)
    root = _repository(tmp_path / "repo", 140, repeat=160)
    cache = tmp_path / "cache" / "symbols.db"
    pack_repository(root, "Review it", cache_path=cache)  # imports and caches, untraced
    for fresh in (True, False):
        if fresh:
            for db in (tmp_path / "cache").glob("*.db"):
                db.unlink()
        tracemalloc.start()
        try:
            prompt = pack_repository(root, "Review it", cache_path=cache)
            size = prompt.body.chars
            with (tmp_path / "out.md").open("w", encoding="utf-8", newline="") as out:
                prompt.write(out)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        written = (tmp_path / "out.md").stat().st_size
        assert written >= size > 2_000_000
        # Every text held at once (or the prompt joined) would take the prompt's size.
        assert peak < written / 2, (fresh, peak, written)
