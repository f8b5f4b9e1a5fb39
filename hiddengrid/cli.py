"""The ``hiddengrid`` command (also ``python -m hiddengrid``): eval | bench | train | record |
play | report | compile.

Each subcommand is one ``add_<name>`` function that builds its parser and names the function
that runs it; :data:`SUBCOMMANDS` lists them in ``--help`` order. Options several commands
share (env ids, agents, seed, env arguments, JSON output) come from the ``*_option`` helpers,
so they read and check the same everywhere.

Every mistake in the input is one line on stderr and exit status 2, before any work starts:
argument errors, unknown names, unwritable output paths and missing optional packages.
It only parses and prints: eval's agent kinds and Ray shards live in :mod:`hiddengrid.evaluation`,
the argument types in :mod:`hiddengrid.cli_types`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from hiddengrid import __version__
from hiddengrid.cli_llm import add_llm_options
from hiddengrid.cli_train import add_ppo_options, ppo_settings
from hiddengrid.cli_types import (
    echo,
    env_arg,
    env_id_arg,
    nonnegative_float,
    nonnegative_int,
    positive_float,
    positive_int,
    seed_int,
)
from hiddengrid.registry import ENV_IDS, definition_of

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
    """Refuses, before the run, an output path that cannot be written.

    The file is really opened (and removed again if it was not there): ``os.access`` says yes
    to root for folders such as /proc where no file can be made."""
    if path is None:
        return
    target = Path(path)
    name = echo(path)
    if suffix is not None and target.suffix.lower() != suffix:
        raise CLIError(f"{option} {name} must be a {suffix} file")
    folder = target.parent
    if target.is_dir():
        raise CLIError(f"{option} {name} is a folder; give a file name")
    if not folder.is_dir():
        raise CLIError(f"{option} {name}: folder {echo(str(folder))} does not exist")
    existed = target.exists()
    try:
        with open(target, "a"):
            pass
    except OSError as exc:
        raise CLIError(f"{option} {name} cannot be written ({exc.strerror or exc})") from None
    finally:
        if not existed and target.exists():
            target.unlink()


def require(modules: Sequence[str], package: str, what: str) -> None:
    """Optional packages a command needs, named in one line before any work when missing."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise CLIError(
                f"{what} needs {module}, which is not installed: pip install '{package}'"
            ) from None


def env_kwargs(env_id: str, pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """The ``--env-arg`` pairs as keyword arguments, checked by the env before any run."""
    from hiddengrid.evaluation import EvalError, check_env_kwargs

    try:
        return check_env_kwargs(env_id, dict(pairs))
    except EvalError as exc:
        raise CLIError(str(exc)) from None


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
        help="episodes per env and agent (default 10000; 20 for llm)",
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
    p.add_argument(
        "--greedy",
        action="store_true",
        help="for --agent ppo: play each action head's most likely action instead of sampling "
        "(a deterministic evaluation; its rows are named ppo-greedy)",
    )
    add_llm_options(p)
    p.set_defaults(func=cmd_eval)


def eval_request(args: argparse.Namespace) -> Any:
    """The ``eval`` options as a :class:`hiddengrid.evaluation.EvalRequest`."""
    from hiddengrid.evaluation import EvalRequest, LLMOptions

    # The llm options are named as LLMOptions' fields (--base-url is base_url ...).
    llm = LLMOptions(**{f.name: getattr(args, f.name) for f in dataclasses.fields(LLMOptions)})
    return EvalRequest(
        envs=args.env,
        agents=args.agent,
        episodes=args.episodes,
        seed=args.seed,
        env_kwargs=dict(args.env_arg),
        checkpoint=args.checkpoint,
        greedy=args.greedy,
        llm=llm,
        ray=args.ray,
        shard_size=args.shard_size,
    )


def cmd_eval(args: argparse.Namespace) -> int:
    from hiddengrid.evaluation import EvalError, format_table, plan_eval

    try:
        plan = plan_eval(eval_request(args))
        check_output_path(args.json, "--json")
        # Compile first, saying so, so that the progress bar starts on real speeds.
        plan.prepare(say=lambda line: print(line, file=sys.stderr, flush=True))
        from tqdm import tqdm

        with tqdm(total=plan.total_episodes, unit="ep", file=sys.stderr) as bar:
            results = plan.run(
                progress=bar.update,
                describe=bar.set_description,
                say=lambda line: bar.write(line, sys.stderr),
            )
    except EvalError as exc:
        raise CLIError(str(exc)) from None
    print(format_table(results))
    if args.json:
        _write_json(args.json, plan.json_rows(results))
    return 0


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
        "--thread-counts",
        type=positive_int,
        nargs="+",
        default=[],
        metavar="T",
        help="a scaling curve: each of these thread counts (those the process has cores for) "
        "against one thread, at --threads-n and --scaling sub-envs (default: every usable core)",
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
        help="instead: PPO training steps/s, ours against Stable-Baselines3 and (where it "
        "imports) PuffeRL, on the first --env",
    )
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    check_output_path(args.json, "--json")
    if args.llm:
        require(("openai",), "hiddengrid[llm]", "bench --llm")
        return _bench_llm(args)
    if args.train:
        require(("torch", "stable_baselines3", "sb3_contrib"), "hiddengrid[train]", "bench --train")
        from hiddengrid.train.bench import run_train_bench

        env_id = (args.env or ["hiddengrid/AnomalyMapping-v0"])[0]
        return run_train_bench(env_id, seconds=args.seconds)
    from hiddengrid.bench import format_table, run_bench, usable_thread_counts
    from hiddengrid.core.kernel import max_threads

    env_ids = _unique(args.env) or list(ENV_IDS)
    left_out = usable_thread_counts(tuple(args.thread_counts))[1]
    if left_out:
        print(
            f"hiddengrid bench: thread counts {', '.join(map(str, left_out))} left out: this "
            f"process may use {max_threads()} cores",
            file=sys.stderr,
        )
    rows = run_bench(
        env_ids,
        args.seconds,
        tuple(dict.fromkeys(args.sizes)),
        args.threads_n,
        tuple(dict.fromkeys(args.scaling)),
        args.anchor_n,
        tuple(args.thread_counts),
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
    env_args_option(p)
    add_ppo_options(p)
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
    try:
        settings = ppo_settings(args)
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
    network = config.policy + (f", encoder {config.encoder}" if config.encoder else "")
    print(
        f"{args.env} {network}: {result.steps:,} steps at {result.steps_per_second:,.0f} "
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
    p.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        nargs="+",
        help="the results folder of an LLM eval run; several: a leaderboard of them",
    )
    p.add_argument(
        "--out",
        metavar="FILE.html",
        help="default RUN_DIR/report.html (one run) or leaderboard.html (several)",
    )
    p.add_argument(
        "--pictures",
        type=nonnegative_int,
        default=5,
        metavar="N",
        help="episodes per env drawn (default 5)",
    )
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from hiddengrid.llm.folder import RunDirError
    from hiddengrid.report import write_run_report
    from hiddengrid.report.leaderboard import format_text, leaderboard, write_leaderboard

    check_output_path(args.out, "--out", ".html")
    try:
        if len(args.run_dir) > 1:
            path, table = write_leaderboard(args.run_dir, args.out or "leaderboard.html")
        else:
            board = leaderboard(args.run_dir)
            table = format_text(board)
            path = write_run_report(args.run_dir[0], args.out, args.pictures, board)
    except RunDirError as exc:
        raise CLIError(str(exc)) from None
    print(table)
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
        "autoreset mode on one thread and on several, observation encoder, every agent), so "
        "fresh worker processes load machine code from the cache instead of compiling it.",
        epilog_fn=ids_and_agents,
    )
    env_option(p)
    p.set_defaults(func=cmd_compile)


def cmd_compile(args: argparse.Namespace) -> int:
    import time

    from hiddengrid.warmup import warm_env

    env_ids = _unique(args.env) or list(ENV_IDS)
    print(
        "compiling into Numba's cache: each env's single env, vector env (one thread and "
        "several), observation encoder and agents (minutes when nothing is cached yet)",
        flush=True,
    )
    for k, env_id in enumerate(env_ids, 1):
        start = time.process_time()
        warm_env(env_id, report=lambda what, e=env_id: print(f"  {e}: {what}", flush=True))
        cpu = time.process_time() - start
        print(f"[{k}/{len(env_ids)}] {env_id}: ready ({cpu:.1f} CPU s)", flush=True)
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
