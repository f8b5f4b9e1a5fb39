"""The client against a real OpenAI-compatible server: ``transformers serve`` (Hugging Face
Transformers' FastAPI server) with a tiny Llama built here from a config with random weights and
a tokenizer trained on a few words, so nothing is downloaded. Its answers are gibberish, which
is the point: the harness must count them as invalid answers, record the server's real token
usage and cut-off answers, and give the same results at any concurrency (greedy decoding).

Needs ``pip install "transformers[serving]" torch``; skipped where they are absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers_serve import serve, transformers_cli

pytest.importorskip("openai")
pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("tokenizers")

from hiddengrid.llm.run import EPISODES, RunConfig, play_run

ID = "hiddengrid/AnomalyMapping-v0"


def build_tiny_model(folder: Path) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<unk>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(["move north south east west mark rotate left right"] * 10, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    fast.chat_template = (
        "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant: {% endif %}"
    )
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=65536,
        bos_token_id=1,
        eos_token_id=2,
    )
    LlamaForCausalLM(config).save_pretrained(folder)


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    transformers_cli()  # skips before any model work where the command is missing
    folder = tmp_path_factory.mktemp("tiny-llama")
    build_tiny_model(folder)
    with serve(folder, startup_seconds=180) as url:
        yield url, str(folder)


def _records(folder: Path) -> list[dict]:
    lines = [json.loads(x) for x in (folder / EPISODES).read_text().splitlines()]
    return sorted(lines, key=lambda r: (r["env"], r["trial"], r["index"]))


def test_a_real_server_through_the_whole_harness(real_server, tmp_path):
    url, model = real_server
    config = RunConfig(envs=(ID,), model=model, base_url=url, episodes=2, max_tokens=6)
    _, summary = play_run(config, tmp_path / "k1", concurrency=1)
    _, again = play_run(config, tmp_path / "k2", concurrency=2)
    one, two = _records(tmp_path / "k1"), _records(tmp_path / "k2")
    turns = [t for r in one for t in r["turns"]]
    assert turns and all(t["tokens_in"] > 0 and 0 < t["tokens_out"] <= 6 for t in turns)
    assert any(t["finish_reason"] == "length" for t in turns)
    # Random weights never name an action: every answer is invalid, three end the episode.
    assert all(r["outcome"] == "invalid_actions" and r["answers"] == 3 for r in one)
    env = summary["envs"][ID]
    assert env["invalid_rate"] == 1.0 and env["tokens_in"] == sum(t["tokens_in"] for t in turns)
    assert [[t["answer"] for t in r["turns"]] for r in one] == [
        [t["answer"] for t in r["turns"]] for r in two
    ]
    assert again["envs"][ID]["tokens_in"] == env["tokens_in"]
