"""The ``"hiddengrid:hiddengrid/<Id>"`` form works in a process that never imported hiddengrid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hiddengrid import ENV_IDS
from hiddengrid.integrations import make_env, module_id

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
import gymnasium as gym
ids = json.loads(sys.argv[1])
assert "hiddengrid" not in sys.modules
out = {}
try:
    gym.make(ids[0])
except gym.error.Error as exc:
    out["bare"] = type(exc).__name__
for env_id in ids:
    env = gym.make("hiddengrid:" + env_id)
    obs, _ = env.reset(seed=0)
    venv = gym.make_vec("hiddengrid:" + env_id, num_envs=2, vectorization_mode="vector_entry_point")
    vobs, _ = venv.reset(seed=0)
    out[env_id] = sorted(obs) == sorted(vobs) and env.unwrapped.spec.id == env_id
print(json.dumps(out))
"""


def test_module_form_in_a_fresh_process() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(list(ENV_IDS))],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # Without the prefix such a process does not know the namespace; with it every id works.
    assert out.pop("bare") == "NamespaceNotFound"
    assert out == dict.fromkeys(ENV_IDS, True)


@pytest.mark.parametrize("given", ["AnomalyMapping-v0", "hiddengrid/AnomalyMapping-v0"])
def test_module_id_accepts_short_and_full_ids(given: str) -> None:
    assert module_id(given) == "hiddengrid:hiddengrid/AnomalyMapping-v0"
    assert module_id(module_id(given)) == module_id(given)


@pytest.mark.parametrize("bad", ["hiddengrid/Nope-v0", "CartPole-v1", 3, None])
def test_unknown_id_names_the_module_form(bad: object) -> None:
    with pytest.raises(ValueError, match=r"hiddengrid:hiddengrid/AnomalyMapping-v0"):
        make_env(bad)  # type: ignore[arg-type]


def test_library_vector_envs_run_on_one_thread_unless_told() -> None:
    from hiddengrid.integrations import make_vec_env

    assert make_vec_env(ENV_IDS[0], 300).unwrapped.num_threads == 1
    assert make_vec_env(ENV_IDS[0], 300, num_threads=2).unwrapped.num_threads == 2
