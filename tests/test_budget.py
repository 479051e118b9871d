"""Fitting a composition to a token budget: priorities, fallbacks, history steps, reports."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.budget import BudgetExceeded, Cut, Layout, fit, history_cut, largest_fitting
from agentprompt.cli._output import flag_name
from agentprompt.composition import (
    KEYED_COUNT_CHARS,
    Composition,
    assemble,
    count_text,
)
from agentprompt.errors import AgentPromptError
from agentprompt.messages import Message, Role, ToolCall, ToolDefinition
from agentprompt.sections import (
    HistorySlot,
    Part,
    Section,
    SectionRole,
    Stability,
)
from agentprompt.tokens import CountCache, get_tokenizer

TOK = get_tokenizer("o200k_base")


def words(n: int) -> str:
    """A text of exactly ``n`` o200k_base tokens."""
    return " ".join(["word"] * n)


def alone(
    id: str, tokens: int, *, priority: int | None = None, fallbacks: tuple[str, ...] = ()
) -> Section:
    """A section of ``tokens`` tokens in a cache tier of its own, so it is its own message."""
    return Section(
        id=id,
        role="system",
        text=words(tokens),
        stability=Stability.STATIC,
        priority=priority,
        fallbacks=fallbacks,
        cache_tier=id,
    )


def conversation(n: int, tokens: int = 97) -> tuple[Message, ...]:
    """``n`` messages alternating user/assistant, each costing ``tokens`` + 3 framing."""
    roles: tuple[Role, Role] = ("user", "assistant")
    return tuple(Message(role=roles[i % 2], content=words(tokens)) for i in range(n))


def texts(composition: Composition) -> dict[str, str]:
    """The text each kept text section has in ``composition``."""
    return {p.id: p.text for p in composition.parts if isinstance(p, Section)}


# --- When nothing needs cutting -------------------------------------------------------------


@pytest.mark.parametrize("slack", [0, 1, 1000])
def test_a_composition_within_budget_is_returned_unchanged_with_no_cuts(slack: int) -> None:
    composition = assemble([alone("rules", 10), alone("notes", 50, priority=1)])
    assert composition.total_tokens == 10 + 50 + 2 * 3 + 3

    result = fit(composition, composition.total_tokens + slack)

    assert result.composition is composition
    assert result.cuts == ()
    assert result.budget == composition.total_tokens + slack


@pytest.mark.parametrize(("max_tokens", "reserve_output"), [(0, 0), (-5, 0), (100, 100), (50, 80)])
def test_a_budget_of_zero_or_less_is_exceeded(max_tokens: int, reserve_output: int) -> None:
    composition = assemble([alone("rules", 1)])
    with pytest.raises(BudgetExceeded) as raised:
        fit(composition, max_tokens, reserve_output=reserve_output)
    error = raised.value
    assert (error.budget, error.total, error.required) == (max_tokens - reserve_output, 7, [])
    assert error.worded(flag_name) == (
        f"the budget is {max_tokens - reserve_output} tokens (max tokens minus the reserved "
        "output), which leaves no room for the prompt's 7 tokens. Raise the budget "
        "(--max-tokens) or lower the reserved output."
    )
    assert "Raise the budget (max_tokens)" in str(error)


def test_the_reserved_output_comes_off_the_budget() -> None:
    composition = assemble(
        [alone("rules", 10), alone("a", 50, priority=2), alone("b", 50, priority=1)]
    )
    assert composition.total_tokens == 122

    result = fit(composition, 200, reserve_output=100)

    assert result.budget == 100
    assert list(texts(result.composition)) == ["rules", "a"]
    assert result.composition.total_tokens == 10 + 50 + 2 * 3 + 3


# --- Which sections are cut -----------------------------------------------------------------


def test_the_lowest_priority_section_is_dropped_first_and_reported() -> None:
    composition = assemble(
        [alone("rules", 10), alone("a", 50, priority=1), alone("b", 50, priority=2)]
    )

    result = fit(composition, 100)

    assert result.cuts == (
        Cut(
            section="a",
            action="dropped",
            tokens_before=50,
            tokens_after=0,
            detail="dropped",
            reason="22 tokens over budget (estimated); priority 1 is the lowest that can still "
            "be cut",
        ),
    )
    assert list(texts(result.composition)) == ["rules", "b"]
    assert result.composition.total_tokens == 69


def test_of_two_sections_of_one_priority_the_later_is_dropped_first() -> None:
    composition = assemble(
        [alone("rules", 10), alone("a", 50, priority=1), alone("b", 50, priority=1)]
    )

    result = fit(composition, 100)

    assert [(c.section, c.action) for c in result.cuts] == [("b", "dropped")]
    assert list(texts(result.composition)) == ["rules", "a"]


def test_sections_are_dropped_until_the_prompt_fits_and_no_further() -> None:
    composition = assemble(
        [
            alone("rules", 10),
            alone("a", 40, priority=3),
            alone("b", 40, priority=1),
            alone("c", 40, priority=2),
            alone("d", 40, priority=4),
        ]
    )
    assert composition.total_tokens == 10 + 4 * 40 + 5 * 3 + 3

    result = fit(composition, 106)

    assert [(c.section, c.action) for c in result.cuts] == [
        ("b", "dropped"),
        ("c", "dropped"),
    ]
    assert list(texts(result.composition)) == ["rules", "a", "d"]
    assert result.composition.total_tokens == 10 + 2 * 40 + 3 * 3 + 3


def test_no_section_is_dropped_that_the_budget_had_room_for() -> None:
    composition = assemble(
        [
            alone("rules", 10),
            alone("a", 40, priority=3),
            alone("b", 40, priority=1),
            alone("c", 40, priority=2),
        ]
    )
    # Dropping b and c leaves exactly 10 + 40 + 3 * 3 + 3 = 62 tokens.
    result = fit(composition, 62)

    assert list(texts(result.composition)) == ["rules", "a"]


def test_required_sections_are_never_cut() -> None:
    composition = assemble([alone("rules", 60), alone("notes", 5, priority=0), alone("task", 20)])

    result = fit(composition, 95)

    assert texts(result.composition) == {"rules": words(60), "task": words(20)}
    assert [c.section for c in result.cuts] == ["notes"]


FILE = alone("file:a.py", 80, priority=1, fallbacks=(words(20), "a.py"))


@pytest.mark.parametrize(
    ("budget", "expected_cuts", "kept"),
    [
        (60, [("fallback", 80, 20, "replaced by fallback 1 of 2")], words(20)),
        (
            35,
            [
                ("fallback", 80, 20, "replaced by fallback 1 of 2"),
                ("fallback", 20, 2, "replaced by fallback 2 of 2"),
            ],
            "a.py",
        ),
        (
            20,
            [
                ("fallback", 80, 20, "replaced by fallback 1 of 2"),
                ("fallback", 20, 2, "replaced by fallback 2 of 2"),
                ("dropped", 2, 0, "dropped"),
            ],
            None,
        ),
    ],
)
def test_a_section_steps_down_its_fallback_chain_before_it_is_dropped(
    budget: int, expected_cuts: list[tuple[str, int, int, str]], kept: str | None
) -> None:
    composition = assemble([alone("rules", 10), FILE])
    assert composition.total_tokens == 10 + 80 + 2 * 3 + 3

    result = fit(composition, budget)

    assert [(c.action, c.tokens_before, c.tokens_after, c.detail) for c in result.cuts] == (
        expected_cuts
    )
    assert {c.section for c in result.cuts} == {"file:a.py"}
    assert texts(result.composition).get("file:a.py") == kept
    assert result.composition.total_tokens <= budget


def test_a_fitted_section_keeps_its_place_role_and_stability() -> None:
    rules = Section(id="rules", role="system", text="Be brief.", stability=Stability.STATIC)
    file = Section(
        id="file:a.py",
        role="user",
        text=words(200),
        stability=Stability.SESSION,
        priority=1,
        fallbacks=("def f(): ...",),
    )
    task = Section(id="task", role="user", text="Fix f.", stability=Stability.TURN)

    result = fit(assemble([rules, file, task]), 40)

    assert result.composition.parts == (
        rules,
        Section(
            id="file:a.py",
            role="user",
            text="def f(): ...",
            stability=Stability.SESSION,
            priority=1,
        ),
        task,
    )
    assert [m.text for m in result.composition.messages] == ["Be brief.", "def f(): ...", "Fix f."]


def test_fitting_counts_the_tool_definitions_too() -> None:
    tool = ToolDefinition(name="read_file", description=words(60))
    composition = assemble([alone("rules", 10), alone("notes", 30, priority=1)], tools=[tool])
    tool_tokens = composition.tool_tokens
    assert tool_tokens > 60

    result = fit(composition, 10 + 30 + 6 + 3 + tool_tokens - 1)

    assert [c.section for c in result.cuts] == ["notes"]
    assert result.composition.tools == (tool,)
    assert result.composition.total_tokens == 10 + 3 + 3 + tool_tokens


# --- When the required sections alone are too big ---------------------------------------------


def test_required_sections_over_budget_raise_budget_exceeded_naming_them_and_their_sizes() -> None:
    composition = assemble([alone("rules", 100), alone("notes", 30, priority=1), alone("task", 20)])

    with pytest.raises(BudgetExceeded) as raised:
        fit(composition, 50)

    error = raised.value
    assert isinstance(error, AgentPromptError)
    assert error.required == [("rules", 100), ("task", 20)]
    assert (error.budget, error.total) == (50, 100 + 20 + 2 * 3 + 3)
    assert "rules (100 tokens), task (20 tokens)" in str(error)
    assert "50" in str(error)


def test_a_history_that_may_not_be_cut_counts_as_required() -> None:
    history = HistorySlot(messages=conversation(4), priority=None)
    composition = assemble([alone("rules", 10), alone("notes", 30, priority=1), history])

    with pytest.raises(BudgetExceeded) as raised:
        fit(composition, 300)

    assert raised.value.required == [("rules", 10), ("history", 400)]


# --- The history slot -------------------------------------------------------------------------


def test_the_history_loses_whole_oldest_messages_in_steps_and_starts_at_a_user_message() -> None:
    history = HistorySlot(messages=conversation(10), step=100)
    composition = assemble([alone("rules", 10), history])
    assert composition.total_tokens == 10 + 3 + 10 * 100 + 3

    # 216 tokens over: the cut is rounded up to 300 tokens (3 messages), then moved on
    # to the next user message, so 4 messages go.
    result = fit(composition, 800)

    assert result.cuts == (
        Cut(
            section="history",
            action="truncated",
            tokens_before=1000,
            tokens_after=600,
            detail="dropped the 4 oldest messages (4 in all, cut in steps of 100 tokens)",
            reason="216 tokens over budget (estimated); priority 0 is the lowest that can "
            "still be cut",
        ),
    )
    last = Message(role="assistant", content=words(97), cache_breakpoint=True)
    assert result.composition.messages[1:] == (*conversation(10)[4:-1], last)
    assert result.composition.total_tokens == 616


def test_the_history_cut_never_leaves_a_tool_result_without_its_call() -> None:
    def call(i: int) -> Message:
        tool_call = ToolCall(id=f"c{i}", name="read", arguments="{}")
        return Message(role="assistant", content=words(30), tool_calls=(tool_call,))

    def result(i: int) -> Message:
        return Message(role="tool", content=words(90), tool_call_id=f"c{i}")

    msgs = (
        Message(role="user", content=words(50)),
        call(1),
        result(1),
        call(2),
        result(2),
        call(3),
        result(3),
        Message(role="assistant", content=words(20)),
    )
    composition = assemble([HistorySlot(messages=msgs, step=80)])

    # Shedding one 80-token step takes the user message and the first call, which would
    # leave the call's result first; the cut moves on to the next call instead (no user
    # message is in reach).
    fitted = fit(composition, composition.total_tokens - 60)

    kept = fitted.composition.parts[0]
    assert isinstance(kept, HistorySlot)
    assert kept.messages == msgs[3:]
    assert kept.messages[0].role == "assistant"


def test_the_last_keep_last_messages_are_never_dropped() -> None:
    history = HistorySlot(messages=conversation(10), step=100, keep_last=3)
    composition = assemble([alone("rules", 10), history])

    result = fit(composition, 320)

    kept = result.composition.parts[1]
    assert isinstance(kept, HistorySlot)
    assert kept.messages == conversation(10)[-3:]
    assert result.composition.total_tokens == 316

    with pytest.raises(BudgetExceeded) as raised:
        fit(composition, 315)
    assert raised.value.required == [("rules", 10), ("history", 300)]


def test_the_history_is_cut_in_priority_order_with_the_sections() -> None:
    history = HistorySlot(messages=conversation(6), step=100, priority=2)
    composition = assemble(
        [alone("rules", 10), alone("low", 50, priority=1), history, alone("high", 50, priority=3)]
    )

    result = fit(composition, composition.total_tokens - 100)

    assert [(c.section, c.action) for c in result.cuts] == [
        ("low", "dropped"),
        ("history", "truncated"),
    ]
    assert "high" in texts(result.composition)


def test_history_cut_sheds_whole_messages_from_the_oldest() -> None:
    msgs = conversation(10)  # 100 tokens each, framing included
    assert history_cut(msgs, 0, keep_last=2, counter=TOK) == 0
    assert history_cut(msgs, 1, keep_last=2, counter=TOK) == 2  # 1 message, then a user one
    assert history_cut(msgs, 200, keep_last=2, counter=TOK) == 2
    assert history_cut(msgs, 201, keep_last=2, counter=TOK) == 4
    assert history_cut(msgs, 10_000, keep_last=2, counter=TOK) == 8
    assert history_cut(msgs, 10_000, keep_last=0, counter=TOK) == 10


def test_history_cut_falls_back_to_an_earlier_message_when_only_tool_results_are_in_reach() -> None:
    calls = tuple(ToolCall(id=f"c{i}", name="read") for i in range(3))
    msgs = (
        Message(role="user", content=words(10)),
        Message(role="assistant", content=None, tool_calls=calls),
        *(Message(role="tool", content=words(10), tool_call_id=f"c{i}") for i in range(3)),
        Message(role="assistant", content=words(10)),
    )
    assert history_cut(msgs, 20, keep_last=2, counter=TOK) == 1


# --- Properties -------------------------------------------------------------------------------

line = st.text(alphabet="abcdefgh xyz():=#", min_size=1, max_size=30)


@st.composite
def sections(draw: st.DrawFn, index: int) -> Section:
    """A section of whole lines with a chain of ever shorter fallbacks."""
    text = "\n".join(draw(st.lists(line, min_size=1, max_size=6)))
    candidates = draw(st.lists(st.lists(line, min_size=1, max_size=3), max_size=3))
    fallbacks: list[str] = []
    for lines in sorted(("\n".join(c) for c in candidates), key=len, reverse=True):
        if len(lines) < len(fallbacks[-1] if fallbacks else text):
            fallbacks.append(lines)
    role: SectionRole = draw(st.sampled_from(["system", "user"]))
    return Section(
        id=f"s{index}",
        role=role,
        text=text,
        stability=draw(st.sampled_from(list(Stability))),
        priority=draw(st.one_of(st.none(), st.integers(0, 3))),
        fallbacks=tuple(fallbacks),
        cache_tier=draw(st.sampled_from([None, "L0"])),
    )


@st.composite
def prompts(draw: st.DrawFn) -> list[Section]:
    """One to eight sections, ids in order."""
    return [draw(sections(i)) for i in range(draw(st.integers(1, 8)))]


@settings(max_examples=100, deadline=None)
@given(prompts(), st.integers(1, 300))
def test_fitting_keeps_every_text_whole_and_fits_whenever_the_required_sections_do(
    parts: list[Section], budget: int
) -> None:
    required_only = assemble([p for p in parts if p.priority is None])
    composition = assemble(parts)
    try:
        result = fit(composition, budget)
    except BudgetExceeded as error:
        assert required_only.total_tokens > budget
        assert [name for name, _ in error.required] == [p.id for p in parts if p.priority is None]
        return

    assert result.composition.total_tokens <= budget
    kept = {p.id: p for p in result.composition.parts if isinstance(p, Section)}
    for p in parts:
        if p.priority is None:
            assert kept[p.id] == p
        elif p.id in kept:
            assert kept[p.id].text in (p.text, *p.fallbacks)
            assert kept[p.id].role == p.role
            assert kept[p.id].stability == p.stability
    assert [p.id for p in parts if p.id in kept] == list(kept)


@settings(max_examples=100, deadline=None)
@given(prompts(), st.integers(1, 300))
def test_every_cut_is_reported_and_lower_priorities_go_first(
    parts: list[Section], budget: int
) -> None:
    try:
        result = fit(assemble(parts), budget)
    except BudgetExceeded:
        return
    kept = {p.id: p for p in result.composition.parts if isinstance(p, Section)}
    for p in parts:
        cuts = [c for c in result.cuts if c.section == p.id]
        tokens = TOK.count(p.text)
        for cut in cuts:
            assert cut.tokens_before == tokens
            assert cut.tokens_after < tokens
            tokens = cut.tokens_after
        if p.id not in kept:
            assert [c.action for c in cuts][-1:] == ["dropped"]
        else:
            assert all(c.action == "fallback" for c in cuts)
            assert tokens == TOK.count(kept[p.id].text)
            assert (kept[p.id].text == p.text) == (cuts == [])

    # Lower priorities are exhausted before a higher one is touched; within one priority,
    # sections step down breadth-first, the later section first at each step.
    counts = {p.id: sum(1 for c in result.cuts if c.section == p.id) for p in parts}
    for i, p in enumerate(parts):
        if not counts[p.id]:
            continue
        for j, other in enumerate(parts):
            if other.priority is None or other.id not in kept or other is p:
                continue
            assert p.priority is not None
            assert other.priority >= p.priority, f"{other.id} should go before {p.id}"
            if other.priority == p.priority:
                lowest = counts[p.id] if j > i else counts[p.id] - 1
                assert counts[other.id] >= lowest, f"{other.id} should step down with {p.id}"


@settings(max_examples=50, deadline=None)
@given(
    start=st.lists(st.integers(30, 100), min_size=120, max_size=120),
    turns=st.lists(st.tuples(st.integers(10, 100), st.integers(10, 100)), min_size=50, max_size=50),
    over=st.integers(0, 1500),
)
def test_the_history_cut_point_moves_rarely_and_only_forward_as_the_conversation_grows(
    start: list[int], turns: list[tuple[int, int]], over: int
) -> None:
    # A long history with more room than one step (2048 tokens), already over budget.
    roles: tuple[Role, Role] = ("user", "assistant")
    history = [Message(role=roles[i % 2], content=words(n)) for i, n in enumerate(start)]
    rules = alone("rules", 200)
    budget = 200 + 3 + sum(n + 3 for n in start) + 3 - over

    first_kept: list[int] = []
    added = 0
    previous: Composition | None = None
    for question, answer in turns:
        history += [
            Message(role="user", content=words(question)),
            Message(role="assistant", content=words(answer)),
        ]
        added += question + answer + 2 * 3
        result = fit(assemble([rules, HistorySlot(messages=tuple(history))]), budget)

        fitted = result.composition
        assert fitted.total_tokens <= budget
        kept = fitted.parts[1]
        assert isinstance(kept, HistorySlot)
        cut = len(history) - len(kept.messages)
        assert kept.messages == tuple(history[cut:])
        assert kept.messages[0].role == "user"
        if previous is not None and first_kept[-1] == cut:
            # The same cut point: the previous render is a prefix of this one.
            assert fitted.messages[: len(previous.messages) - 1] == previous.messages[:-1]
        first_kept.append(cut)
        previous = fitted

    assert first_kept[0] > 0
    assert first_kept == sorted(first_kept)
    moves = sum(1 for a, b in itertools.pairwise(first_kept) if a != b)
    assert moves <= added // 2048 + 1
    assert moves <= 6


@st.composite
def agent_conversations(draw: st.DrawFn) -> tuple[Message, ...]:
    """Turns of a user request, tool calls with their results, and an answer."""
    msgs: list[Message] = []
    for turn in range(draw(st.integers(1, 6))):
        msgs.append(Message(role="user", content=words(draw(st.integers(1, 40)))))
        for step in range(draw(st.integers(0, 3))):
            ids = [f"t{turn}s{step}c{i}" for i in range(draw(st.integers(1, 3)))]
            calls = tuple(ToolCall(id=i, name="read") for i in ids)
            msgs.append(Message(role="assistant", content=None, tool_calls=calls))
            msgs += [
                Message(role="tool", content=words(draw(st.integers(1, 60))), tool_call_id=i)
                for i in ids
            ]
        msgs.append(Message(role="assistant", content=words(draw(st.integers(1, 40)))))
    return tuple(msgs)


@settings(max_examples=100, deadline=None)
@given(agent_conversations(), st.integers(0, 800), st.integers(0, 4))
def test_history_cut_starts_at_a_user_message_in_reach_and_never_at_a_tool_result(
    msgs: tuple[Message, ...], shed: int, keep_last: int
) -> None:
    k = history_cut(msgs, shed, keep_last=keep_last, counter=TOK)

    limit = max(0, len(msgs) - keep_last)
    assert 0 <= k <= limit
    if 0 < k < len(msgs):
        assert msgs[k].role != "tool"
    # The fewest whole messages that shed enough (or all that may go).
    enough = 0
    shed_so_far = 0
    while enough < limit and shed_so_far < shed:
        shed_so_far += (
            TOK.count(msgs[enough].text)
            + 3
            + sum(TOK.count(c.name) + TOK.count(c.arguments) for c in msgs[enough].tool_calls)
        )
        enough += 1
    users = [i for i in range(enough, min(limit, len(msgs) - 1) + 1) if msgs[i].role == "user"]
    if enough > 0 and users:
        assert k == users[0]


def test_equal_priorities_step_down_together_before_any_is_dropped() -> None:
    files = [alone(f"f{i}", 1005, priority=1, fallbacks=(words(9), words(3))) for i in range(3)]
    composition = assemble([alone("rules", 10), *files])

    result = fit(composition, 1510)

    kept = texts(result.composition)
    assert kept["f0"] == words(1005)  # the earliest keeps its full text: it fits
    assert kept["f1"] == words(9) and kept["f2"] == words(9)
    assert [(c.section, c.action) for c in result.cuts] == [
        ("f2", "fallback"),
        ("f1", "fallback"),
    ]


def test_fitting_thousands_of_sections_cuts_each_in_one_pass() -> None:
    files = [
        Section(
            id=f"file{i}",
            role="user",
            text=words(50),
            priority=i,
            fallbacks=(words(5),),
        )
        for i in range(3000)
    ]
    composition = assemble(files)

    result = fit(composition, 20_000)

    assert result.composition.total_tokens <= 20_000
    # The highest-ranked files keep their full text; the lowest are dropped.
    kept = texts(result.composition)
    assert kept["file2999"] == words(50)
    assert "file0" not in kept


def test_a_large_text_is_counted_exactly_by_its_remembered_parts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = "".join(f"## part {i}\n" + words(400) + "\n" for i in range(200))
    assert len(text) >= KEYED_COUNT_CHARS
    store = tmp_path / "counts.db"
    counter = CountCache(TOK, store=store)
    assert count_text(counter, text) == TOK.count(text)
    fresh = CountCache(TOK, store=store)
    assert count_text(fresh, text) == TOK.count(text)
    assert fresh.misses == 0  # every part's count came from the store


def test_refitting_a_large_composition_recounts_only_the_parts_a_cut_changed() -> None:
    big = [
        Section(id=f"s{i}", role="user", text=f"## s{i}\n" + words(2000), priority=1)
        for i in range(40)
    ]
    counter = CountCache(TOK)
    whole = assemble(big, counter=counter)
    assert whole.total_tokens == TOK.count(whole.messages[0].text) + 6
    misses = counter.misses
    result = fit(whole, whole.total_tokens - 1000, counter=counter)
    assert result.cuts and result.composition.total_tokens <= whole.total_tokens - 1000
    assert result.composition.total_tokens == TOK.count(result.composition.messages[0].text) + 6
    # Rebuilding after the cuts tokenized no part again: each was counted once before.
    assert counter.misses - misses <= 2


def test_keyed_sections_are_counted_once_across_counters_through_the_store(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "counts.db"
    parts = [
        Section(
            id=f"s{i}",
            role="user",
            text=f"## s{i}\n" + words(300),
            priority=1,
            fallbacks=(f"## s{i}\n" + words(20),),
            count_keys=(f"full-{i}", f"short-{i}"),
        )
        for i in range(30)
    ]
    first = CountCache(TOK, store=store)
    whole = assemble(parts, counter=first)
    fitted = fit(whole, whole.total_tokens - 2000, counter=first)
    assert whole.total_tokens == TOK.count(whole.messages[0].text) + 6
    later = CountCache(TOK, store=store)
    again = assemble(parts, counter=later)
    refit = fit(again, again.total_tokens - 2000, counter=later)
    assert later.misses == 0  # every section, fallback and message came from the store
    assert refit.composition.total_tokens == fitted.composition.total_tokens
    assert refit.composition.total_tokens == TOK.count(refit.composition.messages[0].text) + 6


def test_more_count_keys_than_texts_is_refused() -> None:
    with pytest.raises(AgentPromptError, match="2 count keys for 1 texts"):
        Section(id="a", role="user", text="x", count_keys=("k1", "k2"))


# --- A layout: the prompt the parts make is not the parts in order ---------------------------


def _moved(files: list[Section]) -> Layout:
    """A layout in which a file cut to its fallback moves to a summaries section at the
    end (its heading only once there is one), and each cut file gets a note line."""
    originals = {f.id: f for f in files}

    def compose(kept: tuple[Part, ...]) -> Composition:
        there = {p.id: p for p in kept if isinstance(p, Section)}
        shown = [p for p in kept if isinstance(p, Section) and p.fallbacks]
        summaries = [p for p in kept if isinstance(p, Section) and not p.fallbacks]
        cut = [i for i in originals if i not in there or not there[i].fallbacks]
        sections = [Section(id="head", role="user", text="# Task\nDo it.\n")]
        sections += [replace_text(p, f"## {p.id}\n{p.text}\n") for p in shown]
        if summaries:
            sections.append(Section(id="summaries", role="user", text="## Summaries\n"))
            sections += [replace_text(p, f"### {p.id}\n{p.text}\n") for p in summaries]
        if cut:
            note = "## Left out\n" + "".join(f"- {i}\n" for i in cut)
            sections.append(Section(id="note", role="user", text=note))
        return assemble(sections, separator="")

    return Layout(parts=tuple(files), compose=compose)


def replace_text(part: Section, text: str) -> Section:
    """``part`` with ``text``, its fallbacks dropped (a laid-out section is not cut)."""
    return Section(id=part.id, role=part.role, text=text, priority=part.priority)


def test_a_layout_s_prompt_is_fitted_by_its_own_exact_count_in_one_fit() -> None:
    files = [
        Section(id=f"f{i}", role="user", text=words(300), priority=1, fallbacks=(words(40),))
        for i in range(6)
    ]
    layout = _moved(files)
    whole = layout.compose(layout.parts)
    budget = whole.total_tokens - 700

    result = fit(whole, budget, layout=layout)

    assert result.composition.total_tokens <= budget
    assert [c.section for c in result.cuts] == ["f5", "f4", "f3"]
    assert {c.action for c in result.cuts} == {"fallback"}
    # One cut fewer would not fit: the count that decided was the layout's own.
    fewer = layout.compose(
        (*files[:3], *[replace(f, text=words(40), fallbacks=()) for f in files[3:5]], files[5])
    )
    assert fewer.total_tokens > budget
    text = result.composition.messages[0].text
    assert text.startswith("# Task\nDo it.\n## f0\n")
    assert "## Summaries\n### f3\n" in text and text.endswith("- f3\n- f4\n- f5\n")


def test_a_layout_that_cannot_fit_raises_budget_exceeded() -> None:
    files = [
        Section(id=f"f{i}", role="user", text=words(300), priority=1, fallbacks=(words(40),))
        for i in range(2)
    ]
    layout = _moved(files)
    with pytest.raises(BudgetExceeded):
        fit(layout.compose(layout.parts), 10, layout=layout)


def test_sections_joined_with_no_separator_are_the_texts_end_to_end_each_keyed_alone() -> None:
    counter = CountCache(TOK)
    parts = [
        Section(id="a", role="user", text="## a\nalpha\n", count_keys=("key-a",)),
        Section(id="b", role="user", text="## b\nbeta\n", count_keys=("key-b",)),
    ]
    composition = assemble(parts, counter=counter, separator="")

    assert composition.messages[0].text == "## a\nalpha\n## b\nbeta\n"
    assert composition.separator == ""
    assert composition.message_tokens[0] == TOK.count("## a\nalpha\n## b\nbeta\n")
    # Each text's count is remembered under its own key, not a joined one.
    assert counter.remembered_each_keyed(["key-a", "key-b"]) == {
        "key-a": TOK.count("## a\nalpha\n"),
        "key-b": TOK.count("## b\nbeta\n"),
    }


# --- The largest prefix that fits ------------------------------------------------------------


@given(st.lists(st.integers(1, 50), max_size=40), st.integers(0, 600))
def test_largest_fitting_is_the_longest_prefix_within_the_budget(
    sizes: list[int], budget: int
) -> None:
    asked: list[int] = []

    def measure(n: int) -> tuple[int, str]:
        asked.append(n)
        return sum(sizes[:n]), f"prefix {n}"

    n, made = largest_fitting(measure, len(sizes), budget)

    expected = max(k for k in range(len(sizes) + 1) if sum(sizes[:k]) <= budget)
    assert n == expected
    assert made == (f"prefix {n}" if n else None)
    assert 0 not in asked and len(asked) <= max(1, len(sizes)).bit_length()
