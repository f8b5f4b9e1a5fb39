"""Actor-critic networks: a feed-forward MLP and a GRU or LSTM over the flat observation.

The action head gives one logit per value of every action component (``Discrete(n)`` is one
component, ``MultiDiscrete([6, 6, 6])`` three); a mask of legal actions (Megacity) sets the
illegal logits to a large negative number before the softmax, so they are never sampled and
carry no gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from torch import nn

MASKED_LOGIT = -1e9

State = tuple[torch.Tensor, ...]  # () for the MLP, (h,) for a GRU, (h, c) for an LSTM


def action_nvec(space: spaces.Space) -> list[int]:
    """Sizes of the action components: ``[n]`` for ``Discrete(n)``, ``nvec`` for MultiDiscrete."""
    if isinstance(space, spaces.Discrete):
        if int(space.start) != 0:
            raise ValueError(f"PPO needs Discrete actions starting at 0, got {space!r}")
        return [int(space.n)]
    if isinstance(space, spaces.MultiDiscrete) and space.nvec.ndim == 1:
        return [int(n) for n in space.nvec]
    raise ValueError(f"PPO supports Discrete and 1-d MultiDiscrete actions, got {space!r}")


def _layer(inputs: int, outputs: int, gain: float) -> nn.Linear:
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class ActorCritic(nn.Module):
    """Encoder (two ReLU layers, or a named encoder), optional GRU/LSTM core, policy and
    value heads, and with ``aux_sizes`` an auxiliary head on the core's output predicting
    training-only labels (:mod:`hiddengrid.train.auxiliary`); acting never uses it."""

    def __init__(
        self,
        input_size: int,
        nvec: list[int],
        hidden: int,
        core: str,
        aux_sizes: Sequence[int] = (),
        view: nn.Module | None = None,
        encoder: nn.Module | None = None,
    ) -> None:
        super().__init__()
        # an observation view (hiddengrid.train.features) appends its columns to the input
        self.view = view
        if view is not None:
            input_size += int(view.extra)
        self.nvec = list(nvec)
        self.aux_sizes = list(aux_sizes)
        self.core_kind = core
        self.hidden = hidden
        root2 = float(np.sqrt(2))
        # a named encoder (hiddengrid.train.encoders) takes the MLP's place
        self.encoder = (
            encoder
            if encoder is not None
            else nn.Sequential(
                _layer(input_size, hidden, root2),
                nn.ReLU(),
                _layer(hidden, hidden, root2),
                nn.ReLU(),
            )
        )
        self.core: nn.Module | None
        if core == "gru":
            self.core = nn.GRU(hidden, hidden)
        elif core == "lstm":
            self.core = nn.LSTM(hidden, hidden)
        else:
            self.core = None
        if self.core is not None:
            for name, param in self.core.named_parameters():
                if "weight" in name:
                    nn.init.orthogonal_(param, 1.0)
                else:
                    nn.init.zeros_(param)
        self.actor = _layer(hidden, sum(self.nvec), 0.01)
        self.critic = _layer(hidden, 1, 1.0)
        self.aux = _layer(hidden, sum(self.aux_sizes), 1.0) if self.aux_sizes else None
        # the features of the last forward pass, for the auxiliary head's loss (the learner
        # reads them right after its forward pass; acting ignores them)
        self.features: torch.Tensor | None = None

    @property
    def recurrent(self) -> bool:
        return self.core is not None

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> State:
        if self.core is None:
            return ()
        zeros = torch.zeros(1, batch, self.hidden, device=device)
        return (zeros,) if self.core_kind == "gru" else (zeros, zeros.clone())

    def _core(self, x: torch.Tensor, state: State, first: torch.Tensor | None) -> Any:
        """Runs the core over ``x`` (T, B, H); ``first`` (T, B) clears the memory of a sub-env
        at that step, or is None where the memory is never cleared."""
        assert self.core is not None
        if first is None or not bool(first.any()):
            # One fused call over the whole sequence when no memory is cleared inside it.
            out, state = self.core(x, state if len(state) > 1 else state[0])
            return out, (state if isinstance(state, tuple) else (state,))
        outs = []
        for t in range(x.shape[0]):
            keep = (~first[t]).to(x.dtype).view(1, -1, 1)
            state = tuple(s * keep for s in state)
            out, new = self.core(x[t : t + 1], state if len(state) > 1 else state[0])
            state = new if isinstance(new, tuple) else (new,)
            outs.append(out)
        return torch.cat(outs), state

    def with_view(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` with the view's columns appended (``x`` itself without a view). The view has
        no weights, so a learner computes it once per sample and passes ``viewed=True``."""
        if self.view is None:
            return x
        with torch.no_grad():
            return torch.cat([x, self.view(x)], -1)

    def forward(
        self,
        x: torch.Tensor,
        state: State,
        first: torch.Tensor | None = None,
        viewed: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor, State]:
        """Logits and values of ``x``: (B, D) for the MLP, (T, B, D) for a recurrent core;
        ``viewed``: ``x`` already carries the view's columns (:meth:`with_view`)."""
        if self.view is not None and not viewed:
            x = torch.cat([x, self.view(x)], -1)
        z = self.encoder(x)
        if self.core is not None:
            z, state = self._core(z, state, first)
        self.features = z if self.aux is not None else None
        return self.actor(z), self.critic(z).squeeze(-1), state


def aux_loss(
    model: ActorCritic, labels: torch.Tensor, keep: torch.Tensor
) -> tuple[torch.Tensor, float]:
    """Mean cross-entropy of the auxiliary head over the rows ``keep`` selects of the last
    forward pass, summed over label components, and the fraction of components right."""
    assert model.aux is not None and model.features is not None
    logits = model.aux(model.features)[keep]
    labels = labels[keep]
    loss = torch.zeros((), device=logits.device)
    right = 0.0
    for k, part in enumerate(torch.split(logits, model.aux_sizes, dim=-1)):
        loss = loss + nn.functional.cross_entropy(part, labels[:, k])
        right += float((part.argmax(-1) == labels[:, k]).float().mean()) if len(part) else 0.0
    return loss, right / len(model.aux_sizes)


def teacher_loss(
    logits: torch.Tensor, nvec: list[int], labels: torch.Tensor, keep: torch.Tensor
) -> tuple[torch.Tensor, float]:
    """Cross-entropy of the policy's (masked) logits against a teacher's actions over the
    rows ``keep`` selects, summed over action components, and how often its most likely
    action is the teacher's."""
    logp, _ = log_prob_entropy(logits, nvec, labels)
    best = most_likely(logits, nvec)
    agree = float((best == labels).all(-1)[keep].float().mean()) if bool(keep.any()) else 0.0
    return -logp[keep].mean(), agree


def masked_logits(logits: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None:
        return logits
    return torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))


def split_log_probs(logits: torch.Tensor, nvec: list[int]) -> list[torch.Tensor]:
    return [torch.log_softmax(part, dim=-1) for part in torch.split(logits, nvec, dim=-1)]


def sample(
    logits: torch.Tensor, nvec: list[int], generator: torch.Generator | None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions (B, k) drawn from the logits and their summed log-probabilities (B,)."""
    actions, total = [], torch.zeros(logits.shape[:-1], device=logits.device)
    for logp in split_log_probs(logits, nvec):
        a = torch.multinomial(logp.exp().reshape(-1, logp.shape[-1]), 1, generator=generator)
        a = a.reshape(logp.shape[:-1])
        total = total + logp.gather(-1, a.unsqueeze(-1)).squeeze(-1)
        actions.append(a)
    return torch.stack(actions, dim=-1), total


def most_likely(logits: torch.Tensor, nvec: list[int]) -> torch.Tensor:
    """Actions (B, k): each head's most likely choice (the first of equals), as a deterministic
    evaluation plays (masked actions have probability ~0, so never chosen)."""
    return torch.stack([part.argmax(-1) for part in torch.split(logits, nvec, dim=-1)], dim=-1)


def log_prob_entropy(
    logits: torch.Tensor, nvec: list[int], actions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Summed log-probabilities of ``actions`` (..., k) and summed entropies."""
    logp_sum = torch.zeros(logits.shape[:-1], device=logits.device)
    entropy = torch.zeros_like(logp_sum)
    for i, logp in enumerate(split_log_probs(logits, nvec)):
        logp_sum = logp_sum + logp.gather(-1, actions[..., i : i + 1]).squeeze(-1)
        # masked actions have probability ~0: p * logp is 0 there, not nan
        entropy = entropy - (logp.exp() * logp.clamp(min=-1e4)).sum(-1)
    return logp_sum, entropy
