"""The physics equations and the worked examples of the docs page (README.md)."""

from __future__ import annotations

import numpy as np
from mc_helpers import act, make_env, refresh, scenario_with, state

from hiddengrid.envs.megacity import rules
from hiddengrid.envs.megacity.constants import (
    CHAMBER,
    CONDUIT_AMPLIFY,
    DISTRICT,
    EXCAVATION_SPILL,
    FAULT_TAP,
    ROCK_SPAN,
    SEAM_RELIEF,
    SEAM_SHEAR,
)


def test_constants_of_the_docs_examples() -> None:
    # The worked examples on the docs page use these numbers.
    assert (ROCK_SPAN, SEAM_SHEAR, EXCAVATION_SPILL, SEAM_RELIEF) == (34, 15, 6, 15)
    assert (CONDUIT_AMPLIFY, FAULT_TAP) == (10, 3)


def test_example_1_overload_costs_integrity_and_steel_holds_it() -> None:
    """Open cell, stress 50, off seam: overload 50 - 34 = 16, integrity -ceil(16/4) = -4."""
    env = make_env(scenario_with(stress={(2, 2): 50}))
    act(env, "excavate", (2, 2))
    assert state(env, "stress")[2, 2] == 50
    assert state(env, "integrity") == 96
    _, _, _, _, info = act(env, "support", "steel", (2, 2))  # hold 34 + 40 = 74
    assert info["metrics"]["integrity"] == 97  # no overload: the rock settles, +1
    assert info["reward_terms"]["integrity_gain"] == 2.0


def test_example_2_materials_respond_differently_to_sideways_gravity() -> None:
    """A seam cell with stress 40 carries 40 + 15 = 55 when open."""
    seam = scenario_with(seams={(2, c): 2 for c in range(5)}, stress={(2, 2): 40})
    expected = {"timber": 1, "steel": 16}  # holds 34 + 20 = 54 and 34 + 5 = 39
    for material, overload in expected.items():
        env = make_env(seam)
        act(env, "excavate", (2, 2))
        act(env, "support", material, (2, 2))
        f = env.unwrapped.batch.fields
        got = rules.overload(
            0, 2, 2, f["cells"], f["supports"], f["stress"], f["seams"], f["damped"]
        )
        assert got == overload, material
    # Off the seam the ranking flips: steel holds 74, timber 54.
    env = make_env(scenario_with(stress={(2, 2): 60}))
    act(env, "excavate", (2, 2))
    act(env, "support", "steel", (2, 2))
    f = env.unwrapped.batch.fields
    assert (
        rules.overload(0, 2, 2, f["cells"], f["supports"], f["stress"], f["seams"], f["damped"])
        == 0
    )
    # The anchor (gravity decoded) holds 34 + 40 = 74 on the seam as well.
    env = make_env(seam)
    for _ in range(3):
        act(env, "research", "gravity")
    assert state(env, "components")[2] == 1
    act(env, "excavate", (2, 2))
    act(env, "support", "anchor", (2, 2))
    f = env.unwrapped.batch.fields
    assert (
        rules.overload(0, 2, 2, f["cells"], f["supports"], f["stress"], f["seams"], f["damped"])
        == 0
    )


def test_example_3_excavating_relieves_stress_far_away_along_a_seam() -> None:
    """Row seam on row 2 pulling east; excavating (2, 1) unloads (2, 2), (2, 3), (2, 4) by 15
    and loads the four neighbours of (2, 1) by 6."""
    env = make_env(scenario_with(base_stress=40, seams={(2, c): 2 for c in range(5)}))
    before = state(env, "stress").copy()
    act(env, "excavate", (2, 1))
    after = state(env, "stress")
    delta = after.astype(int) - before.astype(int)
    assert delta[2, 4] == -15 and delta[2, 3] == -15  # far away: 3 cells downstream
    assert delta[2, 2] == -15 + 6  # downstream and a neighbour
    assert delta[1, 1] == 6 and delta[3, 1] == 6 and delta[2, 0] == 6
    assert delta[2, 1] == 0
    assert np.count_nonzero(delta) == 6
    # Off a seam only the spill happens, and relief blasting (load decoded) removes it.
    env = make_env(scenario_with(base_stress=40))
    for _ in range(3):
        act(env, "research", "load")
    before = state(env, "stress").copy()
    act(env, "excavate", (2, 1))
    assert np.array_equal(state(env, "stress"), before)


def test_example_4_airflow_reversal_changes_which_vents_help() -> None:
    """Base airflow east at speed 2. A shaft east draws 2 + 1 = 3 on steps 0-7 and 0 on steps
    8-15; a shaft north draws its own draft, 1, always; baffled, the east shaft draws 3 then 1."""
    f_east = {(r, c): [0, 2] for r in range(5) for c in range(5)}
    airflow = np.zeros((1, 5, 5, 2), dtype=np.int8)
    airflow[0, 2, 2] = [0, 2]
    for d, expected_now, expected_reversed in ((2, 3, 0), (1, 1, 1), (4, 0, 3)):
        vents = np.zeros((1, 5, 5), dtype=np.int8)
        vents[0, 2, 2] = d
        assert rules.shaft_supply(0, 2, 2, 0, airflow, vents, False) == expected_now
        assert rules.shaft_supply(0, 2, 2, 8, airflow, vents, False) == expected_reversed
    vents = np.zeros((1, 5, 5), dtype=np.int8)
    vents[0, 2, 2] = 2
    assert rules.shaft_supply(0, 2, 2, 8, airflow, vents, True) == 1
    # In the env: air = 85 + 3 - 1 on the vent step.
    env = make_env(scenario_with(airflow=f_east))
    act(env, "excavate", (2, 2))
    _, _, _, _, info = act(env, "vent", (2, 2), "east")
    assert info["metrics"]["air"] == 84 + 3 - 1


def test_example_5_conduit_placement_changes_structural_stability() -> None:
    fault = scenario_with(base_stress=20, faults={(2, 2): 1})
    env = make_env(fault)
    _, _, _, _, info = act(env, "conduit", ((2, 2),))
    s = state(env, "stress")
    assert s[2, 2] == 30 and s[1, 2] == 30 and s[2, 1] == 30 and s[3, 2] == 30
    assert s[2, 3] == 30 and s[0, 0] == 20
    assert info["metrics"]["power"] == 50 - 1 + 1 + 3  # cost 1, income 1, tap 3
    # Shielded conduits (conduits decoded) tap the heat without loading the rock.
    env = make_env(fault)
    for _ in range(3):
        act(env, "research", "conduits")
    act(env, "conduit", ((2, 2),))
    assert state(env, "stress")[2, 2] == 20
    # On a seam a conduit damps the sideways gravity of its cell and everything downstream.
    seam = scenario_with(base_stress=30, seams={(r, 1): 3 for r in range(5)})  # pulls south
    env = make_env(seam)
    act(env, "excavate", (3, 1))
    f = env.unwrapped.batch.fields
    args = (f["cells"], f["supports"], f["stress"], f["seams"], f["damped"])
    assert rules.overload(0, 3, 1, *args) == 30 + 15 - 34
    act(env, "conduit", ((2, 1),))  # upstream of (3, 1)
    assert f["damped"][0, :, 1].tolist() == [0, 0, 1, 1, 1]
    assert rules.overload(0, 3, 1, *args) == 0
    assert rules.shear(0, 1, 1, f["seams"], f["damped"]) == SEAM_SHEAR


def test_example_6_power_and_air_balance() -> None:
    """power += 1 + 3 * taps - districts; air += supply - 1 - districts."""
    env = make_env(scenario_with(faults={(0, 0): 1}))
    act(env, "conduit", ((0, 0),))
    act(env, "excavate", (4, 4))
    act(env, "vent", (4, 4), "north")  # still air: the draft alone, 1
    _, _, _, _, info = act(env, "build", (4, 4))
    assert state(env, "cells")[4, 4] == DISTRICT
    m = info["metrics"]
    # A district draws air and power from the step after it activates.
    # power: 50, conduit -1 +1 +3, excavate -3 +1 +3, vent -2 +1 +3, build -4 +1 +3
    assert m["power"] == 50 - 1 + 4 - 3 + 4 - 2 + 4 - 4 + 4
    # air: no shaft on the first two steps (-1 each), then the shaft's draft 1 - 1 = 0
    assert m["air"] == 85 - 1 - 1 + 0 + 0
    _, _, _, _, info = act(env, "wait")
    assert info["metrics"]["power"] == m["power"] + 1 + 3 - 1
    assert info["metrics"]["air"] == m["air"] + 1 - 1 - 1
    assert m["districts"] == 1


def test_core_waits_for_support_and_air() -> None:
    env = make_env(scenario_with(stress={(1, 1): 50}))
    act(env, "excavate", (1, 1))
    act(env, "build", (1, 1))
    assert state(env, "cells")[1, 1] == 2  # a core: overloaded and no shaft
    act(env, "support", "steel", (1, 1))
    assert state(env, "cells")[1, 1] == 2  # held now, but no shaft within reach
    act(env, "excavate", (0, 1))
    _, _, _, _, info = act(env, "vent", (0, 1), "west")  # a shaft next door is enough
    assert state(env, "cells")[1, 1] == DISTRICT
    assert info["reward_terms"]["district"] == 5.0
    assert state(env, "cells")[0, 1] == CHAMBER


def test_scan_reveals_hidden_stress_concentrations() -> None:
    env = make_env(scenario_with(base_stress=20, faults={(3, 3): 1}, stress={(3, 3): 60}))
    obs = env.unwrapped.batch["view_stress"][0]
    assert obs[3, 3] == 35 and (env.unwrapped.batch["view_faults"][0] == -1).all()
    o, *_ = act(env, "scan")
    assert o["stress"][3, 3] == 60 and o["faults"][3, 3] == 1 and o["faults"].sum() == 1


def test_research_reveals_seams_bit_by_bit() -> None:
    env = make_env(scenario_with(seams={(r, 4): 1 for r in range(5)}))
    assert (state(env, "view_seams") == -1).all()
    o, *_ = act(env, "research", "gravity")
    assert o["seams"][0, 4] == 5 and o["seams"][0, 0] == 0
    o, *_ = act(env, "research", "gravity")
    assert o["seams"][0, 4] == 1
    o, r, *_ = act(env, "research", "gravity")
    assert o["components"].tolist() == [1, 1, 1, 0, 0, 0] and r >= 4.0
    assert not env.unwrapped.action_masks()[env.unwrapped.encode_action("research", "gravity")]


def test_airflow_reverses_exactly_at_steps_8_16_24_32() -> None:
    env = make_env()
    base = env.unwrapped.batch["airflow0"][0].astype(int)
    obs = {"airflow": env.unwrapped.batch["airflow"][0].copy()}
    assert np.array_equal(obs["airflow"], base)
    for t in range(1, 41):  # up to the final observation, at step 40, which does not flip
        obs, *_ = env.step(env.unwrapped.encode_action("wait"))
        sign = -1 if (min(t, 39) // 8) % 2 else 1
        assert np.array_equal(obs["airflow"], sign * base), t
        if t in (8, 16, 24, 32):
            assert sign == (-1 if t in (8, 24) else 1)


def test_deterministic_steps_do_not_touch_the_random_stream() -> None:
    env = make_env()
    rng = env.unwrapped.batch.rng.copy()
    refresh(env)
    for _ in range(10):
        env.step(env.unwrapped.encode_action("scan"))
    assert np.array_equal(env.unwrapped.batch.rng, rng)
