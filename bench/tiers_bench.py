"""Benchmark for the cache tiers (issue #8): how much of each request a provider's prefix
cache can serve, with the L0–L3 tiers and without them.

Run: ``.venv/bin/python bench/tiers_bench.py [--runs N] [--turns N]``.

The repository is a copy of the Python sources of ``rich`` and ``click`` (installed
dependencies; their versions are printed), built under ``bench/.work/tiers/`` (git-ignored)
by ``edits_bench.build_repository``. Each run is a scripted session of ``--turns`` turns
(default 30) with its own random seed: files are added to the context at turns 1, 6 and 15
and one is dropped at turn 22; on every third turn the scripted model's reply holds an
EDIT/REPL block changing one of the files in context, which is applied to the repository,
so the file's text (and the symbol map) really change. Every other reply is prose. The
conversation history grows by the user's message and the reply each turn.

Each turn's context (system prompt, symbol map of the files not in context, the files in
context, the history, the user's message) is assembled three ways:

* **tiers**: ``tiered_request`` with the stability tracker carried from turn to turn
  (L0 system block, L1–L3 user/assistant pairs, active tier, one breakpoint per cached tier),
  once under SPEC.md's threshold rule (the default) and once under the opt-in ripple rule;
* **no tiers**: the same texts as sections in stability order through
  ``composition.assemble`` (system prompt static, map and files session-stable in the
  system message, the history, the user's message), agentprompt's default composition.

Two shares of input tokens are reported, summed over turns 2..N (turn 1 has nothing before
it): **identical prefix**, the tokens of the byte-identical prefix shared with the previous
request (``agentprompt.prefix.shared_prefix``; what automatic prefix caching such as
OpenAI's can serve), and **breakpoint-served**, the tokens up to the longest cache
breakpoint of the request whose whole prefix was written to the cache by an earlier
request's breakpoint (Anthropic's explicit caching, ignoring its time-to-live). The figure
per variant is the median over ``--runs`` sessions with min and max; the ratio
tiers / no tiers is per run.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agentprompt.composition import MESSAGE_OVERHEAD, Composition, assemble
from agentprompt.edits import apply_reply
from agentprompt.llm import ScriptedModel
from agentprompt.llm.base import ModelRequest
from agentprompt.messages import Message
from agentprompt.prefix import shared_prefix
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.sections import HistorySlot, Part, Section, Stability
from agentprompt.tiers import (
    TierContext,
    TierPolicy,
    TrackerState,
    repository_context,
    tiered_request,
)
from agentprompt.tokens import shared_counter
from edits_bench import CORPUS_PACKAGES, build_repository
from peers_report import plot_shares

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / ".work" / "tiers"
MAP_TOKENS = 4096


@dataclass
class Tally:  # a mutable accumulator local to the benchmark
    """Tokens summed over a session's turns for one variant."""

    total: int = 0
    identical: int = 0
    served: int = 0


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


def _prefix_key(messages: Sequence[Message]) -> str:
    digest = hashlib.sha256()
    for m in messages:
        digest.update(json.dumps([m.role, m.text]).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def breakpoint_served(comp: Composition, cached: set[str]) -> int:
    """Tokens up to the longest breakpoint whose prefix an earlier request cached; then the
    request's own breakpoints are added to ``cached``."""
    served = 0
    for i in comp.breakpoints:
        key = _prefix_key(comp.messages[: i + 1])
        if key in cached:
            served = sum(comp.message_tokens[: i + 1]) + MESSAGE_OVERHEAD * (i + 1)
    for i in comp.breakpoints:
        cached.add(_prefix_key(comp.messages[: i + 1]))
    return served


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
    block = f"{path}\n««« EDIT\n{anchor}{old}═══════ REPL\n{anchor}{new}»»» EDIT END\n"
    return f"I changed {path}.\n\n{block}"


VARIANTS = ("threshold", "ripple", "none")
"""Tiers with SPEC.md's threshold rule (the default), tiers with the opt-in ripple rule, no
tiers."""


def session(root: Path, seed: int, turns: int) -> dict[str, Tally]:
    """One scripted session; the tallies of each variant."""
    rng = random.Random(seed)
    counter = shared_counter()
    lib = PromptLibrary(root)
    candidates = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if ".git" not in p.parts and 2000 <= p.stat().st_size <= 9000
    )
    chosen = rng.sample(candidates, 6)
    in_context: list[str] = []
    history: list[Message] = []
    states = {v: TrackerState() for v in VARIANTS}
    tallies = {v: Tally() for v in VARIANTS}
    cached: dict[str, set[str]] = {v: set() for v in VARIANTS}
    previous: dict[str, tuple[Message, ...]] = {v: () for v in VARIANTS}
    model = ScriptedModel()
    for turn in range(1, turns + 1):
        if turn == 1:
            in_context += chosen[:2]
        elif turn == 6:
            in_context += chosen[2:4]
        elif turn == 15:
            in_context += chosen[4:6]
        elif turn == 22:
            in_context.remove(chosen[0])
        user = f"Turn {turn}: look at {rng.choice(in_context)} and tell me what to improve."
        context = repository_context(
            root, files=in_context, history=history, user=user, map_tokens=MAP_TOKENS
        )
        comps: dict[str, Composition] = {"none": untiered(context, history, lib)}
        sent: tuple[Message, ...] = ()
        for rule in ("threshold", "ripple"):
            policy = TierPolicy(rule=rule)  # type: ignore[arg-type]
            request = tiered_request(
                context, states[rule], counter=counter, root=root, policy=policy
            )
            states[rule] = request.update.state
            comps[rule] = request.prompt.composition
            sent = sent or request.prompt.messages
        for variant, comp in comps.items():
            if turn > 1:
                tally = tallies[variant]
                tally.total += comp.total_tokens
                tally.identical += shared_prefix(
                    previous[variant], comp.messages, counter=counter
                ).tokens
                tally.served += breakpoint_served(comp, cached[variant])
            else:
                breakpoint_served(comp, cached[variant])
            previous[variant] = comp.messages
        if turn % 3 == 0:
            reply = _edit_block(root, rng.choice(in_context), turn, rng)
        else:
            words = ["Consider", "naming", "the", "helper", "tests", "edge"]
            reply = f"Reply {turn}: the code reads well. " + " ".join(
                rng.choice(words) for _ in range(40)
            )
        model.add(reply)
        answer = model.complete(ModelRequest(messages=sent)).text
        if "««« EDIT" in answer:
            report = apply_reply(root, answer, dialect="editrepl")
            if report.failed:
                raise SystemExit(f"turn {turn}: the scripted edit did not apply: {report.failed}")
        history += [Message(role="user", content=user), Message(role="assistant", content=answer)]
    return tallies


def _row(name: str, values: list[float]) -> str:
    return f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    shares: dict[str, list[float]] = {}
    started = time.perf_counter()
    for run in range(args.runs):
        build_repository(WORK)
        tallies = session(WORK, seed=run, turns=args.turns)
        line = []
        for measure in ("identical", "served"):
            values = {v: getattr(tallies[v], measure) / tallies[v].total for v in VARIANTS}
            for v, value in values.items():
                shares.setdefault(f"{measure} {v}", []).append(value)
            for rule in ("threshold", "ripple"):
                base = values["none"]
                shares.setdefault(f"{measure} ratio {rule}", []).append(
                    values[rule] / base if base else float("inf")
                )
            line.append(f"{measure}: " + ", ".join(f"{v} {values[v]:.3f}" for v in VARIANTS))
        totals = ", ".join(f"{v} {tallies[v].total}" for v in VARIANTS)
        print(f"run {run}: {'; '.join(line)}; input tokens {totals}", flush=True)
    print()
    print(f"corpus: {', '.join(f'{n} {importlib.metadata.version(n)}' for n in CORPUS_PACKAGES)}")
    print(f"machine: {platform.system()} {platform.machine()}, Python {platform.python_version()}")
    print(f"{args.runs} sessions of {args.turns} turns in {time.perf_counter() - started:.0f} s")
    print()
    names = {
        "threshold": "tiers (SPEC.md's threshold rule, default)",
        "ripple": "tiers (ripple rule, opt-in)",
        "none": "no tiers",
    }
    for measure, title in (("identical", "identical prefix"), ("served", "breakpoint-served")):
        print(f"| {title}: share of input tokens, turns 2..N | median | min | max |")
        print("| --- | --- | --- | --- |")
        for v in VARIANTS:
            print(_row(names[v], shares[f"{measure} {v}"]))
        for rule in ("threshold", "ripple"):
            print(
                _row(f"ratio {names[rule]} / no tiers, per run", shares[f"{measure} ratio {rule}"])
            )
        print()
    plot_shares(
        "cache-tiers",
        f"Cache tiers, {args.turns}-turn scripted session: share of input tokens served "
        f"(median of {args.runs})",
        ["explicit breakpoints", "identical prefix"],
        {
            names[v]: [
                statistics.median(shares[f"served {v}"]),
                statistics.median(shares[f"identical {v}"]),
            ]
            for v in VARIANTS
        },
    )


if __name__ == "__main__":
    main()
