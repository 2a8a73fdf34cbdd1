"""Run every benchmark module and print one table: mlnotes beside scikit-learn.

Each ``benchmarks/bench_*.py`` module defines ``rows()``, a generator of dicts with the keys
``case`` (what is measured), ``n``, ``mlnotes_s``, ``sklearn_s`` (None when scikit-learn has no
counterpart), ``agreement`` (max abs difference after alignment, or None) and optionally
``target`` (text) and ``note``. This script times nothing itself; it gathers, prints the
Markdown table, and writes it to ``benchmarks/results.md``.

Usage: ``python benchmarks/run.py [name-filter ...]``
"""

import importlib.util
import os
import pathlib
import platform
import sys
import time

# Pin BLAS threads to the machine's core count once, before numpy is imported by any module.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, str(os.cpu_count() or 1))

HERE = pathlib.Path(__file__).resolve().parent


def best_of(fn, repeat=3):
    """Smallest wall-clock time of ``repeat`` calls, and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _fmt(x, spec):
    return "–" if x is None else format(x, spec)


def main(filters):
    modules = sorted(HERE.glob("bench_*.py"))
    if filters:
        modules = [m for m in modules if any(f in m.stem for f in filters)]
    header = "| case | n | mlnotes s | scikit-learn s | ratio | agreement | target |"
    lines = [header, "|---|---:|---:|---:|---:|---:|---|"]
    print(header)
    print(lines[1])
    sys.path.insert(0, str(HERE))
    for path in modules:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for r in mod.rows():
            ratio = r["mlnotes_s"] / r["sklearn_s"] if r.get("sklearn_s") else None
            line = (
                f"| {r['case']} | {r['n']} | {_fmt(r['mlnotes_s'], '.4f')} | "
                f"{_fmt(r.get('sklearn_s'), '.4f')} | {_fmt(ratio, '.2f')} | "
                f"{_fmt(r.get('agreement'), '.1e')} | {r.get('target', '')} |"
            )
            print(line, flush=True)
            lines.append(line)
    import numpy
    import scipy

    footer = (
        f"\n{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"numpy {numpy.__version__}, scipy {scipy.__version__}"
    )
    try:
        import sklearn

        footer += f", scikit-learn {sklearn.__version__}"
    except ImportError:
        pass
    print(footer)
    (HERE / "results.md").write_text("\n".join(lines) + "\n" + footer + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
