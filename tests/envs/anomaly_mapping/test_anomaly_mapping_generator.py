"""Generator invariants over thousands of seeds (AnomalyMapping's page)."""

from __future__ import annotations

import numpy as np
from helpers import make_vec
from hypothesis import given, settings
from hypothesis import strategies as st

from hiddengrid.envs.anomaly_mapping.generator import free_region_count, wall_grid

ID = "hiddengrid/AnomalyMapping-v0"


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63))
def test_layouts_keep_the_contract(seed):
    venv = make_vec(ID, 500)
    venv.reset(seed=seed)
    batch = venv.unwrapped.batch
    rows = batch["walls"]
    assert (rows[:, 0] == 2**17 - 1).all() and (rows[:, -1] == 2**17 - 1).all()  # the border
    assert ((rows & 1) == 1).all() and ((rows >> 16) & 1 == 1).all()
    walls = np.array([wall_grid(r) for r in rows])
    assert (walls.reshape(500, -1).sum(axis=1) == 45).all()
    for i in range(500):
        assert free_region_count(walls[i]) == 1
        nr, nc = batch["node"][i]
        ar, ac = batch["start"][i]
        assert walls[i, nr, nc] == 0 and walls[i, ar, ac] == 0
    assert set(np.unique(batch["start_facing"])) <= {0, 1, 2, 3}


def test_draws_cover_every_free_tile_and_direction():
    venv = make_vec(ID, 4000)
    venv.reset(seed=0)
    batch = venv.unwrapped.batch
    node_hits = np.zeros((15, 15), int)
    np.add.at(node_hits, (batch["node"][:, 0], batch["node"][:, 1]), 1)
    assert (node_hits > 0).sum() == 225  # every tile can hold the node
    facings = np.bincount(batch["start_facing"], minlength=4)
    assert facings.min() > 900
    same = (batch["node"] == batch["start"]).all(axis=1).sum()
    assert 0 < same < 100  # the start can be the node's own tile, about 1 in 180


def test_autoreset_draws_new_layouts():
    venv = make_vec(ID, 2)
    venv.reset(seed=0)
    first = venv.unwrapped.batch["walls"].copy()
    venv.step(np.array([6, 6]))
    venv.step(np.array([0, 0]))
    assert not np.array_equal(first, venv.unwrapped.batch["walls"])
