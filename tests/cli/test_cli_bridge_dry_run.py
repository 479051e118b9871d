"""``apply --dry-run`` in a bridge session previews the prompt a real apply would make next,
and writes nothing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import BRIDGE_EDITS as EDITS
from .conftest import Result, snapshot_tree

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"
Run = Callable[..., Result]

REQUEST = "I need them.\n\n<<<REQUEST_FILES>>>\n- src/utils.ts\n- src/index.ts\n<<<END>>>\n"


def _copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(EXAMPLE / "repo", root)
    return root


def _bridge(run: Run, *args: str) -> dict[str, Any]:
    result = run("apply", *args, "--json")
    assert result.code == 0, result.out + result.err
    data: dict[str, Any] = json.loads(result.out)["bridge"]
    return data


def _files(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in snapshot_tree(root).items() if not k.startswith(".agentprompt")}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_dry_run_preview_is_the_prompt_a_real_apply_makes(
    run: Run, tmp_path: Path, clipboard: list[str], lang: str
) -> None:
    reply = str(EXAMPLE / "reply.md")
    previews = []
    for name in ("dry", "real"):
        root = _copy(tmp_path, name)
        assert run("pack", "--root", str(root), "--task", "t", "--lang", lang).code == 0
        dry = name == "dry"
        extra = ("--dry-run",) if dry else ()
        previews.append(_bridge(run, reply, "--root", str(root), *extra)["prompt"]["text"])
    assert previews[0] == previews[1]
    # The follow-up sends the file asked for; the files the reply changed the chat knows.
    assert "### scripts/report.py\n```python\n" in previews[0]
    assert "return JSON.parse(str);\n  } catch (e) {" not in previews[0]


def test_dry_run_preview_shows_new_and_deleted_files_as_a_real_apply(
    run: Run, tmp_path: Path, clipboard: list[str]
) -> None:
    request = tmp_path / "request.md"
    request.write_text(REQUEST, encoding="utf-8")
    edits = tmp_path / "edits.md"
    edits.write_text(EDITS, encoding="utf-8")
    texts = []
    for name in ("dry", "real"):
        root = _copy(tmp_path, name)
        run("pack", "--root", str(root), "--task", "t", "--lang", "en")
        assert run("apply", str(request), "--root", str(root)).code == 0
        extra = ("--dry-run",) if name == "dry" else ()
        texts.append(_bridge(run, str(edits), "--root", str(root), *extra)["prompt"]["text"])
    assert texts[0] == texts[1]
    assert texts[0].startswith("✏️ Current mode: edit\n")
    assert "src/strings.ts" not in texts[0] and "report.py" not in texts[0]
    whole = run("pack", "--root", str(tmp_path / "real"), "--full").out
    assert '## src/strings.ts\n```typescript\nexport const greeting = "hello";\n' in whole


def test_a_dry_run_writes_nothing(run: Run, tmp_path: Path, clipboard: list[str]) -> None:
    root = _copy(tmp_path, "repo")
    run("pack", "--root", str(root), "--task", "t", "--lang", "en")
    before = _files(root)
    status = run("bridge", "status", "--root", str(root), "--json").out
    bridge_dir = sorted(p.name for p in (root / ".agentprompt").rglob("*") if "bridge" in p.parts)
    edits = tmp_path / "edits.md"
    edits.write_text(EDITS, encoding="utf-8")
    for reply in (str(EXAMPLE / "reply.md"), str(edits)):
        # EDITS rewrites src/utils.ts whole, which browse mode never showed in full.
        result = run("apply", reply, "--root", str(root), "--dry-run", "--allow-whole-file")
        assert result.code == 0, result.out + result.err
        assert "as the reply's edits would leave them" in result.out
    assert _files(root) == before
    assert run("bridge", "status", "--root", str(root), "--json").out == status
    after = sorted(p.name for p in (root / ".agentprompt").rglob("*") if "bridge" in p.parts)
    assert after == bridge_dir
    assert clipboard == []


def test_dry_run_preview_leaves_out_a_new_file_in_an_excluded_folder(
    run: Run, tmp_path: Path, clipboard: list[str]
) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(
        "<<<FILE: [NEW] build/out.ts>>>\nexport const a = 1;\n<<<END>>>\n"
        "<<<FILE: [NEW] src/kept.ts>>>\nexport const b = 2;\n<<<END>>>\n",
        encoding="utf-8",
    )
    texts = []
    for name in ("dry", "real"):
        root = _copy(tmp_path, name)
        (root / ".gitignore").write_text("build/\n")
        (root / "build").mkdir()
        (root / "build" / "old.ts").write_text("export const old = 0;\n")
        run("pack", "--root", str(root), "--task", "t", "--lang", "en")
        extra = ("--dry-run",) if name == "dry" else ()
        texts.append(_bridge(run, str(reply), "--root", str(root), *extra)["prompt"]["text"])
    assert texts[0] == texts[1]
    whole = run("pack", "--root", str(tmp_path / "real"), "--full").out
    assert "out.ts" not in whole and "kept.ts" in whole
