"""Install the peers of the side-by-side benchmarks (issue #10), idempotently, and print
their versions.

Run: ``.venv/bin/python bench/peers.py``.

Each peer gets its own environment under ``bench/.work/peers/`` (git-ignored), with the
versions pinned in ``bench/requirements-*.txt``:

* ``aider/``: a venv with ``aider-chat`` (its repo map is driven through its Python API by
  ``bench/peers_aider_map.py``, run with that venv's interpreter);
* ``ingest/``: a venv with ``files-to-prompt`` and ``gitingest``;
* Repomix from npm, pinned, in ``bench/.work/repomix/`` (shared with ``bench/pack_bench.py``);
* universal-ctags and GNU ``patch`` from Debian (``apt-get install`` when missing), and git;
* a tiktoken cache for gitingest's token count (see :data:`TIKTOKEN_CACHE`);
* matplotlib (``bench/requirements-plot.txt``) into the interpreter running this script,
  for the plots.

A venv is (re)built only when its requirements file changed since it was installed (the
file's text is kept in a stamp file inside the venv).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from map_bench import _ensure_ctags  # noqa: E402
from pack_bench import REPOMIX, REPOMIX_VERSION, _ensure_repomix  # noqa: E402
from peers_report import WORK  # noqa: E402

TIKTOKEN_CACHE = WORK / "tiktoken-cache"
"""gitingest counts tokens with tiktoken, which downloads its tables on first use; this cache,
seeded from the ``o200k_base`` table the project's own ``bpe-openai`` package ships (the same
bytes: tiktoken checks their SHA-256), lets it count with no network (``TIKTOKEN_CACHE_DIR``)."""

_SEED_TIKTOKEN = """
import gzip, sys
import tiktoken, tiktoken.load
data = gzip.decompress(open(sys.argv[1], "rb").read())
tiktoken.load.read_file = lambda blobpath: data
print(len(tiktoken.get_encoding("o200k_base").encode("warm up")))
"""

VENVS = {"aider": BENCH / "requirements-aider.txt", "ingest": BENCH / "requirements-ingest.txt"}
PLOT = BENCH / "requirements-plot.txt"


def venv_python(name: str) -> Path:
    """The interpreter of the peer venv ``name``."""
    return WORK / name / "bin" / "python"


def run_aider_driver(
    driver: Path, jobs: list[dict[str, Any]], jobs_path: Path, out: Path
) -> dict[str, Any] | str:
    """Run one of the aider drivers (``bench/peers_aider_*.py``) over ``jobs`` in aider's
    venv (jobs written to ``jobs_path``, results read from ``out``): what it wrote, or why
    it wrote nothing. A driver that tried the network stops the bench."""
    python = venv_python("aider")
    if not python.exists():
        return f"{python} does not exist; run `.venv/bin/python bench/peers.py` first"
    jobs_path.write_text(json.dumps(jobs))
    out.unlink(missing_ok=True)
    done = subprocess.run(
        [str(python), str(driver), str(jobs_path), str(out)],
        env={**os.environ, "PYTHONHASHSEED": "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not out.exists():
        return f"aider failed (exit {done.returncode}): {done.stderr[-1500:]}"
    said: dict[str, Any] = json.loads(out.read_text())
    if said["network_attempts"]:
        raise SystemExit(f"aider tried the network: {said['network_attempts']}")
    return said


def _ensure_venv(name: str, requirements: Path) -> None:
    folder = WORK / name
    stamp = folder / ".installed"
    wanted = requirements.read_text()
    if stamp.exists() and stamp.read_text() == wanted:
        return
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    pip = [str(venv_python(name)), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "-r", str(requirements)], check=True)
    frozen = subprocess.run(
        [str(venv_python(name)), "-m", "pip", "freeze"], capture_output=True, text=True
    )
    (WORK / f"{name}-freeze.txt").write_text(frozen.stdout)
    stamp.write_text(wanted)


def _ensure_tiktoken_cache() -> None:
    """Let tiktoken in the ingest venv write its own cache entry from the shipped table."""
    if TIKTOKEN_CACHE.exists() and any(TIKTOKEN_CACHE.iterdir()):
        return
    import bpe_openai

    table = Path(bpe_openai.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    TIKTOKEN_CACHE.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(TIKTOKEN_CACHE)}
    command = [str(venv_python("ingest")), "-c", _SEED_TIKTOKEN, str(table)]
    subprocess.run(command, check=True, env=env, capture_output=True)


def _ensure_plot() -> None:
    if importlib.util.find_spec("matplotlib") is None:
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "-r", str(PLOT)]
        subprocess.run(pip, check=True)


def _ensure_debian(command: str, package: str) -> str:
    found = shutil.which(command)
    if found is None:
        subprocess.run(["apt-get", "install", "-y", "-q", package], check=True)
        found = shutil.which(command)
    if found is None:
        raise SystemExit(f"{command} is not installed and apt-get could not install {package}")
    return found


def _first_line(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return (done.stdout or done.stderr).strip().splitlines()[0]


def _pinned(name: str, package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    return _first_line([str(venv_python(name)), "-c", code])


def ensure_peers() -> dict[str, str]:
    """Install every peer that is missing and return each one's version."""
    WORK.mkdir(parents=True, exist_ok=True)
    for name, requirements in VENVS.items():
        _ensure_venv(name, requirements)
    _ensure_tiktoken_cache()
    _ensure_plot()
    _ensure_repomix()
    ctags = _ensure_ctags()
    patch = _ensure_debian("patch", "patch")
    git = _ensure_debian("git", "git")
    import matplotlib

    return {
        "aider-chat": _pinned("aider", "aider-chat"),
        "files-to-prompt": _pinned("ingest", "files-to-prompt"),
        "gitingest": _pinned("ingest", "gitingest"),
        "repomix": _first_line(["node", str(REPOMIX), "--version"])
        + f" (pinned {REPOMIX_VERSION})",
        "universal-ctags": _first_line([ctags, "--version"]),
        "git": _first_line([git, "--version"]),
        "GNU patch": _first_line([patch, "--version"]),
        "node": _first_line(["node", "--version"]),
        "matplotlib": matplotlib.__version__,
    }


def main() -> None:
    """Install what is missing, then print one line per peer."""
    for tool, version in ensure_peers().items():
        print(f"{tool}: {version}")


if __name__ == "__main__":
    main()
