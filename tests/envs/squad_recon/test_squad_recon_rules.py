"""Every rule of SquadRecon's page on hand-built scenarios."""

from __future__ import annotations

import numpy as np
import pytest
from squad_recon_cases import A, E, H, N, S, W, alive, positions, start, step

from hiddengrid.envs.squad_recon.rules import sensor_sweep
from hiddengrid.envs.squad_recon.sight import bresenham_line

# --- (1) moves ------------------------------------------------------------------------------------


def test_moves_go_one_cell_in_their_direction():
    env, obs = start(squads=((7, 7, 1), (7, 7, 1), (7, 7, 1)))
    obs, *_ = step(env, N, E, W)
    assert positions(obs) == [(6, 7), (7, 8), (7, 6)]
    obs, *_ = step(env, S, H, A)  # attack with no camp next to it is a hold
    assert positions(obs) == [(7, 7), (7, 8), (7, 6)]


@pytest.mark.parametrize(
    ("blocker", "order"),
    [("wall", N), ("forest", E), ("camp", W)],
)
def test_move_into_wall_forest_or_camp_fails(blocker, order):
    target = {N: (6, 7), E: (7, 8), W: (7, 6)}[order]
    kwargs = {}
    if blocker == "wall":
        kwargs["walls"] = [target]
    elif blocker == "forest":
        kwargs["forest"] = [target]
    else:
        kwargs["camps"] = ((*target, 2), (0, 14, 2))
    env, obs = start(squads=((7, 7, 1), (14, 0, 1), (14, 1, 1)), **kwargs)
    obs, reward, term, _, _ = step(env, order, H, H)
    assert positions(obs)[0] == (7, 7)
    assert obs["steps_left"] == 39 and reward == 0.0 and not term


def test_move_off_the_grid_fails():
    env, obs = start(squads=((0, 0, 1), (14, 14, 1), (0, 14, 1)), camps=((7, 7, 2), (8, 8, 2)))
    obs, *_ = step(env, N, S, E)
    assert positions(obs) == [(0, 0), (14, 14), (0, 14)]
    obs, *_ = step(env, W, E, N)
    assert positions(obs) == [(0, 0), (14, 14), (0, 14)]


def test_squads_never_block_each_other():
    # Onto an occupied cell, into the cell another squad is leaving, and a swap.
    env, obs = start(squads=((7, 7, 1), (7, 8, 1), (7, 9, 1)))
    obs, *_ = step(env, E, E, H)  # 0 enters the cell 1 leaves; 1 joins 2
    assert positions(obs) == [(7, 8), (7, 9), (7, 9)]
    obs, *_ = step(env, E, W, H)  # 0 and 1 swap
    assert positions(obs) == [(7, 9), (7, 8), (7, 9)]


def test_moves_are_simultaneous_and_camps_block_until_eliminated_step_ends():
    # A camp eliminated this step still blocks this step's moves (moves come first); its cell
    # is open ground from the next step on.
    env, obs = start(squads=((7, 6, 3), (7, 6, 1), (5, 5, 1)), camps=((7, 7, 2), (0, 14, 2)))
    obs, reward, *_ = step(env, A, E, H)
    assert reward == 0.5 and positions(obs)[1] == (7, 6)
    obs, *_ = step(env, H, E, H)
    assert positions(obs)[1] == (7, 7)


# --- (2) attacks ----------------------------------------------------------------------------------


def test_attack_with_more_strength_eliminates_the_camp():
    env, obs = start(squads=((7, 6, 3), (14, 0, 1), (14, 1, 1)), camps=((7, 7, 2), (0, 14, 2)))
    assert obs["camps"][0].tolist() == [7, 7, 2, 1]  # adjacent: detected at reset
    obs, reward, term, _, _ = step(env, A, H, H)
    assert reward == 0.5 and not term
    assert obs["camps"][0].tolist() == [7, 7, 2, 2]
    assert obs["progress"].tolist() == [0.5]
    assert alive(obs) == [1, 1, 1]


def test_equal_strength_fails_and_destroys_every_adjacent_squad():
    # 1 + 1 == 2: the attacker and the holding neighbour die, the squad two cells away lives.
    env, obs = start(squads=((7, 6, 1), (6, 7, 1), (7, 5, 4)), camps=((7, 7, 2), (0, 14, 2)))
    assert obs["total_strength"] == 6
    obs, reward, term, _, _ = step(env, A, H, H)
    assert reward == 0.0 and not term
    assert alive(obs) == [0, 0, 1]
    assert obs["camps"][0].tolist() == [7, 7, 2, 1]
    assert obs["total_strength"] == 4
    # A destroyed squad keeps its last row, col and strength.
    assert obs["squads"][0].tolist() == [7, 6, 1, 0]


def test_a_holding_adjacent_squad_counts():
    env, obs = start(squads=((7, 6, 2), (8, 7, 1), (14, 0, 1)), camps=((7, 7, 2), (0, 14, 2)))
    obs, reward, *_ = step(env, A, H, H)  # 2 alone would fail; 2 + 1 > 2
    assert reward == 0.5 and alive(obs) == [1, 1, 1]


def test_a_squad_arriving_this_step_counts():
    env, obs = start(squads=((7, 6, 2), (9, 7, 1), (14, 0, 1)), camps=((7, 7, 2), (0, 14, 2)))
    obs, reward, *_ = step(env, A, N, H)  # squad 2 moves next to the camp, then the attack
    assert reward == 0.5 and alive(obs) == [1, 1, 1]


def test_diagonal_squads_are_not_next_to_a_camp():
    env, obs = start(squads=((7, 6, 1), (6, 6, 4), (8, 8, 4)), camps=((7, 7, 2), (0, 14, 2)))
    obs, reward, *_ = step(env, A, H, H)
    assert reward == 0.0 and alive(obs) == [0, 1, 1]
    obs, reward, *_ = step(env, H, A, A)  # diagonal attackers: a hold
    assert reward == 0.0 and alive(obs) == [0, 1, 1]


def test_attack_with_no_camp_next_to_it_is_a_hold():
    env, obs = start(squads=((7, 5, 1), (14, 0, 1), (14, 1, 1)), camps=((7, 7, 2), (0, 14, 2)))
    before = env.unwrapped.batch.snapshot()
    obs, reward, *_ = step(env, A, A, A)
    after = env.unwrapped.batch.snapshot()
    assert reward == 0.0 and alive(obs) == [1, 1, 1]
    assert positions(obs) == [(7, 5), (14, 0), (14, 1)]
    assert np.array_equal(before["field:camp_status"], after["field:camp_status"])


def test_adjacent_squads_that_do_not_attack_trigger_nothing():
    env, obs = start(squads=((7, 6, 1), (6, 7, 1), (14, 0, 1)), camps=((7, 7, 5), (0, 14, 2)))
    obs, reward, *_ = step(env, H, H, A)
    assert reward == 0.0 and alive(obs) == [1, 1, 1]


def test_camps_resolve_in_index_order_and_the_dead_no_longer_count():
    # Squad 1 (strength 1) stands between camp 0 (strength 3) and camp 1 (strength 1).
    # Camp 0: 1 + 1 (squad 3) <= 3, both die. Camp 1: squad 1 is dead, squad 2 alone (1)
    # is not more than 1, so squad 2 dies too: everyone is gone.
    env, obs = start(squads=((7, 7, 1), (7, 9, 1), (6, 6, 1)), camps=((7, 6, 3), (7, 8, 1)))
    obs, reward, term, _, info = step(env, A, A, H)
    assert alive(obs) == [0, 0, 0]
    assert reward == 0.0 and term and info["outcome"] == "wiped_out"


def test_destroyed_squad_neither_counts_nor_attacks_at_the_next_camp():
    # Squad 1 dies at camp 0; its attack order does not trigger camp 1, where squad 2 holds.
    env, obs = start(squads=((7, 7, 1), (7, 9, 4), (14, 0, 1)), camps=((7, 6, 5), (7, 8, 2)))
    obs, reward, *_ = step(env, A, H, H)
    assert alive(obs) == [0, 1, 1] and reward == 0.0
    assert obs["camps"][1, 3] == 1  # camp 1 untouched


def test_one_attack_can_hit_both_camps():
    env, obs = start(squads=((7, 7, 3), (8, 7, 1), (14, 0, 1)), camps=((7, 6, 2), (7, 8, 2)))
    obs, reward, term, _, info = step(env, A, H, H)
    assert reward == 1.0 and term and info["outcome"] == "success"
    assert obs["progress"].tolist() == [1.0]


def test_orders_of_destroyed_squads_are_ignored():
    env, obs = start(squads=((7, 6, 1), (7, 4, 4), (14, 0, 1)), camps=((7, 7, 5), (0, 14, 2)))
    obs, *_ = step(env, A, H, H)
    assert alive(obs) == [0, 1, 1]
    for order in (N, S, E, W, A, H):
        obs, reward, *_ = step(env, order, H, H)
        assert positions(obs)[0] == (7, 6) and reward == 0.0
    # Its attack order next to the camp does not make squad 2 (now next to it) attack.
    obs, *_ = step(env, H, E, H)
    assert positions(obs)[1] == (7, 5)
    obs, *_ = step(env, H, E, H)
    assert positions(obs)[1] == (7, 6)  # onto the dead squad's cell: squads never block
    obs, reward, *_ = step(env, A, H, H)
    assert reward == 0.0 and alive(obs) == [0, 1, 1]


# --- (3) sight ------------------------------------------------------------------------------------


def reference_line(r0, c0, r1, c1):
    """Bresenham's algorithm as in the textbooks (x = column, y = row), written separately."""
    x, y = c0, r0
    dx, dy = abs(c1 - c0), -abs(r1 - r0)
    sx, sy = (1 if c0 < c1 else -1), (1 if r0 < r1 else -1)
    err = dx + dy
    out = [(y, x)]
    while (y, x) != (r1, c1):
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x += sx
        if e2 <= dx:
            err += dx
            y += sy
        out.append((y, x))
    return out


def reference_visible(terrain: np.ndarray, squads) -> np.ndarray:
    seen = np.zeros((15, 15), dtype=np.int8)
    for r0, c0, _, live in squads:
        if not live:
            continue
        for r in range(max(0, r0 - 3), min(15, r0 + 4)):
            for c in range(max(0, c0 - 3), min(15, c0 + 4)):
                between = reference_line(r0, c0, r, c)[1:-1]
                if all(terrain[y, x] == 0 for y, x in between):
                    seen[r, c] = 1
    return seen


def test_bresenham_lines_by_hand():
    assert bresenham_line(0, 0, 0, 3) == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert bresenham_line(0, 0, 3, 3) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    # Knight offsets: diagonal step first, in every orientation.
    assert bresenham_line(0, 0, 1, 2) == [(0, 0), (1, 1), (1, 2)]
    assert bresenham_line(0, 0, 2, 1) == [(0, 0), (1, 1), (2, 1)]
    assert bresenham_line(0, 0, -1, -2) == [(0, 0), (-1, -1), (-1, -2)]
    assert bresenham_line(0, 0, 2, -1) == [(0, 0), (1, -1), (2, -1)]
    assert bresenham_line(0, 0, 1, 3) == [(0, 0), (0, 1), (1, 2), (1, 3)]
    assert bresenham_line(0, 0, 2, 3) == [(0, 0), (1, 1), (1, 2), (2, 3)]
    for dr in range(-3, 4):
        for dc in range(-3, 4):
            assert bresenham_line(5, 5, 5 + dr, 5 + dc) == reference_line(5, 5, 5 + dr, 5 + dc)


def test_sight_is_the_chebyshev_radius_3_window_on_open_ground():
    _env, obs = start(squads=((7, 7, 1), (7, 7, 1), (7, 7, 1)))
    expected = np.zeros((15, 15), dtype=np.int8)
    expected[4:11, 4:11] = 1
    assert np.array_equal(obs["visible"], expected)
    assert np.array_equal(obs["terrain"] == 0, expected == 1)
    assert (obs["terrain"][expected == 0] == -1).all()


def test_forest_hides_what_is_behind_it_but_is_seen_itself():
    _env, obs = start(squads=((7, 7, 1), (7, 7, 1), (7, 7, 1)), forest=[(7, 8)])
    assert obs["visible"][7, 8] == 1 and obs["terrain"][7, 8] == 2
    assert obs["visible"][7, 9] == 0 and obs["visible"][7, 10] == 0
    assert obs["terrain"][7, 9] == -1
    assert obs["visible"][6, 9] == 1  # its own line passes (6, 8)


def test_a_wall_hides_what_is_behind_it():
    _env, obs = start(squads=((7, 7, 1), (7, 7, 1), (7, 7, 1)), walls=[(6, 7)])
    assert obs["terrain"][6, 7] == 1
    assert obs["visible"][5, 7] == 0 and obs["visible"][4, 7] == 0


def test_knight_offset_line_steps_diagonally_first():
    # (7, 7) -> (8, 9) passes (8, 8), not (7, 8).
    _env, obs = start(squads=((7, 7, 1), (7, 7, 1), (7, 7, 1)), forest=[(8, 8)])
    assert obs["visible"][8, 9] == 0
    _env, obs = start(squads=((7, 7, 1), (7, 7, 1), (7, 7, 1)), forest=[(7, 8)])
    assert obs["visible"][8, 9] == 1


def test_camps_and_squads_do_not_block_sight():
    _env, obs = start(squads=((7, 7, 1), (7, 8, 1), (14, 0, 1)), camps=((6, 7, 3), (5, 7, 4)))
    assert obs["camps"].tolist() == [[6, 7, 3, 1], [5, 7, 4, 1]]
    assert obs["visible"][4, 7] == 1 and obs["visible"][7, 10] == 1


def test_sight_matches_reference_on_random_terrain():
    env, _ = start()
    batch = env.unwrapped.batch
    rng = np.random.default_rng(0)
    for _ in range(60):
        terrain = (rng.random((15, 15)) < 0.3) * rng.integers(1, 3, (15, 15))
        free = np.argwhere(terrain == 0)
        picks = free[rng.choice(len(free), 3)]
        live = rng.integers(0, 2, 3)
        squads = [(int(r), int(c), 1, int(a)) for (r, c), a in zip(picks, live, strict=True)]
        batch["terrain"][0] = terrain
        batch["squads"][0] = squads
        sensor_sweep(
            0, batch["terrain"], batch["camps"], batch["camp_status"], batch["squads"],
            batch["explored"], batch["visible"],
        )  # fmt: skip
        assert np.array_equal(batch["visible"][0], reference_visible(terrain, squads))


def test_dead_squads_see_nothing():
    env, obs = start(squads=((7, 6, 1), (0, 0, 4), (0, 1, 4)), camps=((7, 7, 5), (0, 14, 2)))
    obs, *_ = step(env, A, H, H)
    assert alive(obs) == [0, 1, 1]
    assert obs["visible"][10, 6] == 0  # only squad 1 saw it
    assert obs["terrain"][10, 6] == 0  # ... but it stays explored


def test_explored_memory_and_detected_camp_stay_after_the_squads_leave():
    env, obs = start(squads=((7, 4, 1), (7, 4, 1), (7, 4, 1)), camps=((7, 7, 3), (0, 14, 2)))
    assert obs["camps"][0].tolist() == [7, 7, 3, 1]
    assert obs["camps"][1].tolist() == [0, 0, 0, 0]  # undetected: all zero
    for _ in range(3):
        obs, *_ = step(env, W, W, W)
    assert positions(obs)[0] == (7, 1)
    assert obs["visible"][7, 7] == 0
    assert obs["camps"][0].tolist() == [7, 7, 3, 1]  # still shown
    assert obs["terrain"][7, 7] == 0 and obs["terrain"][4, 7] == 0  # still explored


def test_a_camp_is_detected_when_its_cell_comes_into_sight():
    env, obs = start(squads=((7, 3, 1), (7, 3, 1), (7, 3, 1)), camps=((7, 7, 3), (0, 14, 2)))
    assert obs["camps"][0].tolist() == [0, 0, 0, 0]
    obs, *_ = step(env, E, H, H)
    assert obs["camps"][0].tolist() == [7, 7, 3, 1]


# --- (4) budget and the end ----------------------------------------------------------------------


def test_success_after_both_camps():
    env, obs = start(squads=((7, 6, 3), (9, 8, 3), (14, 0, 1)), camps=((7, 7, 2), (9, 9, 2)))
    obs, reward, term, _, info = step(env, A, H, H)
    assert reward == 0.5 and not term and "outcome" not in info
    obs, reward, term, _, info = step(env, H, A, H)
    assert reward == 0.5 and term and info["outcome"] == "success"
    assert obs["progress"].tolist() == [1.0] and obs["steps_left"] == 38
    with pytest.raises(RuntimeError, match="reset"):
        step(env, H, H, H)


def test_wiped_out_when_the_last_squads_die():
    env, obs = start(squads=((7, 6, 1), (6, 7, 1), (8, 7, 1)), camps=((7, 7, 3), (0, 14, 2)))
    obs, reward, term, _, info = step(env, A, A, H)
    assert term and info["outcome"] == "wiped_out" and reward == 0.0
    assert obs["total_strength"] == 0 and obs["visible"].sum() == 0


def test_timeout_after_exactly_40_steps():
    env, obs = start()
    assert obs["steps_left"] == 40
    for k in range(39):
        obs, _, term, trunc, _ = step(env, H, H, H)
        assert not term and not trunc and obs["steps_left"] == 39 - k
    obs, _reward, term, trunc, info = step(env, H, H, H)
    assert term and not trunc and info["outcome"] == "timeout" and obs["steps_left"] == 0


def test_win_on_the_40th_step_is_a_success_not_a_timeout():
    env, _ = start(squads=((7, 6, 3), (9, 8, 3), (14, 0, 1)), camps=((7, 7, 2), (9, 9, 2)))
    step(env, A, H, H)
    for _ in range(38):
        _, _, term, *_ = step(env, H, H, H)
        assert not term
    _obs, reward, term, _, info = step(env, H, A, H)
    assert term and info["outcome"] == "success" and reward == 0.5


def test_wipe_out_on_the_40th_step_is_reported_as_such():
    env, _ = start(squads=((7, 6, 1), (6, 7, 1), (8, 7, 1)), camps=((7, 7, 3), (0, 14, 2)))
    for _ in range(39):
        step(env, H, H, H)
    _obs, _reward, term, _, info = step(env, A, H, H)
    assert term and info["outcome"] == "wiped_out"


def test_a_camp_on_the_last_step_pays_and_times_out():
    env, _ = start(squads=((7, 6, 3), (14, 0, 1), (14, 1, 1)), camps=((7, 7, 2), (0, 14, 2)))
    for _ in range(39):
        step(env, H, H, H)
    _obs, reward, term, _, info = step(env, A, H, H)
    assert term and reward == 0.5 and info["outcome"] == "timeout"


def test_observation_at_reset():
    env, obs = start(squads=((14, 0, 4), (14, 1, 2), (13, 0, 3)))
    assert obs["squads"].tolist() == [[14, 0, 4, 1], [14, 1, 2, 1], [13, 0, 3, 1]]
    assert obs["total_strength"] == 9 and obs["steps_left"] == 40
    assert obs["progress"].dtype == np.float32 and obs["progress"].tolist() == [0.0]
    assert obs["camps"].tolist() == [[0, 0, 0, 0], [0, 0, 0, 0]]
    assert env.observation_space.contains(obs)
