"""The guard: the token and the loopback Host on every request, refusals that leak nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from agentprompt.errors import UsageError
from agentprompt.web import Guard, create_app
from agentprompt.web.server import bind_loopback, page_url, prepare

from .conftest import PORT, TOKEN


def test_page_is_served_with_the_token(client: TestClient) -> None:
    answer = client.get(f"/?token={TOKEN}")
    assert answer.status_code == 200
    assert "snippet-toggle" in answer.text
    assert answer.headers["referrer-policy"] == "no-referrer"


def test_request_without_token_is_refused_without_detail(client: TestClient) -> None:
    for path in ("/", "/static/app.js", "/rpc", "/nothing"):
        answer = client.get(path)
        assert answer.status_code == 403
        assert answer.text == "forbidden\n"


def test_wrong_token_is_refused(client: TestClient) -> None:
    assert client.get("/?token=nope").status_code == 403
    assert client.get(f"/?token={TOKEN}x").status_code == 403
    assert client.get(f"/?token={TOKEN}&token={TOKEN}").status_code == 403


def test_rpc_without_token_is_refused(client: TestClient) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "get_tree"}
    answer = client.post("/rpc", json=body)
    assert answer.status_code == 403
    assert "root" not in answer.text


def test_wrong_host_is_refused(client: TestClient) -> None:
    for host in ("evil.example:8765", f"127.0.0.1:{PORT + 1}", "127.0.0.1", "[::1]:8765"):
        answer = client.get(f"/?token={TOKEN}", headers={"host": host})
        assert answer.status_code == 403, host
        assert answer.text == "forbidden\n"


def test_a_websocket_without_the_token_is_closed_by_the_guard(client: TestClient) -> None:
    # The page opens no WebSocket; one attempted by another site must not pass the guard.
    for url in ("/ws", f"/ws?token={TOKEN}x"):
        with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(url):
            pass
        assert closed.value.code == 1008


def test_localhost_with_the_port_is_admitted(client: TestClient) -> None:
    answer = client.get(f"/?token={TOKEN}", headers={"host": f"localhost:{PORT}"})
    assert answer.status_code == 200


def test_static_files_need_the_token(repo: Path) -> None:
    app = create_app(repo, Guard(token=TOKEN, port=PORT))
    with TestClient(app, base_url=f"http://127.0.0.1:{PORT}") as c:
        assert c.get(f"/static/app.js?token={TOKEN}").status_code == 200
        assert c.get("/static/app.js").status_code == 403


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    for answer in (
        client.get(f"/static/app.js?token={TOKEN}"),
        client.get(f"/?token={TOKEN}"),
        client.post(f"/rpc?token={TOKEN}", json={"jsonrpc": "2.0", "id": 1, "method": "x"}),
        client.get("/"),
    ):
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["cache-control"] == "no-store"
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]


def test_page_links_its_assets_with_the_token(client: TestClient) -> None:
    html = client.get(f"/?token={TOKEN}").text
    assert f"/static/app.js?token={TOKEN}" in html
    assert "__TOKEN__" not in html


def test_server_binds_loopback_only_and_prints_token_url() -> None:
    page = prepare(0)
    try:
        host, port = page.sock.getsockname()
        assert host == "127.0.0.1"
        assert page.url == f"http://127.0.0.1:{port}/?token={page.guard.token}"
        assert len(page.guard.token) >= 32
    finally:
        page.sock.close()


def test_tokens_differ_between_runs() -> None:
    first, second = prepare(0), prepare(0)
    try:
        assert first.guard.token != second.guard.token
    finally:
        first.sock.close()
        second.sock.close()


def test_port_in_use_is_a_clear_error() -> None:
    taken = bind_loopback(0)
    try:
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match=f"--port {port}: .*give another port"):
            bind_loopback(port)
    finally:
        taken.close()


def test_page_url_names_the_loopback_port() -> None:
    assert page_url(Guard(token="t", port=9)) == "http://127.0.0.1:9/?token=t"


def test_a_request_from_another_origin_is_refused(client: TestClient) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "get_tree"}
    for origin in ("https://evil.example", f"http://127.0.0.1:{PORT + 1}", "null"):
        answer = client.post(f"/rpc?token={TOKEN}", json=body, headers={"origin": origin})
        assert answer.status_code == 403, origin
        assert answer.text == "forbidden\n"


def test_a_request_from_the_page_itself_is_served(client: TestClient) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "get_tree"}
    for origin in (f"http://127.0.0.1:{PORT}", f"http://localhost:{PORT}"):
        answer = client.post(f"/rpc?token={TOKEN}", json=body, headers={"origin": origin})
        assert answer.status_code == 200, origin
        assert "result" in answer.json()
