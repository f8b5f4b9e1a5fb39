"""Language-model agents over OpenAI-compatible servers, playing the text envs.

Needs the ``llm`` extra (the OpenAI Python SDK): ``pip install "hiddengrid[llm]"``.
"""
