"""The guard shared by the local servers: the token as a query parameter or a bearer
header, and the Host."""

from __future__ import annotations

from agentprompt.loopback import Guard

GUARD = Guard(token="t" * 32, port=8123)


def test_the_token_is_taken_from_the_query() -> None:
    assert GUARD.admits("127.0.0.1:8123", "token=" + "t" * 32)


def test_the_token_is_taken_from_a_bearer_header() -> None:
    assert GUARD.admits("localhost:8123", "", "Bearer " + "t" * 32)


def test_a_wrong_or_second_token_is_refused() -> None:
    assert not GUARD.admits("127.0.0.1:8123", "", "Bearer wrong")
    assert not GUARD.admits("127.0.0.1:8123", "token=" + "t" * 32, "Bearer wrong")
    assert not GUARD.admits("127.0.0.1:8123", "", "Basic " + "t" * 32)
    assert not GUARD.admits("127.0.0.1:8123", "", None)


def test_a_foreign_host_is_refused_even_with_the_token() -> None:
    assert not GUARD.admits("evil.example:8123", "", "Bearer " + "t" * 32)
    assert not GUARD.admits(None, "token=" + "t" * 32)


def test_an_origin_must_be_the_page_itself() -> None:
    token = "token=" + "t" * 32
    assert GUARD.admits("127.0.0.1:8123", token, None, "http://127.0.0.1:8123")
    assert GUARD.admits("127.0.0.1:8123", token, None, "http://localhost:8123")
    assert GUARD.admits("127.0.0.1:8123", token, None, None)
    for origin in (
        "https://evil.example",
        "http://127.0.0.1:9999",
        "https://127.0.0.1:8123",
        "http://127.0.0.1:8123.evil.example",
        "null",
        "",
    ):
        assert not GUARD.admits("127.0.0.1:8123", token, None, origin), origin
