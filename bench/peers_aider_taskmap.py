"""Aider's repository map for a task at a token budget (its map personalised by what the
task mentions), through its Python API, with every network access refused.

Run with the interpreter of aider's venv (``bench/.work/peers/aider/bin/python``, made by
``bench/peers.py``), never the project's: ``python bench/peers_aider_taskmap.py JOBS OUT``.
``JOBS`` is a JSON list of ``{"id", "root", "task", "files", "tokens"}``; for each job this
script takes what the task mentions as aider's coder does (see
``bench/peers_aider_rank.py``, whose stand-in coder it uses) and asks
``RepoMap.get_repo_map`` for the map with no file in the chat and ``tokens`` as the map's
budget. ``OUT`` receives ``{"maps": {id: {"tokens": N, "text": MAP, "seconds": S}},
"network_attempts": [...]}``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers_aider_map import ATTEMPTS, offline_aider
from peers_aider_rank import mentions


def task_map(repo_map: Any, coder_class: Any, job: dict[str, Any]) -> dict[str, Any]:
    """Aider's map for one job."""
    root, files = job["root"], job["files"]
    mentioned_fnames, mentioned_idents = mentions(coder_class, job)
    start = time.perf_counter()
    text = repo_map.get_repo_map(
        [],
        [os.path.join(root, f) for f in files],
        mentioned_fnames=mentioned_fnames,
        mentioned_idents=mentioned_idents,
    )
    return {"tokens": job["tokens"], "text": text or "", "seconds": time.perf_counter() - start}


def main() -> None:
    """Make the map of every job and write the results."""
    jobs_path, out = sys.argv[1], sys.argv[2]
    io, model = offline_aider(out)
    from aider.coders.base_coder import Coder
    from aider.repomap import RepoMap

    maps = {}
    for job in json.loads(Path(jobs_path).read_text()):
        repo_map = RepoMap(map_tokens=job["tokens"], root=job["root"], main_model=model, io=io)
        maps[f"{job['id']}@{job['tokens']}"] = task_map(repo_map, Coder, job)
        print(f"aider mapped {job['id']} at {job['tokens']}", file=sys.stderr, flush=True)
    Path(out).write_text(json.dumps({"maps": maps, "network_attempts": ATTEMPTS}))


if __name__ == "__main__":
    main()
