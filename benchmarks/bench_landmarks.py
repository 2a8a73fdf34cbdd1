"""Landmark Isomap (de Silva and Tenenbaum 2003) on a 20 000-point Swiss roll.

Target (issue 17): 500 landmarks, under 20 s and under 3 GB, agreeing with exact Isomap on a
3 000-point subset: the landmark embedding of those 3 000 points, against exact Isomap of the
3 000 points alone, after centring both and the best orthogonal Procrustes map, has relative
residual :math:`\\|Z R - Z_{exact}\\|_F / \\|Z_{exact}\\|_F < 0.05`. Exact Isomap of all
20 000 points would need several 20 000 x 20 000 matrices (3.2 GB each), so the subset is the
reference. scikit-learn has no landmark Isomap; its exact Isomap on the 3 000-point subset is
timed beside ours.

Peak memory is the process's peak resident set size (``ru_maxrss``) measured in a fresh
subprocess per case, so that one case does not inherit another's peak. Collected by
``benchmarks/run.py``; ``python benchmarks/bench_landmarks.py`` prints the rows alone.
"""

import json
import subprocess
import sys

N_POINTS = 20_000
N_SUBSET = 3_000
N_LANDMARKS = 500
N_NEIGHBORS = 10
TARGET = "< 20 s, < 3 GB, Procrustes residual < 0.05"

_CASE = r"""
import json, resource, sys, time
import numpy as np
import mlnotes as ml
from mlnotes.metrics import align

method, n, n_sub, n_landmarks, k = sys.argv[1], *map(int, sys.argv[2:6])
X, u = ml.datasets.make_swiss_roll(n, random_state=0)
subset = np.random.default_rng(1).choice(n, n_sub, replace=False)
t0 = time.perf_counter()
iso = ml.Isomap(n_components=2, n_neighbors=k, n_landmarks=n_landmarks, landmarks=method,
                random_state=0).fit(X)
seconds = time.perf_counter() - t0
peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
Z_exact = ml.Isomap(n_components=2, n_neighbors=k).fit_transform(X[subset])
Z_exact -= Z_exact.mean(axis=0)
Z = iso.embedding_[subset] - iso.embedding_[subset].mean(axis=0)
residual = np.linalg.norm(align(Z, Z_exact, allow="orthogonal") - Z_exact) / np.linalg.norm(
    Z_exact)
print(json.dumps({"seconds": seconds, "peak_gb": peak_gb, "residual": float(residual)}))
"""

_SKLEARN = r"""
import json, sys, time
import mlnotes as ml
import numpy as np
from sklearn.manifold import Isomap
n, n_sub, k = map(int, sys.argv[1:4])
X, u = ml.datasets.make_swiss_roll(n, random_state=0)
subset = np.random.default_rng(1).choice(n, n_sub, replace=False)
t0 = time.perf_counter()
Isomap(n_components=2, n_neighbors=k).fit(X[subset])
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


def _run(code, *args):
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def rows():
    sk = _run(_SKLEARN, N_POINTS, N_SUBSET, N_NEIGHBORS)["seconds"]
    for method in ("random", "maxmin"):
        r = _run(_CASE, method, N_POINTS, N_SUBSET, N_LANDMARKS, N_NEIGHBORS)
        yield {
            "case": f"landmark Isomap, {N_LANDMARKS} {method} landmarks, k={N_NEIGHBORS} "
                    f"(scikit-learn: exact Isomap of the {N_SUBSET}-point subset)",
            "n": N_POINTS,
            "mlnotes_s": r["seconds"],
            "sklearn_s": sk,
            "agreement": r["residual"],
            "target": TARGET,
            "note": f"peak {r['peak_gb']:.2f} GB; agreement = Procrustes relative residual "
                    f"on the {N_SUBSET}-point subset",
        }


if __name__ == "__main__":
    for row in rows():
        print(row)
