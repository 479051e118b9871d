"""The map pipeline: ranking for a task, fitting the budget exactly, JSON form, tree notes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agentprompt.repo.discovery import discover
from agentprompt.repo.extraction import extract_repository
from agentprompt.repo.map import (
    MapOptions,
    RepoMap,
    annotate_files,
    build_map,
    declared_entry_points,
    render_map,
)
from agentprompt.repo.map import _fit as repomap_fit
from agentprompt.repo.map._resolve import ImportResolver
from agentprompt.repo.rank import rank_extraction
from agentprompt.services import ContextMap
from agentprompt.tokens import get_tokenizer, shared_counter


def map_json(result: RepoMap) -> dict[str, Any]:
    """The JSON form ``agentprompt map --json`` prints (the service's, over the engine's map)."""
    return ContextMap(map=result).to_json()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src" / "shop").mkdir(parents=True)
    (root / "tests").mkdir()
    files = {
        "src/shop/models.py": (
            "class Customer:\n    def greeting(self) -> str:\n        return 'hi'\n\n"
            "class Order:\n    def total(self, discount=0) -> float:\n        return 1.0\n"
        ),
        "src/shop/pricing.py": (
            "from .models import Order\n\n"
            "def apply_discount(order: Order, rate: float) -> float:\n"
            "    return order.total() * (1 - rate)\n"
        ),
        "src/shop/shipping.py": (
            "from .models import Customer, Order\n\n"
            "def ship_to(customer: Customer, order: Order) -> None:\n    print(customer)\n"
        ),
        "src/shop/cli.py": (
            "from .pricing import apply_discount\nfrom .shipping import ship_to\n\n"
            "def main() -> None:\n    apply_discount(None, 0.1)\n    ship_to(None, None)\n"
        ),
        "tests/test_pricing.py": (
            "from shop.pricing import apply_discount\n\n"
            "def test_discount():\n    assert apply_discount\n"
        ),
    }
    for path, text in files.items():
        (root / path).write_text(text)
    return root


def _options(**kwargs: object) -> MapOptions:
    return MapOptions(use_cache=False, **kwargs)  # type: ignore[arg-type]


def test_the_map_fits_the_budget_and_uses_most_of_it(project: Path) -> None:
    full = build_map(project, _options(tokens=10_000))
    assert full.omitted == 0
    budget = full.tokens - 20
    fitted = build_map(project, _options(tokens=budget))
    assert fitted.tokens <= budget
    assert fitted.tokens == get_tokenizer().count(fitted.text)
    assert fitted.tokens > budget // 2
    assert len(fitted.text) < len(full.text)


def test_a_tiny_budget_gives_an_empty_map(project: Path) -> None:
    result = build_map(project, _options(tokens=1))
    assert result.text == ""
    assert result.tokens == 0
    assert result.omitted == 5


def test_the_most_referenced_file_ranks_first(project: Path) -> None:
    result = build_map(project, _options(tokens=10_000))
    top = max(result.ranks, key=lambda p: result.ranks[p])
    assert top == "src/shop/models.py"


def test_a_task_pulls_its_files_up(project: Path) -> None:
    plain = build_map(project, _options(tokens=10_000))
    task = build_map(project, _options(tokens=10_000, task="Fix ship_to in shipping.py"))
    path = "src/shop/shipping.py"
    assert task.ranks[path] > plain.ranks[path]


def test_files_in_context_are_left_out(project: Path) -> None:
    result = build_map(project, _options(tokens=10_000, in_context=("src/shop/models.py",)))
    assert "models.py:" not in result.text
    assert "pricing.py:" in result.text


def test_map_text_shows_local_imports_and_references(project: Path) -> None:
    text = build_map(project, _options(tokens=10_000)).text
    assert "src/shop/pricing.py: ←2\ni→ src/shop/models.py\n" in text
    assert "c Order:5 ←2\n" in text
    assert "tests/test_pricing.py: 0c/1m" in text


def test_map_json_has_the_documented_shape(project: Path) -> None:
    data = map_json(build_map(project, _options(tokens=10_000)))
    assert {"files", "text", "tokens", "omitted"} <= set(data)
    first = data["files"][0]
    assert {"path", "language", "rank", "symbols", "imports"} <= set(first)
    symbol = next(f for f in data["files"] if f["path"] == "src/shop/models.py")["symbols"][0]
    assert set(symbol) == {"kind", "name", "line", "end_line", "signature", "parent", "refs"}


def test_progress_is_reported_while_parsing(project: Path) -> None:
    seen: list[tuple[int, int]] = []
    build_map(project, _options(), progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (5, 5)


def test_parallel_and_serial_extraction_agree(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(260):
        (root / f"m{i}.py").write_text(f"def f{i}(x):\n    return f{(i + 1) % 260}(x)\n")
    serial = build_map(root, _options(tokens=2000, workers=1))
    parallel = build_map(root, _options(tokens=2000, workers=2))
    assert serial.text == parallel.text
    assert parallel.parsed == 260


def test_annotations_for_the_tree(project: Path) -> None:
    notes = annotate_files(project, discover(project), use_cache=False)
    assert notes["src/shop/cli.py"] == "main entry, imports: pricing, shipping"
    assert notes["src/shop/models.py"] == "exports: Customer, Order"


def test_a_remembered_ranking_updated_for_a_new_name_equals_a_fresh_one(
    project: Path, tmp_path: Path
) -> None:
    cached = MapOptions(tokens=400, cache_path=tmp_path / "kept.db")
    build_map(project, cached)
    with (project / "src" / "shop" / "pricing.py").open("a") as handle:
        handle.write("\ndef bulk_discount(orders):\n    return [Customer() for _ in orders]\n")
    updated = build_map(project, cached)
    fresh = build_map(project, MapOptions(tokens=400, cache_path=tmp_path / "fresh.db"))
    assert updated.parsed == 1
    assert updated.text == fresh.text
    assert updated.ranks == pytest.approx(fresh.ranks, abs=1e-9)


def test_calls_show_only_names_the_repository_defines(tmp_path: Path) -> None:
    root = tmp_path / "calls"
    root.mkdir()
    (root / "lib.py").write_text("def helper(x):\n    return x\n")
    (root / "app.py").write_text(
        "import os\nfrom lib import helper\n\n\ndef run(p):\n"
        "    return helper(os.path.join(p, 'x').split('/'))\n"
    )
    text = build_map(root, MapOptions(use_cache=False)).text
    assert "→helper" in text
    assert "join" not in text
    assert "split" not in text


def test_map_json_lists_the_symbols_of_test_files(project: Path) -> None:
    data = map_json(build_map(project, MapOptions(use_cache=False)))
    entry = next(f for f in data["files"] if f["path"] == "tests/test_pricing.py")
    assert [s["name"] for s in entry["symbols"]] == ["test_discount"]


def test_a_damaged_remembered_graph_is_built_again(project: Path, tmp_path: Path) -> None:
    cached = MapOptions(tokens=400, cache_path=tmp_path / "kept.db")
    build_map(project, cached)
    with sqlite3.connect(tmp_path / "kept.db") as db:
        assert db.execute("UPDATE blobs SET value = ?", (b"\x00garbage",)).rowcount == 1
    with (project / "src" / "shop" / "cli.py").open("a") as handle:
        handle.write("\ndef extra_command():\n    return main()\n")
    again = build_map(project, cached)
    fresh = build_map(project, MapOptions(tokens=400, cache_path=tmp_path / "fresh.db"))
    assert again.text == fresh.text
    assert again.ranks == pytest.approx(fresh.ranks, abs=1e-9)


def test_files_no_grammar_reads_are_listed_without_symbols(tmp_path: Path) -> None:
    root = tmp_path / "kotlin"
    (root / "app").mkdir(parents=True)
    (root / "app" / "Main.kt").write_text('fun main() { println("hi") }\n')
    (root / "build.sh").write_text("#!/bin/sh\necho build\n")
    result = build_map(root, MapOptions(use_cache=False))
    entries = {f["path"]: f for f in map_json(result)["files"]}
    assert set(entries) == {"app/Main.kt", "build.sh"}
    assert entries["app/Main.kt"]["language"] is None
    assert entries["app/Main.kt"]["symbols"] == []
    # Files with nothing to show but their path are listed per folder, not a line each.
    assert "app/: Main.kt" in result.text.splitlines()
    assert "./: build.sh" in result.text.splitlines()


def test_files_no_grammar_reads_come_after_code_files_of_equal_rank(tmp_path: Path) -> None:
    root = tmp_path / "mixed"
    root.mkdir()
    (root / "a_notes.txt").write_text("notes\n")
    (root / "z_tool.py").write_text("def tool(): pass\n")
    full = build_map(root, MapOptions(use_cache=False))
    tighter = build_map(root, MapOptions(use_cache=False, tokens=full.tokens - 1))
    assert "./: a_notes.txt" in full.text
    assert "a_notes.txt" not in tighter.text
    assert "f tool():1" in tighter.text


def _many_files(root: Path, count: int = 48) -> Path:
    """``count`` modules in a chain of uses, plus one leaf module nobody uses."""
    root.mkdir(parents=True)
    for i in range(count):
        uses = f"    return helper_{i - 1}(x)\n" if i else "    return x\n"
        (root / f"mod_{i:02d}.py").write_text(
            f"def helper_{i}(x, scale=1):\n{uses}\n\nclass Thing{i}:\n"
            f"    def run_{i}(self):\n        return helper_{i}(1)\n"
        )
    (root / "zz_leaf.py").write_text("def quiet_leaf_function(a, b):\n    return a\n")
    return root


def test_one_more_ranked_entry_would_exceed_the_budget(tmp_path: Path) -> None:
    root = _many_files(tmp_path / "many")
    extraction = extract_repository(discover(root), use_cache=False)
    summary = rank_extraction(extraction)
    ranks = summary.ranks
    ranked = sorted(extraction.files, key=lambda p: (-ranks.get(p, 0.0), p))
    symbols = extraction.symbols(ranked)
    entries = sorted(
        (
            e
            for p in ranked
            for e in repomap_fit.map_entries(p, symbols[p], ranks.get(p, 0.0), summary)
        ),
        key=lambda e: (-e[0], e[1], e[2]),
    )
    resolver = ImportResolver.for_paths(extraction.files)
    defined = repomap_fit.defined_names(extraction)
    counter = shared_counter(None)

    def render(count: int) -> str:
        chosen = sorted(repomap_fit.select_entries(entries, count).items())
        return render_map(
            [
                repomap_fit.map_file(symbols[p], shown, summary, resolver, defined)
                for p, shown in chosen
            ]
        )

    assert len(entries) > 3 * 32
    for budget in (120, 300, 700, 1500):
        fitted = build_map(root, MapOptions(tokens=budget, use_cache=False))
        assert fitted.tokens <= budget
        count = next(c for c in range(len(entries) + 1) if render(c) == fitted.text)
        assert counter.count(render(count + 1)) > budget


def test_focus_brings_its_file_into_a_tight_map(tmp_path: Path) -> None:
    root = _many_files(tmp_path / "many")
    assert "zz_leaf.py" not in build_map(root, MapOptions(tokens=150)).text
    focused = build_map(root, MapOptions(tokens=150, focus=("zz_leaf.py",)))
    assert "zz_leaf.py" in focused.text


def test_a_mention_brings_its_definer_into_a_tight_map(tmp_path: Path) -> None:
    root = _many_files(tmp_path / "many")
    mentioned = build_map(root, MapOptions(tokens=150, mentions=("quiet_leaf_function",)))
    assert "zz_leaf.py" in mentioned.text


def test_a_task_brings_what_it_names_into_a_tight_map(tmp_path: Path) -> None:
    root = _many_files(tmp_path / "many")
    task = build_map(root, MapOptions(tokens=150, task="speed up quiet_leaf_function please"))
    assert "zz_leaf.py" in task.text


def test_known_calls_keeps_only_calls_to_defined_names_and_the_same_object_otherwise() -> None:
    from agentprompt.repo.map._fit import known_calls
    from agentprompt.repo.symbols import FileSymbols, SymbolEntry

    entry = SymbolEntry(kind="function", name="f", line=1, end_line=2, calls=("g", "join"))
    symbols = FileSymbols(path="a.py", language="python", symbols=(entry,))
    trimmed = known_calls(symbols, frozenset({"f", "g"}))
    assert trimmed.symbols[0].calls == ("g",)
    assert known_calls(trimmed, frozenset({"f", "g"})) is trimmed


def _chain_of_modules(root: Path, count: int) -> None:
    """``count`` modules, each defining a function and calling the one before it."""
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    for i in range(count):
        call = f"    return step_{i - 1}(x) + 1\n" if i else "    return x\n"
        (pkg / f"m{i}.py").write_text(
            (f"from pkg.m{i - 1} import step_{i - 1}\n\n" if i else "")
            + f"def step_{i}(x: int, scale: float = 1.0) -> int:\n{call}"
        )


def test_a_cold_map_details_only_the_files_it_looked_at(tmp_path: Path) -> None:
    # Ranking reads names; only the files the fitting looked at are parsed for signatures,
    # and the map is what a fully detailed cache gives.
    root = tmp_path / "many"
    _chain_of_modules(root, 60)
    result = build_map(root, MapOptions(tokens=200))
    cache_rows = extract_repository(discover(root), details=False)
    assert cache_rows.cache is not None
    detailed = {p for p, f in cache_rows.cache.entries().items() if f.detailed}
    cache_rows.cache.close()
    assert {f.path for f in result.files} <= detailed
    assert 0 < len(detailed) < 60
    fresh = build_map(root, _options(tokens=200))
    assert result.text == fresh.text
    assert build_map(root, MapOptions(tokens=200)).text == result.text  # warm


def test_notes_after_a_map_are_those_of_a_full_extraction(tmp_path: Path) -> None:
    root = tmp_path / "many"
    _chain_of_modules(root, 40)
    build_map(root, MapOptions(tokens=200))
    notes = annotate_files(root, discover(root))
    assert notes == annotate_files(root, discover(root), use_cache=False)
    assert notes["pkg/m5.py"] == "exports: step_5"


def test_tree_notes_say_main_entry_only_of_real_entry_points(tmp_path: Path) -> None:
    root = tmp_path / "entries"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.rst").write_text("Welcome\n=======\n")
    (root / "server.key").write_text("not a key, just text\n")
    (root / "server.py").write_text("def serve():\n    pass\n")
    (root / "report.py").write_text(
        "def run():\n    pass\n\nif __name__ == '__main__':\n    run()\n"
    )
    notes = annotate_files(root, discover(root), use_cache=False)
    assert "docs/index.rst" not in notes
    assert "server.key" not in notes
    assert notes["server.py"] == "exports: serve"
    assert notes["report.py"] == "main entry"


def test_folder_listings_keep_the_budget_exact(tmp_path: Path) -> None:
    root = _many_files(tmp_path / "listed", count=12)
    for folder in ("assets", "docs", "docs/api"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        for i in range(9):
            (root / folder / f"item_{i}.txt").write_text(f"text {i}\n")
    counter = shared_counter(None)
    whole = build_map(root, MapOptions(tokens=100_000, use_cache=False))
    assert "assets/: item_0.txt,item_1.txt,item_2.txt,item_3.txt,item_4.txt,item_5.txt,+3" in (
        whole.text.splitlines()
    )
    assert not any(line.startswith("docs/item_") for line in whole.text.splitlines())
    for budget in range(40, whole.tokens + 20, 17):
        fitted = build_map(root, MapOptions(tokens=budget, use_cache=False))
        assert fitted.tokens == counter.count(fitted.text) <= budget


def test_files_a_manifest_declares_as_programs_are_main_entries(tmp_path: Path) -> None:
    root = tmp_path / "declared"
    (root / "src" / "tool").mkdir(parents=True)
    (root / "web" / "lib").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "tool"\n[project.scripts]\ntool = "tool.console:run"\n'
    )
    (root / "src" / "tool" / "console.py").write_text("def run():\n    pass\n")
    (root / "src" / "tool" / "other.py").write_text("def helper():\n    pass\n")
    (root / "web" / "package.json").write_text('{"main": "./lib/app", "bin": {"w": "cli"}}')
    (root / "web" / "lib" / "app.js").write_text("export function start() {}\n")
    (root / "web" / "cli").write_text("#!/usr/bin/env node\nrequire('./lib/app');\n")
    (root / "web" / "README.md").write_text("# web\n")
    found = discover(root)
    assert declared_entry_points(root, [f.path for f in found.files]) == {
        "src/tool/console.py",
        "web/lib/app.js",
        "web/cli",
    }
    notes = annotate_files(root, found, use_cache=False)
    assert notes["src/tool/console.py"] == "main entry"
    assert notes["src/tool/other.py"] == "exports: helper"
    assert notes["web/lib/app.js"] == "main entry"
    assert notes["web/cli"] == "main entry"
    assert "web/README.md" not in notes
