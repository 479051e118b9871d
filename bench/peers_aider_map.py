"""Aider's repository map through its Python API, with every network access refused.

Run with the interpreter of aider's venv (``bench/.work/peers/aider/bin/python``, made by
``bench/peers.py``), never the project's: ``python bench/peers_aider_map.py ROOT FILES
TOKENS OUT``. It builds ``aider.repomap.RepoMap`` for ``ROOT`` with a ``TOKENS`` budget
(no chat files, so every file listed in ``FILES``, one absolute path a line, is "other"),
asks for the map, and writes a JSON summary to ``OUT``: the map's characters and lines,
and the network connections attempted.

Aider fetches a model price list when a model is first looked up
(``aider.models.ModelInfoManager._update_cache``), and litellm fetches its own unless
``LITELLM_LOCAL_MODEL_COST_MAP`` is set. Both are disabled here: the variable is set before
anything imports litellm, and ``_update_cache`` is replaced by one that leaves the price
list empty (aider's own fallback when the fetch fails). As proof, the socket layer is
guarded before aider is imported: every ``connect``, ``connect_ex``, ``create_connection``
and ``getaddrinfo`` is counted and refused; the count is in the summary, and the bench fails
if it is not zero. Aider's tag cache is written under ``ROOT`` (``.aider.tags.cache.v4``),
its (empty) price cache under ``aider-home/.aider`` beside ``OUT``: ``HOME`` is pointed
there so the user's own is never touched.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

ATTEMPTS: list[str] = []


def _refuse(name: str) -> Any:
    def refused(*args: Any, **kwargs: Any) -> Any:
        ATTEMPTS.append(f"{name}{args[1:2] if name.startswith('socket.') else args[:1]}")
        raise OSError(f"network refused by the benchmark ({name})")

    return refused


def guard_network() -> None:
    """Count and refuse every attempt to reach the network from this process."""
    socket.socket.connect = _refuse("socket.connect")  # type: ignore[method-assign]
    socket.socket.connect_ex = _refuse("socket.connect_ex")  # type: ignore[method-assign]
    socket.create_connection = _refuse("create_connection")
    socket.getaddrinfo = _refuse("getaddrinfo")


def offline_aider(out: str) -> tuple[Any, Any]:
    """Aider's terminal I/O and a model, with the network refused and no price list
    fetched; its home (price cache) beside ``out``."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ["HOME"] = str(Path(out).resolve().parent / "aider-home")
    guard_network()
    from aider import models
    from aider.io import InputOutput

    def no_fetch(self: Any) -> None:
        self.content = {}

    models.ModelInfoManager._update_cache = no_fetch
    return InputOutput(pretty=False, yes=True, fancy_input=False), models.Model("gpt-4o")


def main() -> None:
    """Build aider's map of the files given and write its summary."""
    root, files, tokens, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    io, model = offline_aider(out)
    from aider.repomap import RepoMap

    repo_map = RepoMap(map_tokens=tokens, root=root, main_model=model, io=io)
    other = [line for line in Path(files).read_text().splitlines() if line]
    text = repo_map.get_repo_map([], other) or ""
    summary = {
        "files": len(other),
        "chars": len(text),
        "lines": text.count("\n"),
        "network_attempts": ATTEMPTS,
    }
    Path(out).write_text(json.dumps(summary))


if __name__ == "__main__":
    main()
