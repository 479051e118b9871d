"""The README opens with a five-minute start, and make demo installs what it needs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_opens_with_a_short_start() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    # The opening ends where the third level-2 heading starts (the reference begins).
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    opening = "\n".join(lines[: headings[1]])
    assert headings[1] <= 40
    for needed in (
        "make demo",
        "make test",
        "pipx install",
        "pip install",
        'agentprompt pack --task "',
        "agentprompt apply reply.md",
        "(#copy-paste-bridge)",
        "(#command-line)",
    ):
        assert needed in opening, needed
    assert not re.search(r"\bseed\b|SPEC\.md|#\d", opening, re.IGNORECASE)


def test_make_demo_installs_the_web_page_extra() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    rule = makefile.split("$(VENV)/.installed:", 1)[1].split("\n\n", 1)[0]
    assert "'.[ui]'" in rule
    assert "demo: $(VENV)/.installed" in makefile
