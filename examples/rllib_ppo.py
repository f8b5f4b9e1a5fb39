"""Train RLlib PPO on every hiddengrid id with the native vector env in each env runner.

    pip install "hiddengrid[ray]" "ray[rllib]"
    hiddengrid compile            # fill Numba's cache once, so fresh workers do not compile
    python examples/rllib_ppo.py --iterations 20

Each env runner process builds ``hiddengrid:hiddengrid/<Id>`` itself (the module form imports
the package in the worker), flattens the Dict observation and, for Megacity, trains with
RLlib's action-masking module on the mask placed in the observation.
"""

from __future__ import annotations

import argparse

import ray

from hiddengrid import ENV_IDS
from hiddengrid.integrations.rllib import ppo_config
from hiddengrid.warmup import warm_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", action="append", metavar="ID", help="default: every id")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--env-runners", type=int, default=1)
    parser.add_argument("--envs-per-runner", type=int, default=16)
    args = parser.parse_args()
    ray.init(include_dashboard=False)
    for env_id in args.env or ENV_IDS:
        # Fill Numba's cache here first, so the env runners load the kernels instead of each
        # compiling them (what "hiddengrid compile" does for every id).
        warm_env(env_id)
        config = ppo_config(
            env_id,
            num_env_runners=args.env_runners,
            num_envs_per_env_runner=args.envs_per_runner,
        )
        algo = config.build_algo()
        for it in range(args.iterations):
            result = algo.train()
            # An iteration whose runners returned no sample has no "env_runners" entry.
            runners = result.get("env_runners", {})
            print(
                f"{env_id} iteration {it + 1}: "
                f"return {runners.get('episode_return_mean', float('nan')):.3f} "
                f"over {runners.get('num_episodes', 0)} episodes"
            )
        algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
