"""Shared by the side-by-side benchmarks (issue #10): summaries, Markdown tables, PNG plots.

Every peers bench prints its results as a Markdown table and writes the same table and a
PNG plot under ``bench/.work/peers/`` (git-ignored), so the lead can paste them into
``bench/BENCHMARKS.md`` after a quiet series. Matplotlib is pinned in
``bench/requirements-plot.txt`` and installed by ``bench/peers.py``; nothing is downloaded
while a bench runs.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

BENCH = Path(__file__).resolve().parent
WORK = BENCH / ".work" / "peers"
sys.path.insert(0, str(BENCH))

from compose_bench import machine  # noqa: E402


def load() -> str:
    """The 1, 5 and 15 minute load averages, to say how busy the machine was."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    """Median, min and max."""
    return statistics.median(values), min(values), max(values)


def cells(values: Sequence[float], digits: int = 3) -> list[str]:
    """Median (bold), min and max as table cells."""
    med, low, high = spread(values)
    return [f"**{med:.{digits}f}**", f"{low:.{digits}f}", f"{high:.{digits}f}"]


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table; every column after the first is right-aligned."""
    lines = [
        "| " + " | ".join(head) + " |",
        "| --- | " + " | ".join("---:" for _ in head[1:]) + " |",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def header(runs: int, extra: str = "") -> str:
    """The lines every result starts with: machine, runs, load."""
    text = f"machine: {machine()}\nruns: {runs}; load average at start: {load()}"
    return text + (f"\n{extra}" if extra else "")


def save(name: str, text: str) -> Path:
    """Write ``text`` to ``bench/.work/peers/NAME.md``, print it, and return the path."""
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / f"{name}.md"
    path.write_text(text + "\n", encoding="utf-8")
    print(text)
    print(f"\n(written to {path})")
    return path


def bars(
    name: str,
    title: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[float]],
    ylabel: str,
    log: bool = False,
) -> Path | None:
    """A grouped bar chart (one group per entry of ``groups``, one bar per series) saved
    as ``bench/.work/peers/NAME.png``; None, with a note, where matplotlib is not installed
    (``bench/requirements-plot.txt``): the tables are the results, the chart only shows them."""
    try:
        import matplotlib
    except ModuleNotFoundError:
        print(f"(no {name}.png: matplotlib is not installed; see bench/requirements-plot.txt)")
        return None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width = 0.8 / max(1, len(series))
    figure, axes = plt.subplots(figsize=(max(6.0, 1.4 * len(groups) + 2), 5.0))
    for n, (label, values) in enumerate(series.items()):
        positions = [g + (n - (len(series) - 1) / 2) * width for g in range(len(groups))]
        axes.bar(positions, list(values), width, label=label)
    axes.set_xticks(range(len(groups)), list(groups), rotation=15, ha="right", fontsize=8)
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize=10)
    if log:
        axes.set_yscale("log")
    axes.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=3)
    figure.tight_layout()
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / f"{name}.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    print(f"(plot written to {path})")
    return path


def plot_shares(
    name: str, title: str, groups: Sequence[str], series: Mapping[str, Sequence[float]]
) -> None:
    """A bar chart of token shares (0..1) for a bench outside the peers set (the cache-prefix
    rows of issue #10), or a note when matplotlib is not installed (``bench/peers.py``)."""
    try:
        import matplotlib  # noqa: F401
    except ModuleNotFoundError:
        print("(no plot: matplotlib is not installed; bench/peers.py installs it)")
        return
    bars(name, title, groups, series, "share of input tokens")
