"""The adversarial probe's shapes at full counts (the test suite runs them small:
``tests/stress``): concurrent applies on one session, kill -9 during a 300-file apply then
recover, a full disk at each write, the planted secrets, the workflow path spellings.

Usage: ``python bench/stress_bench.py [--applies 200] [--parallel 16] [--kills 100]
[--files 300] [--only SHAPE...]``. Prints one line per shape; exits 1 if any shape found a
bad outcome (a lost update, a mixed tree, a secret in a prompt, a leaked path).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[1] / "tests" / "stress" / "harness.py"


def _harness():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("stress_harness", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["stress_harness"] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--applies", type=int, default=200)
    parser.add_argument("--parallel", type=int, default=16)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument(
        "--only", nargs="*", default=None, help="concurrent kill enospc secrets spellings"
    )
    args = parser.parse_args()
    h = _harness()
    shapes = {
        "concurrent": lambda: h.concurrent_applies(args.applies, args.parallel),
        "kill": lambda: h.kill_during_apply(args.kills, files=args.files),
        "enospc": lambda: h.enospc_at_each_write(files=8),
        "secrets": h.planted_secrets,
        "spellings": h.workflow_spellings,
    }
    bad = 0
    for name, run in shapes.items():
        if args.only and name not in args.only:
            continue
        clock = time.monotonic()
        outcome = run()
        print(f"{outcome.line()} [{time.monotonic() - clock:.1f} s]", flush=True)
        for example in outcome.examples:
            print(f"  {example}")
        for error in outcome.errors[:5]:
            print(f"  (not exit 0) {error}")
        bad += outcome.bad
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
