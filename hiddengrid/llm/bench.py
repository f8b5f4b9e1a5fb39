"""How much parallel episodes buy: the same LLM run at several concurrencies against the
scripted server answering after a fixed latency (``hiddengrid bench --llm``).

Every episode is AnomalyMapping answered with ``mark``, so each is exactly one request and the
runs differ only in how many requests are in flight. The sequential time is about
``episodes x latency``; the ratio to it is what concurrency buys on a server that serves many
requests at once.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

from hiddengrid.llm.run import RunConfig, run
from hiddengrid.llm.testserver import ScriptedServer, scripted

BENCH_ENV = "hiddengrid/AnomalyMapping-v0"


@dataclass(frozen=True)
class ConcurrencyRow:
    concurrency: int
    episodes: int
    requests: int
    seconds: float
    ratio: float  # speed-up over the first (sequential) row

    def as_dict(self) -> dict[str, float]:
        return {
            "concurrency": self.concurrency,
            "episodes": self.episodes,
            "requests": self.requests,
            "seconds": self.seconds,
            "ratio_to_first": self.ratio,
        }


def run_concurrency_bench(
    latency: float = 0.2, episodes: int = 128, levels: Sequence[int] = (1, 64)
) -> list[ConcurrencyRow]:
    rows: list[ConcurrencyRow] = []
    with ScriptedServer(scripted(["mark"]), latency=latency, record=False) as server:
        # One untimed episode first: loading the env's compiled kernels is not the subject.
        warm = RunConfig(envs=(BENCH_ENV,), model="bench", base_url=server.url, episodes=1)
        with tempfile.TemporaryDirectory() as tmp:
            run(warm, tmp)
        for k in levels:
            config = RunConfig(
                envs=(BENCH_ENV,), model="bench", base_url=server.url, episodes=episodes
            )
            before = server.served
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                run(config, tmp, concurrency=k)
                seconds = time.perf_counter() - start
            base = rows[0].seconds if rows else seconds
            rows.append(
                ConcurrencyRow(k, episodes, server.served - before, seconds, base / seconds)
            )
    return rows


def format_rows(rows: Sequence[ConcurrencyRow], latency: float) -> str:
    head = f"{'concurrency':>11} {'episodes':>8} {'requests':>8} {'seconds':>8} {'speed-up':>8}"
    lines = [f"LLM episodes against the scripted server, {latency * 1000:g} ms per answer", head]
    lines.append("-" * len(head))
    lines += [
        f"{r.concurrency:>11} {r.episodes:>8} {r.requests:>8} {r.seconds:>8.2f} {r.ratio:>7.1f}x"
        for r in rows
    ]
    return "\n".join(lines)
