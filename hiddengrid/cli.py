"""The ``hiddengrid`` command: eval | bench | record | play | report | train."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hiddengrid.registry import ENV_IDS, definition_of

DEFAULT_EPISODES = 10_000
DEFAULT_LLM_EPISODES = 20


def _check_env_ids(ids: Sequence[str] | None) -> list[str]:
    ids = list(ids or ENV_IDS)
    for env_id in ids:
        if env_id not in ENV_IDS:
            raise SystemExit(f"unknown env {env_id!r}; registered: {', '.join(ENV_IDS)}")
    return ids


def cmd_eval(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from hiddengrid.evaluate import run_episodes

    env_ids = _check_env_ids(args.env)
    jobs = []
    for env_id in env_ids:
        agents = definition_of(env_id).agents
        names = args.agent or list(agents)
        for name in names:
            if name not in agents and name not in ("llm", "ppo"):
                raise SystemExit(
                    f"{env_id} has no agent {name!r}; it has {', '.join(agents)}, llm and ppo"
                )
            jobs.append((env_id, name))
    llm_envs = [env_id for env_id, name in jobs if name == "llm"]
    ppo_agent = _ppo_agent(args, jobs) if any(name == "ppo" for _, name in jobs) else None

    def episodes_of(name: str) -> int:
        if args.episodes is not None:
            return args.episodes
        return DEFAULT_LLM_EPISODES if name == "llm" else DEFAULT_EPISODES

    results = []
    total = sum(episodes_of(name) for _, name in jobs)
    with tqdm(total=total, unit="ep", file=sys.stderr) as bar:
        llm_results = _run_llm(args, llm_envs, episodes_of("llm"), bar) if llm_envs else {}
        for env_id, name in jobs:
            bar.set_description(f"{env_id.split('/')[-1]} {name}")
            if name == "llm":
                result = llm_results[env_id]
            else:
                result = run_episodes(
                    env_id,
                    name,
                    episodes_of(name),
                    seed=args.seed,
                    progress=bar.update,
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
        with open(args.json, "w") as fh:
            json.dump([r.as_dict() for r in results], fh, indent=2)
    return 0


def _ppo_agent(args: argparse.Namespace, jobs: list[tuple[str, str]]) -> Callable[..., Any]:
    """A factory for the checkpoint's agent; checks the file and its env before any episode."""
    if not args.checkpoint:
        raise SystemExit("--agent ppo needs --checkpoint FILE (written by hiddengrid train)")
    try:
        from hiddengrid.train.agent import PPOAgent
        from hiddengrid.train.checkpoint import load_checkpoint
    except ImportError as exc:
        raise SystemExit(
            f"--agent ppo needs the train extra (pip install 'hiddengrid[train]'): {exc}"
        ) from None
    try:
        _, config, _ = load_checkpoint(args.checkpoint)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    for env_id, name in jobs:
        if name == "ppo" and env_id != config.env_id:
            raise SystemExit(
                f"checkpoint {args.checkpoint!r} was trained on {config.env_id}, not {env_id}; "
                f"pass --env {config.env_id}"
            )
    return functools.partial(PPOAgent, checkpoint=args.checkpoint)


def _run_llm(args: argparse.Namespace, env_ids: list[str], episodes: int, bar: Any) -> dict:
    """Runs (or resumes) the LLM agent on ``env_ids`` into one results folder."""
    from hiddengrid.llm.client import LLMError
    from hiddengrid.llm.run import RunConfig, RunDirError, run
    from hiddengrid.llm.summary import eval_result

    if not args.base_url or not args.model:
        raise SystemExit("--agent llm needs --base-url and --model")
    if args.concurrency < 1:
        raise SystemExit(f"--concurrency must be at least 1, got {args.concurrency}")
    if args.retries < 0 or args.timeout <= 0:
        raise SystemExit("--retries must be >= 0 and --timeout > 0 seconds")
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
        raise SystemExit(f"error: {exc}") from None
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
        raise SystemExit(f"error: {exc}") from None
    except KeyboardInterrupt:
        raise SystemExit(
            f"interrupted: finished trials are saved in {folder}; run the same command to resume"
        ) from None
    bar.write(f"llm results: {folder} (hiddengrid report {folder} writes the HTML page)")
    if config.trial_episodes > 1:
        for env_id, env_summary in summary["envs"].items():
            curve = ", ".join(
                f"{row['index'] + 1}: {row['success_rate']:.0%}"
                for row in env_summary["by_trial_episode"]
            )
            bar.write(f"{env_id} success by episode within a trial: {curve}")
    return {env_id: eval_result(env_id, s) for env_id, s in summary["envs"].items()}


def cmd_bench(args: argparse.Namespace) -> int:
    if args.llm:
        return _bench_llm(args)
    if args.train:
        from hiddengrid.train.bench import run_train_bench

        env_id = (args.env or ["hiddengrid/AnomalyMapping-v0"])[0]
        _check_env_ids([env_id])
        return run_train_bench(env_id, seconds=args.seconds)
    from hiddengrid.bench import format_table, run_bench

    env_ids = _check_env_ids(args.env)
    rows = run_bench(env_ids, args.seconds, tuple(args.sizes))
    print(format_table(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([r.as_dict() for r in rows], fh, indent=2)
    return 0


def _bench_llm(args: argparse.Namespace) -> int:
    from hiddengrid.llm.bench import format_rows, run_concurrency_bench

    levels = args.llm_concurrency
    if args.llm_latency < 0 or args.llm_episodes < 1 or min(levels) < 1:
        raise SystemExit(
            "--llm-latency must be >= 0, --llm-episodes and --llm-concurrency at least 1"
        )
    rows = run_concurrency_bench(args.llm_latency, args.llm_episodes, levels)
    print(format_rows(rows, args.llm_latency))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([r.as_dict() for r in rows], fh, indent=2)
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    _check_env_ids([args.env])
    try:
        from hiddengrid.train import PPOConfig, PPOTrainer
    except ImportError as exc:
        raise SystemExit(
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
        result = trainer.run(progress=not args.quiet, tensorboard=args.tensorboard)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
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


def cmd_record(args: argparse.Namespace) -> int:
    from hiddengrid.record import record_episode

    _check_env_ids([args.env_id])
    agents = definition_of(args.env_id).agents
    if args.agent not in agents:
        raise SystemExit(f"{args.env_id} has no agent {args.agent!r}; it has {', '.join(agents)}")
    if not args.out and not args.html:
        raise SystemExit("record needs --out FILE.gif, --html FILE.html, or both")
    if args.out:
        frames, outcome, total = record_episode(
            args.env_id, args.agent, args.out, seed=args.seed, fps=args.fps
        )
        print(f"wrote {args.out}: {frames} frames, outcome {outcome}, return {total:g}")
    if args.html:
        from hiddengrid.record import record_episode_html

        frames, outcome, total = record_episode_html(
            args.env_id, args.agent, args.html, seed=args.seed
        )
        print(f"wrote {args.html}: {frames} frames, outcome {outcome}, return {total:g}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from hiddengrid.report import write_run_report

    if args.pictures < 0:
        raise SystemExit(f"--pictures must be >= 0, got {args.pictures}")
    try:
        path = write_run_report(args.run_dir, args.out, pictures=args.pictures)
    except FileNotFoundError as exc:
        raise SystemExit(f"error: {exc}") from None
    print(f"wrote {path}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from hiddengrid.play import play

    _check_env_ids([args.env_id])
    play(args.env_id, seed=args.seed, reveal=args.reveal)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hiddengrid", description="Environments where the agent must discover a hidden rule."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("eval", help="success rate of every agent on every env (the main job)")
    p.add_argument("--env", action="append", metavar="ID", help="env id (repeatable)")
    p.add_argument("--agent", action="append", metavar="NAME", help="agent name (repeatable)")
    p.add_argument(
        "--episodes",
        type=int,
        default=None,
        help=f"per env and agent (default {DEFAULT_EPISODES}; {DEFAULT_LLM_EPISODES} for llm)",
    )
    p.add_argument("--seed", type=int, default=0, help="episode k plays seed+k")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--checkpoint", metavar="FILE", help="for --agent ppo: a hiddengrid train file")
    llm = p.add_argument_group("llm agent (--agent llm)")
    llm.add_argument("--base-url", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    llm.add_argument("--model", help="model name to request")
    llm.add_argument("--api-key-env", default="OPENAI_API_KEY", help="env var with the API key")
    llm.add_argument("--history", type=int, default=6, help="past turns kept in the prompt")
    llm.add_argument("--retries", type=int, default=5, help="retries on network errors")
    llm.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
    llm.add_argument(
        "--concurrency", type=int, default=1, metavar="K", help="episodes played at once"
    )
    llm.add_argument(
        "--reasoning",
        action="store_true",
        help="let the model think, then read its last line 'ACTION: ...'",
    )
    llm.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="per answer (default 64; 4096 with --reasoning)",
    )
    llm.add_argument("--temperature", type=float, default=0.0)
    llm.add_argument(
        "--trial-episodes",
        type=int,
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

    p = sub.add_parser("bench", help="steps per second, with ratios to SyncVectorEnv")
    p.add_argument("--env", action="append", metavar="ID")
    p.add_argument("--seconds", type=float, default=1.0, help="time budget per configuration")
    p.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 4096])
    p.add_argument("--json", metavar="FILE")
    p.add_argument(
        "--llm",
        action="store_true",
        help="instead: LLM episodes at several concurrencies against a scripted local server",
    )
    p.add_argument("--llm-latency", type=float, default=0.2, help="seconds per answer (--llm)")
    p.add_argument("--llm-episodes", type=int, default=128, help="episodes per level (--llm)")
    p.add_argument("--llm-concurrency", type=int, nargs="+", default=[1, 64], metavar="K")
    p.add_argument(
        "--train",
        action="store_true",
        help="instead: PPO training steps/s, ours against Stable-Baselines3, on the first --env",
    )
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("train", help="train PPO on the native vector env (the train extra)")
    p.add_argument("--env", required=True, metavar="ID")
    p.add_argument("--steps", type=int, default=1_500_000, help="env steps (default 1.5M)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--policy", default="mlp", choices=("mlp", "gru", "lstm"))
    p.add_argument(
        "--memory-across-episodes",
        action="store_true",
        help="recurrent memory kept across episodes, previous action/reward/end fed back",
    )
    p.add_argument("--out", metavar="DIR", help="default runs/<Env>-<policy>-s<seed>")
    p.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, cuda[:N]")
    p.add_argument("--num-envs", type=int, help="sub-envs (default 256)")
    p.add_argument("--rollout", type=int, help="steps per sub-env per update (default 64)")
    p.add_argument("--hidden", type=int, help="layer width (default 128)")
    p.add_argument("--learning-rate", type=float, help="Adam step size (default 3e-4)")
    p.add_argument("--entropy-coef", type=float, help="entropy bonus (default 0.01)")
    p.add_argument("--threads", type=int, help="torch CPU threads (default 1)")
    p.add_argument("--tensorboard", action="store_true", help="also log to DIR/tensorboard")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("record", help="one episode as an animated GIF")
    p.add_argument("env_id")
    p.add_argument("--agent", default="oracle")
    p.add_argument("--out", metavar="FILE.gif")
    p.add_argument("--html", metavar="FILE.html", help="the episode in the step-through viewer")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fps", type=int, default=4)
    p.set_defaults(func=cmd_record)

    p = sub.add_parser("report", help="an LLM run folder as one self-contained HTML page")
    p.add_argument("run_dir", metavar="RUN_DIR")
    p.add_argument("--out", metavar="FILE.html", help="default RUN_DIR/report.html")
    p.add_argument(
        "--pictures", type=int, default=5, metavar="N", help="episodes per env drawn (default 5)"
    )
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("play", help="play in the terminal, seeing what a model sees")
    p.add_argument("env_id")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--reveal", action="store_true", help="also show the hidden state")
    p.set_defaults(func=cmd_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if (getattr(args, "episodes", None) or 1) < 1:
        raise SystemExit("--episodes must be at least 1")
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
