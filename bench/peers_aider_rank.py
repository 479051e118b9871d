"""Aider's file ranking for a task (its repo map personalised by what the task mentions),
through its Python API, with every network access refused.

Run with the interpreter of aider's venv (``bench/.work/peers/aider/bin/python``, made by
``bench/peers.py``), never the project's: ``python bench/peers_aider_rank.py JOBS OUT``.
``JOBS`` is a JSON list of ``{"id", "root", "task", "files"}`` (``files``: the paths git
lists in ``root``, relative to it); for each job this script does what aider's coder does
before it asks for a map (``Coder.get_repo_map``) with no file in the chat:

* ``mentioned_fnames``: ``Coder.get_file_mentions(task)`` (a listed path, or a unique
  basename with a dot, dash or underscore, written as a word of the task) together with
  ``Coder.get_ident_filename_matches`` (a word of five letters or more equal to a file's
  stem);
* ``mentioned_idents``: ``Coder.get_ident_mentions(task)`` (the task split at non-word
  characters);

both by aider's own methods, called on a stand-in for the coder that lists the files and
has none in the chat. Then ``RepoMap.get_ranked_tags(chat_fnames=[], other_fnames=every
file, mentioned_fnames, mentioned_idents)`` ranks the definitions, and the files are taken
in the order their first tag appears (``get_ranked_tags`` ends with the files it ranked
without a definition, then the rest; any file still missing follows, sorted). ``OUT``
receives ``{"rankings": {id: {"files", "mentioned_fnames", "mentioned_idents",
"seconds"}}, "network_attempts": [...]}``.

The network guard and the price-list stub are those of ``bench/peers_aider_map.py``.
Aider's tag cache is written under each root (``.aider.tags.cache.v4``), its price cache
under ``aider-home/.aider`` beside ``OUT``.
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


class NoChatCoder:
    """What aider's mention finders read from a coder: every listed file may be added,
    none is in the chat or read-only."""

    def __init__(self, root: str, files: list[str]) -> None:
        self.root = root
        self.files = files
        self.abs_read_only_fnames: set[str] = set()

    def get_all_relative_files(self) -> list[str]:
        """Every file git lists."""
        return self.files

    def get_addable_relative_files(self) -> list[str]:
        """Every file git lists (none is in the chat)."""
        return self.files

    def get_inchat_relative_files(self) -> list[str]:
        """No file is in the chat."""
        return []

    def get_rel_fname(self, fname: str) -> str:
        """``fname`` relative to the root."""
        return os.path.relpath(fname, self.root)


def mentions(coder_class: Any, job: dict[str, Any]) -> tuple[set[str], set[str]]:
    """What aider's coder takes as mentioned by the job's task: file names and
    identifiers, by its own methods on a coder with no file in the chat."""
    coder = NoChatCoder(job["root"], job["files"])
    mentioned_fnames = coder_class.get_file_mentions(coder, job["task"])
    mentioned_idents = coder_class.get_ident_mentions(coder, job["task"])
    mentioned_fnames.update(coder_class.get_ident_filename_matches(coder, mentioned_idents))
    return mentioned_fnames, mentioned_idents


def rank(repo_map: Any, coder_class: Any, job: dict[str, Any]) -> dict[str, Any]:
    """Aider's file order for one job, and what it took as mentioned."""
    root, files = job["root"], job["files"]
    mentioned_fnames, mentioned_idents = mentions(coder_class, job)
    start = time.perf_counter()
    tags = repo_map.get_ranked_tags(
        [], [os.path.join(root, f) for f in files], mentioned_fnames, mentioned_idents
    )
    seconds = time.perf_counter() - start
    order: dict[str, None] = {}
    for tag in tags:
        order.setdefault(tag[0], None)
    ranked = list(order) + sorted(set(files) - order.keys())
    return {
        "files": ranked,
        "mentioned_fnames": sorted(mentioned_fnames),
        "mentioned_idents": len(mentioned_idents),
        "seconds": seconds,
    }


def main() -> None:
    """Rank the files of every job and write the results."""
    jobs_path, out = sys.argv[1], sys.argv[2]
    io, model = offline_aider(out)
    from aider.coders.base_coder import Coder
    from aider.repomap import RepoMap

    rankings = {}
    for job in json.loads(Path(jobs_path).read_text()):
        repo_map = RepoMap(root=job["root"], main_model=model, io=io)
        rankings[job["id"]] = rank(repo_map, Coder, job)
        print(f"aider ranked {job['id']}", file=sys.stderr, flush=True)
    Path(out).write_text(json.dumps({"rankings": rankings, "network_attempts": ATTEMPTS}))


if __name__ == "__main__":
    main()
