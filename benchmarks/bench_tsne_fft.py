"""FFT t-SNE at 2 000, 5 000, 20 000 (and, opt-in, 70 000) points beside openTSNE, by phase.

Measured by :mod:`scaling` (read its docstring): each (library, N) in a fresh process, one
thread, CPU seconds; noisy 64-D digits, perplexity 30, the FFT gradient on both sides,
750 iterations (openTSNE's default, 250 exaggerated). Quality for every map: the exact KL
divergence against mlnotes' sparse P (up to 20 000 points) and 10-NN preservation. The full
table (phases, per-iteration time, peak memory, first call, log-log slope) is printed and saved
to ``benchmarks/results_scaling_tsne.md`` (and ``.json``); ``MLNOTES_BENCH_70K=1`` adds
70 000 points. Collected by ``benchmarks/run.py`` (``python benchmarks/run.py tsne_fft`` for
this table alone).
"""

from scaling import noisy_digits, run_pair

__all__ = ["noisy_digits", "rows"]


def rows():
    results = run_pair("mlnotes-tsne", "openTSNE", "t-SNE (FFT)", "tsne")
    for n, r in sorted(results.items()):
        ours, peer = r["mlnotes-tsne"], r["openTSNE"]
        quality = f"10-NN {ours['knn']:.3f} vs {peer['knn']:.3f}"
        if "kl" in ours:
            quality = f"KL {ours['kl']:.3f} vs {peer['kl']:.3f}, " + quality
        yield {
            "case": f"t-SNE FFT, noisy digits, 750 iterations, CPU s, 1 thread, vs **openTSNE** "
                    f"(its time in the scikit-learn column); {quality}; agreement = 10-NN "
                    "difference",
            "n": n, "mlnotes_s": ours["total"], "sklearn_s": peer["total"],
            "agreement": abs(ours["knn"] - peer["knn"]),
            "target": "ratio <= 1.0 at 20 000 and 70 000, quality within 0.01",
        }
