"""JSON-RPC over HTTP: each method does what the CLI does, and bad calls get the
specification's error codes with a message naming the problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from agentprompt.bridge.split import DEFAULT_SPLIT_CHARS
from agentprompt.bridge.state import find_session
from agentprompt.edits.journal import WriteFailed
from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.services import _bridge as bridge_service
from agentprompt.store import Store, default_store_path
from agentprompt.tiers.persist import load_tracker
from agentprompt.tokens import shared_counter
from agentprompt.web._rpc import handle_rpc

from .conftest import TOKEN

Rpc = Callable[..., dict[str, Any]]


def test_get_prompt_snippets_gives_the_packaged_defaults(rpc: Rpc) -> None:
    result = rpc("get_prompt_snippets")["result"]
    assert result["origin"] == "packaged"
    icons = [s["icon"] for s in result["snippets"]]
    assert icons[:3] == ["✂️", "🔍", "✏️"]
    assert all(s["message"] and s["tooltip"] for s in result["snippets"])


def test_get_prompt_snippets_prefers_the_repository_file(rpc: Rpc, repo: Path) -> None:
    folder = repo / "config" / "prompts"
    folder.mkdir(parents=True)
    long = "Please re-read the task and answer in exactly one sentence, no more than that."
    (folder / "prompt-snippets.json").write_text(
        json.dumps({"snippets": [{"icon": "🧪", "message": long}]}), encoding="utf-8"
    )
    result = rpc("get_prompt_snippets")["result"]
    assert result["origin"] == "project"
    assert result["snippets"] == [{"icon": "🧪", "tooltip": long[:50], "message": long}]


def test_get_tree_lists_files_with_exact_token_counts(rpc: Rpc, repo: Path) -> None:
    result = rpc("get_tree")["result"]
    counts = {f["path"]: f["tokens"] for f in result["files"]}
    assert set(counts) == {"README.md", "scripts/report.py", "src/index.ts", "src/utils.ts"}
    counter = shared_counter()
    text = (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    assert counts["src/utils.ts"] == counter.count(text)
    assert result["tokens"] == sum(counts.values())
    assert result["context"] == []


def test_build_prompt_starts_a_session_and_splits_into_counted_parts(rpc: Rpc, repo: Path) -> None:
    result = rpc("build_prompt", task="Fix parseJSON.", mode="edit", files=["src/utils.ts"])[
        "result"
    ]
    assert result["mode"] == "edit"
    assert result["state"]["files"] == ["src/utils.ts"]
    assert len(result["parts"]) >= 1
    counter = shared_counter()
    for part in result["parts"]:
        assert part["tokens"] == counter.count(part["text"])
        assert len(part["text"]) <= DEFAULT_SPLIT_CHARS
    assert "".join(p["text"] for p in result["parts"]).count("export function parseJSON") >= 1
    session = find_session(repo)
    assert session is not None and session[1].task == "Fix parseJSON."


def test_build_prompt_without_task_shows_the_current_prompt(rpc: Rpc) -> None:
    first = rpc("build_prompt", task="Explain the repository.")["result"]
    again = rpc("build_prompt")["result"]
    assert again["text"] == first["text"]
    assert again["state"]["rounds"] == 0


def test_build_prompt_without_task_or_session_is_invalid_params(rpc: Rpc) -> None:
    error = rpc("build_prompt")["error"]
    assert error["code"] == -32602
    assert "no bridge session" in error["message"]


def test_build_prompt_refuses_unsafe_paths(rpc: Rpc, repo: Path) -> None:
    for path in ("../outside.txt", "/etc/passwd", ".git/config"):
        error = rpc("build_prompt", task="t", files=[path])["error"]
        assert error["code"] == -32602, path
        assert "files" in error["message"]
    assert find_session(repo) is None


def test_build_prompt_refuses_an_unknown_file(rpc: Rpc, repo: Path) -> None:
    error = rpc("build_prompt", task="t", files=["nope.py"])["error"]
    assert error["code"] == -32602
    assert "nope.py" in error["message"]
    assert find_session(repo) is None


def test_bad_params_are_invalid_params(rpc: Rpc) -> None:
    cases: list[dict[str, Any]] = [
        {"task": 3},
        {"task": "t", "mode": "write"},
        {"task": "t", "files": "src/utils.ts"},
        {"task": "  "},
        {"task": "t", "colour": "red"},
    ]
    for params in cases:
        error = rpc("build_prompt", **params)["error"]
        assert error["code"] == -32602, params
    assert rpc("preview_reply")["error"]["code"] == -32602
    assert rpc("preview_reply", reply="x", dialect="klingon")["error"]["code"] == -32602


def test_unknown_method_is_method_not_found(rpc: Rpc) -> None:
    error = rpc("rm_rf")["error"]
    assert error["code"] == -32601
    assert "get_tree" in error["message"]


def test_malformed_requests_get_protocol_errors(client: TestClient) -> None:
    url = f"/rpc?token={TOKEN}"
    assert client.post(url, content=b"{").json()["error"]["code"] == -32700
    assert client.post(url, json={"id": 1, "method": "get_tree"}).json()["error"]["code"] == -32600
    bad_params = {"jsonrpc": "2.0", "id": 1, "method": "get_tree", "params": [1]}
    assert client.post(url, json=bad_params).json()["error"]["code"] == -32602


def test_batch_and_notification(client: TestClient) -> None:
    url = f"/rpc?token={TOKEN}"
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "get_prompt_snippets"},
        {"jsonrpc": "2.0", "method": "get_prompt_snippets"},
    ]
    answers = client.post(url, json=batch).json()
    assert [a["id"] for a in answers] == [1]
    only = client.post(url, json={"jsonrpc": "2.0", "method": "get_prompt_snippets"})
    assert only.status_code == 204


def test_preview_reply_shows_actions_and_writes_nothing(
    rpc: Rpc, repo: Path, sample_reply: str
) -> None:
    before = (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    result = rpc("preview_reply", reply=sample_reply)["result"]
    assert result["dry_run"] is True and result["written"] is False
    assert "+    return null;" in result["diff"]
    assert result["requests"] == ["scripts/report.py"]
    assert {m["path"] for m in result["matched"]} == {"src/utils.ts", "src/index.ts"}
    assert (repo / "src" / "utils.ts").read_text(encoding="utf-8") == before


def test_build_prompt_gives_tokens_per_section(rpc: Rpc) -> None:
    prompt = rpc("build_prompt", task="Fix parseJSON.", files=["src/utils.ts"])["result"]
    titles = [s["title"] for s in prompt["sections"]]
    assert "src/utils.ts" in titles
    counter = shared_counter()
    assert sum(s["chars"] for s in prompt["sections"]) == len(prompt["text"])
    utils = next(s for s in prompt["sections"] if s["title"] == "src/utils.ts")
    assert utils["tokens"] > 0 and utils["tokens"] < counter.count(prompt["text"])


def test_preview_reply_in_a_session_shows_the_next_prompt_apply_would_make(
    rpc: Rpc, repo: Path, sample_reply: str
) -> None:
    rpc("build_prompt", task="parseJSON throws; make it return null.")
    before = find_session(repo)
    preview = rpc("preview_reply", reply=sample_reply)["result"]["bridge"]
    assert preview["saved"] is False
    assert preview["added"] == ["scripts/report.py"]
    # Nothing moved: the session is as it was and the file is unchanged.
    assert find_session(repo) == before
    assert "return null;" not in (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    applied = rpc("apply_reply", reply=sample_reply)["result"]["bridge"]
    assert applied["saved"] is True
    assert preview["prompt"]["text"] == applied["prompt"]["text"]
    # A follow-up: the file asked for, not the files the reply itself wrote.
    assert preview["prompt"]["followup"] is True
    assert "### scripts/report.py\n" in preview["prompt"]["text"]
    assert "return null;" not in preview["prompt"]["text"]


def test_preview_reply_of_an_empty_reply_is_invalid_params(rpc: Rpc) -> None:
    error = rpc("preview_reply", reply="Just chatting, no edits.")["error"]
    assert error["code"] == -32602
    assert "no edit blocks" in error["message"]


def test_apply_reply_writes_and_advances_the_session(
    rpc: Rpc, repo: Path, sample_reply: str
) -> None:
    rpc("build_prompt", task="parseJSON throws; make it return null.")
    result = rpc("apply_reply", reply=sample_reply)["result"]
    assert result["ok"] is True and result["written"] is True
    assert "return null;" in (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    bridge = result["bridge"]
    assert bridge["added"] == ["scripts/report.py"]
    assert bridge["prompt"]["mode"] == "edit"
    assert "scripts/report.py" in bridge["prompt"]["state"]["files"]
    session = find_session(repo)
    assert session is not None
    assert session[1].rounds == 1
    assert "scripts/report.py" in session[1].files
    next_prompt = rpc("build_prompt")["result"]
    assert next_prompt["text"] == bridge["prompt"]["text"]


def test_apply_reply_that_fails_writes_nothing_and_says_why(rpc: Rpc, repo: Path) -> None:
    reply = "<<<DIFF: src/utils.ts>>>\n@@ -1,1 +1,1 @@\n-no such line here\n+x\n<<<END>>>\n"
    before = (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    result = rpc("apply_reply", reply=reply)["result"]
    assert result["ok"] is False and result["written"] is False
    assert result["failed"][0]["path"] == "src/utils.ts"
    assert result["failed"][0]["reason"]
    assert (repo / "src" / "utils.ts").read_text(encoding="utf-8") == before


def test_apply_reply_refuses_a_path_outside_the_root(rpc: Rpc, repo: Path) -> None:
    reply = "<<<FILE: ../escape.txt>>>\nhello\n<<<END>>>\n"
    result = rpc("apply_reply", reply=reply)["result"]
    assert result["ok"] is False
    assert not (repo.parent / "escape.txt").exists()


def test_get_context_breakdown_counts_tiers_and_items(rpc: Rpc, repo: Path) -> None:
    result = rpc("get_context_breakdown", files=["src/utils.ts"], task="Fix it.")["result"]
    tiers = {t["tier"]: t for t in result["tiers"]}
    assert list(tiers) == ["L0", "L1", "L2", "L3", "active"]
    assert sum(t["tokens"] for t in result["tiers"]) <= result["total_tokens"]
    keys = [i["key"] for t in result["tiers"] for i in t["items"]]
    assert "system" in keys and "file:src/utils.ts" in keys and "user" in keys
    store_path = default_store_path(repo)
    if store_path.exists():
        with Store(store_path) as store:
            assert load_tracker(store)[0].requests == 0


def test_get_context_breakdown_shows_reused_and_rewritten_blocks(rpc: Rpc, repo: Path) -> None:
    """With nothing recorded every block would be written; after a recorded request for the
    same context, every block is reused and the running share counts both requests."""
    from agentprompt.tiers import repository_request

    params = {"files": ["src/utils.ts"], "task": "Fix it."}
    fresh = rpc("get_context_breakdown", **params)["result"]
    assert fresh["rule"] == "deferred" and fresh["warnings"] == []
    assert {b["status"] for b in fresh["cache"]["blocks"]} == {"rewritten"}
    repository_request(repo, files=["src/utils.ts"], task="Fix it.")
    again = rpc("get_context_breakdown", **params)["result"]
    assert {b["status"] for b in again["cache"]["blocks"]} == {"reused"}
    assert again["cache"]["running"]["requests"] == 2 and again["cache"]["written"] == 0


def test_get_context_breakdown_refuses_unsafe_files(rpc: Rpc) -> None:
    assert rpc("get_context_breakdown", files=["../x"])["error"]["code"] == -32602


def test_mode_switch_and_continuation_feed_the_next_prompt(rpc: Rpc, repo: Path) -> None:
    rpc("build_prompt", task="Look at the index.")
    switch = "<<<SWITCH_MODE: edit>>>\nTarget files:\n- src/index.ts\nReason: need it\n<<<END>>>\n"
    preview = rpc("preview_reply", reply=switch)["result"]
    assert preview["switch_mode"]["mode"] == "edit"
    result = rpc("apply_reply", reply=switch)["result"]
    prompt = result["bridge"]["prompt"]
    assert prompt["mode"] == "edit"
    assert prompt["state"]["files"] == ["src/index.ts"]
    more = "<<<CONTINUE>>>\nRemaining: 1 file changes\n- src/utils.ts\n<<<END>>>\n"
    assert rpc("preview_reply", reply=more)["result"]["continue"] is not None
    after = rpc("apply_reply", reply=more)["result"]["bridge"]["prompt"]
    assert after["continuation"] is True
    assert after["state"]["continuation"] == ["src/utils.ts"]


def test_engine_refusals_and_crashes_get_their_codes() -> None:
    def refuse(params: Any) -> Any:
        raise AgentPromptError("a pending journal; run agentprompt apply --recover")

    def crash(params: Any) -> Any:
        raise RuntimeError("boom")

    methods = {"refuse": refuse, "crash": crash}
    for name, code, words in (("refuse", -32000, "--recover"), ("crash", -32603, "boom")):
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": name}).encode()
        answer = handle_rpc(methods, body)
        assert answer["id"] == 7
        assert answer["error"]["code"] == code
        assert words in answer["error"]["message"]


def test_engine_errors_name_inputs_as_params_never_as_flags() -> None:
    def bad(params: Any) -> Any:
        raise UsageError("it is too small", input="max_tokens", fix="raise {max_tokens}")

    def pending(params: Any) -> Any:
        raise AgentPromptError("a pending journal", fix="run '{recover}' first")

    methods = {"bad": bad, "pending": pending}
    for name, code, words in (
        ("bad", -32602, 'param "max_tokens": it is too small; raise param "max_tokens"'),
        ("pending", -32000, "a pending journal; run 'agentprompt apply --recover' first"),
    ):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": name}).encode()
        answer = handle_rpc(methods, body)
        assert answer["error"] == {"code": code, "message": words}


def test_apply_reply_whose_write_fails_says_so(
    rpc: Rpc, repo: Path, sample_reply: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise WriteFailed("src/utils.ts", "disk full")

    monkeypatch.setattr(bridge_service, "apply_reply", fail)
    result = rpc("apply_reply", reply=sample_reply)["result"]
    assert result["ok"] is False and result["written"] is False
    assert "disk full" in result["error"]


def test_rank_files_orders_files_by_relevance_with_reasons(rpc: Rpc) -> None:
    answer = rpc("rank_files", task="parseJSON throws on invalid input", top=3)
    result = answer["result"]
    assert result["files"][0]["path"] == "src/utils.ts"
    assert result["files"][0]["rank"] == 1
    assert {r["signal"] for r in result["files"][0]["reasons"]} >= {"definition"}
    assert len(result["files"]) == 3
    assert result["total"] >= 3


def test_rank_files_bad_params_are_invalid_params(rpc: Rpc, repo: Path) -> None:
    before = sorted(p.name for p in repo.rglob("*"))
    for params in (
        {"task": "   "},
        {"task": 3},
        {"task": "x", "top": 0},
        {"task": "x", "what": 1},
        {},
    ):
        error = rpc("rank_files", **params)["error"]
        assert error["code"] == -32602
    assert "is empty" in rpc("rank_files", task=" ")["error"]["message"]
    assert sorted(p.name for p in repo.rglob("*")) == before


def test_rank_symbols_lists_the_definitions_with_lines_and_reasons(rpc: Rpc) -> None:
    result = rpc("rank_symbols", task="parseJSON throws on invalid input", top=2)["result"]
    first = result["symbols"][0]
    assert (first["path"], first["name"], first["rank"]) == ("src/utils.ts", "parseJSON", 1)
    assert first["start"] <= first["end"]
    assert {r["signal"] for r in first["reasons"]} >= {"name"}
    assert len(result["symbols"]) <= 2


def test_rank_symbols_bad_params_are_invalid_params(rpc: Rpc, repo: Path) -> None:
    before = sorted(p.name for p in repo.rglob("*"))
    bad = ({"task": "   "}, {"task": 3}, {"task": "x", "top": 0}, {"task": "x", "n": 1}, {})
    for params in bad:
        assert rpc("rank_symbols", **params)["error"]["code"] == -32602
    assert "is empty" in rpc("rank_symbols", task=" ")["error"]["message"]
    assert sorted(p.name for p in repo.rglob("*")) == before


def test_bridge_drop_and_add_change_the_session_and_return_the_next_prompt(
    rpc: Rpc, repo: Path
) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts", "src/index.ts"])
    dropped = rpc("bridge_drop", files=["src/index.ts"])["result"]
    assert dropped["state"]["files"] == ["src/utils.ts"]
    assert dropped["state"]["dropped"] == ["src/index.ts"]
    added = rpc("bridge_add", files=["scripts/report.py"])["result"]
    assert added["state"]["files"] == ["src/utils.ts", "scripts/report.py"]
    found = find_session(repo)
    assert found is not None and found[1].files == ("src/utils.ts", "scripts/report.py")


@pytest.mark.parametrize(
    ("method", "path", "said"),
    [
        ("bridge_drop", "scripts/report.py", "is not in the session's context"),
        ("bridge_add", "src/nope.ts", "does not exist"),
    ],
)
def test_bridge_drop_and_add_of_an_unknown_file_change_nothing(
    rpc: Rpc, repo: Path, method: str, path: str, said: str
) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts"])
    before = find_session(repo)
    error = rpc(method, files=[path])["error"]
    assert error["code"] == -32602 and said in error["message"]
    assert find_session(repo) == before


def test_build_prompt_full_sends_everything_again(rpc: Rpc, sample_reply: str) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts"])
    rpc("apply_reply", reply=sample_reply)
    follow = rpc("build_prompt")["result"]
    assert follow["followup"] is True
    whole = rpc("build_prompt", full=True)["result"]
    assert whole["followup"] is False and whole["state"]["resend"] is True
    assert whole["text"].startswith("# You are a coding assistant")


def test_build_prompt_with_a_task_replaces_a_session_in_progress_only_with_new(
    rpc: Rpc, repo: Path, sample_reply: str
) -> None:
    rpc("build_prompt", task="first")
    rpc("build_prompt", task="again, before any reply")  # nothing to lose yet
    rpc("apply_reply", reply=sample_reply)
    before = find_session(repo)
    error = rpc("build_prompt", task="other")["error"]
    assert error["code"] == -32602 and "in progress (round 1)" in error["message"]
    assert find_session(repo) == before
    replaced = rpc("build_prompt", task="other", new=True)["result"]
    assert replaced["state"]["task"] == "other" and replaced["state"]["rounds"] == 0


def test_build_prompt_include_and_exclude_are_gitignore_patterns_kept_for_the_session(
    rpc: Rpc, repo: Path
) -> None:
    result = rpc("build_prompt", task="t", include=["src/"], exclude=["index.ts"])["result"]
    assert "utils.ts" in result["user"] and "index.ts" not in result["user"]
    assert "report.py" not in result["user"]
    assert result["state"]["includes"] == ["src/"] and result["state"]["excludes"] == ["index.ts"]
    tree = rpc("get_tree")["result"]
    assert tree["session"]["include"] == ["src/"] and tree["session"]["exclude"] == ["index.ts"]


def test_build_prompt_max_tokens_cuts_files_and_reports_the_cuts(rpc: Rpc) -> None:
    files = ["src/utils.ts", "scripts/report.py"]
    whole = rpc("build_prompt", task="t", files=files)["result"]
    cut = rpc("build_prompt", task="t", files=files, max_tokens=whole["tokens"] - 20)["result"]
    assert cut["tokens"] <= whole["tokens"] - 20 and cut["left_out"]
    assert cut["cuts"] and cut["cuts"][0]["section"].startswith("file:")
    assert cut["state"]["max_tokens"] == whole["tokens"] - 20


def test_build_prompt_takes_the_default_budget_a_chat_preset_or_none(rpc: Rpc) -> None:
    started = rpc("build_prompt", task="t")["result"]
    assert started["state"]["max_tokens"] == 25_000
    chat = rpc("build_prompt", task="t", new=True, chat="claude")["result"]
    assert chat["state"]["max_tokens"] == 50_000
    wins = rpc("build_prompt", task="t", new=True, chat="claude", max_tokens=40_000)["result"]
    assert wins["state"]["max_tokens"] == 40_000
    kept = rpc("build_prompt", full=True, chat="small")["result"]
    assert kept["state"]["max_tokens"] == 6_000
    none = rpc("build_prompt", full=True, max_tokens="none")["result"]
    assert none["state"]["max_tokens"] is None


def test_get_tree_offers_the_presets_and_the_default_budget(
    rpc: Rpc, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    budgets = rpc("get_tree")["result"]["budgets"]
    assert {"name": "claude", "tokens": 50_000} in budgets["chats"]
    assert budgets["default"] == 25_000 and budgets["default_error"] is None
    config = repo / ".agentprompt" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text("max_tokens = 30000\n", encoding="utf-8")
    assert rpc("get_tree")["result"]["budgets"]["default"] == 30_000
    config.write_text("max_tokens = -1\n", encoding="utf-8")
    budgets = rpc("get_tree")["result"]["budgets"]
    assert "max_tokens is -1, not a budget" in budgets["default_error"]


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"task": "t", "include": ["nothing-like-it/"]}, "nothing-like-it/"),
        ({"task": "t", "exclude": ["*.nope"]}, "*.nope"),
        ({"task": "t", "files": ["src/utils.ts"], "max_tokens": 10}, "too small"),
        ({"task": "t", "max_tokens": 0}, '"max_tokens" must be a whole number'),
        ({"task": "t", "include": "src/"}, '"include" must be a list of strings'),
        ({"include": ["src/"]}, 'give "task" too'),
        ({"max_tokens": 10}, "too small"),
        ({"task": "t", "max_tokens": "lots"}, 'or "none" for no budget'),
        ({"task": "t", "chat": "grok"}, "param \"chat\": there is no chat preset 'grok'"),
        ({"chat": "grok"}, "choose one of chatgpt (25,000)"),
        ({"task": "t", "chat": 5}, 'param "chat" must be a string'),
    ],
)
def test_bad_build_prompt_input_is_one_error_and_changes_nothing(
    rpc: Rpc, repo: Path, params: dict[str, Any], said: str
) -> None:
    rpc("build_prompt", task="first", files=["src/utils.ts"])
    before = find_session(repo)
    error = rpc("build_prompt", **params)["error"]
    assert error["code"] == -32602 and said in error["message"], error
    assert "\n" not in error["message"]
    assert find_session(repo) == before


def test_preview_reply_takes_strict(rpc: Rpc, repo: Path) -> None:
    source = (repo / "src" / "utils.ts").read_text(encoding="utf-8")
    first = source.splitlines()[0]
    spaced = first.replace(" ", "  ", 1)
    assert spaced != first
    reply = (
        f"src/utils.ts\n<<<<<<< SEARCH\n{spaced}\n=======\n{first} // changed\n>>>>>>> REPLACE\n"
    )
    loose = rpc("preview_reply", reply=reply)["result"]
    assert loose["ok"] is True
    strict = rpc("preview_reply", reply=reply, strict=True)["result"]
    assert strict["ok"] is False
    assert "only exact matches" in strict["failed"][0]["reason"]
