"""The evaluation's Python API: what ``hiddengrid eval`` runs, without the command line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hiddengrid
from hiddengrid.evaluate import run_episodes
from hiddengrid.evaluation import (
    EvalError,
    EvalRequest,
    LLMOptions,
    evaluate,
    format_table,
    plan_eval,
)
from hiddengrid.ray_eval import run_sharded

ID = "hiddengrid/AnomalyMapping-v0"


def test_evaluate_equals_the_episode_loop_and_the_shards():
    request = EvalRequest(envs=[ID], agents=["heuristic", "random"], episodes=40, seed=11)
    results = evaluate(request)
    assert [(r.env_id, r.agent) for r in results] == [(ID, "heuristic"), (ID, "random")]
    for r in results:
        direct = run_episodes(ID, r.agent, 40, seed=11)
        sharded = run_sharded(ID, r.agent, 40, seed=11, shard_size=7)
        assert r.returns == direct.returns == sharded.returns
        assert r.outcomes == direct.outcomes == sharded.outcomes
    table = format_table(results)
    assert table.count(ID) == 2 and "95% CI" in table


def test_plan_lists_jobs_with_their_defaults_and_json_rows_carry_the_request():
    plan = plan_eval(EvalRequest(envs=["AnomalyMapping-v0"], agents=["oracle", "oracle"]))
    assert [(j.env_id, j.agent, j.episodes) for j in plan.jobs] == [(ID, "oracle", 10_000)]
    fake = run_episodes(ID, "oracle", 3, seed=0)
    assert plan.json_rows([fake])[0]["seed"] == 0
    assert plan.json_rows([fake])[0]["env_kwargs"] == {}


@pytest.mark.parametrize(
    "request_, words",
    [
        (EvalRequest(envs=["Nope-v0"]), "unknown env"),
        (EvalRequest(envs=[ID], agents=["nobody"]), "llm and ppo"),
        (EvalRequest(envs=[ID], episodes=0), "--episodes"),
        (EvalRequest(envs=[ID], seed=-1), "--seed"),
        (EvalRequest(envs=[ID], env_kwargs={"level": 2}), "--env-arg"),
        (EvalRequest(envs=[ID], agents=["ppo"]), "--checkpoint"),
        (EvalRequest(envs=[ID], agents=["llm"]), "--base-url"),
        (EvalRequest(envs=[ID], agents=["llm"], llm=LLMOptions("ftp://x", "m")), "http(s)"),
        (EvalRequest(envs=[ID], ray="nowhere"), "HOST:PORT"),
    ],
)
def test_every_mistake_is_an_eval_error_before_any_run(request_, words, monkeypatch):
    monkeypatch.setattr("hiddengrid.evaluate.run_episodes", None)  # a run would fail loudly
    with pytest.raises(EvalError, match=None) as info:
        plan_eval(request_)
    assert words in str(info.value) and "\n" not in str(info.value)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_orchestration_sits_above_what_it_uses_and_the_cli_above_it():
    """No cycle: nothing the evaluation uses imports it back, and it never imports the CLI."""
    root = Path(hiddengrid.__file__).parent
    below = [root / "evaluate.py", root / "ray_eval.py"]
    below += [*(root / "llm").glob("*.py"), *(root / "train").glob("*.py")]
    below += [*(root / "core").glob("*.py"), *(root / "envs").rglob("*.py")]
    for path in below:
        assert not any(m.startswith("hiddengrid.evaluation") for m in _imports(path)), path
    for path in (root / "evaluation").glob("*.py"):
        assert "hiddengrid.cli" not in _imports(path), path
    cli = (root / "cli.py").read_text()
    assert len(cli.splitlines()) <= 700
    assert '"llm"' not in cli and '"ppo"' not in cli  # the agent kinds live in evaluation


def test_an_interval_bound_is_never_rounded_onto_the_end_it_is_not_on():
    from hiddengrid.evaluate import EvalResult, wilson_interval
    from hiddengrid.evaluation.plan import format_percent

    low, high = wilson_interval(10_000, 10_000)
    assert (format_percent(low), format_percent(high)) == ("99.96%", "100.0%")
    low, high = wilson_interval(0, 10_000)
    assert (format_percent(low), format_percent(high)) == ("0.0%", "0.04%")
    assert format_percent(0.5) == "50.0%" and format_percent(0.123456) == "12.3%"
    perfect = EvalResult(ID, "oracle", 10_000, 10_000, 1.0, 5.0)
    assert "[99.96%, 100.0%]" in format_table([perfect])


@pytest.mark.parametrize("n", [1, 7, 100, 10_000, 1_000_000])
def test_every_displayed_bound_keeps_its_side(n):
    from hiddengrid.evaluate import wilson_interval
    from hiddengrid.evaluation.plan import format_percent

    for k in sorted({0, 1, n // 2, n - 1, n}):
        low, high = wilson_interval(k, n)
        for bound in (low, high):
            shown = float(format_percent(bound)[:-1]) / 100
            assert (shown < 1) == (bound < 1) and (shown > 0) == (bound > 0), (k, n, bound)


def test_llm_rows_show_tokens_and_seconds_per_answer():
    from hiddengrid.evaluate import EvalResult
    from hiddengrid.llm.result import LLMEvalResult

    llm = LLMEvalResult(
        ID, "llm", 2, 1, 0.5, 3.0, answers=8, tokens_in=4000, tokens_out=20, latency_s_total=6.0
    )
    table = format_table([EvalResult(ID, "random", 2, 0, 0.0, 3.0), llm]).splitlines()
    assert table[0].split()[-5:] == ["tok", "in/ans", "tok", "out/ans", "s/ans"]
    row = next(line for line in table if " llm " in line)
    assert row.split()[-3:] == ["500", "2.5", "0.75"]  # 4000/8, 20/8, 6.0/8
    random_row = next(line for line in table if " random " in line)
    assert random_row.split()[-1] == "3.00"  # a numeric agent has no per-answer costs
    assert llm.as_dict()["latency_s_total"] == 6.0
    # Without an llm row the table keeps its columns.
    assert "s/ans" not in format_table([EvalResult(ID, "random", 2, 0, 0.0, 3.0)])
