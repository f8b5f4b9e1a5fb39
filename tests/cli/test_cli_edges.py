"""What a new user and a fuzzer hit at the command line's edges, run as a user runs it: in a
fresh process. Each mistake is one line on stderr, exit status 2, no traceback, nothing
compiled or written."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ID = "hiddengrid/AnomalyMapping-v0"


def hiddengrid(
    argv: list[str], tmp_path: Path, missing: tuple[str, ...] = (), timeout: float = 120
) -> subprocess.CompletedProcess:
    """``hiddengrid ARGV`` in a fresh process with a cold Numba cache; ``missing`` packages
    behave as not installed (their import raises ImportError)."""
    code = "import sys\n"
    code += "".join(f"sys.modules[{name!r}] = None\n" for name in missing)
    code += "from hiddengrid.cli import main\nraise SystemExit(main(sys.argv[1:]))\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")  # a compile would show as a line
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=tmp_path,
    )


def assert_one_line_refusal(proc: subprocess.CompletedProcess, tmp_path: Path) -> str:
    err = proc.stderr.strip()
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err and err.startswith("hiddengrid")
    assert len(err) < 400, err  # nothing echoed at length
    written = sorted(p.name for p in tmp_path.iterdir() if p.name != "numba-cache")
    assert written == [], written
    assert proc.stdout == ""
    return err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def listening_server():
    """A port that accepts connections (so the server check passes and what follows is tested)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    server.close()


MISSING_PACKAGES = [
    (["bench", "--train", "--env", ID], ("torch",), "torch"),
    (["bench", "--train", "--env", ID], ("stable_baselines3",), "stable_baselines3"),
    (["bench", "--llm"], ("openai",), "openai"),
    (["eval", "--env", ID, "--agent", "random", "--ray"], ("ray",), "Ray"),
    (["eval", "--env", ID, "--agent", "ppo", "--checkpoint", "x.pt"], ("torch",), "train"),
]


@pytest.mark.parametrize("argv,missing,named", MISSING_PACKAGES, ids=lambda x: str(x))
def test_a_missing_optional_package_is_one_line_before_any_work(argv, missing, named, tmp_path):
    err = assert_one_line_refusal(hiddengrid(argv, tmp_path, missing), tmp_path)
    assert named in err and "pip install" in err


def test_llm_without_the_sdk_is_refused_before_compiling(tmp_path, listening_server):
    argv = ["eval", "--env", ID, "--agent", "llm", "--base-url", listening_server]
    argv += ["--model", "m", "--episodes", "1"]
    err = assert_one_line_refusal(hiddengrid(argv, tmp_path, ("openai",)), tmp_path)
    assert "OpenAI Python SDK" in err


def test_llm_folder_of_another_run_is_refused_before_compiling(tmp_path, listening_server):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model": "other"}))
    argv = ["eval", "--env", ID, "--agent", "llm", "--base-url", listening_server]
    argv += ["--model", "m", "--episodes", "1", "--out", "run"]
    proc = hiddengrid(argv, tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "different configuration" in proc.stderr and "compiling" not in proc.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["config.json"]


def test_ray_address_with_nothing_listening_fails_fast(tmp_path):
    start = time.monotonic()
    argv = ["eval", "--env", ID, "--agent", "random", "--ray", f"127.0.0.1:{free_port()}"]
    err = assert_one_line_refusal(hiddengrid(argv, tmp_path, timeout=60), tmp_path)
    assert "cannot connect" in err
    assert time.monotonic() - start < 45  # Ray's own wait is minutes


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.1:99999", "host:port"])
def test_ray_address_that_is_not_one_is_refused(address, tmp_path):
    err = assert_one_line_refusal(
        hiddengrid(["eval", "--env", ID, "--agent", "random", "--ray", address], tmp_path),
        tmp_path,
    )
    assert "HOST:PORT" in err


BAD_URLS = [
    "http://127.0.0.1:99999/v1",  # port out of range
    "http://127.0.0.1:http/v1",  # port not a number
    "http://[::1/v1",  # unclosed IPv6 literal
    "http://[zz::1]:8000/v1",  # not an IPv6 address
]


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_bad_base_url_is_one_line(url, tmp_path):
    argv = ["eval", "--env", ID, "--agent", "llm", "--base-url", url, "--model", "m"]
    err = assert_one_line_refusal(hiddengrid(argv, tmp_path), tmp_path)
    assert "--base-url" in err


def test_a_deeply_nested_env_arg_is_one_line(tmp_path):
    value = "[" * 30_000 + "]" * 30_000
    argv = ["eval", "--env", ID, "--agent", "random", "--env-arg", f"level={value}"]
    err = assert_one_line_refusal(hiddengrid(argv, tmp_path), tmp_path)
    assert "nested too deeply" in err


def test_a_nested_env_arg_the_env_refuses_is_one_short_line(tmp_path):
    value = "[" * 500 + "]" * 500  # parses, then the env refuses it
    argv = ["eval", "--env", "hiddengrid/FieldCipher-v0", "--agent", "random"]
    err = assert_one_line_refusal(
        hiddengrid([*argv, "--env-arg", f"level={value}"], tmp_path), tmp_path
    )
    assert "--env-arg" in err


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--env", ID, "--agent", "random", "--json", "/proc/out.json"],
        ["bench", "--json", "/proc/out.json"],
        ["record", ID, "--out", "/proc/out.gif"],
    ],
)
def test_an_output_that_cannot_be_created_is_one_line(argv, tmp_path):
    err = assert_one_line_refusal(hiddengrid(argv, tmp_path), tmp_path)
    assert "cannot be written" in err
    assert not Path(argv[-1]).exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--env", ID, "--agent", "llm", "--history", "-1"],
        ["eval", "--env", ID, "--agent", "llm", "--retries", "-1"],
        ["report", "somewhere", "--pictures", "-1"],
    ],
)
def test_counts_that_are_not_seeds_are_not_called_seeds(argv, tmp_path):
    err = assert_one_line_refusal(hiddengrid(argv, tmp_path), tmp_path)
    assert "seed" not in err and ">= 0" in err


def test_a_huge_number_is_not_echoed_in_full(tmp_path):
    digits = "9" * 5000
    for argv in (["eval", "--episodes", digits], ["bench", "--seconds", digits + "x"]):
        err = assert_one_line_refusal(hiddengrid(argv, tmp_path), tmp_path)
        assert digits not in err and "characters" in err
