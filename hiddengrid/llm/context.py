"""The model's context size, where the server (or the model's own folder) says it.

A run trims each prompt's history to the model's context (``RunConfig.context_tokens``), so the
size has to come from somewhere: ``--context-tokens`` when given, else what the server lists
for the model in ``GET /v1/models``, else the ``config.json`` of a local model folder the model
is named by. Servers word it differently:

- vLLM and SGLang: ``max_model_len`` (the context the server was started with);
- OpenRouter and several gateways: ``context_length``; LM Studio: ``max_context_length``;
- llama.cpp's server: ``meta.n_ctx_train`` (the context the model was trained with).

``transformers serve`` lists no context; it loads a model named by its folder, whose
``config.json`` gives ``max_position_embeddings`` (SmolLM2-135M-Instruct: 8,192), which is read
where that folder is on this machine. Reading never stops a run: a server that lists nothing,
answers something else or cannot be asked gives ``None`` and the reason.
"""

from __future__ import annotations

import http.client
import json
import urllib.request
from pathlib import Path
from typing import Any

# (key path in a /v1/models entry, who says it that way), first found wins.
MODEL_KEYS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("max_model_len",), "max_model_len"),
    (("context_length",), "context_length"),
    (("max_context_length",), "max_context_length"),
    (("meta", "n_ctx_train"), "meta.n_ctx_train"),
)
LARGEST = 100_000_000  # tokens; a bigger figure is not a context size, it is a broken listing


def _size(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or not 0 < value <= LARGEST or int(value) != value:
        return None
    return int(value)


def from_models_listing(listing: Any, model: str) -> tuple[int | None, str]:
    """The context ``listing`` (a ``/v1/models`` body) gives ``model``, and where it says so."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        return None, "the model list is not an OpenAI-style list"
    entry = next((e for e in data if isinstance(e, dict) and e.get("id") == model), None)
    if entry is None:
        return None, f"the server does not list the model {model!r}"
    for path, name in MODEL_KEYS:
        value: Any = entry
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        size = _size(value)
        if size is not None:
            return size, f"the server's /v1/models {name}"
    return None, "the server lists no context size for the model"


def from_model_folder(model: str) -> tuple[int | None, str]:
    """``max_position_embeddings`` of ``model``'s ``config.json`` where ``model`` is a folder
    here (a local server such as ``transformers serve`` is named by the folder it loads)."""
    try:
        config = Path(model) / "config.json"
        if not config.is_file():
            return None, "the model is not a folder here"
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"cannot read the model folder's config.json ({type(exc).__name__})"
    size = _size(data.get("max_position_embeddings")) if isinstance(data, dict) else None
    if size is None:
        return None, "the model folder's config.json gives no max_position_embeddings"
    return size, "max_position_embeddings in the model folder's config.json"


def model_context(
    base_url: str, model: str, api_key: str | None = None, timeout: float = 10.0
) -> tuple[int | None, str]:
    """The model's context in tokens and where it was read, or ``None`` and why not: first
    what the server lists in ``/v1/models``, then the model's folder where it is one here."""
    request = urllib.request.Request(base_url.rstrip("/") + "/models")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            listing = json.loads(response.read(8 * 2**20).decode("utf-8"))
        size, reason = from_models_listing(listing, model)
    except (OSError, ValueError, RecursionError, http.client.HTTPException) as exc:
        size, reason = None, f"the server's /v1/models could not be read ({type(exc).__name__})"
    if size is not None:
        return size, reason
    folder_size, folder_reason = from_model_folder(model)
    if folder_size is not None:
        return folder_size, folder_reason
    return None, reason
