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


def test_integrity_deficit_is_charged_once_per_point_lost_below_80() -> None:
    """A drop below 80 pays -2 per point lost, on the step it is lost; a stay below 80 (and
    the recovery) pays nothing more; the recovery pays +2 per point regained."""
    env = make_env(scenario_with(stress={(2, 2): 40}))
    poke(env, integrity=75)
    _, r, *_, info = act(env, "excavate", (2, 2))  # overload 40 - 30 = 10: -3
    assert info["metrics"]["integrity"] == 72
    only(info, integrity_deficit=-6.0)  # 75 -> 72: three points lost
    assert r == -6.0
    _, r, *_, info = act(env, "wait")  # crept to 42: -3
    assert info["metrics"]["integrity"] == 69
    only(info, integrity_deficit=-6.0)  # not -2 * (80 - 69) = -22: only the points lost now
    _, r, *_, info = act(env, "support", "steel", (2, 2))  # 44 held by 52: settles +1
    assert info["metrics"]["integrity"] == 70
    only(info, integrity_gain=2.0)
    assert r == 2.0
    env = make_env(scenario_with())  # nothing open: the rock settles back by 1 a step
    poke(env, integrity=70)
    for expected in range(71, 81):  # below 80 all along, rising: never charged again
        _, r, *_, info = act(env, "wait")
        assert info["metrics"]["integrity"] == expected
        only(info, integrity_gain=2.0)
    _, r, *_, info = act(env, "wait")  # 80 is not above 80: no settling, no bonus
    assert info["metrics"]["integrity"] == 80
    only(info)


def test_a_fall_from_above_80_pays_only_the_points_below_80() -> None:
    env = make_env(scenario_with(stress={(2, 2): 90}))
    poke(env, integrity=90)
    _, _r, *_, info = act(env, "excavate", (2, 2))  # overload 60: -15, 90 -> 75
    assert info["metrics"]["integrity"] == 75
    only(info, integrity_deficit=-10.0)  # 80 -> 75 only
    env = make_env(scenario_with(stress={(0, 0): 36}))
    _, _r, *_, info = act(env, "excavate", (0, 0))  # overload 6: -2, 100 -> 98, above 80
    assert info["metrics"]["integrity"] == 98
    only(info, operation=0.5)


def test_air_deficit_is_charged_once_per_point_lost_below_60() -> None:
    east = {(r, c): [0, 1] for r in range(5) for c in range(5)}
    env = make_env(scenario_with(airflow=east))
    cells = state(env, "cells")
    cells[0, 0] = cells[0, 1] = cells[0, 2] = 2  # three cores breathe, no shaft: -3 a step
    poke(env, air=62, power=80)  # not above 80: no power milestone
    _, r, *_, info = act(env, "wait")  # 62 -> 59: only the point below 60 is charged
    assert info["metrics"]["air"] == 59
    only(info, air_deficit=-1.0)
    _, r, *_, info = act(env, "wait")  # 59 -> 56
    only(info, air_deficit=-3.0)
    assert r == -3.0
    act(env, "excavate", (4, 4))  # 56 -> 53: -3
    act(env, "vent", (4, 4), "east")  # + (1 + 1) - 3: 52
    act(env, "excavate", (4, 3))  # 51
    _, r, *_, info = act(env, "vent", (4, 3), "east")  # + 4 - 3: 52, a recovery
    assert info["metrics"]["air"] == 52
    only(info, air_gain=1.0)
    assert r == 1.0
    poke(env, power=80)  # the upkeep of three cores, 9 a step, would soon brown out
    act(env, "excavate", (4, 2))
    _, r, *_, info = act(env, "vent", (4, 2), "east")  # 53 + 6 - 3: up 3, no charge below 60
    assert info["metrics"]["air"] == 56
    only(info, air_gain=3.0)


def test_air_above_60_is_never_charged() -> None:
    env = make_env(scenario_with())
    state(env, "cells")[0, 0] = 2  # one core breathes: -1 a step
    poke(env, air=70, power=80)
    for expected in (69, 68, 67):
        _, _r, *_, info = act(env, "wait")
        assert info["metrics"]["air"] == expected
        only(info, operation=0.5)


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


def test_collapse_ends_with_minus_40_and_pays_the_points_lost() -> None:
    env = make_env(scenario_with(stress={(2, 2): 90}))
    poke(env, integrity=10)
    _, r, term, _, info = act(env, "excavate", (2, 2))  # overload 56: -14
    assert term and info["outcome"] == "collapse"
    assert info["metrics"]["integrity"] == 0
    only(info, integrity_deficit=-20.0, catastrophe=-40.0)  # the last 10 points
    assert r == -60.0


def test_a_collapse_from_above_80_pays_the_80_points_below_the_line() -> None:
    hot = {(r, c): 100 for r in range(5) for c in range(5)}
    env = make_env(scenario_with(stress=hot))
    poke(env, integrity=84)
    cells = state(env, "cells")
    cells[0, :] = 1  # five open chambers at 100: overload 70 each, -88 in one step
    _, r, term, _, info = act(env, "wait")
    assert term and info["outcome"] == "collapse"
    only(info, integrity_deficit=-160.0, catastrophe=-40.0)
    assert r == -200.0


def test_suffocation_ends_with_minus_40() -> None:
    env = make_env(scenario_with())
    state(env, "cells")[0, 0] = state(env, "cells")[0, 1] = 2  # two cores breathe, no shaft
    poke(env, air=3)
    _, r, term, _, info = act(env, "wait")
    assert not term and info["metrics"]["air"] == 1
    only(info, air_deficit=-2.0)
    _, r, term, _, info = act(env, "wait")
    assert term and info["outcome"] == "suffocation"
    only(info, air_deficit=-1.0, catastrophe=-40.0)  # the last point
    assert r == -41.0


def test_terms_sum_exactly_to_the_reward_in_long_random_runs() -> None:
    venv = make_vec(ENV_ID, 64)
    venv.reset(seed=0)
    from hiddengrid.envs.megacity.agents import AGENTS

    agents = [AGENTS[name](venv.unwrapped, seed=1) for name in ("random", "heuristic", "oracle")]
    obs, _ = venv.reset(seed=0)
    starts = np.ones(64, dtype=bool)
    before = {"integrity": np.full(64, 100), "air": np.full(64, 85)}
    seen = set()
    for t in range(300):
        agent = agents[(t // 41) % 3]
        actions = agent.act(obs, starts | (t % 41 == 0))
        obs, reward, term, _, info = venv.step(actions)
        total = sum(info["reward_terms"][k] for k in REWARD_TERMS)
        assert np.array_equal(total, reward)
        # the deficits are the points lost below the lines this step (a new episode's first
        # step starts from 100 and 85)
        now = info["metrics"]
        lost = np.maximum(0, np.minimum(before["integrity"], 80) - now["integrity"])
        assert np.array_equal(info["reward_terms"]["integrity_deficit"], -2.0 * lost)
        lost = np.maximum(0, np.minimum(before["air"], 60) - now["air"])
        assert np.array_equal(info["reward_terms"]["air_deficit"], -1.0 * lost)
        before = {
            k: np.where(term, start, now[k]) for k, start in (("integrity", 100), ("air", 85))
        }
        for k in REWARD_TERMS:
            seen.update({k} if np.any(info["reward_terms"][k] != 0) else set())
        starts = term
    assert {"district", "operation", "integrity_deficit", "catastrophe", "victory"} <= seen
