"""teacher_gap: SquadRecon's student and teacher each playing a phase, and their agreement."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from hiddengrid.evaluate import run_episodes
from hiddengrid.train.agent import PPOAgent
from hiddengrid.train.squad_recon import replanning_heuristic_class
from hiddengrid.train.teacher_gap import (
    PLAYERS,
    STUDENT,
    TEACHER,
    PhaseHybrid,
    main,
)

ROOT = Path(__file__).resolve().parents[2]
SQUAD = "hiddengrid/SquadRecon-v0"
CHECKPOINT = str(ROOT / "docs/baselines/trainer_v2/SquadRecon-v0-dagger-squads-1m-s0.pt")
DEV_SEED = 6_000_000
EPISODES = 48


def _play(factory) -> tuple[int, list[float]]:
    result = run_episodes(SQUAD, "x", EPISODES, seed=DEV_SEED, agent_factory=factory)
    return result.successes, result.returns


def test_each_player_alone_plays_as_it_does_without_the_other() -> None:
    """Differential: the hybrid with one player for both phases is that player, episode for
    episode: the student samples the same orders as ``--agent ppo``, the teacher is the
    replanning heuristic."""
    hybrid = partial(PhaseHybrid, checkpoint=CHECKPOINT)
    student = _play(partial(hybrid, search_by=STUDENT, strike_by=STUDENT))
    assert student == _play(partial(PPOAgent, checkpoint=CHECKPOINT))
    teacher = _play(partial(hybrid, search_by=TEACHER, strike_by=TEACHER))
    assert teacher == _play(replanning_heuristic_class())
    assert teacher[0] > student[0]  # a 1M student is far below its teacher
    mixed = _play(partial(hybrid, search_by=TEACHER, strike_by=STUDENT))
    assert mixed != student and mixed != teacher  # both players acted in it


def test_report_has_each_player_and_both_phases(tmp_path: Path) -> None:
    out = tmp_path / "gap.txt"
    args = ["--checkpoint", CHECKPOINT, "--episodes", str(EPISODES), "--seed", str(DEV_SEED)]
    assert main([*args, "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    players = [line.split(" | ")[0][2:] for line in lines if line.startswith("| the ")]
    assert players == [label for label, _, _ in PLAYERS]
    phases = {
        p: line for line in lines for p in ("search", "strike") if line.startswith(f"| {p} |")
    }
    assert set(phases) == {"search", "strike"}
    shares = [float(phases[p].split(" | ")[1].strip("%")) for p in ("search", "strike")]
    assert sum(shares) == pytest.approx(100.0, abs=0.11) and min(shares) > 0
    moves = [line for line in lines if line.startswith(("| within", "| 5 or more"))]
    assert len(moves) == 2
    for line in moves:
        agrees, as_short = (float(c.strip(" |%")) for c in line.split(" | ")[2:4])
        assert 0 <= agrees <= as_short <= 100  # the teacher's own order is as short a way


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--checkpoint", "missing.pt"], "--checkpoint: no file 'missing.pt'"),
        (["--episodes", "0"], "--episodes must be >= 1"),
        (
            ["--checkpoint", "docs/baselines/trainer_v2/AnomalyMapping-v0-mlp-262k-s0.pt"],
            "trained on hiddengrid/AnomalyMapping-v0, not hiddengrid/SquadRecon-v0",
        ),
    ],
)
def test_bad_arguments_are_refused_in_one_line(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch
) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "gap.txt"
    with pytest.raises(SystemExit) as exit_:
        main(["--episodes", "4", "--out", str(out), *argv])  # a later flag wins
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err.strip().splitlines()[-1]
    assert not out.exists()


def test_agreement_counts_by_phase_kind_and_distance_and_ignores_wiped_out_squads() -> None:
    """Hand-built: two strike states and one search state, three squads each."""
    from hiddengrid.train.teacher_gap import Agreement

    # orders: 0 hold, 1-4 moves, 5 attack
    teacher = np.array([[1, 0, 5], [2, 2, 0], [3, 3, 3]])
    student = np.array([[1, 0, 4], [4, 2, 3], [3, 1, 3]])
    alive = np.array([[True, True, False], [True, True, True], [True, True, True]])
    phase = np.array([1, 1, 0])
    far = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 0]], dtype=bool)
    shortening = np.zeros((3, 3, 6), dtype=bool)
    shortening[1, 0, 4] = True  # state 1, squad 0: west is as short a way as the teacher's south
    a = Agreement()
    a.add(phase, student, teacher, far, shortening, alive)
    # state 0 agrees (the wiped-out squad's attack is not held against it), state 1 does not
    assert list(a.states) == [1, 2] and list(a.joint) == [0, 1]
    # strike: holds given 2 (state 0 squad 1, state 1 squad 2), matched 1; moves 3, matched 2;
    # the wiped-out squad's attack is not counted
    assert a.given[1].tolist() == [2, 3, 0] and a.matched[1].tolist() == [1, 2, 0]
    assert a.given[0].tolist() == [0, 3, 0] and a.matched[0].tolist() == [0, 2, 0]
    # strike moves: within the view 2 (both matched), past it 1 (not matched, as short a way)
    assert a.moves.tolist() == [2, 1] and a.moves_matched.tolist() == [2, 0]
    assert a.moves_as_short.tolist() == [2, 1]
