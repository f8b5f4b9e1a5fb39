"""The red team that ignores the codebook scores what chance gives, below the fair learner."""

from __future__ import annotations

from hiddengrid.design.field_cipher.redteam import ConstantAnswer
from hiddengrid.evaluate import run_episodes

ID = "hiddengrid/FieldCipher-v0"


def test_a_constant_answer_scores_chance_and_never_beats_the_learner() -> None:
    episodes = 2000
    constant = run_episodes(ID, "constant", episodes, seed=5_000_000, agent_factory=ConstantAnswer)
    assert constant.mean_length == 8.0  # four writes and moves, then finalize
    assert abs(constant.mean_return - 0.0625) < 0.01  # 1 slot in 16 right, 0.25 each
    learner = run_episodes(ID, "heuristic", episodes, seed=5_000_000)
    assert learner.mean_return > constant.mean_return + 0.015
