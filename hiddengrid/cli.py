"""The ``hiddengrid`` command (also ``python -m hiddengrid``): eval | bench | train | record |
play | report | compile.

Each subcommand is one ``add_<name>`` function that builds its parser and names the function
that runs it; :data:`SUBCOMMANDS` lists them in ``--help`` order. Options several commands
share (env ids, agents, seed, env arguments, JSON output) come from the ``*_option`` helpers,
so they read and check the same everywhere.

Every mistake in the input is one line on stderr and exit status 2, before any work starts:
argument errors, unknown names, unwritable output paths and missing optional packages.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from hiddengrid import __version__
from hiddengrid.registry import ENV_IDS, definition_of

DEFAULT_EPISODES = 10_000
DEFAULT_LLM_EPISODES = 20
USAGE_ERROR = 2


class CLIError(Exception):
    """A mistake in the command line or its environment: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but an error is one line (no usage block) and the epilog is built lazily."""

    def __init__(self, *args: Any, epilog_fn: Callable[[], str] | None = None, **kwargs: Any):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self._epilog_fn = epilog_fn

    def format_help(self) -> str:
        if self._epilog_fn is not None:  # imports every env: only when help is asked for
            self.epilog = self._epilog_fn()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(USAGE_ERROR)


# --- argument types: each refuses a bad value with one line saying what is valid -----------


def _integer(text: str, low: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer; {what}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"{value} is out of range; {what}")
    return value


def positive_int(text: str) -> int:
    return _integer(text, 1, "give an integer >= 1")


def seed_int(text: str) -> int:
    return _integer(text, 0, "a seed is an integer >= 0")


def nonnegative_int(text: str) -> int:
    return _integer(text, 0, "give an integer >= 0")


def nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give a number >= 0") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is out of range; give a number >= 0")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give a number > 0") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is out of range; give a number > 0")
    return value


def env_id_arg(text: str) -> str:
    """A registered id; the ``hiddengrid/`` prefix may be left out."""
    for candidate in (text, f"hiddengrid/{text}"):
        if candidate in ENV_IDS:
            return candidate
    raise argparse.ArgumentTypeError(f"unknown env {text!r}; registered: {', '.join(ENV_IDS)}")


def env_arg(text: str) -> tuple[str, Any]:
    """``key=value``; the value is read as JSON (``2``, ``true``), else kept as text."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not key=value (e.g. level=2)")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


# --- shared options ---------------------------------------------------------------------------


def env_option(p: argparse.ArgumentParser, repeatable: bool = True) -> None:
    if repeatable:
        p.add_argument(
            "--env",
            action="append",
            type=env_id_arg,
            metavar="ID",
            help="env id, repeatable (default: every registered env)",
        )
    else:
        p.add_argument("env_id", type=env_id_arg, metavar="ID", help="env id (listed below)")


def env_args_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--env-arg",
        action="append",
        type=env_arg,
        default=[],
        metavar="KEY=VALUE",
        help="keyword argument of the env, repeatable (e.g. level=2 for FieldCipher)",
    )


def seed_option(p: argparse.ArgumentParser, default: int | None, help: str) -> None:
    p.add_argument("--seed", type=seed_int, default=default, help=help)


def json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", metavar="FILE", help="also write the results to FILE as JSON")


def check_output_path(path: str | None, option: str, suffix: str | None = None) -> None:
    """Refuses, before the run, an output path that cannot be written."""
    if path is None:
        return
    target = Path(path)
    if suffix is not None and target.suffix.lower() != suffix:
        raise CLIError(f"{option} {path!r} must be a {suffix} file")
    folder = target.parent
    if target.is_dir():
        raise CLIError(f"{option} {path!r} is a folder; give a file name")
    if not folder.is_dir():
        raise CLIError(f"{option} {path!r}: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise CLIError(f"{option} {path!r} is not writable")


def env_kwargs(env_id: str, pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """The ``--env-arg`` pairs as keyword arguments, checked by the env before any run."""
    import gymnasium as gym

    kwargs = dict(pairs)
    try:
        definition_of(env_id).configure({**gym.spec(env_id).kwargs, **kwargs})
    except (TypeError, ValueError) as exc:
        raise CLIError(f"--env-arg for {env_id}: {exc}") from None
    return kwargs


def agents_of(env_id: str) -> list[str]:
    return list(definition_of(env_id).agents)


def ids_and_agents() -> str:
    lines = ["env ids and their agents (plus llm, an OpenAI-compatible model, for eval):"]
    lines += [f"  {env_id}: {', '.join(agents_of(env_id))}" for env_id in ENV_IDS]
    return "\n".join(lines)


def _unique(items: Sequence[str] | None) -> list[str] | None:
    """Repeated names given once each, in the order first given."""
    return None if items is None else list(dict.fromkeys(items))


def _write_json(path: str, rows: list[dict[str, Any]]) -> None:
    with open(path, "w") as fh:
        json.dump(rows, fh, indent=2)


# --- eval -------------------------------------------------------------------------------------


def add_eval(sub: Any) -> None:
    p = sub.add_parser(
        "eval",
        help="success rate of every agent on every env (the main job)",
        description="Success rate, 95 % interval, mean return and length of each agent on each "
        "env. Episode k plays the first episode of an env reset with seed SEED+k.",
        epilog_fn=ids_and_agents,
    )
    env_option(p)
    p.add_argument(
        "--agent",
        action="append",
        metavar="NAME",
        help="agent name, repeatable (default: every agent of the env; listed below)",
    )
    p.add_argument(
        "--episodes",
        type=positive_int,
        default=None,
        help=f"episodes per env and agent (default {DEFAULT_EPISODES}; "
        f"{DEFAULT_LLM_EPISODES} for llm)",
    )
    seed_option(p, 0, "episode k plays seed SEED+k (default 0)")
    env_args_option(p)
    json_option(p)
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="shard episodes over Ray tasks (a local Ray without ADDRESS); same results",
    )
    p.add_argument(
        "--shard-size",
        type=positive_int,
        default=1000,
        metavar="N",
        help="episodes per Ray task with --ray (default 1000)",
    )
    p.add_argument(
        "--checkpoint", metavar="FILE", help="for --agent ppo: a file written by hiddengrid train"
    )
    llm = p.add_argument_group("llm agent (--agent llm)")
    llm.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    llm.add_argument("--model", help="model name to request")
    llm.add_argument("--api-key-env", default="OPENAI_API_KEY", help="env var holding the API key")
    llm.add_argument(
        "--history", type=seed_int, default=6, help="past turns kept in the prompt (default 6)"
    )
    llm.add_argument(
        "--retries", type=seed_int, default=5, help="retries on network errors (default 5)"
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
        "--reasoning",
        action="store_true",
        help="let the model think, then read its last line 'ACTION: ...'",
    )
    llm.add_argument(
        "--max-tokens",
        type=positive_int,
        default=None,
        help="per answer (default 64; 4096 with --reasoning)",
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
    p.set_defaults(func=cmd_eval)


def eval_jobs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(env id, agent) pairs to run, each once, after checking every name."""
    jobs = []
    for env_id in _unique(args.env) or list(ENV_IDS):
        agents = agents_of(env_id)
        for name in _unique(args.agent) or agents:
            if name not in agents and name not in ("llm", "ppo"):
                raise CLIError(
                    f"{env_id} has no agent {name!r}; it has {', '.join(agents)}, llm and ppo"
                )
            jobs.append((env_id, name))
    return jobs


def cmd_eval(args: argparse.Namespace) -> int:
    from hiddengrid.evaluate import prepare, run_episodes

    jobs = eval_jobs(args)
    kwargs = {
        env_id: env_kwargs(env_id, args.env_arg) for env_id in dict.fromkeys(e for e, _ in jobs)
    }
    check_output_path(args.json, "--json")
    ppo_agent = _ppo_agent(args, jobs) if any(name == "ppo" for _, name in jobs) else None

    def episodes_of(name: str) -> int:
        if args.episodes is not None:
            return args.episodes
        return DEFAULT_LLM_EPISODES if name == "llm" else DEFAULT_EPISODES

    llm_envs = [env_id for env_id, name in jobs if name == "llm"]
    llm_config = _llm_config(args, llm_envs, episodes_of("llm")) if llm_envs else None

    # Compile first, saying so, so that the progress bar starts on real speeds.
    for env_id, kw in kwargs.items():
        names = [name for e, name in jobs if e == env_id and name not in ("llm", "ppo")]
        prepare(env_id, names, kw, say=lambda line: print(line, file=sys.stderr, flush=True))

    from tqdm import tqdm

    results = []
    total = sum(episodes_of(name) for _, name in jobs)
    with tqdm(total=total, unit="ep", file=sys.stderr) as bar:
        llm_results = _run_llm(args, llm_config, bar) if llm_config else {}
        for env_id, name in jobs:
            bar.set_description(f"{env_id.split('/')[-1]} {name}")
            if name == "llm":
                results.append(llm_results[env_id])
            elif args.ray is not None and name != "ppo":
                from hiddengrid.ray_eval import ray_executor, run_sharded

                result = run_sharded(
                    env_id,
                    name,
                    episodes_of(name),
                    seed=args.seed,
                    shard_size=args.shard_size,
                    executor=ray_executor(args.ray or None),
                    env_kwargs=kwargs[env_id],
                )
                bar.update(result.episodes)
                results.append(result)
            else:
                result = run_episodes(
                    env_id,
                    name,
                    episodes_of(name),
                    seed=args.seed,
                    progress=bar.update,
                    env_kwargs=kwargs[env_id],
                    agent_factory=ppo_agent if name == "ppo" else None,
                )
                results.append(result)
    head = (
        f"{'env':<36} {'agent':<10} {'episodes':>8} {'success':>8} {'95% CI':>15} "
        f"{'return':>8} {'length':>7} {'invalid':>8}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        low, high = r.interval
        invalid = getattr(r, "invalid_rate", None)
        print(
            f"{r.env_id:<36} {r.agent:<10} {r.episodes:>8} {r.success_rate:>8.1%} "
            f"{f'[{low:.1%}, {high:.1%}]':>15} {r.mean_return:>8.3f} {r.mean_length:>7.2f} "
            f"{'' if invalid is None else f'{invalid:.1%}':>8}"
        )
    if args.json:
        rows = [{**r.as_dict(), "seed": args.seed, "env_kwargs": kwargs[r.env_id]} for r in results]
        _write_json(args.json, rows)
    return 0


def _ppo_agent(args: argparse.Namespace, jobs: list[tuple[str, str]]) -> Callable[..., Any]:
    """A factory for the checkpoint's agent; checks the file and its env before any episode."""
    if not args.checkpoint:
        raise CLIError("--agent ppo needs --checkpoint FILE (written by hiddengrid train)")
    try:
        from hiddengrid.train.agent import PPOAgent
        from hiddengrid.train.checkpoint import load_checkpoint
    except ImportError as exc:
        raise CLIError(
            f"--agent ppo needs the train extra (pip install 'hiddengrid[train]'): {exc}"
        ) from None
    try:
        _, config, data = load_checkpoint(args.checkpoint)
    except (OSError, ValueError) as exc:
        raise CLIError(f"--checkpoint {args.checkpoint!r}: {exc}") from None
    for env_id, name in jobs:
        if name == "ppo" and env_id != config.env_id:
            raise CLIError(
                f"checkpoint {args.checkpoint!r} was trained on {config.env_id}, not {env_id}; "
                f"pass --env {config.env_id}"
            )
        if name == "ppo":  # sizes checked here, not inside the first episode
            import gymnasium as gym

            from hiddengrid.train.checkpoint import check_fits_env

            env = gym.make(env_id, **env_kwargs(env_id, args.env_arg))
            try:
                check_fits_env(args.checkpoint, data, env)
            except ValueError as exc:
                raise CLIError(str(exc)) from None
            finally:
                env.close()
    return functools.partial(PPOAgent, checkpoint=args.checkpoint)


def _llm_config(args: argparse.Namespace, env_ids: list[str], episodes: int) -> Any:
    """The LLM run's settings and its server, checked before any work starts."""
    from hiddengrid.llm.run import RunConfig

    if not args.base_url or not args.model:
        raise CLIError("--agent llm needs --base-url and --model")
    try:
        config = RunConfig(
            envs=tuple(env_ids),
            model=args.model,
            base_url=args.base_url,
            episodes=episodes,
            seed=args.seed,
            trial_episodes=args.trial_episodes,
            reasoning=args.reasoning,
            max_tokens=args.max_tokens,
            temperature=args.temperature,
            history=args.history,
        )
    except ValueError as exc:
        raise CLIError(f"--agent llm: {exc}") from None
    _check_llm_server(args)
    return config


def _run_llm(args: argparse.Namespace, config: Any, bar: Any) -> dict:
    """Runs (or resumes) the LLM agent into one results folder."""
    from hiddengrid.llm.client import LLMError
    from hiddengrid.llm.run import RunDirError, run
    from hiddengrid.llm.summary import eval_result

    bar.set_description(f"llm x{args.concurrency}")
    folder = Path(args.out) if args.out else config.default_dir()
    try:
        folder, summary = run(
            config,
            folder,
            concurrency=args.concurrency,
            api_key_env=args.api_key_env,
            retries=args.retries,
            timeout=args.timeout,
            progress=bar.update,
        )
    except (LLMError, RunDirError) as exc:
        raise CLIError(f"--agent llm: {exc}") from None
    except KeyboardInterrupt:
        raise CLIError(
            f"interrupted: finished trials are saved in {folder}; run the same command to resume"
        ) from None
    bar.write(
        f"llm results: {folder} (hiddengrid report {folder} writes the HTML page)", sys.stderr
    )
    if config.trial_episodes > 1:
        for env_id, env_summary in summary["envs"].items():
            curve = ", ".join(
                f"{row['index'] + 1}: {row['success_rate']:.0%}"
                for row in env_summary["by_trial_episode"]
            )
            bar.write(f"{env_id} success by episode within a trial: {curve}", sys.stderr)
    return {env_id: eval_result(env_id, s) for env_id, s in summary["envs"].items()}


def _check_llm_server(args: argparse.Namespace) -> None:
    """The server named by ``--base-url``: an http(s) URL that accepts a connection."""
    from urllib.parse import urlparse

    if not args.base_url or not args.model:
        raise CLIError("--agent llm needs --base-url and --model")
    url = urlparse(args.base_url)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise CLIError(f"--base-url {args.base_url!r} is not an http(s) URL")
    _check_reachable(url.hostname, url.port or (443 if url.scheme == "https" else 80), args)


def _check_reachable(host: str, port: int, args: argparse.Namespace) -> None:
    """A server that is not listening is named before the run, not after minutes of retries."""
    import socket

    try:
        socket.create_connection((host, port), timeout=min(args.timeout, 10.0)).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise CLIError(f"--base-url {args.base_url}: cannot connect ({reason})") from None


# --- bench ------------------------------------------------------------------------------------


def add_bench(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="steps per second, with ratios to Gymnasium's SyncVectorEnv",
        description="Steps per second of the single env, Gymnasium's SyncVectorEnv and the "
        "native vector env at each size, measured in one run.",
        epilog_fn=ids_and_agents,
    )
    env_option(p)
    p.add_argument(
        "--seconds",
        type=positive_float,
        default=1.0,
        help="time budget per configuration in seconds (default 1)",
    )
    p.add_argument(
        "--sizes",
        type=positive_int,
        nargs="+",
        default=[1, 64, 4096],
        metavar="N",
        help="native vector env sizes (default 1 64 4096)",
    )
    p.add_argument(
        "--threads-n",
        type=nonnegative_int,
        default=4096,
        metavar="N",
        help="sub-envs for the one-thread against all-cores comparison (0 skips it; default 4096)",
    )
    p.add_argument(
        "--scaling",
        type=positive_int,
        nargs="+",
        default=[],
        metavar="N",
        help="also compare one thread with all cores at these numbers of sub-envs",
    )
    p.add_argument(
        "--anchor-n",
        type=nonnegative_int,
        default=4096,
        metavar="N",
        help="sub-envs for AnomalyMapping's one-thread comparison with the hand-written C "
        "anchor (needs a C compiler; 0 skips it; default 4096)",
    )
    json_option(p)
    p.add_argument(
        "--llm",
        action="store_true",
        help="instead: LLM episodes at several concurrencies against a scripted local server",
    )
    p.add_argument(
        "--llm-latency",
        type=nonnegative_float,
        default=0.2,
        help="seconds per answer (--llm, default 0.2)",
    )
    p.add_argument(
        "--llm-episodes",
        type=positive_int,
        default=128,
        help="episodes per level (--llm, default 128)",
    )
    p.add_argument(
        "--llm-concurrency",
        type=positive_int,
        nargs="+",
        default=[1, 64],
        metavar="K",
        help="concurrency levels compared (--llm, default 1 64)",
    )
    p.add_argument(
        "--train",
        action="store_true",
        help="instead: PPO training steps/s, ours against Stable-Baselines3, on the first --env",
    )
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    check_output_path(args.json, "--json")
    if args.llm:
        return _bench_llm(args)
    if args.train:
        from hiddengrid.train.bench import run_train_bench

        env_id = (args.env or ["hiddengrid/AnomalyMapping-v0"])[0]
        return run_train_bench(env_id, seconds=args.seconds)
    from hiddengrid.bench import format_table, run_bench

    env_ids = _unique(args.env) or list(ENV_IDS)
    rows = run_bench(
        env_ids,
        args.seconds,
        tuple(dict.fromkeys(args.sizes)),
        args.threads_n,
        tuple(dict.fromkeys(args.scaling)),
        args.anchor_n,
    )
    print(format_table(rows))
    if args.json:
        _write_json(args.json, [r.as_dict() for r in rows])
    return 0


def _bench_llm(args: argparse.Namespace) -> int:
    from hiddengrid.llm.bench import format_rows, run_concurrency_bench

    rows = run_concurrency_bench(args.llm_latency, args.llm_episodes, args.llm_concurrency)
    print(format_rows(rows, args.llm_latency))
    if args.json:
        _write_json(args.json, [r.as_dict() for r in rows])
    return 0


# --- train ------------------------------------------------------------------------------------


def add_train(sub: Any) -> None:
    p = sub.add_parser(
        "train",
        help="train PPO on the native vector env (needs the train extra)",
        description="PPO (PyTorch) on the native vector env with the flat observation path: "
        "feed-forward or recurrent policy, masks and multi-discrete actions handled. Writes a "
        "checkpoint, the learning curve as CSV and PNG, and optionally TensorBoard logs.",
        epilog_fn=ids_and_agents,
    )
    p.add_argument("--env", required=True, type=env_id_arg, metavar="ID", help="env id")
    p.add_argument(
        "--steps", type=positive_int, default=1_500_000, help="env steps (default 1,500,000)"
    )
    seed_option(p, 0, "training seed (default 0)")
    p.add_argument(
        "--policy", default="mlp", choices=("mlp", "gru", "lstm"), help="network (default mlp)"
    )
    p.add_argument(
        "--memory-across-episodes",
        action="store_true",
        help="recurrent memory kept across episodes, previous action/reward/end fed back",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="a new folder (one that holds a run is refused; default runs/<Env>-<policy>-s<seed>, "
        "or -2, -3, ... after it when that holds a run)",
    )
    p.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, cuda[:N]")
    p.add_argument("--num-envs", type=positive_int, help="sub-envs (default 256)")
    p.add_argument("--rollout", type=positive_int, help="steps per sub-env per update (default 64)")
    p.add_argument("--hidden", type=positive_int, help="layer width (default 128)")
    p.add_argument("--learning-rate", type=positive_float, help="Adam step size (default 5e-4)")
    p.add_argument("--entropy-coef", type=nonnegative_float, help="entropy bonus (default 0.01)")
    p.add_argument("--threads", type=positive_int, help="torch CPU threads (default 1)")
    p.add_argument("--tensorboard", action="store_true", help="also log to DIR/tensorboard")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    try:
        from hiddengrid.train import PPOConfig, PPOTrainer
    except ImportError as exc:
        raise CLIError(
            f"train needs the train extra (pip install 'hiddengrid[train]'): {exc}"
        ) from None
    settings = {
        "env_id": args.env,
        "total_steps": args.steps,
        "seed": args.seed,
        "policy": args.policy,
        "memory_across_episodes": args.memory_across_episodes,
        "device": args.device,
    }
    for name in ("num_envs", "rollout", "hidden", "learning_rate", "entropy_coef", "threads"):
        value = getattr(args, name)
        if value is not None:
            settings[name] = value
    try:
        config = PPOConfig.from_dict(settings)
        trainer = PPOTrainer(config, args.out)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    if config.steps != args.steps:
        print(
            f"--steps {args.steps:,} runs {config.steps:,} steps: {config.updates:,} whole "
            f"updates of {config.steps_per_update:,} ({config.num_envs} sub-envs x "
            f"{config.rollout} steps)",
            file=sys.stderr,
        )
    result = trainer.run(progress=not args.quiet, tensorboard=args.tensorboard)
    seconds = result.seconds
    total = sum(seconds.values()) or 1.0
    split = ", ".join(f"{k} {v / total:.0%}" for k, v in seconds.items())
    print(
        f"{args.env} {config.policy}: {result.steps:,} steps at {result.steps_per_second:,.0f} "
        f"steps/s ({split}); success over the last 10 % of training: "
        f"{result.success_rate:.1%}"
    )
    print(f"wrote {result.csv}, {result.checkpoint}" + (f", {result.plot}" if result.plot else ""))
    print(
        f"score it: hiddengrid eval --env {args.env} --agent ppo --checkpoint {result.checkpoint}"
    )
    return 0


# --- record -----------------------------------------------------------------------------------


def add_record(sub: Any) -> None:
    p = sub.add_parser(
        "record",
        help="one episode of an agent as an animated GIF or HTML viewer (needs Pillow)",
        description="Plays one episode of an agent and writes it as an animated GIF "
        "(--out), as the report's self-contained step-through page (--html), or both.",
        epilog_fn=ids_and_agents,
    )
    env_option(p, repeatable=False)
    p.add_argument("--agent", default="oracle", help="agent name (default oracle; listed below)")
    p.add_argument("--out", metavar="FILE.gif", help="GIF file to write")
    p.add_argument("--html", metavar="FILE.html", help="the episode in the step-through viewer")
    seed_option(p, 0, "episode seed (default 0)")
    p.add_argument("--fps", type=positive_int, default=4, help="frames per second (default 4)")
    env_args_option(p)
    p.set_defaults(func=cmd_record)


def cmd_record(args: argparse.Namespace) -> int:
    from hiddengrid.record import record_episode, require_pillow

    agents = agents_of(args.env_id)
    if args.agent not in agents:
        raise CLIError(f"{args.env_id} has no agent {args.agent!r}; it has {', '.join(agents)}")
    kwargs = env_kwargs(args.env_id, args.env_arg)
    if not args.out and not args.html:
        raise CLIError("record needs --out FILE.gif, --html FILE.html, or both")
    check_output_path(args.out, "--out", ".gif")
    check_output_path(args.html, "--html", ".html")
    from gymnasium.error import DependencyNotInstalled

    try:
        require_pillow()
    except DependencyNotInstalled as exc:
        raise CLIError(str(exc)) from None
    if args.out:
        frames, outcome, total = record_episode(
            args.env_id, args.agent, args.out, seed=args.seed, fps=args.fps, env_kwargs=kwargs
        )
        print(f"wrote {args.out}: {frames} frames, outcome {outcome}, return {total:g}")
    if args.html:
        from hiddengrid.record import record_episode_html

        frames, outcome, total = record_episode_html(
            args.env_id, args.agent, args.html, seed=args.seed, env_kwargs=kwargs
        )
        print(f"wrote {args.html}: {frames} frames, outcome {outcome}, return {total:g}")
    return 0


# --- report -----------------------------------------------------------------------------------


def add_report(sub: Any) -> None:
    p = sub.add_parser(
        "report",
        help="an LLM run folder as one self-contained HTML page",
        description="Writes the summary table, the in-context learning curve and a "
        "step-through viewer of the run's episodes into one HTML file (no server, no network).",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the results folder of an LLM eval run")
    p.add_argument("--out", metavar="FILE.html", help="default RUN_DIR/report.html")
    p.add_argument(
        "--pictures",
        type=seed_int,
        default=5,
        metavar="N",
        help="episodes per env drawn (default 5)",
    )
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from hiddengrid.report import write_run_report

    check_output_path(args.out, "--out", ".html")
    try:
        path = write_run_report(args.run_dir, args.out, pictures=args.pictures)
    except FileNotFoundError as exc:
        raise CLIError(str(exc)) from None
    print(f"wrote {path}")
    return 0


# --- play -------------------------------------------------------------------------------------


def add_play(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play in the terminal, seeing what a model sees",
        description="Play an env through its text interface, as a language model would.",
        epilog_fn=ids_and_agents,
    )
    env_option(p, repeatable=False)
    seed_option(p, None, "seed of the first episode (default: a fresh one)")
    p.add_argument("--reveal", action="store_true", help="also show the hidden state each turn")
    env_args_option(p)
    p.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    from hiddengrid.play import play

    kwargs = env_kwargs(args.env_id, args.env_arg)
    play(args.env_id, seed=args.seed, reveal=args.reveal, env_kwargs=kwargs)
    return 0


# --- compile ----------------------------------------------------------------------------------


def add_compile(sub: Any) -> None:
    p = sub.add_parser(
        "compile",
        help="compile every kernel into Numba's disk cache (run once before starting workers)",
        description="Runs every compiled path of each env once (single env, vector env in each "
        "autoreset mode, every agent), so fresh worker processes load machine code from the "
        "cache instead of compiling it.",
        epilog_fn=ids_and_agents,
    )
    env_option(p)
    p.set_defaults(func=cmd_compile)


def cmd_compile(args: argparse.Namespace) -> int:
    import time

    from hiddengrid.warmup import warm_env

    for env_id in _unique(args.env) or list(ENV_IDS):
        start = time.perf_counter()
        warm_env(env_id)
        print(f"{env_id}: ready ({time.perf_counter() - start:.1f} s)", flush=True)
    return 0


# --- the command ------------------------------------------------------------------------------

SUBCOMMANDS: tuple[Callable[[Any], None], ...] = (
    add_eval,
    add_bench,
    add_train,
    add_record,
    add_play,
    add_report,
    add_compile,
)


def build_parser() -> Parser:
    parser = Parser(
        prog="hiddengrid",
        description="Environments where the agent must discover a hidden rule.",
        epilog_fn=ids_and_agents,
    )
    parser.add_argument("--version", action="version", version=f"hiddengrid {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=Parser
    )
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except CLIError as exc:
        print(f"hiddengrid {args.command}: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print(f"hiddengrid {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
