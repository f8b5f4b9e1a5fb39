"""Megacity's oracle plays its candidate plans in step (one ``step_all`` call per step for every
slot) instead of one slot after the other with its own inlined copy of the step. The plans, and
so every episode, must be exactly those of the slot-by-slot rollouts: the figures pinned here
were measured with that earlier code (48 episodes from a development seed)."""

from __future__ import annotations

import hashlib
import json

from hiddengrid.evaluate import run_episodes

ENV_ID = "hiddengrid/Megacity-v0"


def test_the_oracle_in_step_plays_the_slot_by_slot_episodes() -> None:
    result = run_episodes(ENV_ID, "oracle", 48, seed=1_000_000, batch_size=48)
    returns = hashlib.sha256(json.dumps(result.returns).encode()).hexdigest()[:16]
    assert result.outcomes == {"success": 47, "timeout": 1}
    assert sum(result.lengths) == 1920
    assert result.mean_return == 100.9375
    assert returns == "3654f30e0812b179"  # every episode's return, bit for bit
