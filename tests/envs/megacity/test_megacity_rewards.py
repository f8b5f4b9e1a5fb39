"""Every reward term on hand-built states; terms always sum to the reward."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import make_vec
from mc_helpers import ENV_ID, act, make_env, refresh, scenario_with, state

from hiddengrid.envs.megacity.constants import DISTRICT, REWARD_TERMS


def only(info: dict, **expected: float) -> None:
    """The reward terms are exactly ``expected`` (the rest 0.0), all floats."""
    terms = info["reward_terms"]
    assert list(terms) == list(REWARD_TERMS)
    assert all(type(v) is float for v in terms.values())
    assert {k: v for k, v in terms.items() if v != 0.0} == expected


def poke(env, **values) -> None:
    for name, value in values.items():
        env.unwrapped.batch[name][0] = value
    refresh(env)


def test_reset_info_has_metrics_and_mask() -> None:
    env = make_env()
    _, info = env.reset(seed=3)
    assert info["metrics"] == {"integrity": 100, "air": 85, "power": 50, "districts": 0}
    # int8, Gymnasium's mask type, so action_space.sample(mask=info["action_mask"]) works
    assert info["action_mask"].shape == (390,) and info["action_mask"].dtype == np.int8
    assert np.array_equal(info["action_mask"], env.unwrapped.action_masks())


def test_operation_bonus_and_its_thresholds() -> None:
    env = make_env()
    _, r, *_, info = act(env, "wait")
    only(info, operation=0.5)
    assert r == 0.5
    poke(env, integrity=79)  # settles to 80: not above 80
    _, r, *_, info = act(env, "wait")
    assert info["metrics"]["integrity"] == 80
    only(info, integrity_gain=2.0)
    poke(env, air=60)  # not above 60 (and integrity 80 settles no further)
    _, r, *_, info = act(env, "wait")
    only(info)
    assert r == 0.0


def test_integrity_gain_and_deficit() -> None:
    env = make_env(scenario_with(stress={(2, 2): 40}))
    poke(env, integrity=75)
    act(env, "excavate", (2, 2))  # overload 40 - 30 = 10: -3
    assert state(env, "integrity") == 72
    _, r, *_, info = act(env, "wait")  # crept to 42: -3
    assert info["metrics"]["integrity"] == 69
    assert info["reward_terms"]["integrity_deficit"] == -22.0
    assert info["reward_terms"]["integrity_gain"] == 0.0 and info["reward_terms"]["operation"] == 0
    _, r, *_, info = act(env, "support", "steel", (2, 2))  # 44 held by 52: settles +1
    only(info, integrity_gain=2.0, integrity_deficit=-2.0 * 10)
    assert r == 2.0 - 20.0


def test_air_gain_and_deficit() -> None:
    east = {(r, c): [0, 2] for r in range(5) for c in range(5)}
    env = make_env(scenario_with(airflow=east))
    poke(env, air=50)
    act(env, "excavate", (0, 0))  # nothing breathes yet: 50
    _, r, *_, info = act(env, "vent", (0, 0), "east")  # + (1 + 2): draft and current
    assert info["metrics"]["air"] == 53
    only(info, air_gain=3.0, air_deficit=-7.0)
    assert r == -4.0


def test_district_term_per_activation() -> None:
    env = make_env(scenario_with(base_stress=5))
    poke(env, power=100)  # no taps here: the upkeep of two cores would brown out 50
    act(env, "excavate", (1, 1))
    act(env, "build", (1, 1))  # waits: no shaft
    act(env, "excavate", (1, 2))
    _, _, *_, info = act(env, "build", (1, 2))  # no shaft yet: two cores wait
    assert info["reward_terms"]["district"] == 0.0
    act(env, "vent", (1, 2), "north")  # both aired: 1 step of 3
    act(env, "wait")
    _, _r, *_, info = act(env, "wait")  # both come online at once
    assert info["reward_terms"]["district"] == 10.0
    assert info["metrics"]["districts"] == 2


def test_power_milestone_once() -> None:
    env = make_env(scenario_with(faults={(0, 0): 1, (4, 4): 1}))
    poke(env, power=76)
    _, _, *_, info = act(env, "conduit", ((0, 0),))  # 76 - 1 + 5 = 80: not above
    assert info["metrics"]["power"] == 80
    assert info["reward_terms"]["power_milestone"] == 0.0
    _, r, *_, info = act(env, "wait")  # 85
    only(info, operation=0.5, power_milestone=3.0)
    assert r == 3.5
    _, _, *_, info = act(env, "wait")
    assert info["reward_terms"]["power_milestone"] == 0.0
    poke(env, power=10)
    for _ in range(3):
        act(env, "wait")
    poke(env, power=90)
    _, _, *_, info = act(env, "wait")
    assert info["reward_terms"]["power_milestone"] == 0.0


def test_research_pays_4_once_per_rule() -> None:
    env = make_env()
    total = 0.0
    for rule in ("gravity", "load", "airflow", "conduits"):
        for stage in (1, 2, 3):
            _, _r, *_, info = act(env, "research", rule)
            assert info["reward_terms"]["research"] == (4.0 if stage == 3 else 0.0)
            total += info["reward_terms"]["research"]
    assert total == 16.0
    assert state(env, "components").tolist() == [1] * 6
    mask = env.unwrapped.action_masks()
    assert not mask[384:388].any()
    with pytest.raises(ValueError, match="masked"):
        act(env, "research", "load")


def _six_districts(env) -> None:
    cells = state(env, "cells")
    vents = state(env, "vents")
    for k in range(6):
        cells[k // 5, k % 5] = DISTRICT
        vents[k // 5, k % 5] = 1
    poke(env, districts=6, power=200)


def test_victory_only_at_step_40() -> None:
    env = make_env(scenario_with())
    _six_districts(env)
    for _ in range(5):
        _, _, term, _, info = act(env, "wait")
        assert not term and info["reward_terms"]["victory"] == 0.0
    poke(env, step=39)
    _, r, term, trunc, info = act(env, "wait")
    assert term and not trunc and info["outcome"] == "success"
    assert info["reward_terms"]["victory"] == 40.0
    assert r == 40.0 + 0.5 + info["reward_terms"]["air_gain"]
    with pytest.raises(RuntimeError, match="reset"):
        act(env, "wait")


@pytest.mark.parametrize("change", [{"integrity": 79}, {"air": 54}, {"power": 5}, {"districts": 5}])
def test_no_victory_below_any_threshold(change) -> None:
    env = make_env(scenario_with())
    _six_districts(env)
    poke(env, step=39, **change)
    if "districts" in change:
        state(env, "cells")[0, 0] = 0
    _, _, term, _, info = act(env, "wait")
    assert term and info["outcome"] == "timeout"
    assert info["reward_terms"]["victory"] == 0.0


def test_timeout_at_step_40_without_the_city() -> None:
    env = make_env()
    for t in range(40):
        _, _, term, _, info = act(env, "wait")
        assert term == (t == 39)
    assert info["outcome"] == "timeout"


def test_collapse_ends_with_minus_40_and_pays_the_deficit() -> None:
    env = make_env(scenario_with(stress={(2, 2): 90}))
    poke(env, integrity=10)
    _, r, term, _, info = act(env, "excavate", (2, 2))  # overload 56: -14
    assert term and info["outcome"] == "collapse"
    assert info["metrics"]["integrity"] == 0
    only(info, integrity_deficit=-160.0, catastrophe=-40.0)
    assert r == -200.0


def test_suffocation_ends_with_minus_40() -> None:
    env = make_env(scenario_with())
    state(env, "cells")[0, 0] = state(env, "cells")[0, 1] = 2  # two cores breathe, no shaft
    poke(env, air=3)
    _, r, term, _, info = act(env, "wait")
    assert not term and info["metrics"]["air"] == 1
    _, r, term, _, info = act(env, "wait")
    assert term and info["outcome"] == "suffocation"
    only(info, air_deficit=-60.0, catastrophe=-40.0)
    assert r == -100.0


def test_terms_sum_exactly_to_the_reward_in_long_random_runs() -> None:
    venv = make_vec(ENV_ID, 64)
    venv.reset(seed=0)
    from hiddengrid.envs.megacity.agents import AGENTS

    agents = [AGENTS[name](venv.unwrapped, seed=1) for name in ("random", "heuristic", "oracle")]
    obs, _ = venv.reset(seed=0)
    starts = np.ones(64, dtype=bool)
    seen = set()
    for t in range(300):
        agent = agents[(t // 41) % 3]
        actions = agent.act(obs, starts | (t % 41 == 0))
        obs, reward, term, _, info = venv.step(actions)
        total = sum(info["reward_terms"][k] for k in REWARD_TERMS)
        assert np.array_equal(total, reward)
        for k in REWARD_TERMS:
            seen.update({k} if np.any(info["reward_terms"][k] != 0) else set())
        starts = term
    assert {"district", "operation", "integrity_deficit", "catastrophe", "victory"} <= seen
