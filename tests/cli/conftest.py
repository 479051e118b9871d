"""Running the CLI in-process, and a small git repository to run it on."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentprompt.cli.main import main

BRIDGE_EDITS = """Done.

<<<FILE: src/utils.ts>>>
export function parseJSON(str: string): unknown {
  try {
    return JSON.parse(str);
  } catch {
    return null;
  }
}
<<<END>>>

<<<FILE: [NEW] src/strings.ts>>>
export const greeting = "hello";
<<<END>>>

<<<DIFF: src/index.ts>>>
@@ -1 +1 @@
-import { formatDate, parseJSON } from "./utils";
+import { parseJSON } from "./utils";
<<<END>>>

<<<DELETE: scripts/report.py>>>
"""
"""A bridge reply for examples/bridge/repo with one block of each edit kind: FILE, [NEW],
DIFF and DELETE."""


@dataclass(frozen=True)
class Result:
    """What one CLI run did."""

    code: int
    out: str
    err: str


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run ``agentprompt ARGS...`` in-process and return its exit code and output."""

    def invoke(*args: str) -> Result:
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        captured = capsys.readouterr()
        return Result(code=code, out=captured.out, err=captured.err)

    return invoke


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository on branch main with a few files and one commit."""
    root = tmp_path / "repo"
    (root / "src" / "app").mkdir(parents=True)
    (root / "README.md").write_text("# App\n")
    (root / "src" / "app" / "cli.py").write_text("def main() -> None:\n    print('hi')\n")
    (root / "src" / "app" / "core.py").write_text("VALUE = 1\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=root, check=True)
    return root


def snapshot_tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes, to prove a command wrote nothing."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
