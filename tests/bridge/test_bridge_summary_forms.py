"""The forms a budgeted prompt shows a file's summary in: detailed for the best files,
brief for the next, names only for the rest; each led by what the task touches."""

from __future__ import annotations

from agentprompt.bridge._ranked import SUMMARY_LINES, led_summary, names_only
from agentprompt.repo.rank import RankReason, RelevantSymbol

OPEN_STORE = (
    'function open_store(path: str, *, mode: str = "r", cache: bool = True, '
    "timeout: float = 3.0, retries: int = 5) -> Store  [42-60]"
)
SUMMARY = f"""imports: os, sys
class Store(Base)  [1-40]
  method fetch(self, key: str) -> bytes  [3-10]
  method put(self, key: str, value: bytes) -> None  [12-20]
  property size  [22-22]
{OPEN_STORE}
variable DEFAULT  [62-62]"""


def _relevant(name: str, start: int, end: int) -> RelevantSymbol:
    reason = RankReason(signal="name", detail=name, weight=1.0)
    return RelevantSymbol(
        path="store.py",
        name=name,
        kind="method",
        start=start,
        end=end,
        score=1.0,
        reasons=(reason,),
    )


def test_a_detailed_summary_is_led_by_the_definitions_the_task_touches() -> None:
    text = led_summary(SUMMARY, [_relevant("Store.put", 12, 20)])
    assert text.split("\n")[0] == "relevant: Store.put [12-20]"
    assert text.split("\n", 1)[1] == SUMMARY


def test_a_brief_summary_keeps_top_level_lines_and_names_the_members() -> None:
    text = led_summary(SUMMARY, [], detailed=False)
    assert "imports:" not in text
    assert "class Store(Base)  [1-40]\n  + fetch, put, size\n" in text
    assert "function open_store(…) -> Store  [42-60]" in text


def test_a_long_detailed_summary_keeps_the_relevant_members_whole() -> None:
    members = "".join(f"  method m{k}(self)  [{k}-{k}]\n" for k in range(SUMMARY_LINES + 5))
    long = "class Big  [1-900]\n" + members + "  method wanted(self, x)  [800-810]"
    text = led_summary(long, [_relevant("Big.wanted", 800, 810)])
    assert "  method wanted(self, x)  [800-810]" in text
    assert "  + m0, m1," in text and "method m3(self)" not in text


def test_names_only_is_one_line_per_definition() -> None:
    text = names_only(SUMMARY, [_relevant("Store.fetch", 3, 10)])
    assert text == (
        "relevant: Store.fetch [3-10]\nclass Store: fetch, put, size\nfunction open_store\n"
        "variable DEFAULT"
    )
