"""A scripted OpenAI-compatible chat server on the loopback, for tests and the benchmark.

It answers ``POST /v1/chat/completions`` after a set latency, with an answer that is a pure
function of the conversation (so a parallel run gets exactly the answers a sequential run gets),
and reports token usage (whitespace words) like a real server. It is bounded: it listens on
127.0.0.1 only, serves at most ``max_requests`` requests, and shuts itself down after
``idle_timeout`` seconds without a request. ``failures`` makes the first requests fail with
``status`` (to exercise retries).

    python -m hiddengrid.llm.testserver --latency 0.2 --answer mark --answer "move north"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, str]]], str]


def scripted(answers: Sequence[str], reasoning: bool = False) -> Responder:
    """Picks one of ``answers`` from a hash of the conversation's last message."""
    if not answers:
        raise ValueError("scripted() needs at least one answer")

    def respond(messages: list[dict[str, str]]) -> str:
        last = messages[-1]["content"] if messages else ""
        digest = hashlib.sha256(last.encode()).digest()
        answer = answers[int.from_bytes(digest[:4], "little") % len(answers)]
        if reasoning:
            return f"The observation shows what I can do.\nI will choose.\nACTION: {answer}"
        return answer

    return respond


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default of 5 drops parallel clients' connections


class ScriptedServer:
    """Use as a context manager; ``url`` is the base URL to give the client."""

    def __init__(
        self,
        respond: Responder | Sequence[str],
        latency: float = 0.0,
        failures: int = 0,
        status: int = 503,
        max_requests: int = 100_000,
        idle_timeout: float = 120.0,
        record: bool = True,
    ) -> None:
        self.respond = respond if callable(respond) else scripted(list(respond))
        self.latency = latency
        self.failures = failures
        self.status = status
        self.max_requests = max_requests
        self.idle_timeout = idle_timeout
        self.record = record
        self.requests: list[dict[str, Any]] = []
        self.served = 0
        self._lock = threading.Lock()
        self._last = time.monotonic()
        self._stopped = threading.Event()
        self.httpd = _Server(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._threads = [
            threading.Thread(target=self.httpd.serve_forever, daemon=True),
            threading.Thread(target=self._watchdog, daemon=True),
        ]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with server._lock:
                    server._last = time.monotonic()
                    server.served += 1
                    count = server.served
                    if server.record:
                        server.requests.append(
                            {
                                "path": self.path,
                                "body": body,
                                "auth": self.headers.get("Authorization"),
                            }
                        )
                    failing = server.failures > 0
                    if failing:
                        server.failures -= 1
                if count > server.max_requests:
                    return self._send(429, {"error": {"message": "request budget spent"}})
                if failing:
                    return self._send(server.status, {"error": {"message": "scripted failure"}})
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                time.sleep(server.latency)
                messages = body.get("messages", [])
                answer = server.respond(messages)
                words_in = sum(len(str(m.get("content", "")).split()) for m in messages)
                payload = {
                    "id": f"chatcmpl-{count}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "scripted"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": answer},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": words_in,
                        "completion_tokens": len(answer.split()),
                        "total_tokens": words_in + len(answer.split()),
                    },
                }
                return self._send(200, payload)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return

        return Handler

    def _watchdog(self) -> None:
        while not self._stopped.wait(0.2):
            with self._lock:
                idle = time.monotonic() - self._last
            if idle > self.idle_timeout:
                self.stop()

    def start(self) -> ScriptedServer:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        if not self._stopped.is_set():
            self._stopped.set()
            self.httpd.shutdown()
            self.httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds before each answer")
    parser.add_argument("--answer", action="append", default=None, help="an answer (repeatable)")
    parser.add_argument("--reasoning", action="store_true", help="end with an ACTION: line")
    parser.add_argument("--idle-timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    server = ScriptedServer(
        scripted(args.answer or ["mark"], args.reasoning),
        latency=args.latency,
        idle_timeout=args.idle_timeout,
        record=False,
    ).start()
    print(server.url, flush=True)
    server._stopped.wait()


if __name__ == "__main__":
    main()
