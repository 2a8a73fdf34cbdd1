"""Where the time goes: t-SNE and UMAP, mlnotes beside openTSNE and umap-learn, by phase and N.

Used by ``bench_tsne_fft.py`` and ``bench_umap.py`` (collected by ``benchmarks/run.py``, i.e.
``make bench``). Each (library, N) pair runs in a fresh process
(``python benchmarks/scaling.py <library> <N> <out.json>``) with one thread for everything
(``OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=NUMBA_NUM_THREADS=1``, ``n_jobs=1``)
and **CPU time** (``time.process_time``), so that the figures mean the same on a shared machine
as on a quiet one. The process reports:

* the time of each phase, read by wrapping the library's own step functions (nothing is
  re-implemented): nearest neighbours, affinities (the perplexity search or UMAP's fuzzy
  graph), initialisation, optimisation (and per iteration or epoch);
* the first fit in the fresh process, imports included (umap-learn compiles its numba
  functions there), and, for umap-learn, a second fit of the same data: its post-JIT time;
* the peak resident memory of the process.

``python benchmarks/scaling.py --store "<the machine's load>"`` then writes the two tables' JSON
into the scaling chapter's stored result, ``mlnotes/data/scaling_bench.json`` (:func:`store`; in the
package, so a chapter downloaded alone or opened in Colab reads it too): the
chapter's table, figure and quoted figures all read that one file.

Data: noisy 64-D copies of the 8 x 8 digits (:func:`noisy_digits`, seed 0, no download).
t-SNE: perplexity 30, the FFT gradient on both sides at every N (``mlnotes.TSNE(method="fft")``
and ``openTSNE.TSNE(negative_gradient_method="fft")``), each library's default schedule
otherwise (openTSNE: 250 + 500 iterations; mlnotes: ``max_iter`` below). UMAP: both libraries'
defaults, ``random_state=0``.
"""

import json
import os
import pathlib
import resource
import subprocess
import sys
import time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
for _var in THREAD_VARS:
    os.environ[_var] = "1"

import numpy as np  # noqa: E402  (after the thread pins)

HERE = pathlib.Path(__file__).resolve().parent
SIZES = (2000, 5000, 20000)
BIG = 70000  # opt-in: MLNOTES_BENCH_70K=1
PERPLEXITY = 30.0
TSNE_ITER = 750  # openTSNE's default: 250 exaggerated + 500
NOISE = 2.0  # grey levels (of 0..16)
K_PRESERVE = 10
N_TRUST = 3000
KL_BLOCK = 2000
LIBRARIES = ("mlnotes-tsne", "openTSNE", "mlnotes-umap", "umap-learn")
PHASES = ("neighbours", "affinities", "init", "optimise")


def sizes():
    """The sizes measured: 2 000, 5 000 and 20 000 points, and 70 000 with MLNOTES_BENCH_70K=1."""
    return SIZES + ((BIG,) if os.environ.get("MLNOTES_BENCH_70K") == "1" else ())


def noisy_digits(n, seed=0):
    """n noisy copies of the digits: a random digit plus N(0, NOISE^2) per pixel."""
    from sklearn.datasets import load_digits

    rng = np.random.default_rng(seed)
    D = load_digits().data
    return D[rng.integers(0, len(D), n)] + rng.normal(scale=NOISE, size=(n, D.shape[1]))


class PhaseTimer:
    """CPU seconds spent inside wrapped functions, per phase, exclusive: time spent in a wrapped
    function called from another is charged to the inner one's phase only."""

    def __init__(self):
        self.seconds, self._stack = {}, []

    def wrap(self, owner, name, phase):
        fn = getattr(owner, name)

        def timed(*args, **kwargs):
            self._stack.append(0.0)  # time of wrapped calls made from this one
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.process_time() - t0
                inner = self._stack.pop()
                self.seconds[phase] = self.seconds.get(phase, 0.0) + elapsed - inner
                if self._stack:
                    self._stack[-1] += elapsed

        setattr(owner, name, timed)


def _mlnotes_tsne(X, timer):
    import mlnotes as ml
    from mlnotes import sne, tsne_fft

    timer.wrap(tsne_fft, "nearest_neighbors", "neighbours")
    timer.wrap(tsne_fft, "sparse_affinities", "affinities")
    timer.wrap(sne, "initial_embedding", "init")
    timer.wrap(sne, "optimize", "optimise")
    model = ml.TSNE(perplexity=PERPLEXITY, method="fft", max_iter=TSNE_ITER)
    Z = model.fit_transform(X)
    return Z, model.n_iter_


def _opentsne(X, timer):
    import openTSNE
    from openTSNE import affinity, nearest_neighbors, tsne

    for cls in vars(nearest_neighbors).values():
        if isinstance(cls, type) and issubclass(cls, nearest_neighbors.KNNIndex):
            timer.wrap(cls, "build", "neighbours")
    timer.wrap(affinity.PerplexityBasedNN, "__init__", "affinities")
    timer.wrap(affinity.MultiscaleMixture, "__init__", "affinities")
    timer.wrap(tsne.initialization_scheme, "pca", "init")
    timer.wrap(tsne.TSNEEmbedding, "optimize", "optimise")
    model = openTSNE.TSNE(perplexity=PERPLEXITY, negative_gradient_method="fft", n_jobs=1,
                          random_state=0, verbose=False)
    Z = np.asarray(model.fit(X))
    return Z, model.early_exaggeration_iter + model.n_iter


def _mlnotes_umap(X, timer):
    import mlnotes as ml
    from mlnotes import umap

    timer.wrap(umap, "_euclidean_knn", "neighbours")  # the exact search (up to 20 000 points)
    timer.wrap(umap, "_nn_descent", "neighbours")  # the approximate one ("auto" beyond)
    timer.wrap(umap, "_graph_from_knn", "affinities")
    timer.wrap(ml.UMAP, "_start", "init")
    timer.wrap(umap, "optimize_layout", "optimise")
    model = ml.UMAP(random_state=0)
    Z = model.fit_transform(X)
    return Z, model.n_epochs_


def _umap_learn(X, timer):
    import warnings

    import umap
    from umap import umap_

    timer.wrap(umap_, "nearest_neighbors", "neighbours")
    timer.wrap(umap_, "pairwise_distances", "neighbours")  # below 4 096 points: all distances
    timer.wrap(umap_, "fuzzy_simplicial_set", "affinities")
    timer.wrap(umap_, "spectral_layout", "init")
    timer.wrap(umap_, "optimize_layout_euclidean", "optimise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = umap.UMAP(random_state=0, n_jobs=1)
        Z = model.fit_transform(X)
    return Z, 500 if len(X) <= 10000 else 200  # its default epochs


RUNNERS = {"mlnotes-tsne": _mlnotes_tsne, "openTSNE": _opentsne,
           "mlnotes-umap": _mlnotes_umap, "umap-learn": _umap_learn}


def _phases(timer, total, n_iter):
    out = {"total": total, "n_iter": n_iter}
    for phase in PHASES:
        out[phase] = timer.seconds.get(phase, 0.0)
    out["per_iter_ms"] = 1e3 * out["optimise"] / n_iter
    out["other"] = total - sum(out[p] for p in PHASES)  # validation, glue, the rest
    return out


MODULES = {"mlnotes-tsne": "mlnotes.tsne_fft", "openTSNE": "openTSNE",
           "mlnotes-umap": "mlnotes.umap", "umap-learn": "umap"}


def peak_gb():
    """Peak resident memory of this process in GB: VmHWM (Linux; it starts afresh at exec),
    else ru_maxrss, which Linux carries over from the parent across fork and exec (a child of
    a large parent would report the parent's peak)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 2**20  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def run_one(library, n, out):
    """In this (fresh) process: import, fit (twice for umap-learn) and report."""
    import importlib

    X = noisy_digits(n)
    t0 = time.process_time()
    importlib.import_module(MODULES[library])
    t_import = time.process_time() - t0
    timer = PhaseTimer()
    t0 = time.process_time()
    Z, n_iter = RUNNERS[library](X, timer)
    fit = time.process_time() - t0
    report = {"library": library, "n": n, "first_call": t_import + fit, "import_s": t_import}
    if library == "umap-learn":  # the first fit compiled its numba code: time a second one
        timer = PhaseTimer()
        t0 = time.process_time()
        Z, n_iter = RUNNERS[library](X, timer)
        fit = time.process_time() - t0
    report.update(_phases(timer, fit, n_iter))
    report["peak_gb"] = peak_gb()
    np.save(pathlib.Path(out).with_suffix(".npy"), Z)
    pathlib.Path(out).write_text(json.dumps(report))


# --- quality, measured the same way for every map -------------------------------------------
def exact_kl(Z, P):
    """KL(P || Q) for sparse P with the exact normaliser sum_{i != j} (1 + |z_i - z_j|^2)^-1."""
    from mlnotes.graphs import squared_distances

    Z_sum = 0.0
    for s in range(0, len(Z), KL_BLOCK):
        W = 1.0 / (1.0 + squared_distances(Z[s:s + KL_BLOCK], Z))
        Z_sum += W.sum() - min(len(Z) - s, KL_BLOCK)  # minus the diagonal ones
    P = P.tocoo()
    d2 = ((Z[P.row] - Z[P.col]) ** 2).sum(axis=1)
    return float(np.sum(P.data * (np.log(P.data) + np.log1p(d2))) + P.sum() * np.log(Z_sum))


def preservation(idx_data, Z, k=K_PRESERVE):
    """Mean fraction of the k data neighbours that are among the k map neighbours."""
    from scipy.spatial import cKDTree

    _, idx_map = cKDTree(Z).query(Z, k=k + 1)
    hits = (idx_map[:, 1:, None] == idx_data[:, None, :k]).any(axis=2).sum(axis=1)
    return float(hits.mean()) / k


def sampled_trustworthiness(X, Z, queries, k=K_PRESERVE):
    r"""Trustworthiness (Venna & Kaski) of the map ``Z``, averaged over the points ``queries``
    with their ranks among all N points:
    :math:`1 - \frac{2}{k(2N - 3k - 1)} \frac{1}{|Q|}\sum_{i \in Q} \sum_{j \in U_i}
    (r(i, j) - k)`, where :math:`U_i` are the map's k nearest that are not among the data's
    and :math:`r(i, j)` is the rank of :math:`x_j` among the data neighbours of :math:`x_i`.
    Over all points it is :func:`mlnotes.metrics.trustworthiness`."""
    from mlnotes.graphs import squared_distances

    N, total = len(X), 0.0
    for start in range(0, len(queries), 500):
        q = queries[start:start + 500]
        d_data = squared_distances(X[q], X)
        d_data[np.arange(len(q)), q] = np.inf  # a point is not its own neighbour
        rank = np.empty_like(d_data, dtype=np.int64)
        order = np.argsort(d_data, axis=1, kind="stable")
        rank[np.arange(len(q))[:, None], order] = np.arange(1, N + 1)
        d_map = squared_distances(Z[q], Z)
        d_map[np.arange(len(q)), q] = np.inf
        near_map = np.argpartition(d_map, k, axis=1)[:, :k]
        r = np.take_along_axis(rank, near_map, axis=1)
        total += np.sum(np.where(r > k, r - k, 0))
    return 1.0 - 2.0 / (k * (2 * N - 3 * k - 1)) * total / len(queries)


def measure(libraries, n, tmp):
    """Run each library at N in its own process; add the quality of its map."""
    from mlnotes.tsne_fft import nearest_neighbors, sparse_affinities

    results = {}
    for lib in libraries:
        out = pathlib.Path(tmp) / f"{lib}-{n}.json"
        subprocess.run(["nice", "-n", "5", sys.executable, __file__, lib, str(n), str(out)],
                       check=True, env=dict(os.environ, **{v: "1" for v in THREAD_VARS}))
        r = json.loads(out.read_text())
        r["Z"] = np.load(out.with_suffix(".npy"))
        results[lib] = r
    X = noisy_digits(n)
    idx, _ = nearest_neighbors(X, K_PRESERVE)
    P = sparse_affinities(X, PERPLEXITY)[0] if any("tsne" in lib.lower() for lib in libraries) \
        else None
    queries = np.random.default_rng(0).choice(n, size=min(N_TRUST, n), replace=False)
    for lib, r in results.items():
        r["knn"] = preservation(idx, r["Z"])
        if "umap" in lib:
            r["trust"] = sampled_trustworthiness(X, r["Z"], queries)
        elif n <= 20000:
            r["kl"] = exact_kl(r["Z"], P)
        del r["Z"]
    return results


def slope(ns, seconds):
    """Least-squares slope of log(time) against log(N)."""
    return float(np.polyfit(np.log(ns), np.log(seconds), 1)[0])


def table(results, ours, peer, what):
    """Markdown table of the phases, per-iteration time, memory, first call, quality, ratio."""
    ns = sorted(results)
    head = (f"| {what} | N | neighbours s | affinities s | init s | optimise s | per iter ms "
            "| total s | first call s | peak GB | quality | ratio |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for lib in (ours, peer):
        for n in ns:
            r = results[n][lib]
            q = f"10-NN {r['knn']:.3f}"
            if "kl" in r:
                q = f"KL {r['kl']:.3f}, " + q
            if "trust" in r:
                q += f", trust {r['trust']:.4f}"
            ratio = r["total"] / results[n][peer]["total"]
            lines.append(
                f"| {lib} | {n} | " + " | ".join(f"{r[p]:.1f}" for p in PHASES)
                + f" | {r['per_iter_ms']:.1f} | {r['total']:.1f} | {r['first_call']:.1f} | "
                f"{r['peak_gb']:.2f} | {q} | {ratio:.2f} |"
            )
    if len(ns) >= 2:
        lines.append("")
        lines.append("log-log slope of total time in N: " + ", ".join(
            f"{lib} {slope(ns, [results[n][lib]['total'] for n in ns]):.2f}"
            for lib in (ours, peer)))
    lines.append("")
    lines.append("CPU seconds (time.process_time), one thread for every library (BLAS, numba, "
                 "n_jobs=1), each (library, N) in a fresh process; 'total' is the fit without "
                 "imports (umap-learn: its second fit, after JIT compilation), 'first call' the "
                 "first fit in the fresh process with imports and compilation; ratio = total / "
                 f"{peer}'s total.")
    return "\n".join(lines)


def machine():
    import platform

    import scipy
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores "
            f"(shared), Python {platform.python_version()}, numpy {np.__version__}, "
            f"scipy {scipy.__version__}")


def _commit():
    """The checkout's commit (short hash, "+" if it has uncommitted changes), or "unknown"."""
    def git(*args):
        return subprocess.run(["git", "-C", str(HERE), *args], capture_output=True,
                              text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")


def run_pair(ours, peer, what, name):
    """Measure both libraries at every size, print and save the table; return the results."""
    import tempfile

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes():
            load = os.getloadavg()[0]
            results[n] = measure((ours, peer), n, tmp)
            for r in results[n].values():  # the 1-minute load average before and after
                r["load"] = [round(load, 1), round(os.getloadavg()[0], 1)]
                r["commit"] = _commit()
            print(f"[{what}] N={n}: " + json.dumps(
                {lib: {k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}
                 for lib, r in results[n].items()}), file=sys.stderr, flush=True)
    text = table(results, ours, peer, what) + "\n\n" + machine() + "\n"
    print(text, file=sys.stderr)
    (HERE / f"results_scaling_{name}.md").write_text(text)
    (HERE / f"results_scaling_{name}.json").write_text(json.dumps(
        {str(n): r for n, r in results.items()}, indent=1))
    return results


STORE = HERE.parent / "mlnotes" / "data" / "scaling_bench.json"
PEERS = {"tsne": ("mlnotes-tsne", "openTSNE"), "umap": ("mlnotes-umap", "umap-learn")}


def store(load: str, out: pathlib.Path = STORE) -> dict:
    """Write the scaling chapter's stored result from the last ``run.py`` tables.

    Reads ``results_scaling_tsne.json`` and ``results_scaling_umap.json`` (written by
    :func:`run_pair`) and writes them, with the machine, the libraries' versions and ``load``,
    to ``out``: the one file the chapter's table, figure and quoted figures come from.

    Parameters
    ----------
    load : str
        How busy the machine was during the run, in words (CPU time hardly depends on it, wall
        time does), e.g. ``"load average 4-8: five engineers' tests and builds"``.
    out : pathlib.Path
        Where to write (default: ``mlnotes/data/scaling_bench.json``).

    Returns
    -------
    dict
        What was written: ``{"command", "machine", "versions", "load", "tsne", "umap"}``, the
        last two as ``{N: {library: report}}`` with N as a string (JSON keys).
    """
    from importlib.metadata import version

    stored = {
        "command": "MLNOTES_BENCH_70K=1 python benchmarks/run.py tsne_fft umap; "
                   "python benchmarks/scaling.py --store LOAD",
        "machine": machine(),
        "versions": {name: version(dist) for name, dist in
                     (("mlnotes", "mlnotes-nldr"), ("openTSNE", "openTSNE"),
                      ("umap-learn", "umap-learn"))},
        "load": load,
    }
    for name, libraries in PEERS.items():
        results = json.loads((HERE / f"results_scaling_{name}.json").read_text())
        missing = [f"{lib} at {n}" for n, r in results.items() for lib in libraries
                   if lib not in r]
        if missing:
            raise ValueError(f"results_scaling_{name}.json lacks {', '.join(missing)}: rerun "
                             f"`python benchmarks/run.py {name}` before storing it.")
        stored[name] = results
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    return stored


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--store":
        sys.path.insert(0, str(HERE.parent))
        print(f"wrote {STORE} from", ", ".join(store(sys.argv[2])["tsne"]), "points")
        sys.exit()
    if len(sys.argv) != 4 or sys.argv[1] not in LIBRARIES:
        sys.exit(f"usage: python {sys.argv[0]} {{{','.join(LIBRARIES)}}} N out.json "
                 "(or run benchmarks/run.py tsne_fft umap for the tables), or "
                 f"python {sys.argv[0]} --store 'the load' (the chapter's stored result)")
    sys.path.insert(0, str(HERE.parent))
    run_one(sys.argv[1], int(sys.argv[2]), sys.argv[3])
