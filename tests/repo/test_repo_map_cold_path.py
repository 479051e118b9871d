"""The map's cold path: a head start reads nothing outside the root, and a map
asked to use one process starts no worker processes when the fitting wants details, and
details wanted at once are spread over a head start's workers; JSX text is not read as
strings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentprompt.repo.discovery import discover
from agentprompt.repo.extraction import _workers as parse_workers
from agentprompt.repo.extraction import extract_repository, start_parsing
from agentprompt.repo.map import MapOptions, build_map
from agentprompt.repo.symbols import extract_symbols


@pytest.fixture
def repo(chain_repo: Callable[[int], Path]) -> Path:
    return chain_repo(6)


def test_a_head_start_reads_no_file_through_a_folder_link_leading_out(
    repo: Path, tmp_path: Path
) -> None:
    # git still lists lib/a.py (tracked before lib became a link to a folder outside the
    # root); the file at the end of the path is a plain one, but it is not in the root.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.py").write_text("def secret_elsewhere(): pass\n")
    (repo / "lib").symlink_to(outside)
    head = start_parsing(repo.resolve(), ["lib/a.py", "src/m1.py"], 2)
    assert head is not None
    try:
        read = [path for _chunk, coming in head.begun for path, *_ in coming.result(timeout=60)]
    finally:
        head.close()
    assert read == ["src/m1.py"]


def test_a_map_with_one_worker_starts_no_processes_for_details(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    real = parse_workers.process_pool

    def counting(workers: int) -> Any:
        started.append(workers)
        return real(workers)

    monkeypatch.setattr(parse_workers, "process_pool", counting)
    result = build_map(repo, MapOptions(tokens=4000, workers=1))
    assert "step_5" in result.text
    assert started == []
    # No more than one (a parse after discovery takes 0 as one): no head start either.
    other = build_map(repo, MapOptions(tokens=4000, workers=0, use_cache=False))
    assert other.text == result.text
    assert started == []


def test_details_wanted_now_are_spread_over_the_workers(repo: Path) -> None:
    paths = [f"src/m{i}.py" for i in range(6)]
    head = start_parsing(repo.resolve(), paths, 2)
    assert head is not None
    found = extract_repository(discover(repo), details=False, head=head, workers=2)
    tasks: list[int] = []
    real_submit = head.pool.submit

    def recording(fn: Any, *args: Any) -> Any:
        tasks.append(len(args[1]))
        return real_submit(fn, *args)

    try:
        head.pool.submit = recording  # type: ignore[method-assign]
        got = found.symbols(paths)
        assert [s.signature for s in got["src/m5.py"].symbols] == ["(x: int) -> int"]
        # Not one task for one worker while the other idles and the map waits.
        assert tasks == [2, 2, 2]
    finally:
        head.close()
        assert found.cache is not None
        found.cache.close()


def test_jsx_text_with_apostrophes_cuts_no_code() -> None:
    source = (
        b"export const A = () => <p>Don't <Button onClick={save}>Won't</Button></p>;\n"
        b"const B = () => <>It's {render(item)} isn't it</>;\n"
    )
    found = extract_symbols("src/a.jsx", source, details=False)
    assert {"Button", "save", "render", "item"} <= set(found.references)
