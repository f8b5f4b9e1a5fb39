"""The engine: batch state, the kernels' calling convention, per-sub-env random streams, action,
option and scenario checks, and the Gymnasium single and vector env plumbing. Applications
(evaluation, bench, play, record, text, LLM) live beside it and use it, never the reverse."""
