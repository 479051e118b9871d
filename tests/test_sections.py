"""Sections, profiles and composition: how the layers of a prompt become messages."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.composition import (
    assemble,
    compose,
)
from agentprompt.errors import UsageError
from agentprompt.messages import ImagePart, Message, TextPart, ToolCall, ToolDefinition
from agentprompt.sections import (
    Built,
    HistorySlot,
    Part,
    Profile,
    Section,
    SectionRole,
    SectionSpec,
    Stability,
)
from agentprompt.tokens import get_tokenizer

TOK = get_tokenizer("o200k_base")

STATIC = Stability.STATIC
SESSION = Stability.SESSION
TURN = Stability.TURN
EPHEMERAL = Stability.EPHEMERAL


def section(
    id: str,
    text: str | None = None,
    *,
    role: SectionRole = "system",
    stability: Stability = SESSION,
    cache_tier: str | None = None,
    priority: int | None = None,
) -> Section:
    """A section whose text defaults to a sentence naming it."""
    return Section(
        id=id,
        role=role,
        text=text if text is not None else f"The {id} section says something.",
        stability=stability,
        cache_tier=cache_tier,
        priority=priority,
    )


def _says(text: str) -> Callable[[None], str]:
    """A builder that ignores its context and returns ``text``."""
    return lambda _: text


def contents(parts: Sequence[Part]) -> list[tuple[str, str]]:
    """The (role, text) of each message ``parts`` assemble into."""
    return [(m.role, m.text) for m in assemble(parts).messages]


# --- Stability ---------------------------------------------------------------------------


def test_stability_classes_order_from_most_to_least_stable() -> None:
    assert sorted([EPHEMERAL, TURN, STATIC, SESSION]) == [STATIC, SESSION, TURN, EPHEMERAL]


def test_static_and_session_share_a_band_while_turn_and_ephemeral_each_have_their_own() -> None:
    assert STATIC.band == SESSION.band
    assert len({SESSION.band, TURN.band, EPHEMERAL.band}) == 3


@pytest.mark.parametrize("name", ["static", "SESSION", "Turn", "ephemeral"])
def test_stability_parses_its_name_in_any_case(name: str) -> None:
    assert Stability.parse(name) is Stability[name.upper()]


def test_an_unknown_stability_name_is_a_usage_error_listing_the_valid_ones() -> None:
    with pytest.raises(UsageError, match="static, session, turn or ephemeral"):
        Stability.parse("forever")


# --- Section -----------------------------------------------------------------------------


def test_a_section_defaults_to_required_session_text_without_tier_or_fallbacks() -> None:
    s = Section(id="rules", role="system", text="Be brief.")
    assert (s.stability, s.priority, s.cache_tier, s.fallbacks) == (SESSION, None, None, ())


def test_a_fallback_chain_that_shrinks_at_every_step_is_accepted() -> None:
    s = Section(
        id="file:a.py",
        role="user",
        text="def f(x):\n    return x + 1\n",
        priority=1,
        fallbacks=("def f(x): ...", "a.py"),
    )
    assert s.fallbacks == ("def f(x): ...", "a.py")


@pytest.mark.parametrize(
    "fallbacks",
    [
        ("the same size",),  # 13 characters, like the text
        ("longer than the text",),
        ("shorter", "but this is longer"),
        ("short", "same!"),
    ],
)
def test_a_fallback_that_is_not_smaller_than_the_step_before_is_invalid(
    fallbacks: tuple[str, ...],
) -> None:
    with pytest.raises(UsageError, match="must be smaller"):
        Section(id="s", role="system", text="the same text", fallbacks=fallbacks)


def test_an_invalid_section_is_a_usage_error_naming_the_section() -> None:
    with pytest.raises(UsageError, match=r"'file:big\.py'"):
        Section(id="file:big.py", role="user", text="abc", fallbacks=("abcd",))


# --- Profile -----------------------------------------------------------------------------


def test_a_profile_with_two_specs_of_one_id_is_invalid() -> None:
    with pytest.raises(UsageError, match="'rules'"):
        Profile(
            name="p",
            specs=(
                SectionSpec[None](id="rules", build=lambda _: "a"),
                SectionSpec[None](id="rules", build=lambda _: "b"),
            ),
        )


def test_builders_yielding_two_sections_of_one_id_are_invalid() -> None:
    profile = Profile(
        name="p",
        specs=(
            SectionSpec[None](id="a", build=lambda _: section("same")),
            SectionSpec[None](id="b", build=lambda _: section("same")),
        ),
    )
    with pytest.raises(UsageError, match="same"):
        compose(profile, None)


def test_the_builder_gets_the_context_value() -> None:
    profile = Profile(
        name="p", specs=(SectionSpec[str](id="task", role="user", build=lambda c: f"Do {c}."),)
    )
    assert compose(profile, "the dishes").messages[0].text == "Do the dishes."


def test_text_from_a_builder_takes_the_specs_id_role_stability_priority_and_tier() -> None:
    spec = SectionSpec[None](
        id="usage",
        build=lambda _: "12% of context used",
        role="user",
        stability=TURN,
        priority=5,
        cache_tier="L2",
    )
    [part] = Profile(name="p", specs=(spec,)).build(None)
    assert part == Section(
        id="usage",
        role="user",
        text="12% of context used",
        stability=TURN,
        priority=5,
        cache_tier="L2",
    )


def test_a_section_from_a_builder_is_used_as_it_is() -> None:
    built = Section(
        id="file:a.py", role="user", text="full", priority=3, fallbacks=("a",), stability=STATIC
    )
    profile = Profile(name="p", specs=(SectionSpec[None](id="files", build=lambda _: built),))
    assert profile.build(None) == [built]


def test_a_history_slot_from_a_builder_is_used_as_it_is() -> None:
    slot = HistorySlot(messages=(Message(role="user", content="hi"),), step=100, keep_last=1)
    profile = Profile(name="p", specs=(SectionSpec[None](id="history", build=lambda _: slot),))
    assert profile.build(None) == [slot]


def test_messages_from_a_builder_become_a_history_slot_named_after_the_spec() -> None:
    msgs = [Message(role="user", content="hi"), Message(role="assistant", content="hello")]
    spec = SectionSpec[None](id="conversation", build=lambda _: msgs, priority=0)
    [part] = Profile(name="p", specs=(spec,)).build(None)
    assert part == HistorySlot(id="conversation", messages=tuple(msgs), priority=0)


@pytest.mark.parametrize("nothing", [None, "", (), []])
def test_a_builder_returning_nothing_contributes_no_section(nothing: Built) -> None:
    profile = Profile(
        name="p",
        specs=(
            SectionSpec[None](id="empty", build=lambda _: nothing),
            SectionSpec[None](id="rules", build=lambda _: "Be brief."),
        ),
    )
    composition = compose(profile, None)
    assert [s.id for s in composition.sections] == ["rules"]
    assert [m.text for m in composition.messages] == ["Be brief."]


def test_a_spec_whose_condition_is_false_is_not_built() -> None:
    built: list[str] = []

    def build(context: bool) -> str:
        built.append("called")
        return "Work without asking."

    profile = Profile(
        name="p", specs=(SectionSpec[bool](id="once", build=build, condition=lambda once: once),)
    )
    assert compose(profile, False).messages == ()
    assert built == []
    assert [m.text for m in compose(profile, True).messages] == ["Work without asking."]


def test_sections_appear_in_the_order_of_the_profiles_specs() -> None:
    profile = Profile(
        name="p",
        specs=tuple(
            SectionSpec[None](id=name, build=_says(f"<{name}>"), role="user")
            for name in ["c", "a", "b"]
        ),
    )
    composition = compose(profile, None)
    assert [s.id for s in composition.sections] == ["c", "a", "b"]
    assert composition.messages[0].text == "<c>\n\n<a>\n\n<b>"


# --- Merging adjacent sections -------------------------------------------------------------


def test_adjacent_sections_of_one_role_and_band_share_a_message_joined_by_a_blank_line() -> None:
    parts = [section("a", "Alpha."), section("b", "Beta.")]
    assert contents(parts) == [("system", "Alpha.\n\nBeta.")]


def test_static_and_session_sections_share_a_message() -> None:
    parts = [section("a", "Alpha.", stability=STATIC), section("b", "Beta.", stability=SESSION)]
    assert contents(parts) == [("system", "Alpha.\n\nBeta.")]


@pytest.mark.parametrize("stable", [STATIC, SESSION])
@pytest.mark.parametrize("volatile", [TURN, EPHEMERAL])
def test_turn_and_ephemeral_sections_never_merge_into_a_static_or_session_message(
    stable: Stability, volatile: Stability
) -> None:
    parts = [
        section("a", "Alpha.", role="user", stability=stable),
        section("b", "Beta.", role="user", stability=volatile),
        section("c", "Gamma.", role="user", stability=stable),
    ]
    assert contents(parts) == [("user", "Alpha."), ("user", "Beta."), ("user", "Gamma.")]


def test_adjacent_turn_sections_share_a_message() -> None:
    parts = [
        section("task", "Fix it.", role="user", stability=TURN),
        section("usage", "10% used.", role="user", stability=TURN),
    ]
    assert contents(parts) == [("user", "Fix it.\n\n10% used.")]


def test_sections_of_different_roles_never_merge() -> None:
    parts = [section("a", "Alpha.", role="system"), section("b", "Beta.", role="user")]
    assert contents(parts) == [("system", "Alpha."), ("user", "Beta.")]


@pytest.mark.parametrize(("first", "second"), [("L0", "L1"), (None, "L1"), ("L0", None)])
def test_sections_of_different_cache_tiers_never_merge(
    first: str | None, second: str | None
) -> None:
    parts = [
        section("a", "Alpha.", stability=STATIC, cache_tier=first),
        section("b", "Beta.", stability=STATIC, cache_tier=second),
    ]
    assert contents(parts) == [("system", "Alpha."), ("system", "Beta.")]


def test_sections_of_one_cache_tier_merge() -> None:
    parts = [
        section("a", "Alpha.", stability=STATIC, cache_tier="L0"),
        section("b", "Beta.", stability=SESSION, cache_tier="L0"),
    ]
    assert contents(parts) == [("system", "Alpha.\n\nBeta.")]


def test_sections_on_either_side_of_the_history_do_not_merge_with_it_or_each_other() -> None:
    history = HistorySlot(messages=(Message(role="user", content="earlier"),))
    parts: list[Part] = [
        section("before", "Before.", role="user"),
        history,
        section("after", "After.", role="user"),
    ]
    assert contents(parts) == [("user", "Before."), ("user", "earlier"), ("user", "After.")]


def test_history_messages_are_sent_as_they_are() -> None:
    call = ToolCall(id="c1", name="read", arguments='{"path": "a.py"}')
    msgs = (
        Message(role="user", content="read a.py"),
        Message(role="assistant", content=None, tool_calls=(call,)),
        Message(role="tool", content="print(1)", tool_call_id="c1", is_error=False),
    )
    composition = assemble([HistorySlot(messages=msgs)])
    assert composition.messages[:2] == msgs[:2]
    assert composition.messages[2] == Message(
        role="tool", content="print(1)", tool_call_id="c1", cache_breakpoint=True
    )


# --- Where each section landed --------------------------------------------------------------


def test_each_section_reports_the_first_and_last_message_it_landed_in() -> None:
    history = HistorySlot(
        messages=(Message(role="user", content="q"), Message(role="assistant", content="a"))
    )
    composition = assemble(
        [
            section("identity", stability=STATIC),
            section("env"),
            history,
            section("task", role="user", stability=TURN),
            section("reminder", role="user", stability=EPHEMERAL),
        ]
    )
    placed = {s.id: (s.first_message, s.last_message) for s in composition.sections}
    assert placed == {
        "identity": (0, 0),
        "env": (0, 0),
        "history": (1, 2),
        "task": (3, 3),
        "reminder": (4, 4),
    }


def test_placed_sections_carry_kind_role_stability_priority_and_tier() -> None:
    composition = assemble(
        [
            section("rules", stability=STATIC, cache_tier="L0"),
            section("task", role="user", stability=TURN, priority=4),
            HistorySlot(id="chat", messages=(Message(role="user", content="hi"),), priority=1),
        ]
    )
    rules, task, chat = composition.sections
    assert (rules.kind, rules.role, rules.stability, rules.priority, rules.cache_tier) == (
        "text",
        "system",
        STATIC,
        None,
        "L0",
    )
    assert (task.kind, task.role, task.stability, task.priority) == ("text", "user", TURN, 4)
    assert (chat.kind, chat.role, chat.stability, chat.priority) == (
        "history",
        "history",
        SESSION,
        1,
    )


def test_a_section_is_found_by_its_id() -> None:
    composition = assemble([section("a"), section("b", role="user")])
    assert composition.section("b").first_message == 1
    with pytest.raises(KeyError):
        composition.section("missing")


def test_the_composition_keeps_the_parts_it_was_assembled_from() -> None:
    parts = (section("a"), HistorySlot(messages=(Message(role="user", content="hi"),)))
    assert assemble(parts).parts == parts


# --- Token counts ---------------------------------------------------------------------------


def test_a_sections_tokens_are_the_exact_count_of_its_own_text() -> None:
    texts = {"a": "You are a careful engineer.", "b": "Café, naïve, 日本語のテキスト。\n  indented"}
    composition = assemble([section("a", texts["a"]), section("b", texts["b"])])
    for placed in composition.sections:
        assert placed.tokens == TOK.count(texts[placed.id])


def test_message_tokens_are_the_exact_counts_of_each_messages_content() -> None:
    composition = assemble(
        [section("a", "Alpha rules."), section("b", "Beta rules."), section("c", role="user")]
    )
    assert composition.message_tokens == tuple(TOK.count(m.text) for m in composition.messages)
    assert composition.message_tokens[0] == TOK.count("Alpha rules.\n\nBeta rules.")


def test_total_tokens_are_content_plus_three_per_message_plus_three_for_the_reply() -> None:
    composition = assemble(
        [
            section("rules", "Be brief and exact."),
            HistorySlot(
                messages=(
                    Message(role="user", content="What is 2+2?"),
                    Message(role="assistant", content="4"),
                )
            ),
            section("task", "And 3+3?", role="user", stability=TURN),
        ]
    )
    content = sum(TOK.count(m.text) for m in composition.messages)
    assert len(composition.messages) == 4
    assert composition.total_tokens == content + 3 * 4 + 3
    assert composition.tool_tokens == 0


def test_tool_definitions_add_the_tokens_of_their_json_form() -> None:
    tool = ToolDefinition(
        name="read_file",
        description="Read a file of the repository.",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
    )
    parts = [section("rules", "Be brief.")]
    without = assemble(parts)
    with_tool = assemble(parts, tools=[tool])
    expected = TOK.count(json.dumps(tool.to_openai(), ensure_ascii=False, sort_keys=True))
    assert with_tool.tool_tokens == expected
    assert with_tool.total_tokens == without.total_tokens + expected
    assert with_tool.tools == (tool,)


def test_history_tokens_are_its_messages_content_plus_three_per_message() -> None:
    msgs = (
        Message(role="user", content="Rename foo to bar."),
        Message(role="assistant", content="Done: foo is now bar everywhere."),
    )
    composition = assemble([HistorySlot(messages=msgs)])
    assert composition.section("history").tokens == sum(TOK.count(m.text) + 3 for m in msgs)


def test_tool_calls_in_history_count_their_name_and_arguments() -> None:
    call = ToolCall(id="c1", name="read_file", arguments='{"path": "src/app.py"}')
    msg = Message(role="assistant", content=None, tool_calls=(call,))
    composition = assemble([HistorySlot(messages=(msg,))])
    expected = TOK.count("read_file") + TOK.count('{"path": "src/app.py"}')
    assert composition.message_tokens == (expected,)
    assert composition.total_tokens == expected + 3 + 3


def test_counts_use_the_given_tokenizer_and_name_it() -> None:
    cl100k = get_tokenizer("cl100k_base")
    text = "Ünïcödé text counts differently per encoding: 日本語"
    composition = assemble([section("a", text)], counter=cl100k)
    assert composition.tokenizer == "cl100k_base"
    assert composition.exact is True
    assert composition.section("a").tokens == cl100k.count(text)
    assert assemble([section("a", text)]).tokenizer == "o200k_base"


def test_compose_counts_like_assemble_of_the_built_sections() -> None:
    profile = Profile(
        name="p",
        specs=(
            SectionSpec[str](id="identity", build=lambda _: "You are helpful.", stability=STATIC),
            SectionSpec[str](id="task", build=lambda c: c, role="user", stability=TURN),
        ),
    )
    composed = compose(profile, "Fix the bug.")
    assert composed == assemble(profile.build("Fix the bug."))
    assert composed.total_tokens == (
        TOK.count("You are helpful.") + TOK.count("Fix the bug.") + 3 * 2 + 3
    )


# --- Cache breakpoints ----------------------------------------------------------------------


def test_a_breakpoint_ends_the_run_of_stable_messages_before_per_turn_text() -> None:
    composition = assemble(
        [
            section("rules", stability=STATIC),
            section("env", role="user", stability=SESSION),
            section("task", role="user", stability=TURN),
        ]
    )
    assert [m.role for m in composition.messages] == ["system", "user", "user"]
    assert composition.breakpoints == (1,)


def test_runs_of_turn_or_ephemeral_text_get_no_breakpoint() -> None:
    composition = assemble(
        [
            section("task", role="user", stability=TURN),
            section("reminder", role="user", stability=EPHEMERAL),
        ]
    )
    assert len(composition.messages) == 2
    assert composition.breakpoints == ()


def test_a_breakpoint_ends_the_history() -> None:
    history = HistorySlot(
        messages=(
            Message(role="user", content="q1"),
            Message(role="assistant", content="a1"),
            Message(role="user", content="q2"),
            Message(role="assistant", content="a2"),
        )
    )
    composition = assemble(
        [section("rules"), history, section("task", role="user", stability=TURN)]
    )
    assert composition.breakpoints == (0, 4)


def test_a_breakpoint_ends_each_cache_tier() -> None:
    composition = assemble(
        [
            section("identity", stability=STATIC, cache_tier="L0"),
            section("tools", stability=STATIC, cache_tier="L0", role="user"),
            section("project", stability=SESSION, cache_tier="L1"),
        ]
    )
    assert len(composition.messages) == 3
    assert composition.breakpoints == (1, 2)


def test_no_more_than_four_breakpoints_are_placed_and_the_last_four_are_kept() -> None:
    parts = [section(f"tier{i}", stability=STATIC, cache_tier=f"L{i}") for i in range(6)]
    composition = assemble(parts)
    assert len(composition.messages) == 6
    assert composition.breakpoints == (2, 3, 4, 5)


def test_breakpoints_list_the_messages_marked_with_cache_breakpoint() -> None:
    composition = assemble(
        [
            section("rules", stability=STATIC, cache_tier="L0"),
            section("env", cache_tier="L1"),
            section("task", role="user", stability=TURN),
        ]
    )
    assert [m.cache_breakpoint for m in composition.messages] == [True, True, False]
    assert composition.breakpoints == (0, 1)


def test_a_breakpoint_left_on_an_earlier_history_message_is_cleared() -> None:
    history = HistorySlot(
        messages=(
            Message(role="user", content="q1", cache_breakpoint=True),
            Message(role="assistant", content="a1"),
        )
    )
    composition = assemble([history])
    assert [m.cache_breakpoint for m in composition.messages] == [False, True]


def test_an_empty_composition_has_no_messages_and_only_the_reply_priming() -> None:
    composition = assemble([])
    assert (composition.messages, composition.breakpoints, composition.total_tokens) == (
        (),
        (),
        3,
    )


# --- Properties -----------------------------------------------------------------------------

texts = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=40)
sections_strategy = st.lists(
    st.tuples(
        st.sampled_from(["system", "user", "assistant"]),
        st.sampled_from(list(Stability)),
        st.sampled_from([None, "L0", "L1"]),
        texts,
    ),
    max_size=10,
)


def _parts(spec: list[tuple[SectionRole, Stability, str | None, str]]) -> list[Section]:
    return [
        Section(id=f"s{i}", role=role, stability=stability, cache_tier=tier, text=text)
        for i, (role, stability, tier, text) in enumerate(spec)
    ]


@settings(max_examples=100, deadline=None)
@given(sections_strategy)
def test_every_message_is_its_sections_texts_joined_by_blank_lines_in_order(
    spec: list[tuple[SectionRole, Stability, str | None, str]],
) -> None:
    parts = _parts(spec)
    composition = assemble(parts)
    for i, message in enumerate(composition.messages):
        inside = [
            p for p, s in zip(parts, composition.sections, strict=True) if s.first_message == i
        ]
        assert inside, "every message holds at least one section"
        assert message.text == "\n\n".join(p.text for p in inside)
        assert len({p.role for p in inside}) == 1
        assert len({p.cache_tier for p in inside}) == 1
        assert len({p.stability.band for p in inside}) == 1
    placed = [(s.first_message, s.last_message) for s in composition.sections]
    assert all(first == last for first, last in placed)
    assert [first for first, _ in placed] == sorted(first for first, _ in placed)


@settings(max_examples=100, deadline=None)
@given(sections_strategy)
def test_counts_are_exact_and_the_last_four_stable_run_ends_are_breakpoints(
    spec: list[tuple[SectionRole, Stability, str | None, str]],
) -> None:
    parts = _parts(spec)
    composition = assemble(parts)
    assert [s.tokens for s in composition.sections] == [TOK.count(p.text) for p in parts]
    n = len(composition.messages)
    assert composition.total_tokens == sum(TOK.count(m.text) for m in composition.messages) + (
        3 * n + 3
    )
    keys = []
    inner = []
    for i in range(n):
        inside = [
            p for p, s in zip(parts, composition.sections, strict=True) if s.first_message == i
        ]
        keys.append((inside[0].stability.band, inside[0].cache_tier))
        stabilities = [p.stability for p in inside]
        inner.append(stabilities[0] is Stability.STATIC and Stability.SESSION in stabilities)
    marks = []  # (message, inside it) in request order
    for i in range(n):
        if inner[i]:
            marks.append((i, True))
        if (i + 1 == n or keys[i + 1] != keys[i]) and keys[i][0] == SESSION.band:
            marks.append((i, False))
    kept = marks[-4:]
    assert composition.breakpoints == tuple(sorted({i for i, _ in kept}))
    for i, message in enumerate(composition.messages):
        assert message.cache_breakpoint == ((i, False) in kept)
        assert bool(message.inner_breakpoints) == ((i, True) in kept)


def test_a_history_slot_needs_a_positive_step_and_a_non_negative_keep_last() -> None:
    with pytest.raises(UsageError, match="step must be at least 1"):
        HistorySlot(step=0)
    with pytest.raises(UsageError, match="keep_last cannot be negative"):
        HistorySlot(keep_last=-1)


def test_a_static_head_gets_its_own_marker_inside_a_merged_message() -> None:
    composition = assemble(
        [
            Section(id="rules", role="system", text="rules", stability=Stability.STATIC),
            Section(id="facts", role="system", text="facts", stability=Stability.SESSION),
            Section(id="task", role="user", text="task", stability=Stability.TURN),
        ]
    )
    system = composition.messages[0]
    assert system.text == "rules\n\nfacts"
    assert system.inner_breakpoints == (len("rules\n\n"),)
    assert system.cache_breakpoint
    assert composition.breakpoints == (0,)


def test_a_breakpoint_never_lands_on_an_empty_history_message() -> None:
    history = HistorySlot(
        messages=(
            Message(role="user", content="hi"),
            Message(role="assistant", content=None),
        )
    )
    composition = assemble(
        [history, Section(id="t", role="user", text="next", stability=Stability.TURN)]
    )
    assert composition.breakpoints == (0,)


def test_images_make_the_count_an_estimate_and_names_are_counted() -> None:
    image = Message(role="user", content=(TextPart(text="see"), ImagePart(url="https://x/a.png")))
    assert assemble([HistorySlot(messages=(image,))]).exact is False
    named = Message(role="user", content="hello", name="alice")
    plain = Message(role="user", content="hello")
    with_name = assemble([HistorySlot(messages=(named,))]).total_tokens
    without = assemble([HistorySlot(messages=(plain,))]).total_tokens
    assert with_name == without + TOK.count("alice") + 1
