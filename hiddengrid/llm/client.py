"""An asynchronous chat client over any OpenAI-compatible server, with per-answer accounting.

Built on the OpenAI Python SDK's ``AsyncOpenAI`` (``base_url`` points it at vLLM, SGLang,
llama.cpp, Ollama or a hosted API). The SDK's own retries are switched off so that every retry
is counted here: each answer records its tokens in and out, its latency and how many retries it
took. A connection error before the run's first answer fails at once (the server is down or the
URL is wrong); later ones are retried with exponential backoff, like HTTP 408/409/429 and 5xx,
waiting at least as long as the server's ``Retry-After`` asks (up to :data:`MAX_RETRY_AFTER`).

Whatever a server sends back (malformed JSON, bytes that are not UTF-8, a body that is not a chat
completion, absurd token counts) ends as one :class:`LLMError`, never a traceback. An answer
longer than :data:`ANSWER_LIMIT` characters is cut there (a hostile or runaway server cannot fill
the disk); content given as a list of parts is joined. A URL is never shown with credentials.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any


class LLMError(RuntimeError):
    """The server gave no answer: down, unreachable, refusing, or failing after retries."""


class ContextOverflow(LLMError):
    """The server refused the prompt as longer than the model's context (ends one episode)."""


# How servers word a prompt longer than the context (vLLM, llama.cpp, OpenAI, SGLang, TGI).
_OVERFLOW = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "exceeds the available context",
    "too many tokens",
    "prompt is too long",
    "exceed_context_size",
)


# Far above what max tokens lets an honest server write (4,096 tokens are ~16,000 characters).
ANSWER_LIMIT = 100_000
MAX_RETRY_AFTER = 120.0  # seconds; a longer Retry-After is waited this long, then retried


def redact_url(url: str) -> str:
    """``url`` without the secrets it may carry: user and password, and query values."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = "***@" + netloc.rsplit("@", 1)[1]
        query = "&".join(
            f"{pair.split('=', 1)[0]}=***" if "=" in pair else "***"
            for pair in parts.query.split("&")
            if pair
        )
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    except ValueError:
        return "<an unreadable URL>"


@dataclass(frozen=True)
class Completion:
    text: str
    tokens_in: int
    tokens_out: int
    latency_s: float  # from the first attempt to the answer, retries and backoff included
    retries: int
    finish_reason: str
    thinking: str = ""  # what a server returns beside the answer (its reasoning_content)


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

    async def complete(
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None = None
    ) -> Completion:
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
                body: dict[str, Any] = {
                    "model": self.model,
                    "messages": messages,
                    "temperature": self.temperature,
                    sent_field: self.max_tokens,
                }
                if response_format is not None:
                    body["response_format"] = response_format
                response = await client.post("/chat/completions", body=body, cast_to=object)
            except openai.APIStatusError as exc:
                code = exc.status_code
                wait = retry_after(exc.response.headers.get("retry-after"))
                if (
                    code == 400
                    and sent_field == "max_tokens"
                    and "max_completion_tokens" in str(exc.message)
                ):
                    self.token_field = "max_completion_tokens"
                    continue
                text = str(exc.message).lower()
                if code in (400, 413) and any(marker in text for marker in _OVERFLOW):
                    raise ContextOverflow(
                        f"{self.url}: the prompt is longer than the model's context"
                    ) from None
                retryable = code in (408, 409, 425, 429) or code >= 500
                if not retryable and response_format is not None and "response_format" in text:
                    raise LLMError(
                        f"{self.url} cannot give structured output (response_format with a JSON "
                        "schema): use the direct or reasoning answer format"
                    ) from None
                if not retryable:
                    raise LLMError(
                        f"{self.url} answered HTTP {code}: {_short(exc.message)}"
                    ) from None
                reason = f"HTTP {code}"
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                wait = 0.0
                reason = _short(redact_text(str(exc.__cause__ or exc), self.base_url))
                if self.answered == 0 and _refused(exc):
                    raise LLMError(
                        f"cannot reach the server at {self.url} ({reason}); is it running?"
                    ) from None
            except (openai.APIError, ValueError, RecursionError) as exc:
                # A body the SDK cannot read (malformed JSON, bytes that are not UTF-8, nesting
                # deeper than the JSON decoder goes), or a request the transport refuses.
                raise LLMError(
                    f"{self.url} gave no usable answer ({type(exc).__name__}: "
                    f"{_short(redact_text(str(exc), self.base_url), 120)})"
                ) from None
            else:
                return self._completion(response, start, retries)
            if retries >= self.retries:
                raise LLMError(
                    f"{self.url} failed after {retries + 1} attempts: {reason}"
                ) from None
            retries += 1
            await asyncio.sleep(max(delay, wait))
            delay *= 2

    @property
    def url(self) -> str:
        """The base URL as it may be shown: without credentials."""
        return redact_url(self.base_url)

    def _completion(self, response: Any, start: float, retries: int) -> Completion:
        try:
            choice = response["choices"][0]
            message = choice["message"]
            text = content_text(message.get("content"))
            # vLLM, SGLang and DeepSeek put a reasoning model's thinking beside the answer.
            thinking = content_text(
                message.get("reasoning_content") or message.get("reasoning") or ""
            )
            usage = response.get("usage") or {}
            tokens_in = token_count(usage.get("prompt_tokens"))
            tokens_out = token_count(usage.get("completion_tokens"))
            finish_reason = choice.get("finish_reason") or ""
            if not isinstance(finish_reason, str):
                raise TypeError("finish_reason")
        except (AttributeError, IndexError, KeyError, TypeError, ValueError, OverflowError):
            raise LLMError(f"{self.url} gave an answer that is not a chat completion") from None
        self.answered += 1
        return Completion(
            text=text,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            latency_s=time.perf_counter() - start,
            retries=retries,
            finish_reason=finish_reason[:40],
            thinking=thinking,
        )

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def redact_text(text: str, url: str) -> str:
    """``text`` (an error message, say) with ``url`` in it shown without its secrets."""
    return text.replace(url, redact_url(url)) if url else text


def content_text(content: Any) -> str:
    """A message's content as text: a string, or a list of parts whose text parts are joined
    (the OpenAI format's other shape); cut at :data:`ANSWER_LIMIT` characters."""
    if content is None:
        return ""
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                raise TypeError("a content part without text")
        content = "".join(texts)
    if not isinstance(content, str):
        raise TypeError("content is neither text nor a list of parts")
    return content[:ANSWER_LIMIT]


def token_count(value: Any) -> int:
    """A usage count: absent is 0; anything but a finite number >= 0 is a broken answer."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("a token count that is not a number")
    if not math.isfinite(value) or value < 0 or value > 10**12:
        raise ValueError("a token count out of range")
    return int(value)


def retry_after(header: str | None) -> float:
    """Seconds a ``Retry-After`` header asks to wait (a number or an HTTP date), at most
    :data:`MAX_RETRY_AFTER`; 0 when absent or unreadable."""
    if not header:
        return 0.0
    try:
        seconds = float(header)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(header)
        except (TypeError, ValueError):
            return 0.0
        if when is None:
            return 0.0
        seconds = when.timestamp() - time.time()
    if not math.isfinite(seconds):
        return MAX_RETRY_AFTER if seconds > 0 else 0.0
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


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
