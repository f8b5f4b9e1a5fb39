"""Numba's thread pool and torch share OpenMP: starting the pool must not change the thread
count a run gave torch (it set it to the pool's size, so a one-thread run computed its tensors
on every core beside a spinning pool thread)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")


def _run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


def test_starting_the_pool_keeps_torchs_thread_count() -> None:
    code = (
        "import torch, numba\n"
        "torch.set_num_threads(1)\n"
        "torch.randn(100_000).sum()  # torch's OpenMP runtime in use, as in a run\n"
        "from hiddengrid.core import kernel\n"
        "kernel.start_thread_pool()\n"
        "pool = numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS\n"
        "print(torch.get_num_threads(), pool)\n"
    )
    assert _run(code) == ["1", "True"]


def test_a_run_whose_teacher_starts_the_pool_keeps_one_torch_thread(tmp_path) -> None:
    """SquadRecon's recipe: the trainer sets torch's threads, then the imitated heuristic's
    thread scratch starts Numba's pool."""
    code = (
        "import torch, numba\n"
        "from hiddengrid.train import train\n"
        "from hiddengrid.train.recipes import recipe_settings\n"
        "from hiddengrid.core import kernel\n"
        "assert not kernel._pool_started\n"
        "env = 'hiddengrid/SquadRecon-v0'\n"
        "settings = {**recipe_settings('squad_recon_dagger_view', env), 'num_envs': 8,\n"
        "            'rollout': 8, 'minibatches': 2, 'hidden': 16, 'imitation_steps': 64}\n"
        f"train(env, out_dir={str(tmp_path / 'run')!r}, progress=False, reference_episodes=0,\n"
        "      total_steps=64, **settings)\n"
        "print(kernel._pool_started, torch.get_num_threads())\n"
    )
    assert _run(code) == ["True", "1"]


@pytest.mark.parametrize(("preset", "spin"), [(None, "'0'"), ("active", "'30000000000'")])
def test_the_train_package_loads_torchs_openmp_with_sleeping_waits(
    preset: str | None, spin: str
) -> None:
    """OpenMP reads its wait setting when torch loads it; unless the user chose one, the
    package imports torch with sleeping waits and leaves the environment as it was."""
    from hiddengrid.core.kernel import WAIT_SETTINGS

    env = {k: v for k, v in os.environ.items() if k not in WAIT_SETTINGS}
    env["OMP_DISPLAY_ENV"] = "VERBOSE"  # GNU OpenMP prints its settings when loaded
    if preset is not None:
        env["OMP_WAIT_POLICY"] = preset
    code = "import os, hiddengrid.train; print(os.environ.get('OMP_WAIT_POLICY'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    shown = [
        line.split("=")[1].strip() for line in out.stderr.splitlines() if "GOMP_SPINCOUNT" in line
    ]
    if not shown:
        pytest.skip("torch does not use GNU OpenMP here")
    assert shown == [spin]
    assert out.stdout.split() == [str(preset)]
