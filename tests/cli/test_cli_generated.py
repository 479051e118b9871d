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
    assert not any("logo.svg" in p for p in data["problems"])
    [left_out] = [e for e in data["left_out"] if e["path"] == "assets/logo.svg"]
    assert left_out["reason"].startswith("minified or generated")
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


def _many_generated(repo: Path) -> Path:
    (repo / "assets").mkdir()
    for n in range(30):
        (repo / "assets" / f"icon{n}.svg").write_text(_SVG)
    (repo / "assets" / "photo.png").write_bytes(b"\x89PNG")
    (repo / "src" / "app" / "blob.py").write_bytes(b"\x00\x01binary" * 10)
    return repo


def test_map_and_rank_count_generated_and_binary_files_in_one_line(run: Run, repo: Path) -> None:
    _many_generated(repo)
    for args in (("map", "--no-cache"), ("rank", "--task", "the main function")):
        done = run(*args, "--root", str(repo))
        assert done.code == 0, done.err
        said = "agentprompt: 30 generated or minified, 1 binary files left out; --verbose lists"
        assert said in done.err
        assert "icon" not in done.err and "blob.py" not in done.err
        verbose = run(*args, "--root", str(repo), "--verbose")
        lines = [line for line in verbose.err.splitlines() if line.startswith("agentprompt: left")]
        assert len(lines) == 31
        assert lines[0].startswith("agentprompt: left out assets/icon0.svg: minified or gen")
        assert "agentprompt: left out src/app/blob.py: binary content (a NUL byte" in lines[-1]


def test_pack_counts_each_kind_left_out_and_lists_them_with_verbose(run: Run, repo: Path) -> None:
    _many_generated(repo)
    done = run("pack", "--root", str(repo), "--task", "Tidy up", "--lang", "en")
    assert done.code == 0, done.err
    assert (
        "left out: 30 generated or minified (--include-generated keeps them), 2 binary; "
        "--verbose lists them" in done.err
    )
    assert "icon0.svg" not in done.err
    verbose = run("pack", "--root", str(repo), "--task", "Tidy up", "--new", "--verbose")
    assert "--verbose lists them" not in verbose.err
    assert "agentprompt: left out assets/photo.png: binary file type (.png)" in verbose.err
    assert verbose.err.count("agentprompt: left out assets/icon") == 30
