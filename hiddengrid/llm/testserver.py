"""A scripted OpenAI-compatible chat server on the loopback, for tests and the benchmark.

It answers ``POST /v1/chat/completions`` after a set latency, with an answer that is a pure
function of the conversation (so a parallel run gets exactly the answers a sequential run gets),
and reports token usage (whitespace words) like a real server. It is bounded: it listens on
127.0.0.1 only, serves at most ``max_requests`` requests, and shuts itself down after
``idle_timeout`` seconds without a request. ``failures`` makes the first requests fail with
``status`` (to exercise retries), with a ``Retry-After`` header if ``retry_after`` is set;
``raw_body`` answers every request with those bytes instead (to exercise broken servers), and
``content_parts`` sends the answer as a list of text parts; ``context_words`` refuses longer
prompts like a server's context limit. A request with a JSON-schema ``response_format`` gets a
JSON object with one of the schema's actions. It is an aiohttp app on its own
event loop in a background thread: waiting requests cost no thread each, so many can be in
flight at once.

    python -m hiddengrid.llm.testserver --latency 0.2 --answer mark --answer "move north"
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from aiohttp import web

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


class ScriptedServer:
    """Use as a context manager (or ``start()``/``stop()``); ``url`` is the client's base URL."""

    def __init__(
        self,
        respond: Responder | Sequence[str],
        latency: float = 0.0,
        failures: int = 0,
        status: int = 503,
        max_requests: int = 100_000,
        idle_timeout: float = 120.0,
        record: bool = True,
        completion_tokens_only: bool = False,
        thinking: str | None = None,
        retry_after: str | None = None,
        raw_body: bytes | None = None,
        content_parts: bool = False,
        context_words: int | None = None,
        models: list[dict[str, Any]] | None = None,
    ) -> None:
        self.respond = respond if callable(respond) else scripted(list(respond))
        self.latency = latency
        self.failures = failures
        self.status = status
        self.max_requests = max_requests
        self.idle_timeout = idle_timeout
        self.record = record
        # Answer like OpenAI's reasoning models: "max_tokens" is refused (HTTP 400).
        self.completion_tokens_only = completion_tokens_only
        self.thinking = thinking  # sent as reasoning_content beside each answer, like vLLM
        self.retry_after = retry_after
        self.raw_body = raw_body
        self.content_parts = content_parts
        # Like a real server's context: a prompt of more words than this is refused (HTTP 400).
        self.context_words = context_words
        # The entries GET /v1/models lists (a real server's metadata); None: no such route.
        self.models = models
        self.times: list[float] = []  # time.monotonic() of each request's arrival
        self.requests: list[dict[str, Any]] = []
        self.served = 0
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests answered at the same time
        self._last = time.monotonic()
        self._stopped = threading.Event()
        self._ready = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(1024)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"
        self._thread = threading.Thread(target=self._serve, daemon=True)

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self._last = time.monotonic()
        self.times.append(self._last)
        self.served += 1
        count = self.served
        if self.record:
            self.requests.append(
                {"path": request.path, "body": body, "auth": request.headers.get("Authorization")}
            )
        if count > self.max_requests:
            return web.json_response({"error": {"message": "request budget spent"}}, status=429)
        if self.completion_tokens_only and "max_tokens" in body:
            message = (
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead."
            )
            return web.json_response({"error": {"message": message}}, status=400)
        if self.failures > 0:
            self.failures -= 1
            headers = {} if self.retry_after is None else {"Retry-After": self.retry_after}
            return web.json_response(
                {"error": {"message": "scripted failure"}}, status=self.status, headers=headers
            )
        if self.raw_body is not None:
            return web.Response(body=self.raw_body, content_type="application/json")
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.latency)
        finally:
            self.in_flight -= 1
        messages = body.get("messages", [])
        words_in = sum(len(str(m.get("content", "")).split()) for m in messages)
        if self.context_words is not None and words_in > self.context_words:
            message = (
                f"This model's maximum context length is {self.context_words} tokens. However, "
                f"your messages resulted in {words_in} tokens."
            )
            return web.json_response({"error": {"message": message}}, status=400)
        answer = self.respond(messages)
        schema = (body.get("response_format") or {}).get("json_schema")
        if schema is not None:
            # Structured output: one of the schema's actions, picked like a scripted answer.
            allowed = schema["schema"]["properties"]["action"]["enum"]
            picked = allowed[int(hashlib.sha256(answer.encode()).hexdigest(), 16) % len(allowed)]
            answer = json.dumps({"action": picked})
        words_out = len(answer.split())
        message: dict[str, Any] = {"role": "assistant", "content": answer}
        if self.content_parts:
            half = len(answer) // 2
            message["content"] = [
                {"type": "text", "text": answer[:half]},
                {"type": "text", "text": answer[half:]},
            ]
        if self.thinking is not None:
            message["reasoning_content"] = self.thinking
            words_out += len(self.thinking.split())
        return web.json_response(
            {
                "id": f"chatcmpl-{count}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "scripted"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": words_in,
                    "completion_tokens": words_out,
                    "total_tokens": words_in + words_out,
                },
            }
        )

    async def _models(self, request: web.Request) -> web.Response:
        self._last = time.monotonic()
        return web.json_response({"object": "list", "data": self.models})

    async def _main(self) -> None:
        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_post("/v1/chat/completions", self._chat)
        if self.models is not None:
            app.router.add_get("/v1/models", self._models)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.SockSite(runner, self._sock).start()
        self._ready.set()
        try:
            while not self._stopped.is_set():
                await asyncio.sleep(0.05)
                if time.monotonic() - self._last > self.idle_timeout:
                    self._stopped.set()
        finally:
            await runner.cleanup()

    def _serve(self) -> None:
        try:
            asyncio.run(self._main())
        finally:
            self._stopped.set()
            self._ready.set()

    def start(self) -> ScriptedServer:
        self._last = time.monotonic()
        self._thread.start()
        self._ready.wait(30)
        return self

    def wait(self) -> None:
        """Blocks until the server stops (idle timeout or ``stop()``)."""
        self._thread.join()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=30)
        self._sock.close()

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
    server.wait()


if __name__ == "__main__":
    main()
