"""Benchmark for the cache tiers: how much of each request a provider's cache serves, and what
the input costs, under each tier rule, AC-DC's tracker, and no tiers, over several scripted
session shapes; and how long a tier update takes for a 10k-item repository.

Run: ``.venv/bin/python bench/tiers_bench.py [--runs N] [--shapes NAME...] [--speed-only]``.

The repository is a copy of the Python sources of ``rich`` and ``click`` (installed
dependencies; their versions are printed), built under ``bench/.work/tiers/`` (git-ignored)
by ``edits_bench.build_repository``, afresh for every session. Each session is scripted with
its own random seed (the run number); a shape (:data:`SHAPES`) says when files join and
leave the context, how often the scripted model's reply holds EDIT/REPL blocks (applied to
the repository, so the file's text and the symbol map really change), and whether the
conversation is compacted. Other replies are prose. The history grows by the user's message
and the reply each turn.

Each turn's context (system prompt, symbol map of the files not in context, the files in
context, the history, the user's message) is assembled once per variant:

* ``deferred``, ``settle``, ``threshold``, ``ripple``: ``tiered_request`` under that
  ``TierPolicy`` rule, the tracker carried from turn to turn (``deferred`` is the default);
* ``acdc``: AC-DC's own ``StabilityTracker`` (``../shared/peers/ac-dc/``, its membrane
  controller, driven turn by turn as AC-DC drives it: map entries grouped into one
  ``symbols:<dir>`` block per directory, seeded by ``initialize_dir_blocks`` from the
  directories' mtimes, ``update`` with every item's hash and tokens, ``purge_history`` at a
  compaction, a directory block dropped when all its files are in context), its tiers
  rendered by the same assembly as ours;
* ``none``: the same texts without tiers, in stability order through
  ``composition.assemble`` (agentprompt's default composition, with its own breakpoints).

Per variant, summed over turns 2..N: **identical prefix**, the tokens of the byte-identical
prefix shared with the previous request (``agentprompt.prefix.shared_prefix``; automatic
prefix caching such as OpenAI's); **breakpoint-served**, the tokens up to the longest
breakpoint whose prefix an earlier request wrote (``agentprompt.tiers.served.cache_use``;
Anthropic's explicit caching, time to live ignored); **cost**, the input cost with cache
reads at 0.1×, writes at 1.25×, uncached input at 1×, over all turns, as a share of sending
every token uncached. Figures are medians over ``--runs`` sessions with min and max.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agentprompt.composition import Composition, assemble
from agentprompt.edits import apply_reply
from agentprompt.llm import ScriptedModel
from agentprompt.llm.base import ModelRequest
from agentprompt.messages import Message
from agentprompt.prefix import shared_prefix
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.sections import HistorySlot, Part, Section, Stability
from agentprompt.tiers import (
    ItemState,
    TierContext,
    TierPolicy,
    TrackedItem,
    TrackerState,
    assemble_tiers,
    content_hash,
    repository_context,
    tiered_request,
)
from agentprompt.tiers._items import item_path
from agentprompt.tiers.served import cache_use
from agentprompt.tiers.steady import track_context
from agentprompt.tokens import shared_counter
from edits_bench import CORPUS_PACKAGES, build_repository
from peers_report import plot_shares

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".work" / "tiers"
PEER = ROOT.parent / "shared" / "peers" / "ac-dc"
MAP_TOKENS = 4096
ACDC_CACHE_TARGET = 1536
"""AC-DC's cache target for a model with a 1,024-token cache minimum (× 1.5 buffer)."""

RULES = ("deferred", "settle", "threshold", "ripple")
DEFAULT = RULES[0]
VARIANTS = (*RULES, "acdc", "none")
NAMES = {
    "deferred": "tiers, deferred rule (default)",
    "settle": "tiers, settle rule",
    "threshold": "tiers, threshold rule (N 12/9/6/3)",
    "ripple": "tiers, ripple rule",
    "acdc": "AC-DC's tracker (membrane controller)",
    "none": "no tiers",
}


@dataclass(frozen=True)
class Shape:
    """A scripted session's shape."""

    name: str
    turns: int
    files: int
    """Files drawn for the session (2,000–9,000 bytes of Python each)."""
    adds: dict[int, int]
    """Turn -> how many of the drawn files join the context then."""
    drops: tuple[int, ...] = ()
    """Turns at which the file longest in context leaves it."""
    edit_every: int = 0
    """Every this many turns the reply edits files in context (0: never)."""
    edits: int = 1
    """Files one editing reply changes."""
    focus: float = 0.0
    """The chance that an edit goes to the file edited last (while it is in context) rather
    than to a file drawn at random: editing sessions work on one file for a while."""
    compact_at: int = 0
    """Compact the history when it holds this many tokens (0: never)."""
    prose_words: int = 40


SHAPES = {
    s.name: s
    for s in (
        Shape(
            name="30-turn", turns=30, files=6, adds={1: 2, 6: 2, 15: 2}, drops=(22,), edit_every=3
        ),
        Shape(
            name="long-compaction",
            turns=100,
            files=9,
            adds={1: 2, 10: 2, 30: 2, 55: 2, 80: 1},
            drops=(25, 50, 75),
            edit_every=4,
            compact_at=6000,
        ),
        Shape(
            name="many-file-edit",
            turns=40,
            files=12,
            adds={1: 4, 4: 4, 8: 4},
            edit_every=1,
            focus=0.7,
        ),
        Shape(
            name="scattered-edit",
            turns=40,
            files=12,
            adds={1: 4, 4: 4, 8: 4},
            edit_every=1,
            edits=2,
        ),
        Shape(
            name="read-mostly",
            turns=40,
            files=10,
            adds={1: 2, 5: 1, 9: 1, 13: 1, 17: 1, 21: 1, 25: 1, 29: 1, 33: 1},
            drops=(12, 20, 28, 36),
            prose_words=150,
        ),
    )
}


@dataclass
class Tally:  # a mutable accumulator local to the benchmark
    """Tokens summed over a session's turns for one variant."""

    total: int = 0
    identical: int = 0
    served: int = 0
    cost: float = 0.0
    uncached: int = 0
    """What every turn would cost with no cache at all (all turns)."""


def untiered(context: TierContext, history: Sequence[Message], lib: PromptLibrary) -> Composition:
    """The same texts without tiers: stability-ordered sections, agentprompt's default."""
    symbols = [i.text for i in context.items if i.kind == "symbols"]
    files = [i.text for i in context.items if i.kind == "file"]
    parts: list[Part] = [
        Section(id="system", role="system", text=context.system, stability=Stability.STATIC)
    ]
    parts.append(
        Section(
            id="map",
            role="system",
            text=lib.render("tiers/map_header") + "\n\n" + context.legend + "\n".join(symbols),
        )
    )
    if files:
        parts.append(
            Section(
                id="files",
                role="system",
                text=lib.render("tiers/files_header") + "\n\n" + "\n\n".join(files),
            )
        )
    parts.append(HistorySlot(messages=tuple(history)))
    parts.append(Section(id="user", role="user", text=context.user, stability=Stability.TURN))
    return assemble(parts)


class AcdcTracker:
    """AC-DC's ``StabilityTracker``, driven as AC-DC drives it (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        if str(PEER) not in sys.path:
            sys.path.insert(0, str(PEER))
        from ac_dc.stability_tracker import StabilityTracker

        self.root = root
        self.tracker: Any = StabilityTracker(cache_target_tokens=ACDC_CACHE_TARGET)
        self.started = False

    @staticmethod
    def items(context: TierContext) -> tuple[TrackedItem, ...]:
        """The context's items with map entries grouped into one block per directory."""
        groups: dict[str, list[TrackedItem]] = {}
        for item in context.items:
            if item.kind == "symbols":
                path = item.key.split(":", 1)[1]
                groups.setdefault(os.path.dirname(path) or ".", []).append(item)
        blocks = [
            TrackedItem(
                key=f"symbols:{d}",
                kind="symbols",
                text="\n".join(i.text for i in members),
                tokens=sum(i.tokens for i in members),
            )
            for d, members in sorted(groups.items())
        ]
        return (*blocks, *(i for i in context.items if i.kind != "symbols"))

    def request(self, items: Sequence[TrackedItem], compacted: bool) -> TrackerState:
        """Feed one request's items to the tracker; its tiers as our state."""
        from ac_dc.stability_tracker import Tier

        blocks = {i.key: i for i in items if i.kind == "symbols"}
        if not self.started:
            seeds = []
            for key, item in blocks.items():
                folder = self.root / key.split(":", 1)[1]
                mtime = max((p.stat().st_mtime for p in folder.glob("*.py")), default=0.0)
                seeds.append((key, mtime, item.tokens))
            self.tracker.initialize_dir_blocks(seeds)
            self.started = True
        for key, item in list(self.tracker.get_all_items().items()):
            if key.startswith("symbols:") and key not in blocks:
                # AC-DC drops a directory's block once no entry of it is left in the map.
                del self.tracker._items[key]
                self.tracker.mark_broken(item.tier, "dir-block removed")
        if compacted:
            self.tracker.purge_history()
        hashes = {i.key: content_hash(i.text) for i in items}
        self.tracker.update(
            {i.key: {"hash": hashes[i.key], "tokens": i.tokens} for i in items},
            existing_files={i.key.split(":", 1)[1] for i in items if i.kind == "file"},
        )
        placed = self.tracker.get_all_items()
        return TrackerState(
            items=tuple(
                ItemState(
                    key=i.key,
                    kind=i.kind,
                    hash=hashes[i.key],
                    n=placed[i.key].n_value,
                    tier=Tier(placed[i.key].tier).value,
                    tokens=i.tokens,
                )
                for i in items
            ),
            requests=1,
        )


def _edit_block(root: Path, path: str, turn: int, rng: random.Random) -> str:
    lines = (root / path).read_text(encoding="utf-8").splitlines(keepends=True)
    candidates = [
        i
        for i in range(2, len(lines) - 1)
        if lines[i].strip()
        and lines[i].count(lines[i].strip()) == 1
        and sum(1 for x in lines if x == lines[i]) == 1
        and sum(1 for x in lines if x == lines[i - 1]) == 1
    ]
    i = rng.choice(candidates)
    anchor, old = lines[i - 1], lines[i]
    new = old.rstrip("\n") + f"  # changed at turn {turn}\n"
    return f"{path}\n««« EDIT\n{anchor}{old}═══════ REPL\n{anchor}{new}»»» EDIT END\n"


_WORDS = ["Consider", "naming", "the", "helper", "tests", "edge", "case", "module", "reads"]


def _compact(history: list[Message], rng: random.Random) -> list[Message]:
    """The history after a compaction: a summary pair, then the last four messages."""
    summary = "Summary of the conversation so far: " + " ".join(
        rng.choice(_WORDS) for _ in range(250)
    )
    return [
        Message(role="user", content=summary),
        Message(role="assistant", content="Understood; I will continue from that summary."),
        *history[-4:],
    ]


def session(root: Path, seed: int, shape: Shape) -> dict[str, Tally]:
    """One scripted session of ``shape``; the tallies of each variant."""
    rng = random.Random(seed)
    counter = shared_counter()
    lib = PromptLibrary(root)
    candidates = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if ".git" not in p.parts and 2000 <= p.stat().st_size <= 9000
    )
    chosen = rng.sample(candidates, shape.files)
    waiting = list(chosen)
    in_context: list[str] = []
    history: list[Message] = []
    states = {v: TrackerState() for v in RULES}
    acdc = AcdcTracker(root)
    tallies = {v: Tally() for v in VARIANTS}
    cached: dict[str, set[str]] = {v: set() for v in VARIANTS}
    previous: dict[str, tuple[Message, ...]] = {v: () for v in VARIANTS}
    model = ScriptedModel()
    compacted = False
    last_edit = ""
    for turn in range(1, shape.turns + 1):
        for _ in range(shape.adds.get(turn, 0)):
            in_context.append(waiting.pop(0))
        if turn in shape.drops:
            in_context.pop(0)
        user = f"Turn {turn}: look at {rng.choice(in_context)} and tell me what to improve."
        context = repository_context(
            root, files=in_context, history=history, user=user, map_tokens=MAP_TOKENS
        )
        comps: dict[str, Composition] = {"none": untiered(context, history, lib)}
        for rule in RULES:
            policy = TierPolicy(rule=rule)  # type: ignore[arg-type]
            request = tiered_request(
                context, states[rule], counter=counter, root=root, policy=policy
            )
            states[rule] = request.update.state
            comps[rule] = request.prompt.composition
        grouped = TierContext(
            system=context.system,
            legend=context.legend,
            items=AcdcTracker.items(context),
            user=context.user,
        )
        placed = acdc.request(grouped.items, compacted)
        comps["acdc"] = assemble_tiers(grouped, placed, counter=counter, root=root).composition
        compacted = False
        for variant, comp in comps.items():
            use = cache_use(comp, cached[variant])
            cached[variant].update(use.keys)
            tally = tallies[variant]
            tally.cost += use.cost
            tally.uncached += comp.total_tokens
            if turn > 1:
                tally.total += comp.total_tokens
                tally.identical += shared_prefix(
                    previous[variant], comp.messages, counter=counter
                ).tokens
                tally.served += use.served
            previous[variant] = comp.messages
        if shape.edit_every and turn % shape.edit_every == 0:
            paths = rng.sample(in_context, min(shape.edits, len(in_context)))
            if last_edit in in_context and rng.random() < shape.focus:
                paths[0] = last_edit
            last_edit = paths[0]
            blocks = "\n".join(_edit_block(root, p, turn, rng) for p in paths)
            reply = f"I changed {', '.join(paths)}.\n\n{blocks}"
        else:
            reply = f"Reply {turn}: the code reads well. " + " ".join(
                rng.choice(_WORDS) for _ in range(shape.prose_words)
            )
        model.add(reply)
        answer = model.complete(ModelRequest(messages=comps[DEFAULT].messages)).text
        if "««« EDIT" in answer:
            report = apply_reply(root, answer, dialect="editrepl")
            if report.failed:
                raise SystemExit(f"turn {turn}: the scripted edit did not apply: {report.failed}")
        history += [Message(role="user", content=user), Message(role="assistant", content=answer)]
        if shape.compact_at and sum(counter.count(m.text) for m in history) > shape.compact_at:
            history = _compact(history, rng)
            compacted = True
    return tallies


def speed(items: int = 10_000, requests: int = 30) -> dict[str, float]:
    """Milliseconds per tier update (``track_context``: the steady map and ``track``) for a
    repository of ``items`` map entries, a few files and a growing history: median over
    ``requests`` requests per rule."""
    rng = random.Random(0)
    symbols = [
        TrackedItem(
            key=f"symbols:pkg{i // 50}/mod{i}.py",
            kind="symbols",
            text=f"mod{i}\n f run:{i}",
            tokens=40 + i % 60,
            source=f"hash of mod{i}",
        )
        for i in range(items)
    ]
    sources = {item_path(s.key): s.source for s in symbols}
    out: dict[str, float] = {}
    for rule in RULES:
        policy = TierPolicy(rule=rule)  # type: ignore[arg-type]
        state = TrackerState()
        files = [
            TrackedItem(key=f"file:f{i}.py", kind="file", text=f"v0 {i}", tokens=900)
            for i in range(8)
        ]
        history: list[TrackedItem] = []
        times = []
        for turn in range(requests):
            j = rng.randrange(len(files))
            files[j] = TrackedItem(key=files[j].key, kind="file", text=f"v{turn} {j}", tokens=900)
            history.append(
                TrackedItem(
                    key=f"history:{turn}", kind="history", text=f"user\nturn {turn}", tokens=60
                )
            )
            context = TierContext(system="", items=(*symbols, *files, *history), sources=sources)
            started = time.process_time()
            state = track_context(state, context, policy)[1].state
            times.append((time.process_time() - started) * 1000)
        out[rule] = statistics.median(times[1:])
    return out


def _row(name: str, values: Sequence[float]) -> str:
    return f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shapes", nargs="*", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--speed-only", action="store_true")
    args = parser.parse_args()
    print(f"corpus: {', '.join(f'{n} {importlib.metadata.version(n)}' for n in CORPUS_PACKAGES)}")
    print(
        f"machine: {platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}"
    )
    print()
    if not args.speed_only:
        for name in args.shapes:
            report_shape(SHAPES[name], args.runs)
    times = speed()
    print("| tier update, 10,000 map entries + 8 files + history | ms per request (median of 29) |")
    print("| --- | --- |")
    for rule in RULES:
        print(f"| {NAMES[rule]} | {times[rule]:.1f} |")


def report_shape(shape: Shape, runs: int) -> None:
    """Run ``runs`` sessions of ``shape`` and print its tables."""
    shares: dict[str, list[float]] = {}
    started = time.perf_counter()
    for run in range(runs):
        build_repository(WORK)
        tallies = session(WORK, seed=run, shape=shape)
        for v in VARIANTS:
            t = tallies[v]
            shares.setdefault(f"identical {v}", []).append(t.identical / t.total)
            shares.setdefault(f"served {v}", []).append(t.served / t.total)
            shares.setdefault(f"cost {v}", []).append(t.cost / t.uncached)
        for v in VARIANTS:
            for measure in ("identical", "served", "cost"):
                base = shares[f"{measure} none"][-1]
                value = shares[f"{measure} {v}"][-1]
                shares.setdefault(f"{measure} ratio {v}", []).append(
                    value / base if base else float("inf")
                )
        for measure in ("identical", "served", "cost"):
            ours = shares[f"{measure} {DEFAULT}"][-1]
            for other in ("acdc", "settle"):
                theirs = shares[f"{measure} {other}"][-1]
                shares.setdefault(f"{measure} ratio {DEFAULT}/{other}", []).append(
                    ours / theirs if theirs else float("inf")
                )
        print(
            f"{shape.name} run {run}: "
            + "; ".join(
                f"{v} served {shares[f'served {v}'][-1]:.3f} identical "
                f"{shares[f'identical {v}'][-1]:.3f} cost {shares[f'cost {v}'][-1]:.3f}"
                for v in VARIANTS
            ),
            flush=True,
        )
    print(
        f"\n### {shape.name}: {runs} sessions of {shape.turns} turns in "
        f"{time.perf_counter() - started:.0f} s\n"
    )
    titles = {
        "served": "breakpoint-served share, turns 2..N",
        "identical": "identical-prefix share, turns 2..N",
        "cost": "input cost / uncached cost, all turns",
    }
    for measure, title in titles.items():
        print(f"| {title} | median | min | max |")
        print("| --- | --- | --- | --- |")
        for v in VARIANTS:
            print(_row(NAMES[v], shares[f"{measure} {v}"]))
        for v in (DEFAULT, "settle", "acdc"):
            print(_row(f"ratio {v} / no tiers, per run", shares[f"{measure} ratio {v}"]))
        for other, name in (("acdc", "AC-DC"), ("settle", "settle")):
            print(
                _row(
                    f"ratio {DEFAULT} / {name}, per run",
                    shares[f"{measure} ratio {DEFAULT}/{other}"],
                )
            )
        print()
    if shape.name == "30-turn":
        plot_shares(
            "cache-tiers",
            f"Cache tiers, {shape.turns}-turn scripted session: share of input tokens served "
            f"(median of {runs})",
            ["explicit breakpoints", "identical prefix"],
            {
                NAMES[v]: [
                    statistics.median(shares[f"served {v}"]),
                    statistics.median(shares[f"identical {v}"]),
                ]
                for v in VARIANTS
            },
        )


if __name__ == "__main__":
    main()
