"""Tiny NumPy drawing helpers for ``rgb_array`` pictures, so rendering needs no display and no
extra package: filled rectangles, discs, polygons, thick lines and a 3x5 pixel font."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Color = tuple[int, int, int]

# 3x5 glyphs, rows top to bottom, '#' lit.
_FONT_ROWS = {
    "0": "###,#.#,#.#,#.#,###",
    "1": ".#.,##.,.#.,.#.,###",
    "2": "###,..#,###,#..,###",
    "3": "###,..#,.##,..#,###",
    "4": "#.#,#.#,###,..#,..#",
    "5": "###,#..,###,..#,###",
    "6": "###,#..,###,#.#,###",
    "7": "###,..#,.#.,.#.,.#.",
    "8": "###,#.#,###,#.#,###",
    "9": "###,#.#,###,..#,###",
    "A": ".#.,#.#,###,#.#,#.#",
    "B": "##.,#.#,##.,#.#,##.",
    "C": ".##,#..,#..,#..,.##",
    "D": "##.,#.#,#.#,#.#,##.",
    "E": "###,#..,##.,#..,###",
    "F": "###,#..,##.,#..,#..",
    "G": ".##,#..,#.#,#.#,.##",
    "H": "#.#,#.#,###,#.#,#.#",
    "I": "###,.#.,.#.,.#.,###",
    "J": "..#,..#,..#,#.#,.#.",
    "K": "#.#,#.#,##.,#.#,#.#",
    "L": "#..,#..,#..,#..,###",
    "M": "#.#,###,###,#.#,#.#",
    "N": "##.,#.#,#.#,#.#,#.#",
    "O": ".#.,#.#,#.#,#.#,.#.",
    "P": "##.,#.#,##.,#..,#..",
    "Q": ".#.,#.#,#.#,##.,.##",
    "R": "##.,#.#,##.,#.#,#.#",
    "S": ".##,#..,.#.,..#,##.",
    "T": "###,.#.,.#.,.#.,.#.",
    "U": "#.#,#.#,#.#,#.#,###",
    "V": "#.#,#.#,#.#,#.#,.#.",
    "W": "#.#,#.#,###,###,#.#",
    "X": "#.#,#.#,.#.,#.#,#.#",
    "Y": "#.#,#.#,.#.,.#.,.#.",
    "Z": "###,..#,.#.,#..,###",
    " ": "...,...,...,...,...",
    ":": "...,.#.,...,.#.,...",
    ".": "...,...,...,...,.#.",
    "-": "...,...,###,...,...",
    "+": "...,.#.,###,.#.,...",
    "/": "..#,..#,.#.,#..,#..",
    "%": "#.#,..#,.#.,#..,#.#",
    "=": "...,###,...,###,...",
    "?": "##.,..#,.#.,...,.#.",
    "(": ".#.,#..,#..,#..,.#.",
    ")": ".#.,..#,..#,..#,.#.",
    "_": "...,...,...,...,###",
    ">": "#..,.#.,..#,.#.,#..",
    "<": "..#,.#.,#..,.#.,..#",
    "*": "...,#.#,.#.,#.#,...",
}
FONT = {
    ch: np.array([[c == "#" for c in row] for row in rows.split(",")], dtype=bool)
    for ch, rows in _FONT_ROWS.items()
}


def canvas(height: int, width: int, color: Color) -> np.ndarray:
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:, :] = color
    return img


def fill_rect(img: np.ndarray, top: int, left: int, h: int, w: int, color: Color) -> None:
    img[max(top, 0) : max(top + h, 0), max(left, 0) : max(left + w, 0)] = color


def outline_rect(
    img: np.ndarray, top: int, left: int, h: int, w: int, color: Color, width: int = 2
) -> None:
    fill_rect(img, top, left, width, w, color)
    fill_rect(img, top + h - width, left, width, w, color)
    fill_rect(img, top, left, h, width, color)
    fill_rect(img, top, left + w - width, h, width, color)


def fill_disc(img: np.ndarray, cy: float, cx: float, radius: float, color: Color) -> None:
    h, w = img.shape[:2]
    y0, y1 = max(int(cy - radius) - 1, 0), min(int(cy + radius) + 2, h)
    x0, x1 = max(int(cx - radius) - 1, 0), min(int(cx + radius) + 2, w)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    mask = (yy + 0.5 - cy) ** 2 + (xx + 0.5 - cx) ** 2 <= radius**2
    img[y0:y1, x0:x1][mask] = color


def fill_polygon(img: np.ndarray, points: list[tuple[float, float]], color: Color) -> None:
    """Fills a convex polygon given as (y, x) points in order."""
    ys = [p[0] for p in points]
    xs = [p[1] for p in points]
    h, w = img.shape[:2]
    y0, y1 = max(int(min(ys)), 0), min(int(max(ys)) + 1, h)
    x0, x1 = max(int(min(xs)), 0), min(int(max(xs)) + 1, w)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    yy = yy + 0.5
    xx = xx + 0.5
    inside_pos = np.ones(yy.shape, dtype=bool)
    inside_neg = np.ones(yy.shape, dtype=bool)
    for k in range(len(points)):
        (ay, ax), (by, bx) = points[k], points[(k + 1) % len(points)]
        cross = (bx - ax) * (yy - ay) - (by - ay) * (xx - ax)
        inside_pos &= cross >= 0
        inside_neg &= cross <= 0
    img[y0:y1, x0:x1][inside_pos | inside_neg] = color


def draw_line(
    img: np.ndarray, y0: float, x0: float, y1: float, x1: float, color: Color, width: int = 2
) -> None:
    steps = int(max(abs(y1 - y0), abs(x1 - x0))) + 1
    for t in np.linspace(0.0, 1.0, steps):
        y = y0 + (y1 - y0) * t
        x = x0 + (x1 - x0) * t
        fill_rect(img, int(y - width / 2), int(x - width / 2), width, width, color)


def arrow(
    img: np.ndarray, cy: float, cx: float, dy: float, dx: float, size: float, color: Color
) -> None:
    """A triangle centred on (cy, cx) pointing along (dy, dx)."""
    norm = max((dy * dy + dx * dx) ** 0.5, 1e-9)
    dy, dx = dy / norm, dx / norm
    tip = (cy + dy * size, cx + dx * size)
    back = (cy - dy * size * 0.6, cx - dx * size * 0.6)
    left = (back[0] - dx * size * 0.7, back[1] + dy * size * 0.7)
    right = (back[0] + dx * size * 0.7, back[1] - dy * size * 0.7)
    fill_polygon(img, [tip, left, right], color)


def text(img: np.ndarray, s: str, top: int, left: int, color: Color, scale: int = 2) -> int:
    """Writes ``s`` (upper-cased) in the 3x5 font; returns the x just after it."""
    x = left
    h, w = img.shape[:2]
    for ch in s.upper():
        glyph = FONT.get(ch, FONT["?"])
        big = np.kron(glyph, np.ones((scale, scale), dtype=bool))
        gh, gw = big.shape
        if top + gh <= h and x + gw <= w and top >= 0 and x >= 0:
            img[top : top + gh, x : x + gw][big] = color
        x += gw + scale
    return x


def text_width(s: str, scale: int = 2) -> int:
    return len(s) * 4 * scale


def blend(a: Color, b: Color, t: float) -> Color:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def upscale(img: np.ndarray, factor: int) -> np.ndarray:
    return np.repeat(np.repeat(img, factor, axis=0), factor, axis=1)


def legend(
    img: np.ndarray,
    top: int,
    left: int,
    entries: list[tuple[Callable[[np.ndarray, int, int, int], None], str]],
    scale: int = 2,
) -> int:
    """A row of legend entries, wrapped onto new lines at the picture's right edge: each entry
    is a painter of a ``size``-pixel swatch at (top, left) and its label. Returns the y below."""
    size = 6 * scale
    x = left
    y = top
    for paint, label in entries:
        width = size + scale * 2 + text_width(label, scale) + 4 * scale
        if x > left and x + width > img.shape[1]:
            x = left
            y += size + 3 * scale
        paint(img, y, x, size)
        x = text(img, label, y + (size - 5 * scale) // 2, x + size + 2 * scale, (30, 30, 30), scale)
        x += 4 * scale
    return y + size + 3 * scale


def swatch(color: Color, shape: str = "square") -> Callable[[np.ndarray, int, int, int], None]:
    """A legend painter: a filled ``square``, an ``outline``, a ``disc`` or a ``diamond``."""

    def paint(img: np.ndarray, top: int, left: int, size: int) -> None:
        if shape == "square":
            fill_rect(img, top, left, size, size, color)
        elif shape == "outline":
            outline_rect(img, top, left, size, size, color, max(1, size // 6))
        elif shape == "disc":
            fill_disc(img, top + size / 2, left + size / 2, size / 2, color)
        else:
            cy, cx, h = top + size / 2, left + size / 2, size / 2
            fill_polygon(img, [(cy - h, cx), (cy, cx + h), (cy + h, cx), (cy, cx - h)], color)

    return paint
