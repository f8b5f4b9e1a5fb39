"""One trial: ``trial_episodes`` consecutive episodes of one env in one conversation.

A trial of one episode is the ordinary protocol. Episode ``i`` of trial ``t`` plays
``reset(seed=seed + t * E + i)``, so with ``E = 1`` episode ``k`` is ``reset(seed=seed + k)``,
exactly the episode ``k`` of every other agent.
"""

from __future__ import annotations

from typing import Any

from hiddengrid.llm.answer import AnswerFormatError, extract_action, legal_actions, response_format
from hiddengrid.llm.client import ChatClient, ContextOverflow, LLMError
from hiddengrid.llm.conversation import Conversation, episode_header, system_prompt
from hiddengrid.registry import definition_of
from hiddengrid.text.env import MAX_INVALID_IN_A_ROW, make_text


def episode_seed(seed: int, trial: int, index: int, trial_episodes: int) -> int:
    return seed + trial * trial_episodes + index


async def play_trial(
    client: ChatClient,
    env_id: str,
    trial: int,
    *,
    seed: int,
    trial_episodes: int,
    answer_format: str = "direct",
    history: int = 6,
    env_kwargs: dict[str, Any] | None = None,
    max_invalid: int | None = MAX_INVALID_IN_A_ROW,
    fallback: str | None = None,
    context_tokens: int | None = None,
) -> list[dict[str, Any]]:
    """Plays the trial; returns one record per episode (every turn with its accounting).

    ``max_invalid`` invalid answers in a row end an episode (``None``: never). With a
    ``fallback`` action, an invalid answer is still counted as invalid, and the fallback is
    played in its place (so the episode goes on). A prompt the server refuses as longer than
    the model's context ends that episode with outcome ``context_overflow``; the trial goes on.
    """
    definition = definition_of(env_id)
    records: list[dict[str, Any]] = []
    conversation: Conversation | None = None
    for index in range(trial_episodes):
        episode = episode_seed(seed, trial, index, trial_episodes)
        tenv = make_text(env_id, max_invalid=max_invalid, **(env_kwargs or {}))
        try:
            tenv.reset(seed=episode)
            if conversation is None:
                example = str(tenv.text.ANSWER_EXAMPLE)
                system = system_prompt(tenv.rules, answer_format, trial_episodes, example)
                budget = None
                if context_tokens is not None:
                    budget = context_tokens - client.max_tokens
                conversation = Conversation(system, history, budget=budget)
            observation = episode_header(index, trial_episodes, records) + tenv.prompt()
            turns: list[dict[str, Any]] = []
            total = 0.0
            outcome = ""
            while True:
                schema = None
                if answer_format == "constrained":
                    schema = response_format(legal_actions(tenv))
                try:
                    completion = await client.complete(conversation.messages(observation), schema)
                except ContextOverflow:
                    outcome, reply = "context_overflow", observation
                    break
                conversation.add(observation, completion.text)
                turn: dict[str, Any] = {"observation": observation, "answer": completion.text}
                try:
                    sent = extract_action(completion.text, answer_format)
                    format_error = None
                except AnswerFormatError as exc:
                    # An empty action is invalid in every env, so the text env counts this
                    # answer exactly as it counts an unparseable one (same limit, no step).
                    sent, format_error = "", str(exc)
                    if answer_format == "constrained" and not completion.text.lstrip().startswith(
                        "{"
                    ):
                        # A server that honours the schema only ever sends {"action": ...} (cut
                        # short at max tokens, still an object's start); one that sends anything
                        # else ignored it (a few drop unknown fields).
                        raise LLMError(
                            f"{client.url} ignored the structured-output request "
                            "(response_format with a JSON schema) and answered "
                            f"{completion.text[:60]!r}: use the direct or reasoning answer format"
                        ) from None
                reply, reward, terminated, truncated, info = tenv.step(sent)
                if sent != completion.text:
                    # Kept only where it differs: the answer is stored once.
                    turn["sent"] = sent
                if "invalid_action" in info:
                    reason = format_error or str(info["invalid_action"])
                    turn.update(action=None, invalid=reason)
                    if format_error is not None:
                        reply = _format_error_reply(tenv, reason, terminated or truncated)
                    if fallback is not None and not (terminated or truncated):
                        # Counted as invalid above; the fallback is played in its place.
                        turn["fallback"] = fallback
                        reply, reward, terminated, truncated, info = tenv.step(fallback)
                        if "invalid_action" not in info:
                            turn["action"] = tenv.format_action(info["action"])
                            reply = (
                                f"Your last answer was invalid: {reason}. {fallback!r} was "
                                f"played instead.\n{reply}"
                            )
                else:
                    turn.update(action=tenv.format_action(info["action"]), invalid=None)
                total += reward
                turn.update(
                    reward=reward,
                    tokens_in=completion.tokens_in,
                    tokens_out=completion.tokens_out,
                    latency_s=round(completion.latency_s, 6),
                    retries=completion.retries,
                    finish_reason=completion.finish_reason,
                )
                if completion.thinking:
                    turn["thinking"] = completion.thinking
                turns.append(turn)
                if terminated or truncated:
                    outcome = str(info["outcome"])
                    break
                observation = reply
            records.append(
                {
                    "env": env_id,
                    "trial": trial,
                    "index": index,
                    "seed": episode,
                    "model": client.model,
                    "system": system if index == 0 else None,
                    "outcome": outcome,
                    "return": total,
                    "success": bool(definition.is_success(outcome, total)),
                    "steps": tenv.steps,
                    "answers": len(turns),
                    "invalid": sum(t["invalid"] is not None for t in turns),
                    "fallbacks": sum("fallback" in t for t in turns),
                    "tokens_in": sum(t["tokens_in"] for t in turns),
                    "tokens_out": sum(t["tokens_out"] for t in turns),
                    "latency_s": round(sum(t["latency_s"] for t in turns), 6),
                    "retries": sum(t["retries"] for t in turns),
                    "final": reply,
                    "turns": turns,
                }
            )
        finally:
            tenv.close()
    return records


def _format_error_reply(tenv: Any, reason: str, ended: bool) -> str:
    if ended:
        return f"Your last answer was invalid: {reason}. Too many invalid answers."
    return tenv.prompt(reason)
