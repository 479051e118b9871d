"""Build the repository-map benchmark corpus from pinned registry packages.

Source distributions of large Python projects (fetched with ``pip download --no-binary``)
and npm packages that ship TypeScript or JavaScript sources (fetched with ``npm pack``) are
unpacked into ``bench/.corpus/`` (git-ignored). The pins make the corpus the same on every
machine; a finished corpus is reused.

Run on its own: ``.venv/bin/python bench/map_corpus.py``.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / ".corpus"
"""Where the unpacked packages go."""

PYPI_SDISTS = ("Django==5.0.6", "sympy==1.12.1", "Pygments==2.18.0", "pillow==10.4.0")
"""Python sdists: Python and C sources, and Pygments' example files in many languages."""

NPM_PACKAGES = ("date-fns@3.6.0", "rxjs@7.8.1", "effect@3.10.0", "lodash-es@4.17.21")
"""npm packages shipping TypeScript sources, declaration files and JavaScript."""


def _unpack(archive: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")


def build_corpus(corpus: Path = CORPUS) -> Path:
    """Download and unpack every pinned package into ``corpus`` (once); return it."""
    done = corpus / ".complete"
    if done.exists():
        return corpus
    corpus.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        downloads = Path(tmp)
        for spec in PYPI_SDISTS:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    "-d",
                    str(downloads),
                    spec,
                ],
                check=True,
            )
        for spec in NPM_PACKAGES:
            subprocess.run(
                ["npm", "pack", "--silent", "--pack-destination", str(downloads), spec],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        for archive in sorted(downloads.iterdir()):
            if archive.name.endswith((".tar.gz", ".tgz")):
                name = archive.name.removesuffix(".tar.gz").removesuffix(".tgz")
                _unpack(archive, corpus / name)
    done.write_text("complete\n")
    return corpus


if __name__ == "__main__":
    path = build_corpus()
    count = sum(1 for p in path.rglob("*") if p.is_file())
    print(f"{path}: {count} files")
