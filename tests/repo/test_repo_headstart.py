"""A first map of a git work tree starts parsing before discovery ends: the result is the
one a parse after discovery gives, files discovery leaves out are not kept, and a file that
changed after it was parsed is parsed again."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.repo.discovery import discover
from agentprompt.repo.extraction import (
    SymbolCache,
    default_cache_path,
    extract_repository,
    start_parsing,
)
from agentprompt.repo.extraction import _repository as extraction_module
from agentprompt.repo.map import MapOptions, build_map


@pytest.fixture
def repo(chain_repo: Callable[[int], Path]) -> Path:
    root = chain_repo(12)
    (root / "dist").mkdir()
    (root / "dist" / "bundle.js").write_text("function step_3() {}\n")  # default exclusion
    (root / "src" / "skipped.py").write_text("def hidden_one(): pass\n")
    (root / ".agentpromptignore").write_text("src/skipped.py\n")
    (root / "ignored.py").write_text("def ignored_one(): pass\n")
    (root / ".gitignore").write_text("ignored.py\n")
    return root


def _cached_paths(root: Path) -> set[str]:
    cache = SymbolCache(default_cache_path(root))
    try:
        return set(cache.entries())
    finally:
        cache.close()


def test_a_first_map_with_a_head_start_is_the_map_without_one(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    begun: list[int] = []
    real_start = extraction_module.start_parsing

    def counting(root: Path, paths: list[str], workers: int, max_bytes: int) -> object:
        begun.append(len(paths))
        return real_start(root, paths, workers, max_bytes)

    monkeypatch.setattr("agentprompt.repo.rank._repository.start_parsing", counting)
    first = build_map(repo, MapOptions(tokens=300, workers=2))
    assert begun == [12]  # the modules: not dist/, the root ignore file's nor git's
    assert first.parsed == 12
    assert _cached_paths(repo) == {f"src/m{i}.py" for i in range(12)}
    assert "hidden_one" not in first.text and "bundle" not in first.text
    # The same map as a parse after discovery (the discovery given, so no head start).
    other = repo.parent / "other"
    subprocess.run(["cp", "-a", str(repo), str(other)], check=True)
    plain = build_map(other, MapOptions(tokens=300, workers=2), discovery=discover(other))
    assert plain.text == first.text.replace(str(repo), str(other))
    # With a cache there is no head start: only changed files are parsed.
    assert build_map(repo, MapOptions(tokens=300, workers=2)).parsed == 0
    assert begun == [12]


def test_a_file_changed_after_its_head_start_parse_is_parsed_again(repo: Path) -> None:
    paths = [f"src/m{i}.py" for i in range(12)]
    head = start_parsing(repo.resolve(), paths, 2)
    assert head is not None
    for _chunk, coming in head.begun:
        coming.result()  # every file parsed before the change
    (repo / "src" / "m4.py").write_text("def renamed_step(x: int) -> int:\n    return x + 100\n")
    found = extract_repository(discover(repo), details=False, head=head, workers=2)
    try:
        assert found.files["src/m4.py"].defs == ("renamed_step",)
        assert found.files["src/m5.py"].defs == ("step_5",)
        assert found.parsed == 12
        # The workers stay for details: the files the map shows are extracted by them.
        assert found.workers is head.pool
        detailed = found.symbols(["src/m4.py", "src/m5.py", "src/m6.py"])
        assert [s.signature for s in detailed["src/m5.py"].symbols] == ["(x: int) -> int"]
        assert [s.name for s in detailed["src/m4.py"].symbols] == ["renamed_step"]
    finally:
        head.close()
        assert found.cache is not None
        found.cache.close()


def test_prefetched_details_are_used_and_kept(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [f"src/m{i}.py" for i in range(12)]
    head = start_parsing(repo.resolve(), paths, 2)
    assert head is not None
    found = extract_repository(discover(repo), details=False, head=head, workers=2)
    try:
        found.prefetch(["src/m1.py", "src/m2.py", "README.none"])
        assert set(found.coming) == {"src/m1.py", "src/m2.py"}
        for coming in set(found.coming.values()):
            coming.result()

        def no_parse(*_args: object, **_kwargs: object) -> object:
            raise AssertionError("a prefetched file was parsed again")

        monkeypatch.setattr(extraction_module, "parse_all", no_parse)
        got = found.symbols(["src/m2.py"])
        assert [s.signature for s in got["src/m2.py"].symbols] == ["(x: int) -> int"]
        assert found.coming == {}  # m1 was done too: kept, though not asked for yet
        assert found.symbols(["src/m1.py"])["src/m1.py"].symbols[0].name == "step_1"
    finally:
        head.close()
        assert found.cache is not None
        found.cache.close()


def test_a_head_start_reads_only_plain_files_and_discovery_decides_the_rest(
    repo: Path, tmp_path: Path
) -> None:
    # A link to a device would never end and one to a file outside the root must not be
    # read: the head start skips every symlink; discovery then keeps the link to a kept
    # file, which is parsed after it, and leaves the others out.
    outside = tmp_path / "outside.py"
    outside.write_text("def secret_elsewhere(): pass\n")
    (repo / "endless.py").symlink_to("/dev/zero")
    (repo / "elsewhere.py").symlink_to(outside)
    (repo / "alias.py").symlink_to(repo / "src" / "m3.py")
    (repo / "huge.py").write_text("x = 1\n" * 200_000)  # over the size cap
    head = start_parsing(repo.resolve(), ["endless.py", "elsewhere.py", "alias.py", "huge.py"], 2)
    assert head is not None
    try:
        for _chunk, coming in head.begun:
            assert coming.result(timeout=60) == []
    finally:
        head.close()
    result = build_map(repo, MapOptions(tokens=300, workers=2))
    assert "secret_elsewhere" not in result.text
    assert result.parsed == 13  # the twelve modules and the link to one of them
    cached = _cached_paths(repo)
    assert "alias.py" in cached
    assert not {"endless.py", "elsewhere.py", "huge.py"} & cached
