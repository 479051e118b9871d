"""The code names what things are, not the source document they came from: only
docs/architecture.md maps the source specifications to the modules implementing them."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "agentprompt"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

SCANNED = {".py", ".md", ".json", ".txt", ".js", ".html", ".css"}
"""The kinds of file that carry docstrings, comments, prompt text or front matter."""

SOURCE_DOCUMENT = re.compile(
    r"\bseeds?\s+0\d\d\b|\bseed's|\bthe seed\b|\bSPEC\.md\b|\bissue\s*#\d", re.IGNORECASE
)
"""A reference to a source document or an issue ("seed 001's", "as in the seed",
"SPEC.md's rule", "issue #12"). Seeds of PageRank jumps or random generators do not match."""

SECTION = "## Where each source specification lives"


def _references(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, found.start()) + 1}: {found.group()}"
        for found in SOURCE_DOCUMENT.finditer(text)
    ]


def _section() -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert SECTION in text
    return text.split(SECTION, 1)[1].split("\n## ", 1)[0]


def test_no_source_file_names_the_source_document_it_came_from() -> None:
    files = [p for p in sorted(SOURCE.rglob("*")) if p.is_file() and p.suffix in SCANNED]
    assert len(files) > 300
    found = [ref for path in files for ref in _references(path)]
    assert found == [], "say what the code does; docs/architecture.md maps the documents"


def test_the_pattern_tells_document_references_from_other_seeds() -> None:
    for reference in ("Seed 001's todo reminder", "seed\n004", "as in the seed", "SPEC.md's"):
        assert SOURCE_DOCUMENT.search(reference), reference
    for other in ("the hits seed the graph step", "random.Random(seed)", "seeds: Mapping"):
        assert not SOURCE_DOCUMENT.search(other), other


def test_the_architecture_doc_maps_each_source_document_to_existing_modules() -> None:
    section = _section()
    rows = [line for line in section.splitlines() if re.match(r"\| 00\d ", line)]
    assert [row[2:5] for row in rows] == ["000", "001", "002", "003", "004"]
    modules = re.findall(r"`(agentprompt(?:\.\w+)+)`", section)
    assert len(modules) >= 10
    assert [m for m in modules if importlib.util.find_spec(m) is None] == []
    paths = re.findall(r"`((?:cli|prompts|tiers)/[\w/*.-]+)`", section)
    assert len(paths) >= 10
    assert [p for p in paths if not list(SOURCE.glob(p.rstrip("/")))] == []
