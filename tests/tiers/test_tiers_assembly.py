"""Assembly order and cache-breakpoint placement (seed 004's message structure)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentprompt.messages import Message
from agentprompt.tiers import (
    ItemState,
    TierContext,
    TrackedItem,
    TrackerState,
    assemble_tiers,
    content_hash,
    get_context_breakdown,
    tier_parts,
)
from agentprompt.tiers._items import file_item, history_items
from agentprompt.tokens import shared_counter
from agentprompt.wire import to_anthropic, to_text

COUNTER = shared_counter()


def symbols(path: str, body: str) -> TrackedItem:
    return TrackedItem(key=f"symbols:{path}", kind="symbols", text=body, tokens=COUNTER.count(body))


def placed(items: list[TrackedItem], tiers: dict[str, str]) -> TrackerState:
    n = {"L0": 12, "L1": 9, "L2": 6, "L3": 3, "active": 0}
    return TrackerState(
        items=tuple(
            ItemState(
                key=i.key,
                kind=i.kind,
                hash=content_hash(i.text),
                n=n[tiers[i.key]],
                tier=tiers[i.key],  # type: ignore[arg-type]
                tokens=i.tokens,
            )
            for i in items
        ),
        requests=5,
    )


def full_context() -> tuple[TierContext, TrackerState]:
    history = history_items(
        [
            Message(role="user", content="Add logging."),
            Message(role="assistant", content="Done."),
            Message(role="user", content="Now tests."),
            Message(role="assistant", content="Which file?"),
        ],
        COUNTER,
    )
    items = [
        symbols("src/a.py", "src/a.py:\n f main:1\n"),
        symbols("src/b.py", "src/b.py:\n c B:1\n"),
        symbols("src/c.py", "src/c.py:\n v X:1\n"),
        file_item("src/d.py", "D = 1\n", COUNTER),
        file_item("src/e.py", "E = 2\n", COUNTER),
        *history,
    ]
    tiers = {
        "symbols:src/a.py": "L0",
        "symbols:src/b.py": "L1",
        "symbols:src/c.py": "active",
        "file:src/d.py": "L2",
        "file:src/e.py": "L3",
        "history:0": "L0",
        "history:1": "L0",
        "history:2": "L3",
        "history:3": "L3",
    }
    context = TierContext(
        system="SYSTEM PROMPT", legend="# f=function c=class\n", items=tuple(items), user="Go."
    )
    return context, placed(items, tiers)


def test_assembled_messages_match_the_snapshot(snapshot: Callable[[str, str], None]) -> None:
    context, state = full_context()
    prompt = assemble_tiers(context, state)
    marks = [i for i, m in enumerate(prompt.messages) if m.cache_breakpoint]
    snapshot(
        "tiers/assembled.txt",
        f"{to_text(prompt.messages)}\n\ncache breakpoints after messages {marks}\n",
    )


def test_messages_zero_is_the_l0_system_block_in_fixed_order() -> None:
    context, state = full_context()
    first = assemble_tiers(context, state).messages[0]
    assert first.role == "system"
    text = first.text
    order = [text.index(s) for s in ("SYSTEM PROMPT", "# Repository Structure", "# f=function")]
    assert order == sorted(order)
    assert text.index("# f=function") < text.index("src/a.py:\n f main:1")
    assert "src/b.py" not in text


def test_l0_history_is_written_into_the_system_block_after_the_l0_files() -> None:
    """Seed 004's L0 block content ends with "L0 history messages" and the whole block is
    messages[0] (SPEC.md: "L0 is messages[0] (role system)"), so L0 turns are text in it,
    each headed by its speaker, and the L0 breakpoint ends messages[0]."""
    context, state = full_context()
    messages = assemble_tiers(context, state).messages
    first = messages[0]
    assert first.role == "system" and first.cache_breakpoint
    text = first.text
    assert text.index("src/a.py:\n f main:1") < text.index("# Conversation so far")
    assert text.endswith("### User\n\nAdd logging.\n\n### Assistant\n\nDone.")
    assert all("Add logging." not in m.text for m in messages[1:])
    assert (messages[1].role, messages[1].text.splitlines()[0]) == (
        "user",
        "# Repository Structure (continued)",
    )


def test_l0_files_come_before_l0_history_in_the_system_block() -> None:
    history = history_items([Message(role="user", content="Hello.")], COUNTER)
    items = [file_item("src/d.py", "D = 1\n", COUNTER), *history]
    context = TierContext(system="S", items=tuple(items))
    first = assemble_tiers(context, placed(items, {"file:src/d.py": "L0", "history:0": "L0"}))
    text = first.messages[0].text
    assert text.index("D = 1") < text.index("# Conversation so far") < text.index("Hello.")
    assert len(first.messages) == 1


def test_each_cached_tier_ends_in_one_breakpoint_and_active_has_none() -> None:
    context, state = full_context()
    prompt = assemble_tiers(context, state)
    messages = prompt.messages
    marked = [i for i, m in enumerate(messages) if m.cache_breakpoint]
    assert len(marked) == 4
    roles = [m.role for m in messages]
    # L0: the system block; L1, L2: user/assistant pairs; L3: pair + history; active: pair;
    # then the user's message.
    assert roles == ["system"] + ["user", "assistant"] * 5 + ["user"]
    assert marked == [0, 2, 4, 8]
    assert messages[-1].text == "Go." and not messages[-1].cache_breakpoint
    assert "src/c.py" in messages[9].text and not messages[10].cache_breakpoint


def test_anthropic_wire_form_carries_at_most_four_cache_markers() -> None:
    context, state = full_context()
    wire = to_anthropic(assemble_tiers(context, state).messages)
    text = repr(wire)
    assert text.count("cache_control") == 4


def test_empty_tiers_are_left_out() -> None:
    items = [file_item("a.py", "A = 1\n", COUNTER)]
    context = TierContext(system="S", items=tuple(items), user="u")
    prompt = assemble_tiers(context, placed(items, {"file:a.py": "L2"}))
    assert [m.role for m in prompt.messages] == ["system", "user", "assistant", "user"]
    assert [i for i, m in enumerate(prompt.messages) if m.cache_breakpoint] == [0, 2]


def test_an_item_the_state_does_not_know_is_active() -> None:
    items = [file_item("a.py", "A = 1\n", COUNTER)]
    prompt = assemble_tiers(TierContext(system="S", items=tuple(items)), TrackerState())
    assert prompt.tier_of("file:a.py") == "active"
    assert not any(m.cache_breakpoint for m in prompt.messages[1:])


def test_every_item_is_its_own_section_named_by_tier_and_key() -> None:
    context, state = full_context()
    ids = [p.id for p in tier_parts(context, state)]
    assert "L2/file:src/d.py" in ids and "active/symbols:src/c.py" in ids
    assert ids[0] == "L0/system" and ids[-1] == "user"


def test_file_fence_is_longer_than_backticks_in_the_file() -> None:
    item = file_item("README.md", "```\ncode\n```\n", COUNTER)
    assert item.text == "README.md\n````\n```\ncode\n```\n````"


def test_breakdown_gives_tokens_per_tier_and_per_item() -> None:
    context, state = full_context()
    prompt = assemble_tiers(context, state)
    breakdown = get_context_breakdown(prompt)
    assert [t.tier for t in breakdown.tiers] == ["L0", "L1", "L2", "L3", "active"]
    l0 = breakdown.tier("L0")
    assert [i.key for i in l0.items] == [
        "system",
        "legend",
        "symbols:src/a.py",
        "history:0",
        "history:1",
    ]
    assert l0.cached and not breakdown.tier("active").cached
    assert sum(t.tokens for t in breakdown.tiers) == sum(prompt.composition.message_tokens)
    d = next(i for i in breakdown.tier("L2").items if i.key == "file:src/d.py")
    assert (d.tokens, d.n) == (COUNTER.count(d_text()), 6)
    assert breakdown.tier("active").items[-1].key == "user"


def d_text() -> str:
    return file_item("src/d.py", "D = 1\n", COUNTER).text


def test_a_project_can_override_the_tier_headers(tmp_path: Path) -> None:
    (tmp_path / "config" / "prompts" / "tiers").mkdir(parents=True)
    (tmp_path / "config" / "prompts" / "tiers" / "ack.md").write_text("Understood.\n")
    items = [file_item("a.py", "A = 1\n", COUNTER)]
    context = TierContext(system="S", items=tuple(items))
    prompt = assemble_tiers(context, placed(items, {"file:a.py": "L1"}), root=tmp_path)
    assert prompt.messages[2].text == "Understood."
