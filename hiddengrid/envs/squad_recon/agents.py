"""SquadRecon agents (placeholder, filled in below)."""

from hiddengrid.core.agents import RandomAgent

AGENTS = {"random": RandomAgent}
