"""Issue #3 item 6: the native vector env is at least 100 times SyncVectorEnv, same run."""

import gymnasium as gym

import hiddengrid  # noqa: F401
from hiddengrid.envs.field_cipher.bench import steps_per_second
from hiddengrid.envs.field_cipher.env import ENV_ID


def test_native_vector_env_is_100x_sync_vector_env():
    native = gym.make_vec(ENV_ID, num_envs=4096, vectorization_mode="vector_entry_point")
    sync = gym.make_vec(ENV_ID, num_envs=128, vectorization_mode="sync")
    fast = steps_per_second(native, 4096, 0.6)
    slow = steps_per_second(sync, 128, 0.6)
    assert fast >= 100 * slow, (fast, slow)
