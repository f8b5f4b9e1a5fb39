"""The engine: batch state, the kernels' calling convention, per-sub-env random streams, action,
option and scenario checks, and the Gymnasium single and vector env plumbing. Applications
(evaluation, bench, play, record, text, LLM) live beside it and use it, never the reverse."""

# First, before any module here or in an env compiles with cache=True: a read-only install
# with no writable cache folder falls back to a temporary one instead of failing to import.
from hiddengrid.core import kernel as _kernel  # noqa: F401
