"""Engine input checks: what the core refuses or accepts at its edges, and its quiet fallbacks."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from helpers import make, make_vec

from hiddengrid.core.scenario import int_array, int_scalar

ID = "hiddengrid/AnomalyMapping-v0"


def test_timedelta_is_not_an_action_or_a_seed() -> None:
    env = make(ID)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(np.timedelta64(1))
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=np.timedelta64(2))
    venv = make_vec(ID, 2)
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=[np.timedelta64(1), 2])


def test_bools_inside_scenario_lists_are_refused() -> None:
    with pytest.raises(ValueError, match="node"):
        int_array([True, 0], "node", (2,), 0, 14)
    with pytest.raises(ValueError, match="node"):
        int_array((3, np.True_), "node", (2,), 0, 14)
    assert int_array([3, 0], "node", (2,), 0, 14).tolist() == [3, 0]
    env = make(ID)
    env.reset(seed=1)
    scenario = env.unwrapped.scenario
    walls = [list(row) for row in scenario["walls"]]
    r, c = next((r, c) for r in range(15) for c in range(15) if walls[r][c] == 1)
    walls[r][c] = True
    before = env.unwrapped.batch.snapshot()
    with pytest.raises(ValueError, match="walls"):
        env.reset(options={"scenario": {**scenario, "walls": walls}})
    after = env.unwrapped.batch.snapshot()
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_anomaly_mapping_facing_accepts_a_0d_int_array() -> None:
    env = make(ID)
    env.reset(seed=2)
    scenario = env.unwrapped.scenario
    obs, _ = env.reset(options={"scenario": {**scenario, "facing": np.array(2)}})
    assert int(obs["facing"]) == 2
    for bad in (np.array(2.0), np.array(True), True, np.timedelta64(1), 4, -1, [2]):
        with pytest.raises(ValueError, match="facing"):
            env.reset(options={"scenario": {**scenario, "facing": bad}})
    assert int_scalar(np.int8(3), "facing", 0, 3) == 3


def test_vector_get_scenario_before_reset_raises_like_the_single_env() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        make(ID).unwrapped.scenario  # noqa: B018
    venv = make_vec(ID, 2)
    with pytest.raises(RuntimeError, match="reset"):
        venv.unwrapped.get_scenario(0)
    venv.reset(seed=0)
    assert venv.unwrapped.get_scenario(np.int64(1)) == make_single_scenario(1)
    with pytest.raises(IndexError):
        venv.unwrapped.get_scenario(2)


def make_single_scenario(seed: int) -> dict:
    env = make(ID)
    env.reset(seed=seed)
    return env.unwrapped.scenario


def test_one_env_vector_takes_a_list_of_one_scenario() -> None:
    scenario = make_single_scenario(4)
    venv = make_vec(ID, 1)
    venv.reset(seed=0, options={"scenario": [scenario]})
    assert venv.unwrapped.get_scenario(0) == scenario
    with pytest.raises(ValueError, match="1 envs"):
        venv.reset(options={"scenario": [scenario, scenario]})
    single = make(ID)
    with pytest.raises(ValueError, match="scenario dict"):
        single.reset(options={"scenario": [scenario]})


def test_num_envs_takes_numpy_integers_only() -> None:
    venv = make_vec(ID, np.int64(4))
    assert venv.num_envs == 4 and type(venv.num_envs) is int
    for bad in (np.True_, True, 0, np.int64(-1), 2.0, np.timedelta64(2)):
        with pytest.raises(ValueError, match="num_envs"):
            make_vec(ID, bad)


def test_vector_np_random_is_seeded_by_numpy_and_list_seeds() -> None:
    def draw(seed: object) -> int:
        venv = make_vec(ID, 2)
        venv.reset(seed=seed)
        return int(venv.unwrapped.np_random.integers(2**62))

    assert draw(np.int64(7)) == draw(7)
    assert draw([3, 4]) == draw([3, 4])
    assert draw([3, 4]) != draw([3, 5])
    venv = make_vec(ID, 2)
    venv.reset(seed=[3, 4])
    other = make_vec(ID, 2)
    other.reset(seed=3)  # the same sub-env seeds, so the same episodes
    assert np.array_equal(venv.unwrapped.batch["node"], other.unwrapped.batch["node"])


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, **env}
    full["PYTHONPATH"] = os.pathsep.join(sys.path)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=full
    )


def test_pure_python_rng_prints_no_overflow_warnings() -> None:
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "import gymnasium as gym, hiddengrid\n"
        "env = gym.make('hiddengrid/AnomalyMapping-v0'); env.reset(seed=3)\n"
        "for a in [0, 2, 1, 3, 4, 5, 0, 0]: env.step(a)\n"
        "v = gym.make_vec(env.spec.id, 3, vectorization_mode='vector_entry_point')\n"
        "v.reset(seed=2**64 - 1)\n"
        "print(env.unwrapped.batch['node'][0].tolist())\n"
    )
    jit = _run(code)
    nojit = _run(code, NUMBA_DISABLE_JIT="1")
    assert nojit.returncode == 0, nojit.stderr
    assert "Warning" not in nojit.stderr
    assert nojit.stdout == jit.stdout  # the same numbers with and without the compiler


def test_no_writable_cache_falls_back_with_one_warning() -> None:
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    import gymnasium as gym, hiddengrid\n"
        "    env = gym.make('hiddengrid/AnomalyMapping-v0'); env.reset(seed=0); env.step(0)\n"
        "print(sum('Numba cache' in str(w.message) for w in seen))\n"
    )
    # Only NUMBA_CACHE_DIR may hold the cache, and it is not set: as on a read-only install
    # run by a user without a writable home.
    env = {"NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator"}
    proc = _run(code, **env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "1"


def test_check_env_passes_without_pygame() -> None:
    code = (
        "import sys, warnings; sys.modules['pygame'] = None\n"
        "import gymnasium as gym, hiddengrid\n"
        "from gymnasium.utils.env_checker import check_env\n"
        "env = gym.make('hiddengrid/AnomalyMapping-v0')\n"
        "assert 'human' not in env.unwrapped.metadata['render_modes']\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('error')\n"
        "    check_env(env.unwrapped)\n"
        "try:\n"
        "    gym.make('hiddengrid/AnomalyMapping-v0', render_mode='human')\n"
        "except Exception as exc:\n"
        "    print(exc)\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr
    assert "hiddengrid[human]" in proc.stdout


def test_human_window_uses_a_silent_audio_driver(monkeypatch) -> None:
    pytest.importorskip("pygame")
    monkeypatch.delenv("SDL_AUDIODRIVER", raising=False)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gym.make(ID, render_mode="human")
    env.reset(seed=0)
    env.close()
    assert os.environ["SDL_AUDIODRIVER"] == "dummy"


def test_human_window_keeps_a_chosen_audio_driver(monkeypatch) -> None:
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_AUDIODRIVER", "disk")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.make(ID, render_mode="human")
    env.close()
    assert os.environ["SDL_AUDIODRIVER"] == "disk"
