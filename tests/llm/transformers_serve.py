"""``transformers serve`` started for a test module: the one place that finds the command,
starts the server on a free port, waits for it and stops it (the real-server and real-model
tests both use it)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def transformers_cli() -> str:
    """The ``transformers`` command beside this Python, or on the PATH; skips without it."""
    cli = shutil.which("transformers", path=str(Path(sys.executable).parent)) or shutil.which(
        "transformers"
    )
    if cli is None:
        pytest.skip("the transformers command is not installed")
    return cli


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(folder: Path, startup_seconds: float) -> Iterator[str]:
    """Serves the model in ``folder`` on the CPU, offline; yields its ``/v1`` base URL. A server
    that does not answer ``/health`` in ``startup_seconds`` fails the test with its log."""
    port = _free_port()
    log = open(folder / "serve.log", "w")  # noqa: SIM115  (closed below)
    proc = subprocess.Popen(
        [
            transformers_cli(),
            "serve",
            str(folder),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--device",
            "cpu",
        ],
        # One thread unless told otherwise: on a machine whose cores are busy with other work,
        # PyTorch's default (a thread per core) spends most of its time waiting for descheduled
        # threads; measured here under load, one thread answered 4x faster than two.
        env=dict(
            os.environ,
            HF_HUB_OFFLINE="1",
            OMP_NUM_THREADS=os.environ.get("HIDDENGRID_SERVE_THREADS", "1"),
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_seconds
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    tail = (folder / "serve.log").read_text()[-2000:]
                    pytest.fail(f"transformers serve did not start:\n{tail}")
                time.sleep(0.5)
        yield url + "/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
