"""The ``eval`` options of the ``llm`` agent (how it reaches its model and how it answers).

Kept beside ``cli.py`` so that the command module stays a list of commands. Every option's
destination is the name of a field of :class:`hiddengrid.evaluation.LLMOptions`, which the
``eval`` command fills from them by name.
"""

from __future__ import annotations

import argparse

from hiddengrid.cli_types import (
    nonnegative_float,
    nonnegative_int,
    positive_float,
    positive_int,
    seed_int,
)


def add_llm_options(parser: argparse.ArgumentParser) -> None:
    """Adds the ``llm agent (--agent llm)`` group to the ``eval`` parser."""
    llm = parser.add_argument_group("llm agent (--agent llm)")
    llm.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    llm.add_argument("--model", help="model name to request")
    llm.add_argument("--api-key-env", default="OPENAI_API_KEY", help="env var holding the API key")
    llm.add_argument(
        "--history",
        type=nonnegative_int,
        default=6,
        help="past turns kept in the prompt (default 6)",
    )
    llm.add_argument(
        "--retries", type=nonnegative_int, default=5, help="retries on network errors (default 5)"
    )
    llm.add_argument(
        "--timeout", type=positive_float, default=60.0, help="seconds per request (default 60)"
    )
    llm.add_argument(
        "--concurrency",
        type=positive_int,
        default=1,
        metavar="K",
        help="episodes played at once (default 1)",
    )
    llm.add_argument(
        "--answer-format",
        choices=("direct", "reasoning", "constrained"),
        default=None,
        help="direct: the answer is the action; reasoning: think, then a last line 'ACTION: "
        "...'; constrained: the server's structured output over the legal actions",
    )
    llm.add_argument(
        "--reasoning", action="store_true", help="the same as --answer-format reasoning"
    )
    llm.add_argument(
        "--max-tokens",
        type=positive_int,
        default=None,
        help="per answer (default 64; 4096 with the reasoning format)",
    )
    llm.add_argument(
        "--max-invalid",
        type=seed_int,
        default=3,
        metavar="N",
        help="invalid answers in a row that end an episode (default 3; 0: never)",
    )
    llm.add_argument(
        "--fallback",
        metavar="ACTION",
        help="play ACTION in place of an invalid answer (still counted as invalid)",
    )
    llm.add_argument(
        "--context-tokens",
        type=positive_int,
        default=None,
        metavar="N",
        help="the model's context; older turns are dropped to fit (default: no limit)",
    )
    llm.add_argument(
        "--temperature", type=nonnegative_float, default=0.0, help="sampling temperature"
    )
    llm.add_argument(
        "--trial-episodes",
        type=positive_int,
        default=1,
        metavar="E",
        help="play E consecutive episodes in one conversation (in-context discovery)",
    )
    llm.add_argument(
        "--out",
        metavar="RUN_DIR",
        help="results folder; the same command resumes it (default runs/llm-MODEL-HASH)",
    )
