"""Regression: the same seeds give the same episodes, and the incremental sight of the steps
(``update_sight``, bit rows) always equals the plain ``sensor_sweep``."""

from __future__ import annotations

import hashlib
import json

import numpy as np
from helpers import make_vec, random_actions, vector_trace
from squad_recon_cases import ID

from hiddengrid.envs.squad_recon.rules import sensor_sweep

# sha256 of the JSON of vector_trace(ID, 64, 0, 400), recorded before the sight was rewritten
# as bit rows (observations, rewards, flags and outcomes of a seeded run with seeded actions).
TRACE_SHA256 = "057efe2af83432bfa405bdfa09c2a74d296d557238904dea5efe99d4523c67c0"


def test_seeded_vector_trace_is_unchanged():
    trace = vector_trace(ID, 64, 0, 400)
    assert hashlib.sha256(json.dumps(trace).encode()).hexdigest() == TRACE_SHA256


def test_incremental_sight_equals_sensor_sweep_every_step():
    n = 32
    venv = make_vec(ID, n)
    obs, _ = venv.reset(seed=5)
    b = venv.unwrapped.batch
    rng = np.random.default_rng(5)
    restarting = np.zeros(n, dtype=bool)  # ended last step: this step starts a new episode
    for _ in range(300):
        explored = obs["terrain"].copy()  # before the step: sensor_sweep adds to it
        camp_status = b["camp_status"].copy()
        obs, _, term, _, _ = venv.step(random_actions(venv, rng))
        visible = np.full_like(obs["visible"], 7)  # garbage: sensor_sweep must overwrite it
        for i in np.flatnonzero(~restarting):
            camp_status[i] = np.where(b["camp_status"][i] == 2, 2, camp_status[i])
            sensor_sweep(i, b["terrain"], b["camps"], camp_status, b["squads"], explored, visible)
            assert np.array_equal(visible[i], obs["visible"][i])
            assert np.array_equal(explored[i], obs["terrain"][i])
            assert np.array_equal(camp_status[i], b["camp_status"][i])
        restarting = term
