"""SquadRecon's training aids: the fair heuristic as a DAgger teacher.

The env's fair heuristic (``SearchAgent``) reads only the observation (the explored map, the
squads, the detected camps) and one published rule (camps stand at Chebyshev distance >= 5
from ``[14, 0]``). It keeps two arrays between steps (which camp each squad heads for, and when
it last planned); replanned on every step instead, its action is a function of the current
observation alone. Measured on development seeds (1,000,000 on, 1,024 sub-envs, 200 steps):
the replanning variant picks the same joint order as the original on 99.8 % of the original's
states and 93.6 % of a poor student's, and wins as often (72.2 % against 72.1 %). So a
feed-forward policy can learn it, and it can label any state the student reaches: the
teacher auxiliary (:mod:`hiddengrid.train.auxiliary`, ``head="policy"``) then puts its action
on the policy's logits for every collected step, which is DAgger with the student acting.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from numba import njit

from hiddengrid.core.batch import Batch
from hiddengrid.envs.squad_recon.agents import distances_to_camp
from hiddengrid.envs.squad_recon.constants import GRID_SIZE, ORDER_COL, ORDER_ROW


class _BatchView:
    """What an agent's constructor reads of a vector env: its size and thread count."""

    def __init__(self, n: int) -> None:
        self.num_envs = n
        self.num_threads = 1


def replanning_heuristic_class() -> type:
    """The fair heuristic with its plan recomputed on every step (its third parameter): no
    state is carried between steps, so its action depends on the observation alone."""
    from hiddengrid.envs.squad_recon.agents import SearchAgent

    class ReplanningHeuristic(SearchAgent):
        params = (SearchAgent.params[0], SearchAgent.params[1], 1, SearchAgent.params[3])

    return ReplanningHeuristic


class HeuristicTeacher:
    """Labels a batch's current states with the replanning heuristic's orders. One agent per
    batch (its scratch arrays are sized by the batch), rebuilt when the batch changes."""

    def __init__(self) -> None:
        self._batch: Batch | None = None
        self._agent: Any = None
        self._starts: np.ndarray = np.ones(0, dtype=bool)

    def __call__(self, batch: Batch) -> np.ndarray:
        if batch is not self._batch:
            self._agent = replanning_heuristic_class()(_BatchView(batch.n))
            self._starts = np.ones(batch.n, dtype=bool)
            self._batch = batch
        obs = batch.observation_views()
        return np.asarray(self._agent.act(obs, self._starts), dtype=np.int64)


squad_recon_teacher_labels = HeuristicTeacher()


# --- an egocentric view of the map for each squad ---------------------------------------------
#
# The flat observation gives each squad's row and column as two one-hot vectors and the map as
# 225 one-hot cells: what lies next to a squad is a product of three inputs, which two ReLU
# layers of 128 units learn slowly (a plain clone agreed with the heuristic on 23 % of its joint
# orders after 262k steps). This view reads the same flat vector and adds, per squad, the map
# around it (a window of VIEW_RADIUS cells each way) and a few sums over the whole map, centred
# on the squad: no new information, only the squad's frame. It has no weights.

VIEW_RADIUS = 4
VIEW_CHANNELS = 4  # unexplored, blocked (wall, forest or off the map), standing camp, wanted
PER_SQUAD = (2 * VIEW_RADIUS + 1) ** 2 * VIEW_CHANNELS + 4 + 2 * 4
# squad_recon_paths adds, per squad and camp: reachable, path length, four shortening orders
PATH_COLUMNS = 2 * 6
PER_SQUAD_PATHS = PER_SQUAD + PATH_COLUMNS


class _SquadReconInput(torch.nn.Module):
    """Reads SquadRecon's flat observation: each key's slice (start, stop, one-hot width), the
    grid's and the teams' sizes, and where a camp may stand (a buffer)."""

    def __init__(self) -> None:
        super().__init__()
        from hiddengrid.core.flat import flat_layout
        from hiddengrid.envs.squad_recon.constants import (
            CAMP_MIN_DISTANCE,
            GRID_SIZE,
            NUM_CAMPS,
            NUM_SQUADS,
        )
        from hiddengrid.envs.squad_recon.env import observation_space

        layout = flat_layout(observation_space({}))
        self.slices = {s.key: (s.start, s.stop, s.width) for s in layout}
        self.obs_width = sum(s.stop - s.start for s in layout)
        self.grid, self.squads_n, self.camps_n = GRID_SIZE, NUM_SQUADS, NUM_CAMPS
        rows = torch.arange(GRID_SIZE)
        # Chebyshev distance from [14, 0] at least CAMP_MIN_DISTANCE: where a camp may stand
        far = torch.maximum((GRID_SIZE - 1 - rows)[:, None], rows[None, :])
        self.register_buffer("possible", (far >= CAMP_MIN_DISTANCE).float(), persistent=False)

    def _one_hot(self, x: torch.Tensor, key: str, shape: tuple[int, ...]) -> torch.Tensor:
        start, stop, width = self.slices[key]
        return x[:, start:stop].reshape(x.shape[0], *shape, width)


class SquadReconView(_SquadReconInput):
    """Per squad: its window of the map channels; the share of the wanted cells (unexplored,
    where a camp may stand) north, south, east and west of it; and per camp the row and column
    offset (scaled by the grid), whether it is detected and standing, and whether the squad is
    next to it. ``extra`` features are appended to the flat observation."""

    name = "squad_recon_view"

    def __init__(self, obs_size: int) -> None:
        super().__init__()
        if obs_size != self.obs_width:
            raise ValueError(
                f"{self.name} needs SquadRecon's {self.obs_width} flat features, got {obs_size}"
            )
        self.obs_size = obs_size
        read = ("terrain", "squads", "camps")  # the keys the Numba pass reads
        self._starts = np.asarray([self.slices[k][0] for k in read], dtype=np.int64)
        self._widths = np.asarray([self.slices[k][2] for k in read], dtype=np.int64)
        self.extra = self.squads_n * PER_SQUAD
        self.register_buffer("offsets", torch.arange(2 * VIEW_RADIUS + 1), persistent=False)
        self.register_buffer("cells", torch.arange(self.grid).float(), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        x = x.reshape(-1, x.shape[-1])[:, : self.obs_size]
        return self._view(x).reshape(*lead, self.extra)

    def _view(self, x: torch.Tensor) -> torch.Tensor:
        """The view's columns, (n, squads * PER_SQUAD), of flat observations ``x`` (n, obs)."""
        if x.device.type == "cpu" and x.dtype == torch.float32:
            # One pass per sample in Numba; the tensor code below allocates a padded map per
            # call and took a quarter of a training run's CPU. Same float32 values, bit for bit.
            out = np.empty((x.shape[0], self.squads_n * PER_SQUAD), dtype=np.float32)
            _view_kernel(
                x.detach().numpy(),
                self._starts,
                self._widths,
                self.possible.numpy(),
                self.squads_n,
                self.camps_n,
                out,
            )
            return torch.from_numpy(out)
        return self._tensor_view(x)

    def _tensor_view(self, x: torch.Tensor) -> torch.Tensor:
        """The view of ``x`` (n, obs_size) with tensor operations, on any device."""
        n, g, r = x.shape[0], self.grid, VIEW_RADIUS
        terrain = self._one_hot(x, "terrain", (g, g))  # -1, 0, 1, 2 one-hot
        unexplored = terrain[..., 0]
        blocked = terrain[..., 2] + terrain[..., 3]
        wanted = unexplored * self.possible
        squads = self._one_hot(x, "squads", (self.squads_n, 4))
        camps = self._one_hot(x, "camps", (self.camps_n, 4))
        s_row = squads[:, :, 0].argmax(-1)  # (n, 3)
        s_col = squads[:, :, 1].argmax(-1)
        c_row = camps[:, :, 0].argmax(-1)  # (n, 2)
        c_col = camps[:, :, 1].argmax(-1)
        standing = camps[:, :, 3, 1]  # status 1: detected and not eliminated
        camp_map = torch.zeros(n, g * g, device=x.device)
        camp_map.scatter_add_(1, c_row * g + c_col, standing)
        maps = torch.stack([unexplored, blocked, camp_map.view(n, g, g), wanted], -1)
        padded = torch.zeros(n, g + 2 * r, g + 2 * r, VIEW_CHANNELS, device=x.device)
        padded[..., 1] = 1.0  # off the map is blocked
        padded[:, r : r + g, r : r + g] = maps
        index = torch.arange(n, device=x.device)[:, None, None, None]
        rows = (s_row[:, :, None, None] + self.offsets[None, None, :, None]).expand(
            -1, -1, -1, 2 * r + 1
        )
        cols = (s_col[:, :, None, None] + self.offsets[None, None, None, :]).expand(
            -1, -1, 2 * r + 1, -1
        )
        window = padded[index, rows, cols].reshape(n, self.squads_n, -1)
        # wanted cells per half-plane around each squad, as a share of the map
        by_row = wanted.sum(2)  # (n, g) per row
        by_col = wanted.sum(1)
        cells = self.cells
        sr = s_row.float()[..., None]
        sc = s_col.float()[..., None]
        north = (by_row[:, None, :] * (cells < sr)).sum(-1)
        south = (by_row[:, None, :] * (cells > sr)).sum(-1)
        east = (by_col[:, None, :] * (cells > sc)).sum(-1)
        west = (by_col[:, None, :] * (cells < sc)).sum(-1)
        sides = torch.stack([north, south, east, west], -1) / (g * g)
        d_row = (c_row[:, None, :] - s_row[:, :, None]).float()  # (n, 3, 2)
        d_col = (c_col[:, None, :] - s_col[:, :, None]).float()
        near = ((d_row.abs() + d_col.abs()) == 1).float() * standing[:, None, :]
        camp = torch.stack(
            [
                d_row / g * standing[:, None],
                d_col / g * standing[:, None],
                near,
                standing[:, None].expand_as(near),
            ],
            -1,
        ).reshape(n, self.squads_n, -1)
        return torch.cat([window, sides, camp], -1).reshape(n, self.squads_n * PER_SQUAD)


class SquadReconPaths(SquadReconView):
    """``squad_recon_view``, and after each squad's block, per camp: whether the squad can reach
    it over the map as known (unexplored cells count as passable, walls, forest and standing
    camps not), the length of that shortest way (in steps, over the grid's side) and which of
    north, south, east and west shorten it. These are the distances the fair heuristic plans
    with: what lies past the 9x9 window is a sum over the whole map, which the view leaves
    the network to learn. Computed on the CPU (a breadth-first search per camp and sample)."""

    name = "squad_recon_paths"

    def __init__(self, obs_size: int) -> None:
        super().__init__(obs_size)
        self.extra = self.squads_n * PER_SQUAD_PATHS

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        x = x.reshape(-1, x.shape[-1])[:, : self.obs_size]
        n = x.shape[0]
        view = self._view(x).reshape(n, self.squads_n, PER_SQUAD)
        flat = x.detach().to("cpu", torch.float32).numpy()
        paths = np.zeros((n, self.squads_n * PATH_COLUMNS), dtype=np.float32)
        _paths_kernel(flat, self._starts, self._widths, self.squads_n, self.camps_n, paths)
        ways = torch.from_numpy(paths).to(view.device, view.dtype)
        both = torch.cat([view, ways.reshape(n, self.squads_n, PATH_COLUMNS)], -1)
        return both.reshape(*lead, self.extra)


@njit(cache=True)
def _argmax(x: np.ndarray, start: int, width: int) -> int:
    """The first index of the largest of ``x[start:start + width]`` (as ``torch.argmax``)."""
    best = 0
    for k in range(1, width):
        if x[start + k] > x[start + best]:
            best = k
    return best


@njit(cache=True)
def _view_kernel(
    x: np.ndarray,
    starts: np.ndarray,
    widths: np.ndarray,
    possible: np.ndarray,
    squads_n: int,
    camps_n: int,
    out: np.ndarray,
) -> None:
    """SquadReconView's columns for each row of ``x`` into ``out``, value for value as its
    tensor code computes them (every value is a count or a ratio rounded once to float32)."""
    g = possible.shape[0]
    r = VIEW_RADIUS
    w = 2 * r + 1
    per_squad = w * w * VIEW_CHANNELS + 4 + 4 * camps_n
    t0, s0, c0 = starts[0], starts[1], starts[2]
    tw, sw, cw = widths[0], widths[1], widths[2]
    maps = np.zeros((g, g, VIEW_CHANNELS), dtype=np.float32)
    by_row = np.zeros(g, dtype=np.float32)
    by_col = np.zeros(g, dtype=np.float32)
    c_row = np.zeros(camps_n, dtype=np.int64)
    c_col = np.zeros(camps_n, dtype=np.int64)
    standing = np.zeros(camps_n, dtype=np.float32)
    for i in range(x.shape[0]):
        row = x[i]
        by_row[:] = 0.0
        by_col[:] = 0.0
        for a in range(g):
            for b in range(g):
                cell = t0 + (a * g + b) * tw
                unexplored = row[cell]
                wanted = unexplored * possible[a, b]
                maps[a, b, 0] = unexplored
                maps[a, b, 1] = row[cell + 2] + row[cell + 3]
                maps[a, b, 2] = 0.0
                maps[a, b, 3] = wanted
                by_row[a] += wanted
                by_col[b] += wanted
        for j in range(camps_n):
            base = c0 + j * 4 * cw
            c_row[j] = _argmax(row, base, cw)
            c_col[j] = _argmax(row, base + cw, cw)
            standing[j] = row[base + 3 * cw + 1]
            maps[c_row[j], c_col[j], 2] += standing[j]
        total = float(g * g)
        for k in range(squads_n):
            base = s0 + k * 4 * sw
            sr = _argmax(row, base, sw)
            sc = _argmax(row, base + sw, sw)
            o = k * per_squad
            for dr in range(w):
                for dc in range(w):
                    a, b = sr + dr - r, sc + dc - r
                    at = o + (dr * w + dc) * VIEW_CHANNELS
                    if 0 <= a < g and 0 <= b < g:
                        for ch in range(VIEW_CHANNELS):
                            out[i, at + ch] = maps[a, b, ch]
                    else:
                        out[i, at] = 0.0
                        out[i, at + 1] = 1.0  # off the map is blocked
                        out[i, at + 2] = 0.0
                        out[i, at + 3] = 0.0
            north = south = east = west = np.float32(0.0)
            for a in range(g):
                if a < sr:
                    north += by_row[a]
                elif a > sr:
                    south += by_row[a]
                if a > sc:
                    east += by_col[a]
                elif a < sc:
                    west += by_col[a]
            o += w * w * VIEW_CHANNELS
            out[i, o] = north / total
            out[i, o + 1] = south / total
            out[i, o + 2] = east / total
            out[i, o + 3] = west / total
            o += 4
            for j in range(camps_n):
                d_row = float(c_row[j] - sr)
                d_col = float(c_col[j] - sc)
                near = 1.0 if abs(d_row) + abs(d_col) == 1.0 else 0.0
                # rounded to float32 before the product, as the tensor code does
                out[i, o] = np.float32(d_row / g) * standing[j]
                out[i, o + 1] = np.float32(d_col / g) * standing[j]
                out[i, o + 2] = near * standing[j]
                out[i, o + 3] = standing[j]
                o += 4


@njit(cache=True)
def _paths_kernel(
    x: np.ndarray, starts: np.ndarray, widths: np.ndarray, squads_n: int, camps_n: int, out
) -> None:
    """SquadReconPaths' columns for each row of ``x`` into ``out`` (zeros on entry): per live
    squad and standing camp, [reachable, steps / grid side, north, south, east, west shorten]."""
    g = GRID_SIZE
    t0, s0, c0 = starts[0], starts[1], starts[2]
    tw, sw, cw = widths[0], widths[1], widths[2]
    passable = np.empty((g, g), dtype=np.bool_)
    dist = np.empty((g, g), dtype=np.int64)
    queue = np.empty(g * g, dtype=np.int64)
    per_camp = PATH_COLUMNS // camps_n
    for i in range(x.shape[0]):
        row = x[i]
        for a in range(g):
            for b in range(g):
                cell = t0 + (a * g + b) * tw
                passable[a, b] = row[cell] + row[cell + 1] > 0.5  # unexplored or open
        for j in range(camps_n):
            base = c0 + j * 4 * cw
            if row[base + 3 * cw + 1] > 0.5:  # detected and standing: it blocks the way
                passable[_argmax(row, base, cw), _argmax(row, base + cw, cw)] = False
        for j in range(camps_n):
            base = c0 + j * 4 * cw
            if row[base + 3 * cw + 1] < 0.5:
                continue
            distances_to_camp(
                passable, _argmax(row, base, cw), _argmax(row, base + cw, cw), dist, queue
            )
            for k in range(squads_n):
                sq = s0 + k * 4 * sw
                if row[sq + 3 * sw + 1] < 0.5:  # a wiped-out squad goes nowhere
                    continue
                sr = _argmax(row, sq, sw)
                sc = _argmax(row, sq + sw, sw)
                here = dist[sr, sc]
                if here < 0:
                    continue
                o = k * PATH_COLUMNS + j * per_camp
                out[i, o] = 1.0
                out[i, o + 1] = here / g
                for order in range(1, 5):
                    nr = sr + ORDER_ROW[order]
                    nc = sc + ORDER_COL[order]
                    # next to the camp (here 0) no move shortens it; -1 marks blocked cells
                    if here > 0 and 0 <= nr < g and 0 <= nc < g and dist[nr, nc] == here - 1:
                        out[i, o + 1 + order] = 1.0


class SquadEncoder(torch.nn.Module):
    """An encoder (:mod:`hiddengrid.train.encoders`) that shares one network across squads.

    The heuristic orders each squad mostly from what lies around it, the same rule for each
    squad; a plain MLP over all three views must learn that rule three times, once per block
    of inputs. Here one layer summarises the input without the views (``hidden`` features);
    one two-layer network reads, per squad, its view block, the summary and a one-hot of
    which squad it is; a last layer mixes the three squads' features and the summary.
    The training page gives what this was worth on a fixed set of the teacher's labels."""

    def __init__(self, input_size: int, view_extra: int, hidden: int) -> None:
        super().__init__()
        from hiddengrid.envs.squad_recon.constants import NUM_SQUADS

        widths = {NUM_SQUADS * PER_SQUAD: PER_SQUAD, NUM_SQUADS * PER_SQUAD_PATHS: PER_SQUAD_PATHS}
        if view_extra not in widths:
            raise ValueError(
                f"the squads encoder reads squad_recon_view's {NUM_SQUADS * PER_SQUAD} or "
                f"squad_recon_paths' {NUM_SQUADS * PER_SQUAD_PATHS} columns, got {view_extra}"
            )
        self.per = widths[view_extra]  # one squad's block of the view
        from hiddengrid.train.policy import _layer

        root2 = float(np.sqrt(2))
        self.squads = NUM_SQUADS
        self.base = input_size - view_extra
        self.summary = torch.nn.Sequential(_layer(self.base, hidden, root2), torch.nn.ReLU())
        self.squad = torch.nn.Sequential(
            _layer(self.per + hidden + NUM_SQUADS, hidden, root2),
            torch.nn.ReLU(),
            _layer(hidden, hidden, root2),
            torch.nn.ReLU(),
        )
        self.mix = torch.nn.Sequential(
            _layer((NUM_SQUADS + 1) * hidden, hidden, root2), torch.nn.ReLU()
        )
        self.register_buffer("which", torch.eye(NUM_SQUADS), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead, k = x.shape[:-1], self.squads
        x = x.reshape(-1, x.shape[-1])
        n = x.shape[0]
        summary = self.summary(x[:, : self.base])
        views = x[:, self.base :].reshape(n, k, self.per)
        which = self.which.to(x.dtype)[None].expand(n, -1, -1)
        per = self.squad(torch.cat([views, summary[:, None].expand(-1, k, -1), which], -1))
        z = self.mix(torch.cat([per.reshape(n, -1), summary], -1))
        return z.reshape(*lead, -1)


class SquadMapCNN(_SquadReconInput):
    """An encoder (:mod:`hiddengrid.train.encoders`): a small convolutional network over the
    map, read from the flat observation as ten 15x15 channels (the explored terrain's four
    one-hot values, what is visible now, one channel per squad where it stands, the detected
    standing camps, where a camp may stand), two 3x3 convolutions of 16 channels, its output
    beside the whole input into two ReLU layers of ``hidden``. It reads the view's columns
    too when the run has one (as any other input)."""

    CHANNELS = 16

    def __init__(self, input_size: int, view_extra: int, hidden: int) -> None:
        super().__init__()
        from hiddengrid.train.policy import _layer

        g = self.grid
        root2 = float(np.sqrt(2))
        c = self.CHANNELS
        self.conv = torch.nn.Sequential(
            torch.nn.Conv2d(4 + 1 + self.squads_n + 1 + 1, c, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Conv2d(c, c, 3, padding=1),
            torch.nn.ReLU(),
        )
        for layer in self.conv:
            if isinstance(layer, torch.nn.Conv2d):
                torch.nn.init.orthogonal_(layer.weight, root2)
                torch.nn.init.zeros_(layer.bias)
        self.mlp = torch.nn.Sequential(
            _layer(c * g * g + input_size, hidden, root2),
            torch.nn.ReLU(),
            _layer(hidden, hidden, root2),
            torch.nn.ReLU(),
        )

    def maps(self, x: torch.Tensor) -> torch.Tensor:
        """The ten map channels of flat observations ``x`` (n, >= 1440): (n, 10, 15, 15)."""
        n, g = x.shape[0], self.grid
        terrain = self._one_hot(x, "terrain", (g, g)).permute(0, 3, 1, 2)
        visible = self._one_hot(x, "visible", (g, g)).permute(0, 3, 1, 2)
        squads = self._one_hot(x, "squads", (self.squads_n, 4))
        where = squads[:, :, 0, :, None] * squads[:, :, 1, None, :]  # (n, squads, g, g)
        camps = self._one_hot(x, "camps", (self.camps_n, 4))
        standing = camps[:, :, 3, 1]  # status one-hot: detected and not eliminated
        camp = camps[:, :, 0, :, None] * camps[:, :, 1, None, :] * standing[..., None, None]
        possible = self.possible.to(x.dtype).expand(n, 1, g, g)
        return torch.cat([terrain, visible, where, camp.sum(1, keepdim=True), possible], 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        x = x.reshape(-1, x.shape[-1])
        seen = self.conv(self.maps(x)).flatten(1)
        return self.mlp(torch.cat([seen, x], -1)).reshape(*lead, -1)
