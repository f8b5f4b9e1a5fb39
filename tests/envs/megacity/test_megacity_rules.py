"""The physics equations and the worked examples of the docs page (README.md)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from mc_helpers import act, make_env, refresh, scenario_with, state

from hiddengrid.envs.megacity import rules
from hiddengrid.envs.megacity.constants import (
    AIR_BASE_DEMAND,
    AIR_PER_DISTRICT,
    CHAMBER,
    CONDUIT_AMPLIFY,
    CONDUIT_LEAK,
    CORE,
    CORE_DELAY,
    CREEP,
    DISTRICT,
    DISTRICT_UPKEEP,
    EXCAVATION_SPILL,
    FAULT_HALO,
    FAULT_LOAD,
    FAULT_TAP,
    HOLD_OFF_SEAM,
    HOLD_ON_SEAM,
    ROCK_SPAN,
    SEAM_RELIEF,
    SEAM_SHEAR,
    SHAFT_DRAFT,
)


def test_constants_of_the_docs_examples() -> None:
    # The worked examples on the docs page use these numbers.
    assert (ROCK_SPAN, SEAM_SHEAR, EXCAVATION_SPILL, SEAM_RELIEF, CREEP) == (30, 16, 5, 12, 2)
    assert HOLD_OFF_SEAM.tolist() == [0, 10, 22, 26] and HOLD_ON_SEAM.tolist() == [0, 10, 0, 30]
    assert (CONDUIT_AMPLIFY, FAULT_TAP, CONDUIT_LEAK, DISTRICT_UPKEEP) == (8, 5, 1, 3)
    assert (SHAFT_DRAFT, AIR_BASE_DEMAND, AIR_PER_DISTRICT, CORE_DELAY) == (1, 0, 1, 3)
    assert (FAULT_LOAD, FAULT_HALO) == (24, 8)


def overload_of(env, r: int, c: int) -> int:
    f = env.unwrapped.batch.fields
    return rules.overload(0, r, c, f["cells"], f["supports"], f["stress"], f["seams"], f["damped"])


def test_example_1_an_open_chamber_creeps_until_it_breaks() -> None:
    """Stress 30 at the rock span: no overload on the step it opens, then +2 a step."""
    env = make_env(scenario_with(base_stress=30))
    act(env, "excavate", (2, 2))
    assert state(env, "integrity") == 100 and state(env, "stress")[2, 2] == 32
    act(env, "wait")  # overload 2: -ceil(2/4) = -1
    assert state(env, "integrity") == 99 and state(env, "stress")[2, 2] == 34
    act(env, "wait")  # overload 4: -1
    assert state(env, "integrity") == 98
    act(env, "support", "timber", (2, 2))  # 36 against 30 + 10: held
    assert state(env, "integrity") == 98 and overload_of(env, 2, 2) == 0
    # neighbours took the spill, rock never overloads
    assert state(env, "stress")[1, 2] == 35 and overload_of(env, 1, 2) == 0


def test_example_2_materials_respond_differently_to_sideways_gravity() -> None:
    """Seam cell, stress 20: open load 20 + 16 = 36."""
    seam = scenario_with(seams={(2, c): 2 for c in range(5)}, stress={(2, 2): 20})
    expected = {"timber": 0, "steel": 6}  # hold 30 + 10 = 40 and 30 + 0 = 30
    for material, overload in expected.items():
        env = make_env(seam)
        act(env, "excavate", (2, 2))
        env.unwrapped.batch["stress"][0, 2, 2] = 20  # undo the creep to read the equation
        act(env, "support", material, (2, 2))
        env.unwrapped.batch["stress"][0, 2, 2] = 20
        assert overload_of(env, 2, 2) == overload, material
    # Off the seam the ranking flips: stress 45 overloads timber by 5, steel (52) holds it.
    for material, overload in {"timber": 5, "steel": 0}.items():
        env = make_env(scenario_with(stress={(2, 2): 45}))
        act(env, "excavate", (2, 2))
        act(env, "support", material, (2, 2))
        env.unwrapped.batch["stress"][0, 2, 2] = 45
        assert overload_of(env, 2, 2) == overload, material


def test_example_3_excavating_relieves_stress_far_away_along_a_seam() -> None:
    """Row 2 pulls east, stress 40 everywhere; excavating (2,1)."""
    env = make_env(scenario_with(base_stress=40, seams={(2, c): 2 for c in range(5)}))
    act(env, "excavate", (2, 1))
    s = state(env, "stress")
    assert s[2, 3] == s[2, 4] == 28  # downstream: -12
    assert s[2, 2] == 33  # downstream and next door: -12 + 5
    assert s[1, 1] == s[3, 1] == s[2, 0] == 45  # upstream and across: only the spill
    assert s[2, 1] == 42  # the chamber itself creeps
    assert s[0, 0] == 40


def test_example_4_a_core_comes_online_after_three_steps_held_and_aired() -> None:
    env = make_env(scenario_with(base_stress=10))  # still air: a shaft draws its draft, 2
    act(env, "excavate", (2, 2))
    act(env, "vent", (2, 2), "north")
    _, r, *_ = act(env, "build", (2, 2))  # online count 1
    assert state(env, "cells")[2, 2] == CORE and r < 5
    act(env, "wait")  # 2
    assert state(env, "districts") == 0
    _, _, _, _, info = act(env, "wait")  # 3: online
    assert state(env, "cells")[2, 2] == DISTRICT and info["metrics"]["districts"] == 1
    assert info["reward_terms"]["district"] == 5.0
    assert state(env, "stress")[2, 2] == 10 + 4 * CREEP  # open 4 steps, then it stops creeping
    act(env, "wait")
    assert state(env, "stress")[2, 2] == 10 + 4 * CREEP


def test_example_5_a_reversal_suffocates_a_district_aired_by_a_wrong_shaft() -> None:
    """Current east at speed 1: a shaft facing east draws 1 + 1 = 2 on steps 0-7 and
    max(0, -1 + 1) = 0 from step 8; facing north it draws its draft, 1, always."""
    flow = {(r, c): [0, 1] for r in range(5) for c in range(5)}
    results = {}
    for facing in ("east", "north"):
        env = make_env(scenario_with(airflow=flow))
        act(env, "excavate", (2, 2))
        act(env, "vent", (2, 2), facing)
        act(env, "build", (2, 2))
        for _ in range(5):
            act(env, "wait")
        assert state(env, "step") == 8 and state(env, "districts") == 1
        _, _, _, _, info = act(env, "wait")  # step 8: the current has turned
        results[facing] = info["metrics"]["districts"]
        # the air index does not swing: 1 + |1| a step along the current's axis, 1 across
        assert info["reward_terms"]["district"] == 0.0
    assert results == {"east": 0, "north": 1}
    f = env.unwrapped.batch.fields
    baffled = False
    assert rules.supply_facing(0, 2, 2, 2, 8, f["airflow0"], baffled) == 0
    assert rules.supply_facing(0, 2, 2, 2, 7, f["airflow0"], baffled) == 2
    assert rules.supply_facing(0, 2, 2, 1, 8, f["airflow0"], baffled) == 1
    assert rules.shaft_air(0, 2, 2, 2, f["airflow0"]) == 2
    assert rules.shaft_air(0, 2, 2, 1, f["airflow0"]) == 1


def test_example_6_conduits_tap_the_fault_and_leak_elsewhere() -> None:
    env = make_env(scenario_with(base_stress=20, faults={(1, 1): 1}))
    act(env, "conduit", ((1, 1),))  # 50 - 1 + 5
    assert state(env, "power") == 54
    s = state(env, "stress")
    assert s[1, 1] == 20 + CONDUIT_AMPLIFY and s[0, 1] == s[1, 2] == 20 + CONDUIT_AMPLIFY
    act(env, "conduit", ((4, 3), (4, 4)))  # 54 - 2 + 5 - 2
    assert state(env, "power") == 55
    act(env, "wait")
    assert state(env, "power") == 58


def test_example_7_balances_from_the_moment_a_core_is_built() -> None:
    """One core and one shaft across a still current: power -4, -3, -5 (build), then -3 a
    step; air +1 a step from the shaft on, 1 - 1 from the build on."""
    env = make_env(scenario_with(base_stress=10))
    act(env, "excavate", (2, 2))  # power 46, air 85
    assert (state(env, "power"), state(env, "air")) == (46, 85)
    act(env, "vent", (2, 2), "north")  # power 43, air 86
    assert (state(env, "power"), state(env, "air")) == (43, 86)
    act(env, "build", (2, 2))  # power 43 - 5 - 3 = 35, air 86 + 1 - 1 = 86
    assert (state(env, "power"), state(env, "air")) == (35, 86)
    act(env, "wait")
    assert (state(env, "power"), state(env, "air")) == (32, 86)


def test_example_8_a_brownout_shuts_every_district_down() -> None:
    env = make_env(scenario_with(base_stress=10))
    act(env, "excavate", (2, 2))
    act(env, "vent", (2, 2), "north")
    act(env, "build", (2, 2))
    act(env, "wait")
    act(env, "wait")
    assert state(env, "districts") == 1
    env.unwrapped.batch["power"][0] = 1  # the upkeep, 3, cannot be paid
    refresh(env)
    _, _, _, _, info = act(env, "wait")
    assert info["metrics"]["power"] == 0 and info["metrics"]["districts"] == 0
    assert state(env, "cells")[2, 2] == CORE
    # it comes online again three steps later, but the +5 was paid once
    env.unwrapped.batch["power"][0] = 50
    refresh(env)
    terms = [act(env, "wait")[4]["reward_terms"]["district"] for _ in range(3)]
    assert state(env, "districts") == 1 and terms == [0.0, 0.0, 0.0]


def test_integrity_settles_back_only_up_to_the_safety_line() -> None:
    env = make_env()
    for start, after in ((70, 71), (79, 80), (80, 80), (95, 95)):
        env.unwrapped.batch["integrity"][0] = start
        _, _, _, _, info = act(env, "wait")
        assert info["metrics"]["integrity"] == after
        assert info["reward_terms"]["integrity_gain"] == 2.0 * (after - start)


def test_the_scan_reveals_the_fault_concentrations_but_not_the_survey_error() -> None:
    scenario = scenario_with(base_stress=40, faults={(2, 2): 1})
    scenario["survey"][2][2] = 3
    scenario["survey"][2][3] = -5
    env = make_env(scenario)
    o, *_ = act(env, "wait")
    assert o["stress"][2, 2] == 40 + 3 - FAULT_LOAD
    assert o["stress"][2, 3] == 40 - 5 - FAULT_HALO and o["stress"][0, 0] == 40
    assert (o["faults"] == -1).all()
    o, *_ = act(env, "scan")
    assert o["stress"][2, 2] == 43 and o["stress"][2, 3] == 35
    assert o["faults"][2, 2] == 1 and o["faults"].sum() == 1


def test_research_reveals_seams_bit_by_bit() -> None:
    env = make_env(scenario_with(seams={(r, 1): 3 for r in range(5)}))
    o, *_ = act(env, "wait")
    assert (o["seams"] == -1).all()
    o, *_ = act(env, "research", "gravity")
    assert (o["seams"][:, 1] == 5).all() and o["seams"].sum() == 25
    o, *_ = act(env, "research", "gravity")
    assert (o["seams"][:, 1] == 3).all()
    o, *_ = act(env, "research", "gravity")
    assert o["components"][2] == 1  # anchor


def test_airflow_reverses_exactly_at_steps_8_16_24_32() -> None:
    flow = {(r, c): [1, 0] for r in range(5) for c in range(5)}
    env = make_env(scenario_with(airflow=flow))
    seen = {0: int(env.unwrapped.batch["airflow"][0, 0, 0, 0])}
    for _ in range(40):
        o, *_ = act(env, "wait")
        seen[int(o["step"])] = int(o["airflow"][0, 0, 0])
    flips = [t for t in range(1, 41) if seen[t] != seen[t - 1]]
    assert flips == [8, 16, 24, 32]


def test_deterministic_steps_do_not_touch_the_random_stream() -> None:
    env = make_env()
    before = env.unwrapped.batch.rng.copy()
    act(env, "excavate", (0, 0))
    act(env, "research", "load")
    assert np.array_equal(before, env.unwrapped.batch.rng)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 389), min_size=5, max_size=40))
def test_invariants_over_random_legal_play(seed: int, picks: list[int]) -> None:
    """Any legal play: power in 0..200, cells only move rock -> chamber -> core <-> district,
    district count = district cells, stress in 0..100, a district cell is always activated."""
    env = make_env()
    env.reset(seed=seed)
    b = env.unwrapped.batch
    for k in picks:
        legal = np.flatnonzero(b["mask"][0])
        before = b["cells"][0].copy()
        _, reward, terminated, _, info = env.step(int(legal[k % len(legal)]))
        cells = b["cells"][0]
        assert 0 <= b["power"][0] <= 200
        assert ((cells >= before) | ((before == DISTRICT) & (cells == CORE))).all()
        assert (before[cells == CHAMBER] <= CHAMBER).all()
        assert info["metrics"]["districts"] == int((cells == DISTRICT).sum())
        assert (b["activated"][0][cells == DISTRICT] == 1).all()
        assert b["stress"][0].min() >= 0 and b["stress"][0].max() <= 100
        assert sum(info["reward_terms"].values()) == reward
        if terminated:
            break
