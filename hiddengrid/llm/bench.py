"""How much parallel episodes buy: the same LLM run at several concurrencies against the
scripted server answering after a fixed latency (``hiddengrid bench --llm``).

The server runs in its own process, as a real server would, so its work does not queue behind
the harness's in one interpreter.

Every episode is AnomalyMapping answered with ``mark``, so each is exactly one request and the
runs differ only in how many requests are in flight. The sequential time is about
``episodes x latency``; the ratio to it is what concurrency buys on a server that serves many
requests at once. The harness's own CPU time is reported too: on a busy machine it is what
bounds the speed-up (about ``latency / (latency / K + CPU per request)``).

:func:`run_server_bench` asks the same of a real server (``python -m hiddengrid.llm.bench URL
MODEL``): episodes of one answer each (``max_invalid=1``; a valid answer plays on, so requests
are counted), timed at each concurrency, in answers per second.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

from hiddengrid.llm.run import RunConfig, play_run

BENCH_ENV = "hiddengrid/AnomalyMapping-v0"


@dataclass(frozen=True)
class ConcurrencyRow:
    concurrency: int
    episodes: int
    requests: int
    seconds: float
    cpu_seconds: float  # the harness process's CPU time (the server runs in its own process)
    ratio: float  # speed-up over the first (sequential) row

    def as_dict(self) -> dict[str, float]:
        return {
            "concurrency": self.concurrency,
            "episodes": self.episodes,
            "requests": self.requests,
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
            "ratio_to_first": self.ratio,
        }


def run_concurrency_bench(
    latency: float = 0.2, episodes: int = 128, levels: Sequence[int] = (1, 64)
) -> list[ConcurrencyRow]:
    rows: list[ConcurrencyRow] = []
    server_args = ["--latency", str(latency), "--answer", "mark", "--idle-timeout", "120"]
    server = subprocess.Popen(
        [sys.executable, "-m", "hiddengrid.llm.testserver", *server_args],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        # One untimed episode first: loading the env's compiled kernels is not the subject.
        warm = RunConfig(envs=(BENCH_ENV,), model="bench", base_url=url, episodes=1)
        with tempfile.TemporaryDirectory() as tmp:
            play_run(warm, tmp)
        for k in levels:
            config = RunConfig(envs=(BENCH_ENV,), model="bench", base_url=url, episodes=episodes)
            with tempfile.TemporaryDirectory() as tmp:
                start, cpu = time.perf_counter(), time.process_time()
                _, summary = play_run(config, tmp, concurrency=k)
                seconds = time.perf_counter() - start
                cpu = time.process_time() - cpu
            requests = int(summary["total"]["answers"])
            base = rows[0].seconds if rows else seconds
            rows.append(ConcurrencyRow(k, episodes, requests, seconds, cpu, base / seconds))
    finally:
        server.terminate()
        server.wait()
    return rows


def run_server_bench(
    base_url: str,
    model: str,
    episodes: int = 8,
    levels: Sequence[int] = (1, 2, 4, 8),
    max_tokens: int = 16,
    env_id: str = BENCH_ENV,
) -> list[dict[str, float]]:
    """Each level plays ``episodes`` fresh episodes (seeds 0..episodes-1, one answer each
    unless the model answers validly) at that concurrency; rows of seconds, answers, tokens
    and answers per second. One untimed answer first (the server's warm-up is not the
    subject)."""
    rows: list[dict[str, float]] = []

    def config(n: int, seed: int) -> RunConfig:
        return RunConfig(
            envs=(env_id,), model=model, base_url=base_url, episodes=n, seed=seed,
            max_tokens=max_tokens, max_invalid=1,
        )  # fmt: skip

    with tempfile.TemporaryDirectory() as tmp:
        play_run(config(1, 1_000_000), tmp, timeout=600, retries=0)
    for k in levels:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            _, summary = play_run(config(episodes, 0), tmp, concurrency=k, timeout=600, retries=0)
            seconds = time.perf_counter() - start
        total = summary["total"]
        answers = int(total["answers"])
        rows.append(
            {
                "concurrency": k,
                "episodes": episodes,
                "answers": answers,
                "tokens_in": int(total["tokens_in"]),
                "tokens_out": int(total["tokens_out"]),
                "seconds": seconds,
                "answers_per_s": answers / seconds,
                "s_per_answer_mean": total["latency_s_total"] / answers if answers else 0.0,
            }
        )
    return rows


def format_rows(rows: Sequence[ConcurrencyRow], latency: float) -> str:
    head = (
        f"{'concurrency':>11} {'episodes':>8} {'requests':>8} {'seconds':>8} "
        f"{'CPU s':>7} {'speed-up':>8}"
    )
    lines = [f"LLM episodes against the scripted server, {latency * 1000:g} ms per answer", head]
    lines.append("-" * len(head))
    lines += [
        f"{r.concurrency:>11} {r.episodes:>8} {r.requests:>8} {r.seconds:>8.2f} "
        f"{r.cpu_seconds:>7.2f} {r.ratio:>7.1f}x"
        for r in rows
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="answers per second of a real server")
    parser.add_argument("base_url")
    parser.add_argument("model")
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--max-tokens", type=int, default=16)
    args = parser.parse_args(argv)
    rows = run_server_bench(args.base_url, args.model, args.episodes, args.levels, args.max_tokens)
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
