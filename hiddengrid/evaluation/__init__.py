"""Evaluation as a Python API: which agents on which envs, checked, compiled, run and tabled.

``hiddengrid eval`` is a thin reader of this package: it turns its options into an
:class:`EvalRequest`, and prints what :func:`plan_eval`, :meth:`EvalPlan.prepare` and
:meth:`EvalPlan.run` return. A Python user gets the same evaluation (Ray shards, a PPO
checkpoint, a language model) without the command line::

    from hiddengrid.evaluation import EvalRequest, evaluate, format_table
    results = evaluate(EvalRequest(envs=["hiddengrid/AnomalyMapping-v0"], episodes=1000))
    print(format_table(results))

Three kinds of agent are served (:mod:`hiddengrid.evaluation.kinds`): an env's own agents,
``ppo`` (a checkpoint written by ``hiddengrid train``) and ``llm`` (an OpenAI-compatible
server). Built-in agents run in this process or as Ray shards with equal results; the seeded
episode loop itself is :func:`hiddengrid.evaluate.run_episodes`.

Every mistake in a request raises :class:`EvalError` (one line, naming the command-line
option of the same name) from :func:`plan_eval`, before anything compiles or is written.

This lives beside ``evaluate.py`` rather than in it because ``evaluate.py`` is the low-level
episode loop that the Ray shards, the benchmarks and the design tools import; orchestration
sits one layer above it (it imports ``evaluate``, ``ray_eval``, ``llm`` and ``train``, and none
of them imports it), so the arrows only point down.
"""

from hiddengrid.evaluation.kinds import EXTRA_AGENTS, EvalError, LLMOptions
from hiddengrid.evaluation.plan import (
    DEFAULT_EPISODES,
    DEFAULT_LLM_EPISODES,
    EvalPlan,
    EvalRequest,
    Job,
    check_env_kwargs,
    evaluate,
    format_table,
    plan_eval,
)

__all__ = [
    "DEFAULT_EPISODES",
    "DEFAULT_LLM_EPISODES",
    "EXTRA_AGENTS",
    "EvalError",
    "EvalPlan",
    "EvalRequest",
    "Job",
    "LLMOptions",
    "check_env_kwargs",
    "evaluate",
    "format_table",
    "plan_eval",
]
