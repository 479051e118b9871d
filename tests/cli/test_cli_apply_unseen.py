"""``apply`` in a bridge session never replaces a whole file the model was not shown in
full (browse mode shows outlines only), unless ``--allow-whole-file``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from agentprompt.bridge.state import BridgeState, find_session

from .conftest import Result

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"
Run = Callable[..., Result]

ONLY_PARSE = """Here is the fix.

<<<FILE: src/utils.ts>>>
export function parseJSON(str: string): unknown {
  try {
    return JSON.parse(str);
  } catch {
    return null;
  }
}
<<<END>>>
"""


def _browse(run: Run, tmp_path: Path) -> tuple[Path, Path, bytes]:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "repo", root)
    assert run("pack", "--root", str(root), "--task", "Fix parseJSON.", "--lang", "en").code == 0
    reply = tmp_path / "reply.md"
    reply.write_text(ONLY_PARSE, encoding="utf-8")
    return root, reply, (root / "src" / "utils.ts").read_bytes()


def test_browse_mode_whole_file_write_is_refused_with_feedback(
    run: Run, tmp_path: Path, clipboard: list[str]
) -> None:
    root, reply, before = _browse(run, tmp_path)
    result = run("apply", str(reply), "--root", str(root), "--json")
    assert result.code == 1
    data = json.loads(result.out)
    (failed,) = data["failed"]
    assert "not been shown the whole of src/utils.ts" in failed["reason"]
    assert "<<<REQUEST_FILE: src/utils.ts>>>" in data["feedback"]
    assert (root / "src" / "utils.ts").read_bytes() == before
    # The next prompt carries the same feedback to the model.
    assert "not been shown the whole of src/utils.ts" in data["bridge"]["prompt"]["text"]


def test_the_dry_run_says_the_same(run: Run, tmp_path: Path, clipboard: list[str]) -> None:
    root, reply, before = _browse(run, tmp_path)
    result = run("apply", str(reply), "--root", str(root), "--dry-run")
    assert result.code == 1
    assert "not been shown the whole of src/utils.ts" in " ".join(result.out.split())
    assert (root / "src" / "utils.ts").read_bytes() == before


def test_allow_whole_file_writes_it(run: Run, tmp_path: Path, clipboard: list[str]) -> None:
    root, reply, _ = _browse(run, tmp_path)
    assert run("apply", str(reply), "--root", str(root), "--allow-whole-file").code == 0
    assert (root / "src" / "utils.ts").read_text(encoding="utf-8") == ONLY_PARSE.split(">>>\n", 1)[
        1
    ].replace("<<<END>>>\n", "")


def test_a_file_shown_in_full_after_a_request_may_be_rewritten(
    run: Run, tmp_path: Path, clipboard: list[str]
) -> None:
    root, reply, _ = _browse(run, tmp_path)
    request = tmp_path / "request.md"
    request.write_text("<<<REQUEST_FILE: src/utils.ts>>>\n", encoding="utf-8")
    assert run("apply", str(request), "--root", str(root)).code == 0
    session = find_session(root)
    assert session is not None and session[1].shown == ("src/utils.ts",)
    assert run("apply", str(reply), "--root", str(root)).code == 0


def test_a_new_file_needs_no_showing(run: Run, tmp_path: Path, clipboard: list[str]) -> None:
    root, _, _ = _browse(run, tmp_path)
    reply = tmp_path / "new.md"
    reply.write_text("<<<FILE: src/strings.ts>>>\nexport const a = 1;\n<<<END>>>\n")
    assert run("apply", str(reply), "--root", str(root)).code == 0
    session = find_session(root)
    assert session is not None and "src/strings.ts" in session[1].shown


def test_a_session_stored_before_takes_its_files_as_shown() -> None:
    state = BridgeState.from_json({"task": "t", "mode": "edit", "files": ["a.py"]})
    assert state.shown == ("a.py",)


EDIT_INDEX = """<<<DIFF: src/index.ts>>>
--- a/src/index.ts
+++ b/src/index.ts
@@ -1 +1,2 @@
+// edited
{first}
<<<END>>>
"""


def test_a_file_the_session_leaves_out_is_not_written_without_allow_hidden(
    run: Run, tmp_path: Path, clipboard: list[str]
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "repo", root)
    args = ("--root", str(root), "--task", "Fix parseJSON.", "--lang", "en")
    assert run("pack", *args, "--exclude", "src/index.ts").code == 0
    before = (root / "src" / "index.ts").read_text(encoding="utf-8")
    reply = tmp_path / "reply.md"
    reply.write_text(EDIT_INDEX.format(first=" " + before.splitlines()[0]), encoding="utf-8")
    refused = run("apply", str(reply), "--root", str(root), "--json")
    assert refused.code == 1
    assert "cannot show you" in json.loads(refused.out)["failed"][0]["reason"]
    assert (root / "src" / "index.ts").read_text(encoding="utf-8") == before
    allowed = run("apply", str(reply), "--root", str(root), "--json", "--allow-hidden")
    assert allowed.code == 0, allowed.out + allowed.err
    applied = json.loads(allowed.out)["applied"][0]
    assert applied["path"] == "src/index.ts" and applied["unseen"] is True
    assert (root / "src" / "index.ts").read_text(encoding="utf-8").startswith("// edited\n")


def test_a_file_holding_a_secret_is_not_written_without_allow_hidden(
    run: Run, tmp_path: Path, clipboard: list[str]
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "repo", root)
    (root / "src" / "keys.ts").write_text('export const KEY = "AKIAZ7Q3LMN4PXR2TUVW";\n')
    args = ("--root", str(root), "--task", "Fix parseJSON.", "--lang", "en")
    assert run("pack", *args).code == 0
    reply = tmp_path / "reply.md"
    reply.write_text(
        "src/keys.ts\n<<<<<<< SEARCH\nexport const KEY\n=======\nexport const OLD_KEY\n"
        ">>>>>>> REPLACE\n",
        encoding="utf-8",
    )
    refused = run("apply", str(reply), "--root", str(root), "--json")
    assert refused.code == 1
    assert "cannot show you" in json.loads(refused.out)["failed"][0]["reason"]
    assert "OLD_KEY" not in (root / "src" / "keys.ts").read_text(encoding="utf-8")
