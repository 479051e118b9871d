"""Benchmarks for the foundation (issue #2): re-composing a prompt, and counting tokens.

Run: ``make bench`` or ``.venv/bin/python bench/compose_bench.py [--runs N]``.

1. Re-compose. A prompt with a ~3k-token system part, 40 tool definitions and a 200-message
   history is composed once (warming the count cache); then one history message changes and
   the prompt is composed again. The time of that re-compose is compared, in the same run,
   with tokenizing the whole prompt once with the raw encoder. Target: <= 10%.
2. Counting throughput. ``CountCache.count`` on texts it has never seen (every call a
   cache miss, so hashing is pure overhead) against the raw Rust encoder's ``count`` on the
   same texts. Target: >= 90% of the raw encoder's throughput.

The texts are this repository's own source and prompt files, so the token mix is that of
real code and prose. Every figure is the median of ``--runs`` runs, with min and max.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from agentprompt import (
    CountCache,
    HistorySlot,
    Message,
    Section,
    Stability,
    ToolDefinition,
    get_tokenizer,
)
from agentprompt.composition import assemble

ROOT = Path(__file__).resolve().parent.parent


def corpus_texts() -> list[str]:
    """The repository's own Python and Markdown files, as realistic prompt material."""
    files = sorted(ROOT.glob("src/**/*.py")) + sorted(ROOT.glob("src/**/*.md"))
    return [p.read_text(encoding="utf-8") for p in files if p.stat().st_size > 200]


def build_prompt(texts: list[str]) -> tuple[list[Section | HistorySlot], list[ToolDefinition]]:
    """A system part of about 3k tokens, 40 tools and a 200-message history."""
    tok = get_tokenizer("o200k_base")
    system_text = ""
    i = 0
    while tok.count(system_text) < 3000:
        system_text += texts[i % len(texts)] + "\n\n"
        i += 1
    tools = [
        ToolDefinition(
            name=f"tool_{n}",
            description=f"Tool number {n}: " + texts[n % len(texts)][:300],
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "A path inside the repository."},
                    "limit": {"type": "integer", "description": "The most lines to return."},
                    f"option_{n}": {"type": "boolean", "description": "A tool-specific flag."},
                },
                "required": ["path"],
            },
        )
        for n in range(40)
    ]
    history = []
    for n in range(200):
        body = texts[(n * 7) % len(texts)]
        start = (n * 131) % max(1, len(body) - 1500)
        chunk = body[start : start + 1500]  # a realistic tool-result or reply size
        history.append(Message(role="user" if n % 2 == 0 else "assistant", content=chunk))
    parts: list[Section | HistorySlot] = [
        Section(id="system", role="system", text=system_text, stability=Stability.STATIC),
        HistorySlot(messages=tuple(history)),
        Section(id="task", role="user", text="Continue.", stability=Stability.TURN),
    ]
    return parts, tools


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    """Wall-clock seconds of ``runs`` calls of ``fn``."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def summary(samples: list[float]) -> dict[str, float]:
    """Median, min and max of a list of samples."""
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def bench_recompose(texts: list[str], runs: int) -> dict[str, object]:
    """Re-composing after one history message changed, against tokenizing everything once."""
    parts, tools = build_prompt(texts)
    raw = get_tokenizer("o200k_base")._backend
    whole = [p.text for p in parts if isinstance(p, Section)]
    history = next(p for p in parts if isinstance(p, HistorySlot))
    whole += [m.text for m in history.messages]
    whole += [json.dumps(t.to_openai(), sort_keys=True) for t in tools]
    prompt_tokens = sum(raw.count(t) for t in whole)

    full = timed(lambda: [raw.count(t) for t in whole], runs)

    recompose = []
    for run in range(runs):
        counter = CountCache(get_tokenizer("o200k_base"))
        assemble(parts, counter=counter, tools=tools)  # the previous turn: cache warm
        changed = list(history.messages)
        changed[-1] = replace(changed[-1], content=changed[-1].text + f" (edit {run})")
        new_parts = [parts[0], replace(history, messages=tuple(changed)), parts[2]]
        start = time.perf_counter()
        assemble(new_parts, counter=counter, tools=tools)
        recompose.append(time.perf_counter() - start)

    ratios = [r / f for r, f in zip(recompose, full, strict=True)]
    return {
        "prompt_tokens": prompt_tokens,
        "messages": len(history.messages) + 2,
        "tools": len(tools),
        "tokenize_whole_prompt_s": summary(full),
        "recompose_one_changed_s": summary(recompose),
        "ratio": summary(ratios),
        "ratio_of_medians": statistics.median(recompose) / statistics.median(full),
        "target": "<= 0.10",
    }


def bench_throughput(texts: list[str], runs: int) -> dict[str, object]:
    """Counting never-seen texts through the cache, against the raw encoder."""
    raw = get_tokenizer("o200k_base")._backend
    copies = 10  # about 1.3 MB per run, so one run takes tens of milliseconds
    total_bytes = sum(len(t.encode()) for t in texts) * copies
    ours: list[float] = []
    theirs: list[float] = []
    for run in range(runs):
        # A fresh suffix per copy and run makes every text new to the cache: all misses.
        batch = [f"{t}\n# run {run} copy {c}\n" for c in range(copies) for t in texts]
        theirs += timed(lambda b=batch: [raw.count(t) for t in b], 1)  # type: ignore[misc]
        cache = CountCache(get_tokenizer("o200k_base"))
        ours += timed(lambda b=batch, c=cache: [c.count(t) for t in b], 1)  # type: ignore[misc]
    ratios = [t / o for o, t in zip(ours, theirs, strict=True)]
    return {
        "bytes": total_bytes,
        "texts": len(texts) * copies,
        "raw_encoder_mb_s": statistics.median(total_bytes / t / 1e6 for t in theirs),
        "count_cache_mb_s": statistics.median(total_bytes / o / 1e6 for o in ours),
        "throughput_ratio": summary(ratios),
        "target": ">= 0.90",
    }


def machine() -> str:
    """A one-line description of this machine."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {model}, "
        f"Python {platform.python_version()}"
    )


def main() -> None:
    """Run both benchmarks and print their results as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per measurement")
    args = parser.parse_args()
    texts = corpus_texts()
    get_tokenizer("o200k_base").count("warm up")
    result = {
        "machine": machine(),
        "runs": args.runs,
        "recompose": bench_recompose(texts, args.runs),
        "throughput": bench_throughput(texts, args.runs),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
