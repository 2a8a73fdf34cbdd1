"""A new optimisation run where a reader meets it: JupyterLab in Chromium, input to pictures.

The explorers whose new setting is a new run (metric MDS / SMACOF, t-SNE, the autoencoder,
UMAP) show the run as it goes. For each input that
starts a new run, three wall-clock times from the input event (the harness of
``bench_lab_widgets.py``: its notebook of the chapters' explorer cells, its page watcher):

* ``first``: the first new picture shown (the run's start; target 150 ms, the update budget);
* ``end``: the last picture shown, the end of the run (the run's length: no target);
* ``play``: "play" enabled, every snapshot of the run in the page (no target);
* ``shown``: how many pictures the page showed from the input to the run's end (more than one:
  the run shown as it goes). The run goes on between the kernel's messages, with the kernel
  idle, so the harness waits for the explorer's status line to stop saying "running…" (UMAP's
  explorer, which has no "play" to wait for, streamed in JupyterLab all along; measured without
  that wait, its run seemed to end at its first picture);

and the kernel's CPU time from the input until it is idle again with play enabled. A seen
setting (the same moves back) has its ``first`` (= its end; target 50 ms). Each row says the
load average as its explorer starts: on a busy machine wall-clock time includes the waiting
for a core. ``MLNOTES_BENCH_LAB=0`` leaves this module out of ``make bench``.
"""

import os
import pathlib
import statistics
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_lab_widgets as lab_bench  # noqa: E402  (the harness: notebook, page, watcher)

RUN_EXPLORERS = ("smacof_explorer", "tsne_explorer", "autoencoder_explorer", "umap_explorer")
N_MOVES = 3


def _act(lab, k, action):
    """(ms to the first new picture, ms to the last, ms to play enabled, kernel CPU s,
    pictures shown from the input to the run's end, kernel CPU s until the first picture was
    seen in the page: an upper bound, the run going on meanwhile)."""
    page = lab.page
    page.evaluate(lab_bench.WATCH_JS, k)
    before = page.evaluate(f"() => {{ window.mlx[{k}].inputs = []; "
                           f"return window.mlx[{k}].shown.length; }}")
    cpu = lab_bench._cpu_s(lab.kernel_pid)
    action()
    page.wait_for_function(f"() => window.mlx[{k}].shown.length > {before}", timeout=120_000)
    first_cpu = lab_bench._cpu_s(lab.kernel_pid) - cpu  # (the run goes on: an upper bound)
    lab.idle(k)
    play_ms = page.evaluate(f"() => performance.now() - window.mlx[{k}].inputs[0]")
    cpu = lab_bench._cpu_s(lab.kernel_pid) - cpu
    first, last, shown = page.evaluate(f"""() => {{
      const st = window.mlx[{k}], start = st.inputs[0];
      return [st.shown[{before}] - start, st.shown.at(-1) - start, st.shown.length - {before}];
    }}""")
    return first, last, play_ms, cpu, shown, first_cpu


def measure(n_moves=N_MOVES):
    cells = [(chapter, source) for chapter, source in lab_bench.explorer_cells()
             if any(name in source for name in RUN_EXPLORERS)]
    records = []
    with lab_bench.explorers_in_lab(cells) as (page, lab):
        for k, (chapter, _) in enumerate(cells, start=1):
            load = os.getloadavg()[0]
            lab.output(k).scroll_into_view_if_needed()
            controls = [c for c in page.evaluate(lab_bench.CONTROLS_JS, k)
                        if not c[2] and "snapshot" not in c[1]]
            kind, label, _, index = controls[0]  # the explorer's first control
            if kind == "slider":
                new, seen = lab_bench._slider_moves(lab, k, index, n_moves)
            else:
                new, seen = lab_bench._choice_moves(lab, k, kind, index, n_moves)
            for what, actions in (("new", new), ("seen", seen)):
                for action in actions:
                    first, last, play, cpu, shown, first_cpu = _act(lab, k, action)
                    records.append({"explorer": chapter, "control": label.strip(),
                                    "kind": what, "first_ms": first, "end_ms": last,
                                    "play_ms": play, "cpu_s": cpu, "shown": shown,
                                    "first_cpu_s": first_cpu, "load": load})
    return records


def rows():
    if os.environ.get("MLNOTES_BENCH_LAB", "1") == "0":
        return
    try:
        records = measure()
    except BaseException as exc:  # pytest's skip (no Chromium) is a BaseException
        if isinstance(exc, KeyboardInterrupt):
            raise
        yield {"case": f"lab run: not measured ({type(exc).__name__}: {exc})", "n": None,
               "mlnotes_s": None, "sklearn_s": None, "agreement": None, "target": ""}
        return
    for chapter in dict.fromkeys(r["explorer"] for r in records):
        mine = [r for r in records if r["explorer"] == chapter]
        load = max(r["load"] for r in mine)
        new = [r for r in mine if r["kind"] == "new"]
        seen = [r for r in mine if r["kind"] == "seen"]
        med = {key: statistics.median(r[key] for r in new) / 1e3
               for key in ("first_ms", "end_ms", "play_ms")}
        cpu = statistics.median(r["cpu_s"] for r in new)
        first_cpu = statistics.median(r["first_cpu_s"] for r in new)
        for key, what, target in [
            ("first_ms", "new run: first picture",
             f"< 0.150 s; p90 {lab_bench._p90([r['first_ms'] for r in new]) / 1e3:.3f} s; "
             f"kernel CPU to it at most {first_cpu:.3f} s"),
            ("end_ms", "new run: its end on screen", "the run's length"),
            ("play_ms", "new run: every snapshot in the page (play)", "no target"),
        ]:
            yield {"case": f"lab run: {chapter} {what} ({len(new)} inputs)", "n": None,
                   "mlnotes_s": med[key], "sklearn_s": None, "agreement": None,
                   "target": f"{target}; kernel CPU per run {cpu:.3f} s; load {load:.1f}"}
        shown = sorted(r["shown"] for r in new)
        yield {"case": f"lab run: {chapter} new run: pictures shown from the input to its end "
                       f"({len(new)} inputs: {', '.join(map(str, shown))})", "n": None,
               "mlnotes_s": None, "sklearn_s": None, "agreement": None,
               "target": "more than 1: the run shown as it goes"}
        yield {"case": f"lab run: {chapter} seen setting ({len(seen)} inputs)", "n": None,
               "mlnotes_s": statistics.median(r["first_ms"] for r in seen) / 1e3,
               "sklearn_s": None, "agreement": None, "target": f"< 0.050 s; load {load:.1f}"}


if __name__ == "__main__":
    for row in rows():
        seconds = "–" if row["mlnotes_s"] is None else f"{row['mlnotes_s']:.3f}"
        print(f"| {row['case']} | {seconds} | {row['target']} |", flush=True)
