"""The LLM agent end to end over real HTTP, against a scripted chat-completions server."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from hiddengrid.cli import main
from hiddengrid.llm.client import ChatClient, LLMAgent, LLMError, run_llm_episodes

ID = "hiddengrid/AnomalyMapping-v0"


class ScriptedServer:
    """A loopback server answering chat completions from a script; records every request."""

    def __init__(self, answers: list[str], failures: int = 0, status: int = 503) -> None:
        self.answers = answers
        self.failures = failures
        self.status = status
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                if server.failures > 0:
                    server.failures -= 1
                    self.send_response(server.status)
                    self.end_headers()
                    return
                answer = server.answers[(len(server.requests) - 1) % len(server.answers)]
                payload = {"choices": [{"message": {"role": "assistant", "content": answer}}]}
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_episodes_over_http_with_log(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_KEY", "sk-test")
    # "mark" at once ends each episode; one junk answer first exercises the invalid path.
    with ScriptedServer(["what?", "mark"]) as server:
        client = ChatClient(server.url, "scripted", api_key_env="TEST_KEY", backoff=0.01)
        log = tmp_path / "log.jsonl"
        result = run_llm_episodes(ID, LLMAgent(client, history_turns=2), 3, seed=0, log_path=log)
    assert result.episodes == 3 and result.answers == 6 and result.invalid_answers == 3
    assert result.invalid_rate == 0.5
    assert sum(result.outcomes.values()) == 3
    assert set(result.outcomes) <= {"success", "wrong_mark"}
    assert server.requests[0]["path"] == "/v1/chat/completions"
    assert server.requests[0]["auth"] == "Bearer sk-test"
    assert server.requests[0]["body"]["model"] == "scripted"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["seed"] for x in lines] == [0, 1, 2]
    first = lines[0]["turns"]
    assert first[0]["answer"] == "what?" and "invalid" in first[0]
    assert first[1]["action"] == "mark" and first[1]["prompt"][0]["role"] == "system"


def test_history_window_is_bounded():
    with ScriptedServer(["rotate left"]) as server:
        client = ChatClient(server.url, "m", backoff=0.01)
        run_llm_episodes(ID, LLMAgent(client, history_turns=3), 1, seed=0)
    sizes = [len(r["body"]["messages"]) for r in server.requests]
    assert len(sizes) == 30  # rotations until the timeout
    assert max(sizes) == 1 + 2 * 3 + 1  # system, 3 past turns, the current observation


def test_retries_with_backoff_then_succeeds():
    with ScriptedServer(["mark"], failures=2) as server:
        client = ChatClient(server.url, "m", backoff=0.01, retries=3)
        result = run_llm_episodes(ID, LLMAgent(client), 1, seed=0)
    assert result.episodes == 1 and len(server.requests) == 3


def test_gives_up_after_retries_and_on_client_errors():
    with ScriptedServer(["mark"], failures=10) as server:
        client = ChatClient(server.url, "m", backoff=0.001, retries=2)
        with pytest.raises(LLMError, match="3 attempts"):
            client.complete([{"role": "user", "content": "hi"}])
    with ScriptedServer(["mark"], failures=1, status=401) as server:
        client = ChatClient(server.url, "m", backoff=0.001, retries=2)
        with pytest.raises(LLMError, match="401"):
            client.complete([{"role": "user", "content": "hi"}])
        assert len(server.requests) == 1


def test_cli_eval_reports_llm_next_to_other_agents(tmp_path, capsys):
    with ScriptedServer(["6"]) as server:
        out = tmp_path / "r.json"
        main(
            [
                "eval",
                "--env",
                ID,
                "--agent",
                "llm",
                "--agent",
                "random",
                "--episodes",
                "4",
                "--base-url",
                server.url,
                "--model",
                "m",
                "--json",
                str(out),
            ]
        )
    table = capsys.readouterr().out
    assert "llm" in table and "random" in table
    rows = json.loads(out.read_text())
    llm = next(r for r in rows if r["agent"] == "llm")
    assert llm["episodes"] == 4 and llm["invalid_rate"] == 0.0
