"""The in-context learning curve as inline SVG: success by episode index within a trial."""

from __future__ import annotations

from html import escape
from typing import Any

WIDTH, HEIGHT, PAD = 360, 200, 36


def learning_curve_svg(rows: list[dict[str, Any]], title: str) -> str:
    """``rows`` are a summary's ``by_trial_episode`` entries (success rate and 95 % interval)."""
    n = len(rows)
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD

    def x(i: int) -> float:
        return PAD + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)

    def y(rate: float) -> float:
        return PAD + inner_h * (1 - rate)

    parts = [
        f'<svg class="curve" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img">',
        f"<title>{escape(title)}</title>",
        f'<text x="{PAD}" y="16" class="curve-title">{escape(title)}</text>',
    ]
    for level in (0.0, 0.5, 1.0):
        parts.append(
            f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{y(level):.1f}" y2="{y(level):.1f}" '
            'class="grid"/>'
            f'<text x="{PAD - 4}" y="{y(level) + 4:.1f}" class="axis" '
            f'text-anchor="end">{level:.0%}</text>'
        )
    if n:
        band = [f"{x(i):.1f},{y(r['ci95'][1]):.1f}" for i, r in enumerate(rows)]
        band += [f"{x(i):.1f},{y(r['ci95'][0]):.1f}" for i, r in reversed(list(enumerate(rows)))]
        parts.append(f'<polygon points="{" ".join(band)}" class="band"/>')
        line = " ".join(f"{x(i):.1f},{y(r['success_rate']):.1f}" for i, r in enumerate(rows))
        parts.append(f'<polyline points="{line}" class="line"/>')
        for i, r in enumerate(rows):
            low, high = r["ci95"]
            parts.append(
                f'<circle cx="{x(i):.1f}" cy="{y(r["success_rate"]):.1f}" r="3.5" class="point">'
                f"<title>episode {i + 1}: {r['successes']}/{r['episodes']} "
                f"({r['success_rate']:.0%}, 95% interval {low:.0%} to {high:.0%})</title>"
                "</circle>"
                f'<text x="{x(i):.1f}" y="{HEIGHT - PAD + 16}" class="axis" '
                f'text-anchor="middle">{i + 1}</text>'
            )
    parts.append(
        f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT - 4}" class="axis" text-anchor="middle">'
        "episode within the trial</text></svg>"
    )
    return "".join(parts)
