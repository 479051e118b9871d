"""Generated and minified files: left out of ``tree``, ``map`` and ``pack`` with the reason,
and kept with ``--include-generated``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import Result

Run = Callable[..., Result]

_SVG = '<?xml version="1.0"?>\n<svg>' + '<path d="M0 0L10 10"/>' * 3000 + "</svg>\n"


def _with_generated(repo: Path) -> Path:
    (repo / "assets").mkdir()
    (repo / "assets" / "logo.svg").write_text(_SVG)
    (repo / "src" / "app" / "vendor.min.js").write_text("var a=1;\n")
    return repo


def test_tree_leaves_generated_files_out_and_says_how_to_keep_them(run: Run, repo: Path) -> None:
    _with_generated(repo)
    done = run("tree", "--root", str(repo))
    assert "logo.svg" not in done.out
    assert "vendor.min.js" not in done.out
    assert "2 generated or minified (--include-generated keeps them)" in done.err
    why = run("tree", "--root", str(repo), "--explain", "assets/logo.svg")
    assert why.out.startswith("assets/logo.svg: excluded: minified or generated (a line of ")
    kept = run("tree", "--root", str(repo), "--include-generated")
    assert "logo.svg" in kept.out
    assert "vendor.min.js" in kept.out


def test_map_reports_generated_files_and_keeps_them_on_request(run: Run, repo: Path) -> None:
    _with_generated(repo)
    done = run("map", "--root", str(repo), "--tokens", "2000", "--no-cache", "--json")
    data = json.loads(done.out)
    assert "logo.svg" not in data["text"]
    assert any(p.startswith("assets/logo.svg: minified or generated") for p in data["problems"])
    kept = run("map", "--root", str(repo), "--tokens", "2000", "--no-cache", "--include-generated")
    assert "assets/: logo.svg" in kept.out
    assert "vendor.min.js" in kept.out


def test_pack_leaves_generated_files_out_in_every_mode(run: Run, repo: Path) -> None:
    _with_generated(repo)
    for args in ((), ("--mode", "edit", "src")):
        done = run("pack", *args, "--root", str(repo), "--task", "Tidy up", "--lang", "en")
        assert done.code == 0, done.err
        assert "logo.svg" not in done.out
        assert "M0 0L10 10" not in done.out
        assert "left out: 2 generated or minified (--include-generated keeps them)" in done.err


def test_pack_includes_generated_files_on_request_for_the_whole_session(
    run: Run, repo: Path
) -> None:
    _with_generated(repo)
    done = run(
        "pack", "--root", str(repo), "--task", "Tidy up", "--lang", "en", "--include-generated"
    )
    assert done.code == 0, done.err
    assert "logo.svg" in done.out
    assert "generated" not in done.err
    again = run("pack", "--root", str(repo))
    assert "logo.svg" in again.out
