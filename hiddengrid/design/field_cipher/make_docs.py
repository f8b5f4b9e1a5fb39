"""Builds the pictures and numbers of FieldCipher's docs page (run offline):

    python -m hiddengrid.design.field_cipher.make_docs [out_dir]

Writes field_cipher_level0.png and field_cipher_level3.png (the same seed at levels 0 and 3,
after typing the message's first two characters), field_cipher_blocks.png (the block layout),
field_cipher_learning.png (the table learner's success curve) and prints the agents' scores
over 10,000 seeded episodes per level. ``python -m hiddengrid.design.field_cipher.make_docs
docs/images pictures`` writes only the two level pictures (a second).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import hiddengrid  # noqa: F401
from hiddengrid.envs.field_cipher.agents import TableLearnerAgent
from hiddengrid.envs.field_cipher.constants import CURSOR_RIGHT
from hiddengrid.envs.field_cipher.env import ENV_ID
from hiddengrid.evaluate import run_episodes
from hiddengrid.render import draw

WHITE = (250, 250, 248)
INK = (30, 30, 30)
GREY = (150, 150, 150)
CHAR_COLORS = ((235, 120, 90), (240, 190, 80), (110, 190, 120), (90, 150, 230))
FILLER = (196, 200, 214)
DECOR = (236, 236, 228)
PADDING = (210, 210, 210)
LEVEL_COLORS = ((40, 110, 200), (40, 160, 90), (230, 140, 30), (200, 50, 60))


PICTURE_SEED = 7  # the page's caption names this seed and the message it draws
PICTURE_LEVELS = (0, 3)
TYPED = 2  # characters typed before the picture is taken: the slots show what typing looks like


def level_picture(level: int, seed: int = PICTURE_SEED) -> tuple[np.ndarray, str]:
    """The ``rgb_array`` frame of ``seed`` at ``level`` after typing the message's first
    ``TYPED`` characters (write, cursor right, write), and the message that seed draws."""
    env = gym.make(ENV_ID, level=level, render_mode="rgb_array")
    env.reset(seed=seed)
    message = env.unwrapped.scenario["message"]
    for k, char in enumerate(message[:TYPED]):
        if k:
            env.step(CURSOR_RIGHT)
        env.step(int(char, 16))  # actions 0..15 write that hex digit
    frame = env.render()
    env.close()
    return frame, message


def block_layout() -> np.ndarray:
    """The 9x9 grid plus its padding, cut into 25 blocks, coloured by what they carry."""
    tile, margin = 44, 30
    size = 10 * tile
    img = draw.canvas(size + 2 * margin + 120, size + 2 * margin, WHITE)
    for k in range(25):
        r0, c0 = 2 * (k // 5), 2 * (k % 5)
        if k < 8:
            color, label = CHAR_COLORS[k // 2], f"C{k // 2 + 1} {'HI' if k % 2 == 0 else 'LO'}"
        elif k < 18:
            color, label = FILLER, "FILL"
        else:
            color, label = DECOR, "DECO"
        top, left = margin + r0 * tile, margin + c0 * tile
        draw.fill_rect(img, top, left, 2 * tile, 2 * tile, color)
        for r in range(2):
            for c in range(2):
                if r0 + r == 9 or c0 + c == 9:  # the padding row and column
                    t, lft = top + r * tile, left + c * tile
                    draw.fill_rect(img, t, lft, tile, tile, PADDING)
                    for d in range(0, 2 * tile, 8):
                        draw.draw_line(
                            img,
                            t + max(0, d - tile),
                            lft + min(d, tile),
                            t + min(d, tile),
                            lft + max(0, d - tile),
                            WHITE,
                            2,
                        )
                else:
                    draw.outline_rect(img, top + r * tile, left + c * tile, tile, tile, WHITE, 1)
        draw.outline_rect(img, top, left, 2 * tile, 2 * tile, INK, 2)
        draw.text(img, str(k), top + 6, left + 6, INK, scale=3)
        draw.text(img, label, top + 2 * tile - 18, left + 6, INK, scale=2)
    for c in range(10):
        draw.text(img, str(c), margin - 20 + 0, margin + c * tile + tile // 2 - 3, GREY, 2)
        draw.text(img, str(c), margin + c * tile + tile // 2 - 3, 8, GREY, 2)
    y = margin + size + 14
    x = margin
    for j, color in enumerate(CHAR_COLORS):
        draw.fill_rect(img, y, x, 14, 14, color)
        x = draw.text(img, f"HEX CHAR {j + 1}", y + 2, x + 20, INK, 2) + 14
    y += 26
    draw.fill_rect(img, y, margin, 14, 14, FILLER)
    draw.text(img, "BLOCKS 8-17: FILLER BITS 16-35", y + 2, margin + 20, INK, 2)
    y += 22
    draw.fill_rect(img, y, margin, 14, 14, DECOR)
    draw.text(img, "BLOCKS 18-24: NO BITS (DECORATION)", y + 2, margin + 20, INK, 2)
    y += 22
    draw.fill_rect(img, y, margin, 14, 14, PADDING)
    draw.text(img, "ROW/COL 9: PADDING (ALWAYS EMPTY)", y + 2, margin + 20, INK, 2)
    y += 22
    draw.text(
        img, "BLOCK VALUE = CODEBOOK(27TL+9TR+3BL+BR)  CHAR = 4 HI + LO", y + 2, margin, INK, 2
    )
    return img


def sequential_returns(level: int, episodes: int, seed: int, use_rewards: bool = True):
    """One learner plays ``episodes`` episodes one after another."""
    venv = gym.make_vec(ENV_ID, num_envs=1, vectorization_mode="vector_entry_point", level=level)
    agent = TableLearnerAgent(venv.unwrapped, use_rewards=use_rewards)
    obs, _ = venv.reset(seed=seed)
    returns = np.zeros(episodes)
    done = 0
    starts = np.ones(1, dtype=bool)
    while done < episodes:
        obs, reward, term, trunc, _ = venv.step(agent.act(obs, starts))
        agent.observe(reward, term, trunc)
        starts[:] = False
        if term[0]:
            returns[done] = reward[0]
            done += 1
            obs, reward, term, trunc, _ = venv.step(agent.act(obs, starts))  # autoreset step
            agent.observe(reward, term, trunc)
            starts[:] = True
    return returns


def plot(img, series, x0, y0, w, h, xmax, title, xlabel, ticks) -> None:
    """Line plot of ``series`` [(xs, ys, color, pale)] with y in 0..1."""
    draw.fill_rect(img, y0, x0, h, w, (255, 255, 255))
    for q in range(5):
        y = y0 + h - int(h * q / 4)
        draw.fill_rect(img, y, x0, 1, w, (225, 225, 225))
        draw.text(img, f"{q / 4:.2f}", y - 5, x0 - 44, INK, 2)
    for t in ticks:
        x = x0 + int(w * t / xmax)
        draw.fill_rect(img, y0 + h, x, 6, 1, INK)
        draw.text(img, str(t), y0 + h + 10, x - draw.text_width(str(t)) // 2, INK, 2)
    draw.outline_rect(img, y0, x0, h, w, INK, 1)
    for xs, ys, color, pale in series:
        pts = [(y0 + h - h * y, x0 + w * x / xmax) for x, y in zip(xs, ys, strict=True)]
        for k in range(len(pts) - 1):
            if pale:
                draw.draw_line(img, *pts[k], *pts[k + 1], draw.blend(color, WHITE, 0.6), 2)
            else:
                draw.draw_line(img, *pts[k], *pts[k + 1], color, 3)
    draw.text(img, title, y0 - 22, x0, INK, 2)
    draw.text(img, xlabel, y0 + h + 28, x0 + w // 2 - draw.text_width(xlabel) // 2, INK, 2)


def learning_curve(seeds: int = 5) -> tuple[np.ndarray, dict]:
    n_eps = 5000
    stats = {}
    curves, zooms, ablation = {}, {}, {}
    for level in range(4):
        runs = np.array([sequential_returns(level, n_eps, 1000 * s) for s in range(seeds)])
        hints_only = np.array(
            [sequential_returns(level, 200, 1000 * s, use_rewards=False) for s in range(seeds)]
        )
        curves[level] = runs.reshape(seeds, 50, 100).mean(axis=(0, 2))
        zooms[level] = runs[:, :200].reshape(seeds, 20, 10).mean(axis=(0, 2))
        ablation[level] = hints_only.reshape(seeds, 20, 10).mean(axis=(0, 2))
        stats[level] = {
            "first_100": float(runs[:, :100].mean()),
            "first_5000": float(runs.mean()),
            "last_1000_success": float((runs[:, -1000:] == 1.0).mean()),
            "first_reach": int(np.argmax(runs.mean(axis=0).cumsum() > 0) + 1),
            "hints_only_first_100": float(hints_only[:, :100].mean()),
        }
    width, height = 1100, 470
    img = draw.canvas(height, width, WHITE)
    xs = [50 + 100 * k for k in range(50)]
    plot(
        img,
        [(xs, curves[lv], LEVEL_COLORS[lv], False) for lv in range(4)],
        80,
        50,
        440,
        320,
        5000,
        "MEAN REWARD PER 100 EPISODES",
        "EPISODES 1-5000",
        [0, 1000, 2000, 3000, 4000, 5000],
    )
    zx = [5 + 10 * k for k in range(20)]
    series = [(zx, ablation[lv], LEVEL_COLORS[lv], True) for lv in range(4)]
    series += [(zx, zooms[lv], LEVEL_COLORS[lv], False) for lv in range(4)]
    plot(
        img,
        series,
        620,
        50,
        440,
        320,
        200,
        "FIRST 200 EPISODES (MEAN PER 10)",
        "EPISODES 1-200",
        [0, 50, 100, 150, 200],
    )
    y = 428
    x = 80
    for lv in range(4):
        draw.fill_rect(img, y, x, 6, 28, LEVEL_COLORS[lv])
        x = draw.text(img, f"LEVEL {lv}", y - 2, x + 36, INK, 2) + 24
    draw.text(img, "PALE: HINTS ONLY (NO LEARNING FROM REWARDS)", y - 2, x + 10, INK, 2)
    draw.text(
        img,
        f"MEAN OF {seeds} LEARNERS (EACH PLAYS ITS EPISODES ONE AFTER ANOTHER)",
        y + 18,
        80,
        GREY,
        2,
    )
    return img, stats


def scores(episodes: int = 10_000) -> list[tuple]:
    rows = []
    for level in range(4):
        for agent in ("random", "heuristic", "oracle"):
            res = run_episodes(ENV_ID, agent, episodes, seed=0, env_kwargs={"level": level})
            low, high = res.interval
            rows.append(
                (
                    level,
                    agent,
                    res.success_rate,
                    low,
                    high,
                    res.mean_return,
                    res.mean_length,
                    res.outcomes,
                )
            )
    return rows


def main(out_dir: str = "docs/images", evaluate: str = "yes") -> None:
    from PIL import Image

    out = Path(out_dir)
    for level in PICTURE_LEVELS:
        frame, message = level_picture(level)
        Image.fromarray(frame).save(out / f"field_cipher_level{level}.png")
        print(f"field_cipher_level{level}.png: seed {PICTURE_SEED}, message {message}")
    if evaluate == "pictures":
        return
    Image.fromarray(block_layout()).save(out / "field_cipher_blocks.png")
    start = time.perf_counter()
    img, stats = learning_curve()
    Image.fromarray(img).save(out / "field_cipher_learning.png")
    print(f"learning curve in {time.perf_counter() - start:.1f}s")
    for level, s in stats.items():
        print(level, s)
    if evaluate != "yes":
        return
    print("| level | agent | success | 95% CI | mean return | mean length | outcomes |")
    for level, agent, rate, low, high, ret, length, outcomes in scores():
        print(
            f"| {level} | {agent} | {rate:.4f} | [{low:.4f}, {high:.4f}] | {ret:.4f} | "
            f"{length:.2f} | {outcomes} |"
        )


if __name__ == "__main__":
    main(*sys.argv[1:])
