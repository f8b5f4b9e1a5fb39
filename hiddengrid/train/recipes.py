"""Named training recipes: settings beyond plain PPO that make one env learn, each published
as its own row beside plain PPO. The envs keep their rewards; a recipe only changes training
(shaping from training-only information, auxiliary losses, the env arguments trained on).

    hiddengrid train --env hiddengrid/FieldCipher-v0 --recipe field_cipher_decoder
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Recipe:
    env_id: str
    settings: dict[str, Any] = field(default_factory=dict)  # PPOConfig fields
    doc: str = ""


# squad_recon_dagger with a shorter warm start and the egocentric view; the squads recipe adds
# its encoder to exactly these
_SQUAD_RECON_VIEW: dict[str, Any] = {
    "imitation": "heuristic",
    "imitation_steps": 131_072,
    "auxiliary": "squad_recon_teacher",
    "features": "squad_recon_view",
    "minibatches": 16,
}

RECIPES: dict[str, Recipe] = {
    "field_cipher_decoder": Recipe(
        env_id="hiddengrid/FieldCipher-v0",
        settings={"auxiliary": "field_cipher_message", "shaping": "field_cipher_slots"},
        doc="an auxiliary head predicts the hidden message's digits from the observation "
        "(training-only labels), and each right character is paid when written "
        "(potential-based: the episode's return is unchanged)",
    ),
    "field_cipher_teacher": Recipe(
        env_id="hiddengrid/FieldCipher-v0",
        settings={"auxiliary": "field_cipher_teacher", "shaping": "field_cipher_slots"},
        doc="the policy is also taught the oracle's actions on the states it visits "
        "(distillation from a teacher that reads the codebook; its action is a function of "
        "the observation), and each right character is paid when written",
    ),
    "megacity_imitation": Recipe(
        env_id="hiddengrid/Megacity-v0",
        settings={"imitation": "heuristic", "imitation_steps": 1_048_576},
        doc="behaviour cloning from the fair heuristic (it reads only the observation and the "
        "action mask) for 1M env steps, then PPO",
    ),
    "squad_recon_imitation": Recipe(
        env_id="hiddengrid/SquadRecon-v0",
        settings={"imitation": "heuristic", "imitation_steps": 1_048_576},
        doc="behaviour cloning from the fair heuristic for 1M env steps, then PPO",
    ),
    "megacity_dagger": Recipe(
        env_id="hiddengrid/Megacity-v0",
        settings={
            "auxiliary": "megacity_teacher",
            "aux_coef": 4.0,
            "entropy_coef": 0.0,
            "value_coef": 0.02,
            "minibatches": 16,
            "learning_rate": 1e-3,
        },
        doc="DAgger beside PPO: on every state the policy visits, its logits are also taught "
        "the action of a fair teacher (the expert's planner recomputed from the observation "
        "and the mask alone, hiddengrid/train/megacity_teacher.py), weighted 4 against PPO's "
        "loss; no entropy bonus (the scored policy samples its actions), a value loss "
        "weighted 0.02 (returns in the hundreds would otherwise swamp the shared encoder's "
        "gradient), 16 minibatches and a learning rate of 1e-3 (more, larger supervised steps)",
    ),
    "squad_recon_dagger": Recipe(
        env_id="hiddengrid/SquadRecon-v0",
        settings={
            "imitation": "heuristic",
            "imitation_steps": 262_144,
            "auxiliary": "squad_recon_teacher",
            "minibatches": 16,
        },
        doc="behaviour cloning from the fair heuristic for 262k env steps, then PPO with the "
        "heuristic's orders on every state the policy visits taught to its logits (DAgger; "
        "the heuristic replanned every step, a function of the observation)",
    ),
    "squad_recon_dagger_view": Recipe(
        env_id="hiddengrid/SquadRecon-v0",
        settings=_SQUAD_RECON_VIEW,
        doc="squad_recon_dagger (with a warm start of 131k steps) and an egocentric view: the "
        "policy also reads, per squad, the map around it and where the unexplored ground lies "
        "from it (computed from the observation, no weights)",
    ),
    "squad_recon_dagger_squads": Recipe(
        env_id="hiddengrid/SquadRecon-v0",
        settings={**_SQUAD_RECON_VIEW, "encoder": "squad_recon_squads"},
        doc="squad_recon_dagger_view with one encoder shared by the three squads: each "
        "squad's view is read by the same weights (with a summary of the observation and "
        "which squad it is), so the rule learnt for one squad serves the others",
    ),
    "squad_recon_dagger_paths": Recipe(
        env_id="hiddengrid/SquadRecon-v0",
        settings={
            **_SQUAD_RECON_VIEW,
            "features": "squad_recon_paths",
            "encoder": "squad_recon_squads",
        },
        doc="squad_recon_dagger_squads whose view also gives, per squad and detected camp, "
        "the shortest way over the map as known (its length and which orders shorten it): "
        "the distances the heuristic plans with, computed from the observation",
    ),
}


def recipe_settings(name: str, env_id: str) -> dict[str, Any]:
    """The recipe's settings, or ``ValueError`` naming the recipes (and the env each is for)."""
    recipe = RECIPES.get(name)
    if recipe is None:
        known = ", ".join(f"{k} ({r.env_id})" for k, r in RECIPES.items())
        raise ValueError(f"unknown recipe {name!r}; recipes: {known}")
    if recipe.env_id != env_id:
        raise ValueError(f"recipe {name} is for {recipe.env_id}, not {env_id}")
    return dict(recipe.settings)
