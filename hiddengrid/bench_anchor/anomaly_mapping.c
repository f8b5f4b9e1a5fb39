/* AnomalyMapping's batch engine in plain C: the hand-written anchor the benchmark compares the
 * Numba kernels with (hiddengrid/bench_anchor/__init__.py builds and loads it).
 *
 * The same work as hiddengrid/envs/anomaly_mapping/rules.py and generator.py over the same
 * struct-of-arrays state: one SplitMix64 stream per sub-env (hiddengrid/core/rng.py), the same
 * wall placement, draws, step, observation and next-step autoreset, so a batch seeded alike
 * and given the same actions produces the same numbers bit for bit. Single-threaded, no SIMD
 * intrinsics: straightforward C, compiled with -O2.
 */
#include <stdint.h>
#include <stdlib.h>

#define GRID_SIZE 15
#define NUM_WALLS 45
#define PADDED (GRID_SIZE + 2)
#define FULL_ROW ((INT64_C(1) << PADDED) - 1)
#define EDGE_ROW (INT64_C(1) | (INT64_C(1) << (PADDED - 1)))
#define STEP_BUDGET 30
#define MAX_LEVEL 3
#define MAX_PLACEMENT_TRIES 20000

enum { MOVE_NORTH, MOVE_SOUTH, MOVE_EAST, MOVE_WEST, ROTATE_LEFT, ROTATE_RIGHT, MARK };
enum { RUNNING, SUCCESS, WRONG_MARK, TIMEOUT };

static const int64_t DIR_ROW[4] = {-1, 0, 1, 0}; /* N E S W */
static const int64_t DIR_COL[4] = {0, 1, 0, -1};
static const int64_t MOVE_DIRECTION[4] = {0, 2, 1, 3}; /* by action 0..3: N S E W */

#define GOLDEN_GAMMA UINT64_C(0x9E3779B97F4A7C15)
#define MIX_1 UINT64_C(0xBF58476D1CE4E5B9)
#define MIX_2 UINT64_C(0x94D049BB133111EB)
#define SEED_SALT UINT64_C(0x6A09E667F3BCC909)

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * MIX_1;
    z = (z ^ (z >> 27)) * MIX_2;
    return z ^ (z >> 31);
}

/* A uniform integer in [0, n) (Lemire's multiply-shift), advancing *state. */
static inline int64_t below(uint64_t *state, uint64_t n) {
    *state += GOLDEN_GAMMA;
    return (int64_t)(((mix64(*state) >> 32) * n) >> 32);
}

/* CAN_WALL[block]: block is a 3x3 neighbourhood, bit 3*row + col set for a wall; the centre is
 * free and walling it keeps the free orthogonal neighbours on one connected arc of the ring. */
static int64_t CAN_WALL[512];
static int can_wall_ready = 0;

static const int RING_ROW[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
static const int RING_COL[8] = {0, 1, 1, 1, 0, -1, -1, -1};

static int64_t can_wall(int block) {
    int free_[8], all_free = 1, start = -1;
    if ((block >> 4) & 1) return 0;
    for (int k = 0; k < 8; k++) {
        free_[k] = !((block >> (3 * (1 + RING_ROW[k]) + 1 + RING_COL[k])) & 1);
        if (!free_[k]) {
            all_free = 0;
            if (start < 0) start = k;
        }
    }
    if (all_free) return 1;
    int arc = -1, orth_arc = -1, prev = 0;
    for (int j = 1; j < 9; j++) {
        int k = (start + j) % 8;
        if (free_[k]) {
            if (!prev) arc++;
            if (k % 2 == 0) {
                if (orth_arc < 0) orth_arc = arc;
                else if (orth_arc != arc) return 0;
            }
        }
        prev = free_[k];
    }
    return 1;
}

static void init_tables(void) {
    if (can_wall_ready) return;
    for (int b = 0; b < 512; b++) CAN_WALL[b] = can_wall(b);
    can_wall_ready = 1;
}

/* The table, for the test that compares it with generator.CAN_WALL. */
void am_can_wall_table(int64_t *out) {
    init_tables();
    for (int b = 0; b < 512; b++) out[b] = CAN_WALL[b];
}

void am_seed(int64_t n, const uint64_t *seeds, uint64_t *rng) {
    for (int64_t i = 0; i < n; i++) rng[i] = mix64(seeds[i] ^ SEED_SALT);
}

static inline int is_wall(const int64_t *w, int64_t r, int64_t c) {
    return (w[r + 1] >> (c + 1)) & 1;
}

static void draw_walls(uint64_t *rng, int64_t *w) {
    uint64_t state = *rng;
    for (;;) {
        w[0] = FULL_ROW;
        w[PADDED - 1] = FULL_ROW;
        for (int pr = 1; pr < PADDED - 1; pr++) w[pr] = EDGE_ROW;
        int64_t placed = 0;
        int tries = 0;
        while (placed < NUM_WALLS && tries < MAX_PLACEMENT_TRIES) {
            tries++;
            int64_t t = below(&state, GRID_SIZE * GRID_SIZE);
            int64_t pr = t / GRID_SIZE + 1, pc = t % GRID_SIZE + 1, s = pc - 1;
            int64_t block = ((w[pr - 1] >> s) & 7) | (((w[pr] >> s) & 7) << 3) |
                            (((w[pr + 1] >> s) & 7) << 6);
            int64_t accepted = CAN_WALL[block];
            w[pr] |= accepted << pc;
            placed += accepted;
        }
        if (placed == NUM_WALLS) {
            *rng = state;
            return;
        }
    }
}

static void draw_free_tile(uint64_t *rng, const int64_t *w, int64_t *out) {
    for (;;) {
        int64_t t = below(rng, GRID_SIZE * GRID_SIZE);
        int64_t r = t / GRID_SIZE, c = t % GRID_SIZE;
        if (!is_wall(w, r, c)) {
            out[0] = r;
            out[1] = c;
            return;
        }
    }
}

static inline int64_t iabs(int64_t x) { return x < 0 ? -x : x; }

/* max(0, 3 - d), d the shortest free path from the node: see rules.field_level. */
static inline int field_level(const int64_t *w, const int64_t *node, int64_t r, int64_t c) {
    if (is_wall(w, r, c)) return 0;
    int64_t nr = node[0], nc = node[1];
    int64_t dr = iabs(r - nr), dc = iabs(c - nc), d = dr + dc;
    if (d <= 1) return (int)(MAX_LEVEL - d);
    if (d > 2) return 0;
    int between_free;
    if (dr == 2) between_free = !is_wall(w, (r + nr) / 2, c);
    else if (dc == 2) between_free = !is_wall(w, r, (c + nc) / 2);
    else between_free = !is_wall(w, nr, c) || !is_wall(w, r, nc);
    return between_free ? MAX_LEVEL - 2 : 0;
}

static inline void write_observation(const int64_t *w, const int64_t *node, const int64_t *agent,
                                     int8_t *view) {
    if (iabs(agent[0] - node[0]) + iabs(agent[1] - node[1]) > 2 * (MAX_LEVEL - 1)) {
        for (int k = 0; k < 9; k++) view[k] = 0;
        return;
    }
    for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++)
            view[(dr + 1) * 3 + dc + 1] = (int8_t)field_level(w, node, agent[0] + dr, agent[1] + dc);
}

/* A new scenario and the start of its episode for sub-env i. */
static inline void reset_one(int64_t i, uint64_t *rng, int8_t *outcome, int64_t *walls,
                             int64_t *node, int64_t *start, int64_t *start_facing, int64_t *agent,
                             int64_t *facing, int64_t *steps_left, int8_t *view) {
    int64_t *w = walls + i * PADDED;
    draw_walls(rng + i, w);
    draw_free_tile(rng + i, w, node + 2 * i);
    draw_free_tile(rng + i, w, start + 2 * i);
    start_facing[i] = below(rng + i, 4);
    agent[2 * i] = start[2 * i];
    agent[2 * i + 1] = start[2 * i + 1];
    facing[i] = start_facing[i];
    steps_left[i] = STEP_BUDGET;
    write_observation(w, node + 2 * i, agent + 2 * i, view + 9 * i);
    outcome[i] = RUNNING;
}

/* A new episode in every sub-env: what the vector env's reset does after seeding. */
void am_reset_all(int64_t n, uint64_t *rng, uint8_t *done, int8_t *outcome, double *reward,
                  uint8_t *terminated, int64_t *walls, int64_t *node, int64_t *start,
                  int64_t *start_facing, int64_t *agent, int64_t *facing, int64_t *steps_left,
                  int8_t *view) {
    init_tables();
    for (int64_t i = 0; i < n; i++) {
        reset_one(i, rng, outcome, walls, node, start, start_facing, agent, facing, steps_left,
                  view);
        done[i] = 0;
        reward[i] = 0.0;
        terminated[i] = 0;
    }
}

/* One step of every sub-env (rules.step_all): a sub-env that ended on the last step starts a new
 * episode instead, its action ignored (next-step autoreset). */
void am_step(int64_t n, const int64_t *actions, uint64_t *rng, uint8_t *done, int8_t *outcome,
             double *reward, uint8_t *terminated, int64_t *walls, int64_t *node, int64_t *start,
             int64_t *start_facing, int64_t *agent, int64_t *facing, int64_t *steps_left,
             int8_t *view) {
    init_tables();
    for (int64_t i = 0; i < n; i++) {
        if (done[i]) {
            reset_one(i, rng, outcome, walls, node, start, start_facing, agent, facing,
                      steps_left, view);
            done[i] = 0;
            reward[i] = 0.0;
            terminated[i] = 0;
            continue;
        }
        const int64_t *w = walls + i * PADDED;
        int64_t *a = agent + 2 * i;
        int64_t *nd = node + 2 * i;
        int64_t action = actions[i];
        int ended = 0;
        steps_left[i] -= 1;
        reward[i] = 0.0;
        if (action <= MOVE_WEST) {
            int64_t d = MOVE_DIRECTION[action];
            int64_t r = a[0] + DIR_ROW[d], c = a[1] + DIR_COL[d];
            if (!is_wall(w, r, c)) {
                a[0] = r;
                a[1] = c;
                facing[i] = d;
            }
        } else if (action == ROTATE_LEFT) {
            facing[i] = (facing[i] + 3) % 4;
        } else if (action == ROTATE_RIGHT) {
            facing[i] = (facing[i] + 1) % 4;
        } else if (action == MARK) {
            ended = 1;
            if (iabs(a[0] - nd[0]) + iabs(a[1] - nd[1]) <= 1) {
                reward[i] = 1.0;
                outcome[i] = SUCCESS;
            } else {
                outcome[i] = WRONG_MARK;
            }
        }
        if (!ended && steps_left[i] == 0) {
            ended = 1;
            outcome[i] = TIMEOUT;
        }
        terminated[i] = (uint8_t)ended;
        done[i] = (uint8_t)ended;
        write_observation(w, nd, a, view + 9 * i);
    }
}
