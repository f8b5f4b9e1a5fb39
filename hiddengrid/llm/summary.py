"""Sums a run's episode records: per env, and by episode index within a trial."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hiddengrid.evaluate import wilson_interval
from hiddengrid.llm.result import LLMEvalResult


def _rate(successes: int, n: int) -> dict[str, Any]:
    low, high = wilson_interval(successes, n)
    return {
        "episodes": n,
        "successes": successes,
        "success_rate": successes / n if n else 0.0,
        "ci95": [low, high],
    }


def summarize_env(records: list[dict[str, Any]], trial_episodes: int) -> dict[str, Any]:
    n = len(records)
    answers = sum(r["answers"] for r in records)
    turns = [t for r in records for t in r["turns"]]
    out = _rate(sum(r["success"] for r in records), n)
    out.update(
        mean_return=sum(r["return"] for r in records) / n if n else 0.0,
        mean_length=sum(r["steps"] for r in records) / n if n else 0.0,
        outcomes=dict(sorted(Counter(r["outcome"] for r in records).items())),
        answers=answers,
        invalid_answers=sum(r["invalid"] for r in records),
        invalid_rate=sum(r["invalid"] for r in records) / answers if answers else 0.0,
        tokens_in=sum(r["tokens_in"] for r in records),
        tokens_out=sum(r["tokens_out"] for r in records),
        retries=sum(r["retries"] for r in records),
        fallbacks=sum(r.get("fallbacks", 0) for r in records),
        latency_s_total=sum(t["latency_s"] for t in turns),
        latency_s_mean=sum(t["latency_s"] for t in turns) / len(turns) if turns else 0.0,
        truncated_answers=sum(t.get("finish_reason") == "length" for t in turns),
    )
    out["by_trial_episode"] = [
        _rate(sum(r["success"] for r in records if r["index"] == i), n_i)
        | {
            "index": i,
            "mean_return": sum(r["return"] for r in records if r["index"] == i) / n_i
            if n_i
            else 0.0,
        }
        for i in range(trial_episodes)
        for n_i in [sum(r["index"] == i for r in records)]
    ]
    return out


def summarize(records: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    trial_episodes = int(config.get("trial_episodes", 1))
    envs = list(config.get("envs") or dict.fromkeys(r["env"] for r in records))
    per_env = {
        env_id: summarize_env([r for r in records if r["env"] == env_id], trial_episodes)
        for env_id in envs
    }
    keys = ("answers", "invalid_answers", "tokens_in", "tokens_out", "retries")
    total = {k: sum(v[k] for v in per_env.values()) for k in keys}
    total["episodes"] = len(records)
    total["latency_s_total"] = sum(v["latency_s_total"] for v in per_env.values())
    return {"config": config, "envs": per_env, "total": total}


def eval_result(env_id: str, env_summary: dict[str, Any]) -> LLMEvalResult:
    """The env's summary as a row of ``hiddengrid eval``'s table (an ``EvalResult``)."""
    return LLMEvalResult(
        env_id=env_id,
        agent="llm",
        episodes=env_summary["episodes"],
        successes=env_summary["successes"],
        mean_return=env_summary["mean_return"],
        mean_length=env_summary["mean_length"],
        outcomes=env_summary["outcomes"],
        answers=env_summary["answers"],
        invalid_answers=env_summary["invalid_answers"],
        tokens_in=env_summary["tokens_in"],
        tokens_out=env_summary["tokens_out"],
        latency_s_total=env_summary["latency_s_total"],
        by_trial_episode=[row["success_rate"] for row in env_summary["by_trial_episode"]],
    )
