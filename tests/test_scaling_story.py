"""The scaling chapter's measured section quotes its stored run, figure for figure.

``book/scaling.ipynb`` ("Where the time goes, measured") renders its tables and figure from
``mlnotes/data/scaling_bench.json`` (written by ``python benchmarks/scaling.py --store``), and
its check cell tests the text's claims (ratios, quality, memory, slopes) against it. The
figures the text quotes are compared here: every one, recomputed from the file with the rounding
the text uses, must appear in the chapter's Markdown, so a new run that is stored without the
text being rewritten fails. (Here rather than in the chapter: a notebook cannot read its own text
where it is opened alone, e.g. in Colab.)
"""

import copy
import json

import numpy as np

from browser_support import ROOT

STORED = ROOT / "mlnotes" / "data" / "scaling_bench.json"
CHAPTER = ROOT / "book" / "scaling.ipynb"
PEERS = {"tsne": ("mlnotes-tsne", "openTSNE"), "umap": ("mlnotes-umap", "umap-learn")}


def quoted(bench):
    """Every figure the text gives, as the text gives it, from the stored run ``bench``."""
    def run(method, n, library):
        return bench[method][str(n)][library]

    def ratio(method, n):
        ours, peer = PEERS[method]
        return run(method, n, ours)["total"] / run(method, n, peer)["total"]

    def slope(method, library):
        ns = sorted(int(n) for n in bench[method])
        secs = [run(method, n, library)["total"] for n in ns]
        return np.polyfit(np.log(ns), np.log(secs), 1)[0]

    def vs(method, n, key, spec):  # "<mlnotes' figure> against <the peer's>"
        ours, peer = (run(method, n, lib)[key] for lib in PEERS[method])
        return f"{ours:{spec}} against {peer:{spec}}"

    t, u = "tsne", "umap"
    T, O, U, L = *PEERS[t], *PEERS[u]
    peak = max(r["peak_gb"] for m in PEERS for by_lib in bench[m].values() for r in by_lib.values())
    return [
        f"{ratio(t, 2000):.2f} of openTSNE's CPU time at 2 000 points",
        f"{ratio(t, 20000):.2f} at 20 000",
        f"{ratio(t, 70000):.2f} at 70 000",
        f"{run(t, 20000, T)['optimise']:.1f} of its {run(t, 20000, T)['total']:.1f} s",
        vs(t, 20000, "per_iter_ms", ".0f") + " ms an iteration",
        vs(t, 70000, "per_iter_ms", ".0f") + " ms at 70 000 points",
        vs(t, 70000, "neighbours", ".1f") + " s at 70 000 points",
        "KL " + vs(t, 20000, "kl", ".3f"),
        "10-NN " + vs(t, 20000, "knn", ".3f"),
        vs(t, 70000, "knn", ".3f") + " at 70 000",
        f"{ratio(u, 20000):.2f} of umap-learn's time at 20 000 points",
        f"{ratio(u, 70000):.2f} at 70 000",
        "trustworthiness " + vs(u, 20000, "trust", ".4f"),
        "10-NN " + vs(u, 20000, "knn", ".3f"),
        vs(u, 70000, "knn", ".3f") + " at 70 000",
        vs(u, 20000, "per_iter_ms", ".0f") + " ms an epoch",
        vs(u, 20000, "neighbours", ".1f") + " s at 20 000 points",
        vs(u, 70000, "neighbours", ".1f") + " s at 70 000",
        vs(u, 20000, "init", ".1f") + " s",
        vs(u, 70000, "init", ".1f") + " s at 70 000",
        f"{ratio(u, 5000):.2f} of umap-learn's time at 5 000 points",
        f"{run(u, 2000, L)['first_call']:.1f} s at 2 000 points",
        f"{run(u, 2000, L)['total']:.1f} s for the fit after it",
        f"{run(u, 70000, L)['first_call']:.1f} s at 70 000",
        f"{slope(t, T):.2f} for mlnotes' t-SNE and {slope(t, O):.2f} for openTSNE",
        f"{slope(u, U):.2f} and {slope(u, L):.2f} for UMAP",
        f"the most, {peak:.2f} GB",
    ]


def _text():
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    return " ".join(" ".join("".join(c["source"]) for c in cells
                             if c["cell_type"] == "markdown").split())


def test_the_text_quotes_the_stored_run():
    bench = json.loads(STORED.read_text(encoding="utf-8"))
    missing = [q for q in quoted(bench) if q not in _text()]
    assert not missing, f"the scaling chapter does not say (from {STORED.name}): {missing}"


def test_a_run_stored_without_rewriting_the_text_is_caught():
    # mutant: another run stored (openTSNE 10% slower at 20 000 points), the text left as it was
    bench = json.loads(STORED.read_text(encoding="utf-8"))
    other = copy.deepcopy(bench)
    other["tsne"]["20000"]["openTSNE"]["total"] *= 1.1
    text = _text()
    assert all(q in text for q in quoted(bench))
    assert not all(q in text for q in quoted(other))


def test_the_umap_chapter_quotes_the_same_run_at_20000_points():
    # book/umap.ipynb's comparison at scale is the stored run's 20 000-point rows
    bench = json.loads(STORED.read_text(encoding="utf-8"))
    ours, peer = (bench["umap"]["20000"][lib] for lib in PEERS["umap"])
    cells = json.loads((ROOT / "book" / "umap.ipynb").read_text(encoding="utf-8"))["cells"]
    text = " ".join(" ".join("".join(c["source"]) for c in cells
                             if c["cell_type"] == "markdown").split())
    quoted = [
        f"| time (CPU s, one thread) | {ours['total']:.1f} | {peer['total']:.1f} |",
        f"| 10-NN kept | {ours['knn']:.3f} | {peer['knn']:.3f} |",
        f"| trustworthiness (10 neighbours) | {ours['trust']:.4f} | {peer['trust']:.4f} |",
        f"mlnotes took {ours['total'] / peer['total']:.2f} times as long",
        f"{ours['per_iter_ms']:.0f} against {peer['per_iter_ms']:.0f} ms an epoch",
        f"({ours['neighbours']:.1f} against {peer['neighbours']:.1f} s)",
        f"({ours['init']:.1f} against {peer['init']:.1f} s)",
        f"umap-learn's takes {peer['first_call']:.0f} s",
    ]
    missing = [q for q in quoted if q not in text]
    assert not missing, f"the UMAP chapter does not say (from {STORED.name}): {missing}"
