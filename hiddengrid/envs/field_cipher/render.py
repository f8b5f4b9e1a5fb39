"""FieldCipher pictures: the field (as text glyphs, or as field lines and crossings), the hints,
the slots and the cursor. Rendering shows the hidden message: it is for people, not the agent."""

from __future__ import annotations

import numpy as np

from hiddengrid.core.batch import Batch
from hiddengrid.envs.field_cipher.constants import (
    BLOCKS_PER_ROW,
    EMPTY_SLOT,
    GRID_SIZE,
    HEX_DIGITS,
    INTERSECTION,
    MESSAGE_BLOCKS,
    NUM_HINTS,
    NUM_SLOTS,
    SEGMENT,
    STEP_BUDGET,
)
from hiddengrid.render import draw

CELL_GLYPH = {0: ".", SEGMENT: "-", INTERSECTION: "+"}
LEGEND = (
    "legend: - segment  + intersection  . empty  (blocks of 2x2 cells; blocks 0-7 = message)  "
    "hints: pattern=value  slots: _ empty, [ ] cursor"
)


def _slot_char(v: int) -> str:
    return "_" if v == EMPTY_SLOT else HEX_DIGITS[v]


def _message(batch: Batch, i: int) -> str:
    return "".join(HEX_DIGITS[int(d)] for d in batch["message"][i])


def _status_lines(batch: Batch, i: int) -> list[str]:
    lines = [f"step {int(batch['step'][i])}/{STEP_BUDGET}  level {int(batch['level'][i])}"]
    if batch.done[i] or batch.terminated[i]:
        lines.append(
            f"{batch.outcome_name(i)}  correct {int(batch['correct'][i])}"
            f"  reward {batch.reward[i]:g}"
        )
    return lines


def _status(batch: Batch, i: int) -> str:
    return "  ".join(_status_lines(batch, i))


def render_ansi(batch: Batch, i: int) -> str:
    grid = batch["grid"][i]
    head = "     " + "  ".join(
        " ".join(str(c) for c in range(2 * b, min(2 * b + 2, GRID_SIZE)))
        for b in range(BLOCKS_PER_ROW)
    )
    lines = [f"FieldCipher  message {_message(batch, i)} (hidden from the agent)", head]
    for r in range(GRID_SIZE):
        if r and r % 2 == 0:
            lines.append("")
        cells = "  ".join(
            " ".join(CELL_GLYPH[int(v)] for v in grid[r, 2 * b : 2 * b + 2])
            for b in range(BLOCKS_PER_ROW)
        )
        lines.append(f"{r:>2}   {cells}")
    hints = batch["hints"][i].astype(int)
    top = "  ".join(CELL_GLYPH[h[0]] + CELL_GLYPH[h[1]] + "  " for h in hints)
    bottom = "  ".join(CELL_GLYPH[h[2]] + CELL_GLYPH[h[3]] + f"={h[4]}" for h in hints)
    lines += ["", "hints " + top, "      " + bottom]
    cursor = int(batch["cursor"][i])
    slots = "".join(
        f"[{_slot_char(int(v))}]" if j == cursor else f" {_slot_char(int(v))} "
        for j, v in enumerate(batch["slots"][i])
    )
    lines.append(f"slots {slots}   cursor {cursor} (slots 0..3)")
    lines.append(_status(batch, i))
    lines.append(LEGEND)
    return "\n".join(lines)


# --- rgb_array --------------------------------------------------------------------------------

TILE = 40
MARGIN = 14
BACKGROUND = (18, 24, 44)
PANEL = (238, 238, 232)
MESSAGE_TINT = (30, 40, 72)
FILLER_TINT = (22, 30, 54)
BLOCK_EDGE = (60, 72, 110)
LINE = (110, 210, 255)
CROSSING = (255, 200, 80)
INK = (30, 30, 30)
CURSOR = (30, 110, 220)
EMPTY_DOT = (70, 84, 128)
BLOCK_LABEL = (120, 134, 180)
HINT_TILE = 16


def _block_tint(k: int) -> tuple[int, int, int]:
    if k < MESSAGE_BLOCKS:
        return MESSAGE_TINT
    if k < 18:
        return FILLER_TINT
    return BACKGROUND


def _draw_cells(img, cells, top, left, tile, line_width) -> None:
    """Field lines: each drawn cell links to its drawn orthogonal neighbours; an intersection
    is a crossing (both axes through the cell) with a knot; a lone segment is a short dash."""
    rows, cols = cells.shape
    half = tile / 2
    for r in range(rows):
        for c in range(cols):
            v = int(cells[r, c])
            cy, cx = top + r * tile + half, left + c * tile + half
            if v == 0:
                draw.fill_disc(img, cy, cx, max(tile * 0.05, 1.0), EMPTY_DOT)
                continue
            linked = False
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols and cells[nr, nc] != 0:
                    draw.draw_line(img, cy, cx, cy + dr * half, cx + dc * half, LINE, line_width)
                    linked = True
            if v == INTERSECTION:
                arm = half * 0.8
                draw.draw_line(img, cy - arm, cx, cy + arm, cx, LINE, line_width)
                draw.draw_line(img, cy, cx - arm, cy, cx + arm, LINE, line_width)
                draw.fill_disc(img, cy, cx, tile * 0.2, CROSSING)
            elif not linked:
                draw.draw_line(img, cy, cx - half * 0.6, cy, cx + half * 0.6, LINE, line_width)


def render_rgb(batch: Batch, i: int) -> np.ndarray:
    field = GRID_SIZE * TILE
    width = field + 2 * MARGIN
    height = field + 2 * MARGIN + 206
    img = draw.canvas(height, width, PANEL)
    draw.fill_rect(img, MARGIN, MARGIN, field, field, BACKGROUND)
    for k in range(25):
        r0, c0 = 2 * (k // BLOCKS_PER_ROW), 2 * (k % BLOCKS_PER_ROW)
        h = min(2, GRID_SIZE - r0) * TILE
        w = min(2, GRID_SIZE - c0) * TILE
        draw.fill_rect(img, MARGIN + r0 * TILE, MARGIN + c0 * TILE, h, w, _block_tint(k))
        draw.outline_rect(img, MARGIN + r0 * TILE, MARGIN + c0 * TILE, h, w, BLOCK_EDGE, 1)
    _draw_cells(img, batch["grid"][i], MARGIN, MARGIN, TILE, 4)
    for k in range(25):
        top, left = (
            MARGIN + 2 * (k // BLOCKS_PER_ROW) * TILE,
            MARGIN + 2 * (k % BLOCKS_PER_ROW) * TILE,
        )
        draw.text(img, str(k), top + 3, left + 3, BLOCK_LABEL, scale=1)

    y = MARGIN + field + 12
    draw.text(img, "HINTS", y, MARGIN, INK, scale=2)
    hints = batch["hints"][i].astype(int)
    for h in range(NUM_HINTS):
        left = MARGIN + 64 + h * 76
        cells = np.array([[hints[h, 0], hints[h, 1]], [hints[h, 2], hints[h, 3]]])
        draw.fill_rect(img, y - 4, left, 2 * HINT_TILE, 2 * HINT_TILE, BACKGROUND)
        _draw_cells(img, cells, y - 4, left, HINT_TILE, 2)
        draw.text(img, f"={hints[h, 4]}", y + 6, left + 2 * HINT_TILE + 4, INK, scale=2)

    y += 44
    draw.text(img, "SLOTS", y + 12, MARGIN, INK, scale=2)
    cursor = int(batch["cursor"][i])
    for j, v in enumerate(batch["slots"][i]):
        left = MARGIN + 64 + j * 52
        color = CURSOR if j == cursor else (150, 150, 150)
        draw.outline_rect(img, y, left, 40, 40, color, 4 if j == cursor else 2)
        draw.text(img, _slot_char(int(v)), y + 10, left + 14, INK, scale=4)
    draw.text(img, f"MSG {_message(batch, i)}", y + 12, MARGIN + 64 + NUM_SLOTS * 52 + 8, INK)
    # One status line per fact group: the whole of it does not fit the picture's width.
    for n, line in enumerate(_status_lines(batch, i)):
        draw.text(img, line, y + 58 + 16 * n, MARGIN, INK, scale=2)
    draw.legend(img, y + 94, MARGIN, _legend_entries())
    return img


def _legend_entries() -> list:
    def cell(kind: int):
        def paint(img: np.ndarray, top: int, left: int, size: int) -> None:
            draw.fill_rect(img, top, left, size, size, BACKGROUND)
            _draw_cells(img, np.array([[kind]]), top, left, size, 2)

        return paint

    return [
        (cell(SEGMENT), "FIELD LINE"),
        (cell(INTERSECTION), "CROSSING"),
        (draw.swatch(BLOCK_EDGE, "outline"), "BLOCK (0-7: MESSAGE)"),
        (draw.swatch(CURSOR, "outline"), "CURSOR"),
        (lambda img, top, left, size: None, "MSG: HIDDEN ANSWER"),
    ]
