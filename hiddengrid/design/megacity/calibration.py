"""The calibration of the docs page, one table per level: every agent, the learnability
policies and the red team (win rate with its 95 % Wilson interval, mean return), then the
targets that level must meet.

``python -m hiddengrid.design.megacity.calibration [episodes] [levels]`` prints every level's
table (10,000 episodes and levels 0-3 by default; ``levels`` as ``0,3``). Episode ``k`` of a
level is ``reset(seed=k)`` at that level, the same episodes for every policy.

Targets (the Megacity section of the contract):

* every level (learnability): the expert with 5 % of its actions replaced by uniformly random
  legal ones returns more than waiting, and the mean return of the expert/wait mixture rises
  with p (p = 0, 0.25, 0.5, 0.75, 1);
* level 0: the best red-team policy wins at most half of what the expert wins;
* level 3, the default (validity): the oracle wins >= 80 %, the fair expert 35-70 %, every
  red-team policy <= 10 %, masked random < 1 %; the step-0 inference names the geology in
  <= 25 % of episodes; mean returns rank the policies as their win rates do; no
  damage-and-repair loop adds more than 5 % to a winner's return.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import gymnasium as gym
import numpy as np

from hiddengrid.core.agents import BatchAgent
from hiddengrid.design.megacity import learnability, redteam
from hiddengrid.design.megacity.inference import step0_naming_rates
from hiddengrid.envs.megacity.agents import AGENTS
from hiddengrid.envs.megacity.constants import (
    AIR_MAX,
    AIR_START,
    DEFAULT_LEVEL,
    LEVELS,
    T_AIR_DEFICIT,
    T_AIR_GAIN,
    T_INTEGRITY_DEFICIT,
    T_INTEGRITY_GAIN,
)
from hiddengrid.evaluate import format_percent, wilson_interval

ENV_ID = "hiddengrid/Megacity-v0"
LEARNING_STEPS = 3  # the expert's two gravity research steps and its scan
AGENT, NOISY, MIXTURE, RED_TEAM = "agent", "noisy expert", "expert/wait", "red team"


@dataclass
class Row:
    name: str
    kind: str  # AGENT, NOISY, MIXTURE or RED_TEAM
    wins: int
    episodes: int
    mean_return: float
    # Mean integrity and air terms per episode, gains and deficits apart: what a
    # damage-and-repair loop would earn (gains) and pay for it (deficits).
    gains: float
    deficits: float = 0.0

    @property
    def rate(self) -> float:
        return self.wins / max(self.episodes, 1)


def _row(name: str, kind: str, tally: redteam.Tally) -> Row:
    gains = float(tally.terms[T_INTEGRITY_GAIN] + tally.terms[T_AIR_GAIN])
    deficits = float(tally.terms[T_INTEGRITY_DEFICIT] + tally.terms[T_AIR_DEFICIT])
    return Row(name, kind, tally.wins, tally.episodes, tally.mean_return, gains, deficits)


def policies() -> list[tuple[str, str, type[BatchAgent]]]:
    """Every policy of a level's table but the fixed plans, in the table's order."""
    out: list[tuple[str, str, type[BatchAgent]]] = [
        ("oracle", AGENT, AGENTS["oracle"]),
        ("heuristic", AGENT, AGENTS["heuristic"]),
    ]
    for rate in learnability.NOISE_RATES:
        out.append((f"expert, {100 * rate:g} % random actions", NOISY, learnability.noisy(rate)))
    for p in learnability.MIXTURE_P:
        out.append((f"expert/wait p = {p:g}", MIXTURE, learnability.mixture(p)))
    out.append(("random", AGENT, AGENTS["random"]))
    out += [(name, RED_TEAM, cls) for name, cls in redteam.REDTEAM.items()]
    return out


def measure(episodes: int, seed: int = 0, level: int = DEFAULT_LEVEL) -> list[Row]:
    """Plays every policy of the table on the same seeded episodes of ``level``."""
    rows = []
    for name, kind, cls in policies():
        make: Callable[[Any, int], BatchAgent] = lambda env, s, cls=cls: cls(env, seed=s)  # noqa: E731
        rows.append(_row(name, kind, redteam.play(make, episodes, seed, level=level)))
    best = None
    for k, plan in enumerate(redteam.fixed_plans(level=level)):
        row = _row(
            f"fixed plan {k}",
            RED_TEAM,
            redteam.play(
                lambda env, s, p=plan: redteam.FixedPlanAgent(env, p, seed=s),
                episodes,
                seed,
                level=level,
            ),
        )
        if best is None or (row.rate, row.mean_return) > (best.rate, best.mean_return):
            best = row
    assert best is not None
    best.name = f"best of {redteam.NUM_FIXED_PLANS} fixed plans ({best.name})"
    rows.append(best)
    return rows


def revealed_after_learning(episodes: int, seed: int = 0, level: int = DEFAULT_LEVEL) -> int:
    """In how many episodes the seam map (with its pull) and the fault cells are shown
    exactly once the expert has done its research and its scan."""
    venv = gym.make_vec(
        ENV_ID, num_envs=episodes, vectorization_mode="vector_entry_point", level=level
    )
    base = venv.unwrapped
    agent = AGENTS["heuristic"](base, seed=seed)
    obs, _ = venv.reset(seed=seed)
    starts = np.ones(episodes, dtype=bool)
    for _ in range(LEARNING_STEPS):
        obs, *_ = venv.step(agent.act(obs, starts))
        starts[:] = False
    b = base.batch
    seams = (obs["seams"] == b["seams"]).all(axis=(1, 2))
    faults = (obs["faults"] == b["faults"]).all(axis=(1, 2))
    return int((seams & faults).sum())


def misranked(rows: list[Row]) -> list[tuple[str, str]]:
    """Pairs (a, b) where a wins clearly more often than b (their 95 % intervals do not
    overlap) but does not return more on average."""
    out = []
    for a in rows:
        for b in rows:
            a_lo, _ = wilson_interval(a.wins, a.episodes)
            _, b_hi = wilson_interval(b.wins, b.episodes)
            if a_lo > b_hi and a.mean_return <= b.mean_return:
                out.append((a.name, b.name))
    return out


def farmed_share(row: Row) -> float:
    """The share of a policy's mean return paid by what a damage-and-repair or
    dip-and-recover loop could earn: the integrity and air gains net of the deficits paid for
    the same points (a point lost below a line is charged as it is lost, and paid back as it
    is regained), beyond the one climb of the air index from its start to its ceiling
    (integrity settles back only below the safety line, and the air index changes only with
    shafts and buildings, none of which can be undone)."""
    extra = max(0.0, row.gains + row.deficits - (AIR_MAX - AIR_START))
    return extra / row.mean_return if row.mean_return > 0 else float("inf")


def table(rows: list[Row]) -> list[str]:
    out = [
        "| policy | kind | wins / episodes | win rate | 95 % interval | mean return |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = wilson_interval(r.wins, r.episodes)
        out.append(
            f"| {r.name} | {r.kind} | {r.wins} / {r.episodes} | {100 * r.rate:.1f} % | "
            f"{format_percent(lo)[:-1]}-{format_percent(hi)[:-1]} % | {r.mean_return:.1f} |"
        )
    return out


def _line(name: str, ok: bool, value: str) -> str:
    return f"- [{'x' if ok else ' '}] {name}: {value}".rstrip(": ")


def learnability_targets(rows: list[Row], level: int) -> list[tuple[str, bool, str]]:
    """The targets every level meets, and at level 0 the red team's bound."""
    by = {r.name: r for r in rows}
    wait = by["wait"]
    noisy5 = by["expert, 5 % random actions"]
    mix = [r for r in rows if r.kind == MIXTURE]
    means = [r.mean_return for r in mix]
    checks = [
        (
            "expert with 5 % random actions returns more than waiting",
            noisy5.mean_return > wait.mean_return,
            f"{noisy5.mean_return:.1f} > {wait.mean_return:.1f}",
        ),
        (
            "expert/wait mixture's mean return rises with p",
            all(a < b for a, b in pairwise(means)),
            ", ".join(f"{m:.1f}" for m in means),
        ),
    ]
    if level == 0:
        expert = by["heuristic"]
        worst = max((r for r in rows if r.kind == RED_TEAM), key=lambda r: r.rate)
        checks.append(
            (
                "best red-team policy wins <= half of what the expert wins",
                worst.rate <= 0.5 * expert.rate,
                f"{worst.name} {100 * worst.rate:.1f} %, expert {100 * expert.rate:.1f} %",
            )
        )
    return checks


def validity_targets(
    rows: list[Row], named: tuple[int, int, int], revealed: int
) -> list[tuple[str, bool, str]]:
    """The targets of the default level (what makes it a hidden-rule benchmark)."""
    valid = [r for r in rows if r.kind in (AGENT, RED_TEAM)]
    by = {r.name: r for r in valid}
    blind = [r for r in valid if r.kind == RED_TEAM]
    worst = max(blind, key=lambda r: r.rate)
    seams_named, both_named, n = named
    oracle = by["oracle"]
    expert = by["heuristic"]
    wrong = misranked(valid)
    farm = max(farmed_share(oracle), farmed_share(expert))
    return [
        ("oracle wins >= 80 %", oracle.rate >= 0.80, f"{100 * oracle.rate:.1f} %"),
        ("fair expert wins 35-70 %", 0.35 <= expert.rate <= 0.70, f"{100 * expert.rate:.1f} %"),
        (
            "every red-team policy wins <= 10 %",
            worst.rate <= 0.10,
            f"highest: {worst.name}, {100 * worst.rate:.1f} %",
        ),
        (
            "step-0 inference names seam map and fault cells in <= 25 %",
            both_named <= 0.25 * n,
            f"{100 * both_named / n:.1f} % (seam map alone {100 * seams_named / n:.1f} %; "
            f"after the expert's research and scan {100 * revealed / n:.1f} %)",
        ),
        (
            "mean returns rank as win rates (where the intervals separate them)",
            not wrong,
            "; ".join(f"{a} wins more than {b} but returns less" for a, b in wrong),
        ),
        (
            "gains net of deficits beyond the air's one climb <= 5 % of the oracle's and "
            "expert's return",
            farm <= 0.05,
            f"{100 * farm:.1f} % (oracle: {oracle.gains:.1f} gained, {-oracle.deficits:.1f} "
            f"paid, of {oracle.mean_return:.1f}; expert: {expert.gains:.1f} gained, "
            f"{-expert.deficits:.1f} paid, of {expert.mean_return:.1f})",
        ),
        ("masked random wins < 1 %", by["random"].rate < 0.01, f"{100 * by['random'].rate:.1f} %"),
    ]


def report(episodes: int, level: int, seed: int = 0) -> tuple[list[str], bool]:
    """A level's table and target lines, and whether every target is met."""
    rows = measure(episodes, seed, level)
    lines = [f"### Level {level}", "", *table(rows), ""]
    checks = learnability_targets(rows, level)
    if level == DEFAULT_LEVEL:
        named = step0_naming_rates(episodes, seed)
        checks += validity_targets(rows, named, revealed_after_learning(episodes, seed, level))
    lines += [_line(*c) for c in checks]
    return lines, all(ok for _, ok, _ in checks)


def main(episodes: int, levels: tuple[int, ...] = LEVELS) -> bool:
    """Prints every level's table and targets; returns whether all of them are met."""
    t0 = time.time()
    every = True
    for level in levels:
        lines, ok = report(episodes, level)
        every &= ok
        print("\n".join(lines), end="\n\n", flush=True)
    seconds = time.time() - t0
    seeds = f"seeds 0..{episodes - 1}"
    print(f"<!-- {episodes} episodes per policy and level, {seeds}; {seconds:.0f}s -->")
    return every


def parse_args(args: list[str]) -> tuple[int, tuple[int, ...]]:
    """``[episodes] [levels]``; raises ``ValueError`` with one line saying what is valid."""
    if len(args) > 2:
        raise ValueError(f"at most two arguments ([episodes] [levels]), got {len(args)}")
    count = 10_000
    if args:
        if not args[0].isdigit() or int(args[0]) < 1:
            raise ValueError(f"episodes must be a positive integer, got {args[0]!r}")
        count = int(args[0])
    if len(args) < 2:
        return count, LEVELS
    parts = args[1].split(",")
    valid = ", ".join(map(str, LEVELS))
    if not all(x.isdigit() and int(x) in LEVELS for x in parts):
        raise ValueError(f"levels must be a comma-separated list of {valid}, got {args[1]!r}")
    return count, tuple(int(x) for x in parts)


if __name__ == "__main__":
    try:
        count, chosen = parse_args(sys.argv[1:])
    except ValueError as exc:
        print(f"calibration: {exc}", file=sys.stderr)
        sys.exit(2)
    sys.exit(0 if main(count, chosen) else 1)
