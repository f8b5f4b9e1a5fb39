"""The text interface: strict action parsing, the text env for language models and people, and
numeric agents answering in text (transcripts)."""

from hiddengrid.text.env import TextEnv, make_text
from hiddengrid.text.parse import TextActionError

__all__ = ["TextActionError", "TextEnv", "make_text"]
