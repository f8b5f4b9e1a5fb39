"""Where a SquadRecon student parts from its teacher, and what each part costs in wins.

    python -m hiddengrid.train.teacher_gap [--checkpoint FILE] [--episodes 10000]
        [--seed 5000000] [--greedy] [--out FILE]

SquadRecon's recipes copy the fair heuristic (DAgger) and their best runs level off below it.
An episode has two phases, told apart by the observation alone: the search, while a camp is
still undetected, and the strike, once both are found (every order then comes from the plan on
the known map). Four policies play the same episodes (``run_episodes``: episode ``k`` is
env seed ``--seed + k``; the default is the held-out range): the student alone, the teacher
alone (the heuristic replanned every step, as the recipes' labels), and the two hybrids that
take one phase's orders from each. What the student loses in each phase is the difference in
wins when the teacher plays that phase for it. The student alone also reports how often its
most likely orders are the teacher's on the states it visits in each phase: all three squads at
once, and per squad by the order the teacher gives (hold, a move, attack).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hiddengrid.core.agents import BatchAgent
from hiddengrid.core.flat import FlatEncoder
from hiddengrid.envs.squad_recon.constants import ALIVE, ATTACK, COL, HOLD, ROW, UNDETECTED
from hiddengrid.evaluate import EvalResult, format_percent, run_episodes
from hiddengrid.train.agent import PPOAgent
from hiddengrid.train.policy import most_likely, sample
from hiddengrid.train.squad_recon import (
    PER_SQUAD,
    PER_SQUAD_PATHS,
    VIEW_RADIUS,
    SquadReconPaths,
    replanning_heuristic_class,
)

ENV_ID = "hiddengrid/SquadRecon-v0"
CHECKPOINT = "docs/baselines/trainer_v2/SquadRecon-v0-dagger-squads-25m-bf16-s0.pt"
HELD_OUT_SEED = 5_000_000
PHASES = ("search", "strike")
STUDENT, TEACHER = "student", "teacher"
# (label, who plays the search, who plays the strike)
PLAYERS: tuple[tuple[str, str, str], ...] = (
    ("the student alone", STUDENT, STUDENT),
    ("the teacher alone", TEACHER, TEACHER),
    ("the teacher searches, the student strikes", TEACHER, STUDENT),
    ("the student searches, the teacher strikes", STUDENT, TEACHER),
)
ORDER_KINDS = ("hold", "move", "attack")


def order_kind(orders: np.ndarray) -> np.ndarray:
    """0 hold, 1 a move, 2 attack, for each order."""
    return np.where(orders == HOLD, 0, np.where(orders == ATTACK, 2, 1))


class Agreement:
    """Counts, per phase, the states seen, those where all three orders match, and per order
    kind the teacher gives a squad, how often the student's most likely order is it."""

    def __init__(self) -> None:
        self.states = np.zeros(2, dtype=np.int64)
        self.joint = np.zeros(2, dtype=np.int64)
        self.given = np.zeros((2, 3), dtype=np.int64)
        self.matched = np.zeros((2, 3), dtype=np.int64)
        # strike-phase moves by the camp's distance: inside the view's window, or beyond it
        self.moves = np.zeros(2, dtype=np.int64)
        self.moves_matched = np.zeros(2, dtype=np.int64)
        self.moves_as_short = np.zeros(2, dtype=np.int64)

    def add(
        self,
        phase: np.ndarray,
        student: np.ndarray,
        teacher: np.ndarray,
        far: np.ndarray,
        shortening: np.ndarray,
        alive: np.ndarray,
    ) -> None:
        """``far``: per squad, whether the camp the teacher sends it to lies beyond its view;
        ``shortening``: per squad and order, whether the order brings it a step closer;
        ``alive``: per squad, whether it still stands (a wiped-out squad's order does nothing,
        so it counts as the teacher's and is not counted by kind)."""
        same = (student == teacher) | ~alive
        kind = np.where(alive, order_kind(teacher), -1)
        as_short = same | np.take_along_axis(shortening, student[..., None], -1)[..., 0]
        strike_moves = (phase == 1)[:, None] & (kind == 1)
        for b in range(2):
            rows = strike_moves & (far == b)
            self.moves[b] += int(rows.sum())
            self.moves_matched[b] += int((same & rows).sum())
            self.moves_as_short[b] += int((as_short & rows).sum())
        for p in range(2):
            rows = phase == p
            self.states[p] += int(rows.sum())
            self.joint[p] += int(same[rows].all(axis=1).sum())
            for k in range(3):
                given = kind[rows] == k
                self.given[p, k] += int(given.sum())
                self.matched[p, k] += int((same[rows] & given).sum())


class PhaseHybrid(BatchAgent):
    """Plays a checkpoint's policy or the replanning heuristic, chosen per sub-env by the phase
    its observation shows (``search_by`` while a camp is undetected, ``strike_by`` after)."""

    name = "hybrid"
    description = "a SquadRecon student and its teacher, each playing one phase"

    def __init__(
        self,
        env: Any,
        seed: int = 0,
        checkpoint: str = CHECKPOINT,
        greedy: bool = False,
        search_by: str = STUDENT,
        strike_by: str = STUDENT,
        agreement: Agreement | None = None,
    ) -> None:
        super().__init__(env, seed)
        self.student = PPOAgent(env, seed=seed, checkpoint=checkpoint, greedy=greedy)
        self.teacher = replanning_heuristic_class()(env, seed=seed)
        self.by = (search_by, strike_by)
        self.agreement = agreement
        self.active = np.ones(self.num_envs, dtype=bool)  # still in its first (scored) episode
        self.flat = FlatEncoder(env.single_observation_space)
        self.paths = SquadReconPaths(self.flat.size)

    def act(self, obs: dict[str, np.ndarray], starts: np.ndarray) -> np.ndarray:
        logits = self.student.policy_logits(obs, starts)
        nvec = self.student.nvec
        with torch.no_grad():
            best = most_likely(logits, nvec).numpy()
            mine = (
                best
                if self.student.greedy
                else sample(logits, nvec, self.student.generator)[0].numpy()
            )
        theirs = self.teacher.act(obs, starts)
        camps = obs["camps"]
        phase = (camps[:, :, 3] != UNDETECTED).all(axis=1).astype(np.int64)
        if self.agreement is not None:
            a = self.active
            heads = self.teacher.assign[a]  # the camp each squad heads for (-1: none)
            target = np.maximum(heads, 0)
            rows = np.arange(int(a.sum()))[:, None]
            squads = obs["squads"][a]
            gap = np.maximum(
                np.abs(camps[a][rows, target, 0] - squads[:, :, ROW]),
                np.abs(camps[a][rows, target, 1] - squads[:, :, COL]),
            )
            shortening = self.shortening(obs, a, target)
            alive = squads[:, :, ALIVE] > 0
            self.agreement.add(phase[a], best[a], theirs[a], gap > VIEW_RADIUS, shortening, alive)
        use_teacher = np.array([who == TEACHER for who in self.by])[phase]
        action = np.where(use_teacher[:, None], theirs, mine)
        self.student.prev_action = action
        return action

    def shortening(
        self, obs: dict[str, np.ndarray], rows: np.ndarray, target: np.ndarray
    ) -> np.ndarray:
        """Per sub-env of ``rows`` and squad, per order, whether it takes the squad a step
        closer to the camp ``target`` names (squad_recon_paths' columns; hold and attack
        never)."""
        x = torch.as_tensor(self.flat.encode(obs, self.num_envs)[rows].astype(np.float32))
        n = x.shape[0]
        ways = self.paths(x).numpy().reshape(n, 3, PER_SQUAD_PATHS)[:, :, PER_SQUAD:]
        ways = ways.reshape(n, 3, 2, 6)[np.arange(n)[:, None], np.arange(3)[None], target]
        out = np.zeros((n, 3, 6), dtype=bool)
        out[:, :, 1:5] = ways[:, :, 2:6] > 0.5  # north, south, east, west
        return out

    def observe(self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> None:
        self.student.observe(reward, terminated, truncated)
        self.active &= ~(np.asarray(terminated) | np.asarray(truncated))


def _rate(result: EvalResult) -> str:
    low, high = result.interval
    return f"{format_percent(result.success_rate)} [{format_percent(low)}, {format_percent(high)}]"


def measure(
    checkpoint: str, episodes: int, seed: int, greedy: bool, say: Callable[[str], None] = print
) -> list[str]:
    """The report's lines: the four policies' results, then the student's agreement; ``say``
    hears each policy's row as it is measured."""
    agreement = Agreement()
    how = "its most likely orders" if greedy else "sampling its orders"
    lines = [
        f"`{checkpoint}` ({how}) and its teacher on {episodes:,} episodes from env seed {seed:,}",
        "",
        "| who plays | success [95 % interval] | mean return | timeout | wiped out |",
        "|---|---|---|---|---|",
    ]
    for label, search_by, strike_by in PLAYERS:
        watch = agreement if (search_by, strike_by) == (STUDENT, STUDENT) else None

        factory = partial(
            PhaseHybrid,
            checkpoint=checkpoint,
            greedy=greedy,
            search_by=search_by,
            strike_by=strike_by,
            agreement=watch,
        )
        result = run_episodes(ENV_ID, label, episodes, seed=seed, agent_factory=factory)
        n = result.episodes
        ends = result.outcomes
        lines.append(
            f"| {label} | {_rate(result)} | {result.mean_return:.3f} | "
            f"{ends.get('timeout', 0) / n:.1%} | {ends.get('wiped_out', 0) / n:.1%} |"
        )
        say(lines[-1])
    lines += [
        "",
        "The student's most likely orders against the teacher's, on the states of its own "
        "episodes above (a wiped-out squad's order does nothing and counts as the teacher's):",
        "",
        "| phase | share of states | all three orders the teacher's | "
        + " | ".join(f"teacher orders {k}: share, student agrees" for k in ORDER_KINDS)
        + " |",
        "|---|---|---|" + "---|" * len(ORDER_KINDS),
    ]
    total = int(agreement.states.sum())
    for p, phase in enumerate(PHASES):
        states = int(agreement.states[p])
        given = int(agreement.given[p].sum())
        cells = [
            f"{agreement.given[p, k] / max(given, 1):.1%}, "
            f"{agreement.matched[p, k] / max(int(agreement.given[p, k]), 1):.1%}"
            for k in range(len(ORDER_KINDS))
        ]
        lines.append(
            f"| {phase} | {states / max(total, 1):.1%} | "
            f"{agreement.joint[p] / max(states, 1):.1%} | " + " | ".join(cells) + " |"
        )
    moves = agreement.moves
    lines += [
        "",
        "| strike-phase moves: the camp the teacher sends the squad to | share of those moves | "
        "student agrees | the student's order as short a way |",
        "|---|---|---|---|",
    ]
    for b, where in enumerate(
        (f"within {VIEW_RADIUS} cells (in the squad's view)", f"{VIEW_RADIUS + 1} or more cells")
    ):
        lines.append(
            f"| {where} | {moves[b] / max(int(moves.sum()), 1):.1%} | "
            f"{agreement.moves_matched[b] / max(int(moves[b]), 1):.1%} | "
            f"{agreement.moves_as_short[b] / max(int(moves[b]), 1):.1%} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hiddengrid.train.teacher_gap")
    parser.add_argument(
        "--checkpoint",
        action="append",
        help=f"a SquadRecon-v0 checkpoint (repeat for several; default {CHECKPOINT})",
    )
    parser.add_argument("--episodes", type=int, default=10_000, help="episodes per policy")
    parser.add_argument("--seed", type=int, default=HELD_OUT_SEED, help="env seed of episode 0")
    parser.add_argument("--greedy", action="store_true", help="the student's most likely orders")
    parser.add_argument("--out", default="", help="also write the reports to this file")
    args = parser.parse_args(argv)
    checkpoints = args.checkpoint or [CHECKPOINT]
    if args.episodes < 1 or args.seed < 0:
        parser.error("--episodes must be >= 1 and --seed >= 0")
    for checkpoint in checkpoints:
        if not Path(checkpoint).is_file():
            parser.error(f"--checkpoint: no file {checkpoint!r}")
    torch.set_num_threads(1)
    report: list[str] = []
    for checkpoint in checkpoints:
        print(f"{checkpoint}:", flush=True)
        try:
            lines = measure(
                checkpoint, args.episodes, args.seed, args.greedy, lambda s: print(s, flush=True)
            )
        except ValueError as exc:  # a checkpoint of another env or shape
            parser.error(str(exc))
        print("\n".join(lines[4 + len(PLAYERS) :]), flush=True)  # the rows above: as measured
        report += [*lines, ""]
    if args.out:
        Path(args.out).write_text("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
