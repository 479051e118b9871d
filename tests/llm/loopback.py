"""A loopback HTTP server that speaks a model API from a script, for the SDK client tests.

Each test queues the answers (a JSON body, an SSE stream, an error status, a stream cut
off mid-way) and reads back the exact requests the SDK sent.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any


@dataclass(frozen=True, kw_only=True)
class Answer:
    """One scripted answer."""

    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    events: tuple[str, ...] | None = None
    """SSE events, each already formatted (``data: ...\\n\\n``); None for a plain body."""
    cut_after: int | None = None
    """Close the connection after this many events, without ending the stream."""
    delay: float = 0.0
    """Seconds to wait before answering."""
    stall_after: int | None = None
    """Wait ``stall`` seconds after this many events (a server that stops sending)."""
    stall: float = 0.0
    """How long the stall lasts."""


def json_answer(data: object, *, status: int = 200, headers: Mapping[str, str] = {}) -> Answer:
    """An answer with a JSON body."""
    return Answer(
        status=status,
        headers={"Content-Type": "application/json", **headers},
        body=json.dumps(data).encode(),
    )


def openai_stream(
    chunks: Iterable[object], *, done: bool = True, cut_after: int | None = None
) -> Answer:
    """A Chat Completions SSE stream of ``chunks``, ending with ``[DONE]`` when ``done``."""
    events = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    if done:
        events.append("data: [DONE]\n\n")
    return Answer(
        headers={"Content-Type": "text/event-stream"}, events=tuple(events), cut_after=cut_after
    )


def anthropic_stream(
    events: Iterable[Mapping[str, Any]], *, cut_after: int | None = None
) -> Answer:
    """A Messages API SSE stream: each event named by its ``type``."""
    formatted = tuple(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return Answer(
        headers={"Content-Type": "text/event-stream"}, events=formatted, cut_after=cut_after
    )


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a timeout test) is expected, not worth a traceback."""


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 answering POSTs from a queue."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._answers: list[Answer] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Keep the test output quiet."""

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                server._record(self, raw)
                with server._lock:
                    answer = server._answers.pop(0) if server._answers else None
                if answer is None:
                    answer = json_answer({"error": {"message": "no answer queued"}}, status=599)
                time.sleep(answer.delay)
                if answer.events is None:
                    self._plain(answer)
                else:
                    self._stream(answer)

            def _plain(self, answer: Answer) -> None:
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            def _stream(self, answer: Answer) -> None:
                assert answer.events is not None
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for n, event in enumerate(answer.events):
                    if n == answer.stall_after:
                        time.sleep(answer.stall)
                    if answer.cut_after is not None and n == answer.cut_after:
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    data = event.encode()
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )
        self._thread.start()

    def _record(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in handler.headers.items()}
        with self._lock:
            self.requests.append(
                Recorded(method=handler.command, path=handler.path, headers=headers, body=body)
            )

    @property
    def url(self) -> str:
        """The server's address, ``http://127.0.0.1:PORT``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, *answers: Answer) -> None:
        """Queue answers, one per request."""
        with self._lock:
            self._answers.extend(answers)

    def close(self) -> None:
        """Stop serving and free the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def free_port() -> int:
    """A port on 127.0.0.1 with nothing listening on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
