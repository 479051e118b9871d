"""A session's budget: the default, the chat presets, and where a budget is set, in this
order: the request's max_tokens, its chat, AGENTPROMPT_MAX_TOKENS, the project's
.agentprompt/config.toml, the default. A budget that is not one is a UsageError naming where
it was set, and changes no session."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.bridge import find_session
from agentprompt.errors import UsageError
from agentprompt.services import (
    CHAT_BUDGETS,
    DEFAULT_MAX_TOKENS,
    NO_BUDGET,
    BridgeSessions,
    PromptChoices,
    StartRequest,
    Workspace,
    parse_budget,
)


def _config(root: Path, text: str) -> Path:
    path = root / ".agentprompt" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _budget(root: Path, env: str | None = None, **choices: object) -> int | None:
    environ = {"AGENTPROMPT_MAX_TOKENS": env} if env is not None else {}
    sessions = BridgeSessions(Workspace(root, environ=environ))
    request = StartRequest(task="Make parseJSON safe", choices=PromptChoices(**choices))  # type: ignore[arg-type]
    return sessions.start(request, save=False).state.max_tokens


def test_a_new_session_takes_the_default_budget(example: Path) -> None:
    assert DEFAULT_MAX_TOKENS == 25_000
    assert _budget(example) == DEFAULT_MAX_TOKENS


def test_the_presets_are_one_table_of_budgets_a_first_prompt_can_fit() -> None:
    assert {"chatgpt", "claude", "gemini", "copilot", "small"} <= set(CHAT_BUDGETS)
    assert all(2_000 < tokens <= 200_000 for tokens in CHAT_BUDGETS.values())


def test_where_a_budget_is_set_goes_flag_chat_environment_file_default(example: Path) -> None:
    assert _budget(example, chat="claude") == CHAT_BUDGETS["claude"]
    assert _budget(example, max_tokens=9_000, chat="claude") == 9_000
    assert _budget(example, env="12000") == 12_000
    assert _budget(example, env="gemini") == CHAT_BUDGETS["gemini"]
    assert _budget(example, env="12000", chat="small") == CHAT_BUDGETS["small"]
    _config(example, "max_tokens = 30000\n")
    assert _budget(example) == 30_000
    assert _budget(example, env="12000") == 12_000
    _config(example, 'chat = "copilot"\n')
    assert _budget(example) == CHAT_BUDGETS["copilot"]
    _config(example, 'max_tokens = 7000\nchat = "copilot"\n')
    assert _budget(example) == 7_000


def test_none_asks_for_no_budget_wherever_it_is_set(example: Path) -> None:
    assert _budget(example, max_tokens=NO_BUDGET) is None
    assert _budget(example, env="none") is None
    _config(example, 'max_tokens = "none"\n')
    assert _budget(example) is None
    assert _budget(example, chat="small") == CHAT_BUDGETS["small"]


def test_parse_budget_reads_numbers_and_none_and_names_its_input() -> None:
    assert parse_budget("30000") == 30_000
    assert parse_budget("30_000") == 30_000
    assert parse_budget(" None ") == NO_BUDGET
    for bad, said in (
        ("lots", "'lots' is not a number"),
        ("-5", "-5 is not a budget"),
        ("0", "0 is not a budget"),
    ):
        with pytest.raises(UsageError) as caught:
            parse_budget(bad)
        assert caught.value.input == "max_tokens"
        assert said in str(caught.value)


@pytest.mark.parametrize(
    ("choices", "said", "input"),
    [
        ({"max_tokens": 10}, "max_tokens 10 is too small", "max_tokens"),
        ({"max_tokens": -1}, "-1 is not a budget", "max_tokens"),
        ({"chat": "grok"}, "there is no chat preset 'grok'", "chat"),
    ],
)
def test_a_bad_budget_is_one_error_naming_it_and_changes_no_session(
    example: Path, choices: dict[str, object], said: str, input: str
) -> None:
    sessions = BridgeSessions(Workspace(example))
    sessions.start(StartRequest(task="first"))
    before = find_session(example)
    with pytest.raises(UsageError) as caught:
        sessions.start(StartRequest(task="second", new=True, choices=PromptChoices(**choices)))  # type: ignore[arg-type]
    assert said in str(caught.value) and caught.value.input == input
    with pytest.raises(UsageError):
        sessions.current(PromptChoices(**choices))  # type: ignore[arg-type]
    assert find_session(example) == before


def test_a_budget_below_the_fixed_text_names_the_smallest_that_works(example: Path) -> None:
    sessions = BridgeSessions(Workspace(example))
    with pytest.raises(UsageError) as caught:
        sessions.start(StartRequest(task="first", choices=PromptChoices(max_tokens=200)))
    message = str(caught.value)
    floor = int(message.split("takes ")[1].split(" tokens")[0].replace(",", ""))
    assert 500 < floor < 3_000
    assert f"give a budget of at least {floor:,} tokens" in message
    assert find_session(example) is None
    # The smallest budget is one: it holds the fixed text (files are cut to their paths).
    try:
        sessions.start(StartRequest(task="first", choices=PromptChoices(max_tokens=floor)))
    except UsageError as exc:
        assert "every file shown only by its path" in str(exc)


def test_a_long_task_raises_the_smallest_budget(example: Path) -> None:
    sessions = BridgeSessions(Workspace(example))
    task = "Make parseJSON safe. " * 2_000
    with pytest.raises(UsageError) as caught:
        sessions.start(StartRequest(task=task, choices=PromptChoices(chat="small")))
    assert "chat small (6,000 tokens) is too small" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("max_tokens = 0\n", "config.toml: max_tokens is 0, not a budget"),
        ('max_tokens = "lots"\n', "config.toml: max_tokens is 'lots', not a budget"),
        ("max_tokens = 1.5\n", "config.toml: max_tokens is 1.5, not a budget"),
        ('chat = "grok"\n', "config.toml: chat: there is no chat preset 'grok'"),
        ("chat = 5\n", "config.toml: chat is 5, not a chat preset's name"),
        ("max_token = 5\n", "has an unknown key 'max_token'"),
        ("max_tokens = [\n", "is not valid TOML"),
        ("max_tokens = 100\n", "config.toml: max_tokens = 100 is too small"),
    ],
)
def test_a_bad_config_file_names_the_file_and_key(example: Path, text: str, said: str) -> None:
    path = _config(example, text)
    with pytest.raises(UsageError) as caught:
        _budget(example)
    assert said in str(caught.value)
    assert str(path.parent) in str(caught.value)
    assert find_session(example) is None


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ("lots", "AGENTPROMPT_MAX_TOKENS: 'lots' is not a budget"),
        ("-3", "AGENTPROMPT_MAX_TOKENS: '-3' is not a budget"),
        ("100", "AGENTPROMPT_MAX_TOKENS=100 is too small"),
    ],
)
def test_a_bad_environment_budget_names_the_variable(example: Path, env: str, said: str) -> None:
    with pytest.raises(UsageError) as caught:
        _budget(example, env=env)
    assert said in str(caught.value)


def test_a_bad_environment_budget_fails_only_what_uses_it(example: Path) -> None:
    workspace = Workspace(example, environ={"AGENTPROMPT_MAX_TOKENS": "lots"})
    assert workspace.config.max_tokens == "lots"
    assert workspace.view(summaries=False).paths


def test_a_chat_or_none_given_later_is_the_sessions_from_then_on(example: Path) -> None:
    sessions = BridgeSessions(Workspace(example))
    sessions.start(StartRequest(task="first"))
    assert sessions.current(PromptChoices(chat="claude")).state.max_tokens == 50_000
    assert sessions.current().state.max_tokens == 50_000
    assert sessions.current(PromptChoices(max_tokens=NO_BUDGET)).state.max_tokens is None
    found = find_session(example)
    assert found is not None and found[1].max_tokens is None
