"""Bodies no JSON-RPC client sends get the specification's error codes, never HTTP 500:
``NaN`` and ``Infinity`` (Python's extensions, not JSON), nesting too deep to parse, and an
id that is not a string, number or null. And an apply whose session cannot be saved writes
nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from agentprompt.store import Store, default_store_path

from .conftest import TOKEN


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc": "2.0", "id": NaN, "method": "get_prompt_snippets"}',
        b'{"jsonrpc": "2.0", "id": Infinity, "method": "get_prompt_snippets"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "get_tree", "params": {"x": -Infinity}}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"jsonrpc": "2.0", "id": 1, "params": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    ],
)
def test_bodies_that_are_not_json_are_parse_errors(client: TestClient, body: bytes) -> None:
    response = client.post(f"/rpc?token={TOKEN}", content=body)
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == -32700
    assert error["message"]


@pytest.mark.parametrize("request_id", [[1], {"a": 1}, True, [[[[]]]]])
def test_an_id_of_the_wrong_type_is_an_invalid_request(
    client: TestClient, request_id: object
) -> None:
    body = {"jsonrpc": "2.0", "id": request_id, "method": "get_prompt_snippets"}
    response = client.post(f"/rpc?token={TOKEN}", json=body)
    assert response.status_code == 200
    answer = response.json()
    assert answer["error"]["code"] == -32600
    assert answer["id"] is None


def test_ordinary_ids_still_work(client: TestClient) -> None:
    for request_id in (7, 1.5, "abc", None):
        body = {"jsonrpc": "2.0", "id": request_id, "method": "get_prompt_snippets"}
        answer = client.post(f"/rpc?token={TOKEN}", json=body).json()
        assert answer["id"] == request_id
        assert "result" in answer


def test_apply_reply_with_a_locked_state_database_writes_nothing(
    client: TestClient, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"/rpc?token={TOKEN}"
    started = {"jsonrpc": "2.0", "id": 1, "method": "build_prompt", "params": {"task": "t"}}
    assert "result" in client.post(url, json=started).json()
    original = Store.__init__

    def short(self: Store, path: Path, *, timeout: float = 5.0) -> None:
        original(self, path, timeout=0.2)

    monkeypatch.setattr(Store, "__init__", short)
    reply = "<<<FILE: [NEW] src/made.ts>>>\nexport const m = 1;\n<<<END>>>\n"
    call = {"jsonrpc": "2.0", "id": 2, "method": "apply_reply", "params": {"reply": reply}}
    other = sqlite3.connect(default_store_path(repo), isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        answer = client.post(url, json=call).json()
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert answer["error"]["code"] == -32000
    assert "locked" in answer["error"]["message"]
    assert not (repo / "src" / "made.ts").exists()
    again = client.post(url, json=call).json()
    assert again["result"]["written"] is True
    assert again["result"]["bridge"]["saved"] is True


def test_an_id_too_large_for_a_float_is_an_invalid_request(client: TestClient) -> None:
    body = b'{"jsonrpc": "2.0", "id": 1e400, "method": "get_prompt_snippets"}'
    response = client.post(f"/rpc?token={TOKEN}", content=body)
    assert response.status_code == 200
    answer = response.json()
    assert answer["id"] is None
    assert answer["error"]["code"] == -32600
    assert '"id"' in answer["error"]["message"] and "infinity" in answer["error"]["message"]


@pytest.mark.parametrize(
    ("method", "params", "named"),
    [
        ("build_prompt", '{"task": "fix \\ud800 it"}', 'param "task"'),
        ("preview_reply", '{"reply": "\\udfff"}', 'param "reply"'),
        ("build_prompt", '{"task": "x", "max_tokens": -1e999}', 'param "max_tokens"'),
        ("get_tree", '{"\\ud800": 1}', "a param's name"),
    ],
)
def test_unusable_params_are_invalid_params_naming_them(
    client: TestClient, method: str, params: str, named: str
) -> None:
    body = f'{{"jsonrpc": "2.0", "id": 3, "method": "{method}", "params": {params}}}'
    response = client.post(f"/rpc?token={TOKEN}", content=body.encode())
    assert response.status_code == 200
    answer = response.json()
    assert answer["id"] == 3
    assert answer["error"]["code"] == -32602
    assert named in answer["error"]["message"]


def test_a_lone_surrogate_in_a_batch_spoils_only_its_own_request(client: TestClient) -> None:
    body = (
        b'[{"jsonrpc": "2.0", "id": 1, "method": "get_prompt_snippets"},'
        b' {"jsonrpc": "2.0", "id": 2, "method": "\\ud800"}]'
    )
    response = client.post(f"/rpc?token={TOKEN}", content=body)
    assert response.status_code == 200
    first, second = response.json()
    assert "result" in first
    assert second["error"]["code"] == -32600 and "surrogate" in second["error"]["message"]


def test_an_answer_no_json_can_hold_becomes_an_internal_error() -> None:
    from agentprompt.web._rpc import encode_answer

    answer = json.loads(encode_answer({"jsonrpc": "2.0", "id": 1, "result": float("inf")}))
    assert answer["id"] is None and answer["error"]["code"] == -32603
    answer = json.loads(encode_answer({"jsonrpc": "2.0", "id": 1, "result": "\ud800"}))
    assert answer["error"]["code"] == -32603
    assert json.loads(encode_answer({"id": 1, "result": "é"})) == {"id": 1, "result": "é"}
