"""Language-model agents over OpenAI-compatible servers, playing the text envs: parallel,
resumable runs with accounting, a reasoning mode, and trials of consecutive episodes.

Needs the ``llm`` extra (the OpenAI Python SDK, and aiohttp for its transport and the scripted
test server): ``pip install "hiddengrid[llm]"``.
"""

from hiddengrid.llm.client import LLMError
from hiddengrid.llm.run import RunConfig, RunDirError, play_run

__all__ = ["LLMError", "RunConfig", "RunDirError", "play_run"]
