"""Summarise a JSON log of events: how many of each kind."""

import json
import sys
from collections import Counter


def count_kinds(events: list[dict[str, str]]) -> Counter[str]:
    """How many events of each kind."""
    return Counter(event["kind"] for event in events)


def main() -> int:
    """Read events from the file named on the command line and print the counts."""
    with open(sys.argv[1], encoding="utf-8") as handle:
        events = json.load(handle)
    for kind, count in sorted(count_kinds(events).items()):
        print(f"{kind}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
