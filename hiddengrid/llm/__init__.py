"""Language-model agents over OpenAI-compatible servers, playing the text envs."""
