import sys, time
import numpy as np
from hiddengrid.core.evaluate import run_episodes
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
for name in sys.argv[2:] or ["random", "heuristic", "oracle"]:
    t = time.time()
    r = run_episodes("hiddengrid/Megacity-v0", name, n, seed=0, batch_size=min(n, 4096))
    print(name, r.success_rate, r.outcomes, round(r.mean_return, 1), f"{time.time()-t:.1f}s", flush=True)
