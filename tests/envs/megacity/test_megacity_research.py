"""Research reveals the load, airflow and conduit rules bit by bit into the observation.

Each stage shows data of this episode computed by the same functions the step applies
(``rules.py``), -1 before its stage; the incremental observation of a step equals a full
recompute of the new state.
"""

from __future__ import annotations

import numpy as np
from mc_helpers import act, make_env, scenario_with

from hiddengrid.envs.megacity import rules
from hiddengrid.envs.megacity.constants import (
    CONDUIT_DAMPS,
    CONDUIT_TAPS,
    CONDUIT_TAPS_AND_LOADS,
    DECODED,
    NUM_ACTIONS,
    RESEARCH_BASE,
)
from hiddengrid.envs.megacity.env import MegacityVectorEnv

# observation key -> (rule index, the research stage that reveals it)
REVEALED_BY = {
    "relief_reach": (1, 1),
    "relief": (1, 2),
    "reversal": (2, 1),
    "draft": (2, 2),
    "conduit_effect": (3, 1),
    "conduit_damps": (3, 2),
}


def wait(env, steps: int = 1):
    for _ in range(steps):
        o, *_ = act(env, "wait")
    return o


def test_load_research_reveals_the_seam_relief_at_stages_1_and_2() -> None:
    seam = {(2, c): 2 for c in range(5)}  # row 2 pulls east
    env = make_env(scenario_with(base_stress=40, seams=seam, stress={(2, 4): 5}))
    o = wait(env)
    assert (o["relief_reach"] == -1).all() and (o["relief"] == -1).all()
    o, *_ = act(env, "research", "load")
    assert o["relief_reach"][2].tolist() == [4, 3, 2, 1, 0]
    assert o["relief_reach"].sum() == 10  # nothing off the seam
    assert (o["relief"] == -1).all()  # not before stage 2
    o, *_ = act(env, "research", "load")
    assert o["relief"][2].tolist() == [12 * 3 + 5, 12 * 2 + 5, 12 + 5, 5, 0]  # never below 0
    assert o["relief"].sum() == o["relief"][2].sum()
    o, *_ = act(env, "excavate", (2, 1))  # example 3: the relief follows the stress
    stress = env.unwrapped.batch["stress"][0]
    assert stress[2, 2] == 33 and stress[2, 3] == 28
    assert stress[2, 4] == 0
    assert o["relief"][2].tolist() == [12 * 3, 12 * 2, 12, 0, 0]
    o, *_ = act(env, "research", "load")  # decoded: the views stay
    assert o["relief_reach"][2].tolist() == [4, 3, 2, 1, 0] and o["relief"][2, 2] == 12


def test_airflow_research_reveals_the_reversal_then_the_draft() -> None:
    flow = {(r, c): [0, 2] for r in range(5) for c in range(5)}  # east, speed 2
    env = make_env(scenario_with(airflow=flow))
    assert env.unwrapped.batch["view_reversal"][0] == 0  # not revealed
    o, *_ = act(env, "research", "airflow")  # now at step 1: 1 + 7 steps to the turn
    assert o["reversal"] == 8 and (o["draft"] == -1).all()
    o, *_ = act(env, "research", "airflow")
    assert o["reversal"] == 7
    n, e, s, w = (o["draft"][..., k] for k in range(4))
    # the current (2) plus the shaft's own draft (1) along the direction, never below 0
    assert (e == 3).all() and (w == 0).all() and (n == 1).all() and (s == 1).all()
    o = wait(env, 6)  # step 8: the current has reversed
    assert o["step"] == 8 and o["reversal"] == 9
    assert (o["draft"][..., 1] == 0).all() and (o["draft"][..., 3] == 3).all()
    o, *_ = act(env, "research", "airflow")  # decoded: baffled shafts draw |along|
    assert (o["draft"][..., 1] == 1).all() and (o["draft"][..., 3] == 3).all()
    o = wait(env, 31 - 9)
    assert o["step"] == 31 and o["reversal"] == 2
    for _ in range(9):  # no reversal after step 32
        o = wait(env)
        assert o["reversal"] == 1


def test_the_draft_is_what_a_shaft_would_draw_now() -> None:
    flow = {(r, c): [0, 1] for r in range(5) for c in range(5)}
    flow[(2, 2)] = [0, 2]
    env = make_env(scenario_with(airflow=flow))
    act(env, "research", "airflow")
    o, *_ = act(env, "research", "airflow")
    f = env.unwrapped.batch.fields
    for r in range(5):
        for c in range(5):
            for d in range(1, 5):
                want = rules.supply_facing(0, r, c, d, int(o["step"]), f["airflow0"], False)
                assert o["draft"][r, c, d - 1] == want


def test_conduit_research_reveals_effects_then_damping() -> None:
    seam = {(r, 3): 3 for r in range(5)}  # column 3 pulls south
    env = make_env(scenario_with(seams=seam, faults={(1, 1): 1}))
    o = wait(env)
    assert (o["conduit_effect"] == -1).all() and (o["conduit_damps"] == -1).all()
    o, *_ = act(env, "research", "conduits")
    effect = o["conduit_effect"]
    assert effect[1, 1] == CONDUIT_TAPS_AND_LOADS
    assert (effect[:, 3] == CONDUIT_DAMPS).all()
    assert (effect != 0).sum() == 6
    assert (o["conduit_damps"] == -1).all()  # not before stage 2
    o, *_ = act(env, "research", "conduits")
    assert o["conduit_damps"][:, 3].tolist() == [5, 4, 3, 2, 1]
    assert o["conduit_damps"].sum() == 15
    o, *_ = act(env, "conduit", ((2, 3),))  # damps (2,3), (3,3), (4,3)
    assert o["conduit_damps"][:, 3].tolist() == [2, 1, 0, 0, 0]
    o, *_ = act(env, "research", "conduits")  # decoded: shielded conduits only tap
    assert o["conduit_effect"][1, 1] == CONDUIT_TAPS


def full_views(batch, i: int) -> dict[str, np.ndarray]:
    """The observation fields and the mask of sub-env i, recomputed in full."""
    f = batch.fields
    copies = {name: f[name].copy() for name in (*rules.VIEWS, "mask")}
    rules.write_observation(
        i, f["seams"], f["faults"], f["airflow0"], f["survey"], f["vents"], f["stress"],
        f["damped"], f["step"], f["research"], f["scanned"],
        tuple(copies[name] for name in rules.VIEWS),
    )  # fmt: skip
    rules.write_mask(
        i, f["cells"], f["supports"], f["vents"], f["conduits"], f["power"], f["research"],
        f["components"], copies["mask"],
    )  # fmt: skip
    return {name: v[i] for name, v in copies.items()}


def test_incremental_views_equal_a_full_recompute_and_reveal_only_at_their_stage() -> None:
    """Random legal play that researches often: after every step the observation and mask equal
    write_observation and write_mask of the state, and each research view is -1 exactly
    before its stage and informative from it on."""
    n = 8
    venv = MegacityVectorEnv(num_envs=n)
    obs, _ = venv.reset(seed=3)
    rng = np.random.default_rng(3)
    batch = venv.batch
    stages_seen = set()
    for _ in range(400):
        for i in range(n):
            full = full_views(batch, i)
            for name, value in full.items():
                assert np.array_equal(batch[name][i], value), name
            research = batch["research"][i]
            for key, (rule, stage) in REVEALED_BY.items():
                shown = np.asarray(obs[key][i])
                hidden = 0 if key == "reversal" else -1
                if research[rule] >= stage:
                    stages_seen.add((key, int(research[rule])))
                    assert (shown > hidden).all() if key == "reversal" else (shown >= 0).all()
                    if key in ("relief_reach", "draft", "conduit_effect"):
                        assert shown.max() > 0, key  # a seam, a fault, a draft: never empty
                else:
                    assert (shown == hidden).all(), key
        mask = batch["mask"]
        actions = np.zeros(n, dtype=np.int64)
        for i in range(n):
            legal = np.flatnonzero(mask[i])
            research = legal[(legal >= RESEARCH_BASE) & (legal < RESEARCH_BASE + 4)]
            pool = research if len(research) and rng.random() < 0.25 else legal
            actions[i] = rng.choice(pool)
        obs, *_ = venv.step(actions)
    for key, (_, stage) in REVEALED_BY.items():
        for s in range(stage, DECODED + 1):
            assert (key, s) in stages_seen, (key, s)
    assert batch["mask"].shape[1] == NUM_ACTIONS
