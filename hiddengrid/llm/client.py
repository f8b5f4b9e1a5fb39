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
    reasoning: str = ""  # thinking a server returns beside the answer (reasoning_content)


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
    # OpenAI's own reasoning models refuse "max_tokens" and want "max_completion_tokens";
    # most other servers know only the first. Switched once, on that refusal.
    token_field: str = field(default="max_tokens", init=False)
    _client: Any = field(default=None, init=False, repr=False)

    def _sdk(self) -> Any:
        if self._client is None:
            openai = _require_openai()
            # Local servers need no key, but the SDK refuses to start without one.
            key = os.environ.get(self.api_key_env) or "no-key"
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=key,
                timeout=self.timeout,
                max_retries=0,
                http_client=_http_client(openai),
            )
        return self._client

    async def complete(self, messages: list[dict[str, str]]) -> Completion:
        openai = _require_openai()
        client = self._sdk()
        start = time.perf_counter()
        delay = self.backoff
        retries = 0
        while True:
            sent_field = self.token_field
            try:
                # The SDK's request call for custom requests, not the typed
                # chat.completions.create: the typed one spends ~3 ms of CPU per request
                # transforming the params and building models (6x this call, measured), which
                # caps the speed-up of many requests in flight. Base URL, key, timeout and the
                # SDK's error types are the same.
                response = await client.post(
                    "/chat/completions",
                    body={
                        "model": self.model,
                        "messages": messages,
                        "temperature": self.temperature,
                        sent_field: self.max_tokens,
                    },
                    cast_to=object,
                )
            except openai.APIStatusError as exc:
                code = exc.status_code
                if (
                    code == 400
                    and sent_field == "max_tokens"
                    and "max_completion_tokens" in str(exc.message)
                ):
                    self.token_field = "max_completion_tokens"
                    continue
                retryable = code in (408, 409, 425, 429) or code >= 500
                if not retryable:
                    raise LLMError(
                        f"{self.base_url} answered HTTP {code}: {_short(exc.message)}"
                    ) from None
                reason = f"HTTP {code}"
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                reason = _short(str(exc.__cause__ or exc))
                if self.answered == 0 and _refused(exc):
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
            choice = response["choices"][0]
            message = choice["message"]
            text = message.get("content") or ""
            # vLLM, SGLang and DeepSeek put a reasoning model's thinking beside the answer.
            reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
            usage = response.get("usage") or {}
            tokens_in = int(usage.get("prompt_tokens") or 0)
            tokens_out = int(usage.get("completion_tokens") or 0)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            raise LLMError(
                f"{self.base_url} gave an answer that is not a chat completion"
            ) from None
        self.answered += 1
        return Completion(
            text=str(text),
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            latency_s=time.perf_counter() - start,
            retries=retries,
            finish_reason=str(choice.get("finish_reason") or ""),
            reasoning=str(reasoning),
        )

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def _refused(exc: BaseException) -> bool:
    """Whether the connection itself failed (refused, no route, unknown host), not a timeout."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, OSError) and not isinstance(seen, TimeoutError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _http_client(openai: Any) -> Any:
    """The SDK's aiohttp transport where aiohttp is installed (less work per request than its
    default httpx transport, which counts with many requests in flight), else the default."""
    if not hasattr(openai, "DefaultAioHttpClient"):
        return None
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return None
    return openai.DefaultAioHttpClient()


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
