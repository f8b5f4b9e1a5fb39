"""An asynchronous chat client over any OpenAI-compatible server, with per-answer accounting.

Built on the OpenAI Python SDK's ``AsyncOpenAI`` (``base_url`` points it at vLLM, SGLang,
llama.cpp, Ollama or a hosted API). The SDK's own retries are switched off so that every retry
is counted here: each answer records its tokens in and out, its latency and how many retries it
took. A connection error before the run's first answer fails at once (the server is down or the
URL is wrong); later ones are retried with exponential backoff, like HTTP 408/409/429 and 5xx.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from typing import Any


class LLMError(RuntimeError):
    """The server gave no answer: down, unreachable, refusing, or failing after retries."""


@dataclass(frozen=True)
class Completion:
    text: str
    tokens_in: int
    tokens_out: int
    latency_s: float  # from the first attempt to the answer, retries and backoff included
    retries: int
    finish_reason: str


def _require_openai() -> Any:
    try:
        import openai
    except ImportError:
        raise LLMError(
            'the llm agent needs the OpenAI Python SDK: pip install "hiddengrid[llm]"'
        ) from None
    return openai


@dataclass
class ChatClient:
    """``chat.completions.create`` over ``base_url``; one instance is shared by every episode."""

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int = 64
    timeout: float = 60.0
    retries: int = 5
    backoff: float = 1.0  # seconds before the first retry, doubled each time
    answered: int = field(default=0, init=False)
    _client: Any = field(default=None, init=False, repr=False)

    def _sdk(self) -> Any:
        if self._client is None:
            openai = _require_openai()
            # Local servers need no key, but the SDK refuses to start without one.
            key = os.environ.get(self.api_key_env) or "no-key"
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=0
            )
        return self._client

    async def complete(self, messages: list[dict[str, str]]) -> Completion:
        openai = _require_openai()
        client = self._sdk()
        start = time.perf_counter()
        delay = self.backoff
        retries = 0
        while True:
            try:
                response = await client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                )
            except openai.APIStatusError as exc:
                code = exc.status_code
                retryable = code in (408, 409, 425, 429) or code >= 500
                if not retryable:
                    raise LLMError(
                        f"{self.base_url} answered HTTP {code}: {_short(exc.message)}"
                    ) from None
                reason = f"HTTP {code}"
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                reason = _short(str(exc.__cause__ or exc))
                if self.answered == 0 and not isinstance(exc, openai.APITimeoutError):
                    raise LLMError(
                        f"cannot reach the server at {self.base_url} ({reason}); is it running?"
                    ) from None
            else:
                return self._completion(response, start, retries)
            if retries >= self.retries:
                raise LLMError(
                    f"{self.base_url} failed after {retries + 1} attempts: {reason}"
                ) from None
            retries += 1
            await asyncio.sleep(delay)
            delay *= 2

    def _completion(self, response: Any, start: float, retries: int) -> Completion:
        try:
            choice = response.choices[0]
            text = choice.message.content or ""
        except (AttributeError, IndexError, TypeError):
            raise LLMError(
                f"{self.base_url} gave an answer that is not a chat completion"
            ) from None
        usage = getattr(response, "usage", None)
        self.answered += 1
        return Completion(
            text=str(text),
            tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
            tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
            latency_s=time.perf_counter() - start,
            retries=retries,
            finish_reason=str(choice.finish_reason or ""),
        )

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
