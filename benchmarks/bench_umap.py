"""UMAP at 2 000, 5 000, 20 000 (and, opt-in, 70 000) points beside umap-learn, by phase.

Measured by :mod:`scaling` (read its docstring): each (library, N) in a fresh process, one
thread, CPU seconds, both libraries' defaults and ``random_state=0``; umap-learn's time is its
second fit in the process (after its numba code compiled in the first; the first call is
reported too). Quality for both maps: 10-NN preservation and trustworthiness (10 neighbours,
mean over 3 000 random points, :func:`scaling.sampled_trustworthiness`). The full table is
printed and saved to ``benchmarks/results_scaling_umap.md`` (and ``.json``);
``MLNOTES_BENCH_70K=1`` adds 70 000 points. Collected by ``benchmarks/run.py``
(``python benchmarks/run.py umap`` alone).
"""

from scaling import run_pair, sampled_trustworthiness

__all__ = ["rows", "sampled_trustworthiness"]


def rows():
    results = run_pair("mlnotes-umap", "umap-learn", "UMAP", "umap")
    for n, r in sorted(results.items()):
        ours, peer = r["mlnotes-umap"], r["umap-learn"]
        yield {
            "case": f"UMAP, noisy digits, defaults, CPU s, 1 thread, vs **umap-learn** after its "
                    f"JIT (its time in the scikit-learn column; first call "
                    f"{peer['first_call']:.1f} s vs ours {ours['first_call']:.1f} s); 10-NN "
                    f"{ours['knn']:.3f} vs {peer['knn']:.3f}, trustworthiness "
                    f"{ours['trust']:.4f} vs {peer['trust']:.4f}; agreement = 10-NN difference",
            "n": n, "mlnotes_s": ours["total"], "sklearn_s": peer["total"],
            "agreement": abs(ours["knn"] - peer["knn"]),
            "target": "ratio <= 1.0 at 20 000 and 70 000, quality within 0.01",
        }
