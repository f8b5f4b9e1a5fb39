"""Megacity as text (placeholder)."""
