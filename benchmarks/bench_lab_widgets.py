"""The explorers where a reader meets them: input to new figure, in JupyterLab, in Chromium.

JupyterLab (this environment's, started on a free port with a throw-away root) opens one
notebook holding every chapter's explorer cell, taken from ``book/*.ipynb`` (the cells that
call ``ml.widgets.<method>_explorer``), and headless Chromium (``/usr/bin/chromium``, driven
by Playwright) runs it. Then, explorer by explorer, every control that applies is moved as a
reader moves it (a slider with the keyboard, a button with a click, a list with a choice):
``N_MOVES`` steps to settings not seen yet ("new": computed and drawn in the kernel), then the
same steps back ("seen": the page shows the picture it keeps, no message to the kernel and
back). A replay explorer's snapshot slider and "play" run in the page alone (the run's frames
are sent once); "play" counts the frames it shows.

What is timed: from the input event (key down, click, change: the input's last event before
its message to the kernel leaves, so a click is timed from its release) to the first animation
frame after the explorer's new picture is loaded in the page (a ``MutationObserver`` on the
output finds the visible ``img.widget-image`` whose source changed; its ``load`` event, then
``requestAnimationFrame``). Wall-clock time, meaningful on a quiet machine: each row says the
load average (1 min, this benchmark's own processes included) as its explorer starts, the
kernel's median CPU time per input (``/proc/<pid>/task/*/schedstat``, nanoseconds, from the
input to the picture), the part the explorer's code controls (its breakdown, without the
messages, is ``bench_widgets.py``'s), and the Jupyter server's, which passes the messages on;
the page's part, from the input to its message leaving plus from the picture's message
arriving to the picture shown, is ``page``. Rows: per explorer, median and p90 of new and of seen
settings (targets 150 ms and 50 ms); every single measurement is written to
``benchmarks/results_lab.json``. A reader's kernel draws, while idle, the picture of the moved
control's next step (:meth:`mlnotes.widgets._core.Explorer.next_settings`), so a slider's
second and later new steps are usually answered without drawing; the column "1st move of a
control" is the median of the first new step of each control, drawn on demand.

``MLNOTES_BENCH_LAB=0`` leaves this module out of ``make bench`` (it takes a few minutes);
without Chromium it yields one row saying so. Alone: ``python benchmarks/bench_lab_widgets.py
[chapter ...]`` (e.g. ``pca lle``) prints the rows of those chapters' explorers.
"""

import contextlib
import json
import os
import pathlib
import statistics
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_browser_lab import PICTURE_BYTES, SOCKETS_JS  # noqa: E402

N_MOVES = 4  # steps to new settings per control, then as many back to seen ones
NEW_BUDGET_S = 0.150
SEEN_BUDGET_S = 0.050
OUTPUT = ".jp-Notebook .jp-CodeCell .jp-OutputArea"

# In the page, per output k: the time of the last input on it and of each new picture shown.
WATCH_JS = """k => {
  const out = document.querySelectorAll('%s')[k];
  window.mlx = window.mlx || {};
  if (window.mlx[k]) return true;
  const st = window.mlx[k] = {inputs: [], shown: [], src: null};
  const input = () => st.inputs.push(performance.now());
  for (const type of ['keydown', 'pointerdown', 'click', 'change'])
    out.addEventListener(type, input, true);
  const look = () => {
    const img = [...out.querySelectorAll('img.widget-image')].find(i => i.offsetParent !== null);
    if (!img || img.src === st.src) return;
    st.src = img.src;
    const done = () => requestAnimationFrame(() => st.shown.push(performance.now()));
    if (img.complete && img.naturalWidth) done();
    else img.addEventListener('load', done, {once: true});
  };
  const now = [...out.querySelectorAll('img.widget-image')].find(i => i.offsetParent !== null);
  st.src = now ? now.src : null;  // the picture already there is not a new one
  new MutationObserver(look).observe(out, {subtree: true, childList: true, attributes: true,
                                           attributeFilter: ['src', 'style', 'class']});
  return true;
}""" % OUTPUT


# Every control of output k: [kind, label, disabled, index among its kind].
CONTROLS_JS = """k => {
  const out = document.querySelectorAll('%s')[k];
  const label = el => (el.querySelector('.widget-label') || {}).textContent || '';
  const found = [];
  out.querySelectorAll('.widget-slider').forEach((el, i) => found.push(
    ['slider', label(el), !!el.querySelector('[disabled]') || el.classList.contains('mod-disabled'), i]));
  out.querySelectorAll('.widget-toggle-buttons').forEach((el, i) => found.push(
    ['buttons', label(el), [...el.querySelectorAll('button')].every(b => b.disabled), i]));
  out.querySelectorAll('.widget-dropdown').forEach((el, i) => found.push(
    ['dropdown', label(el), el.querySelector('select').disabled, i]));
  return found;
}""" % OUTPUT


def explorer_cells(book=ROOT / "book"):
    """(chapter, source) of every cell of the book that calls an explorer."""
    import nbformat

    cells = []
    for path in sorted(book.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and "_explorer(" in cell.source:
                cells.append((path.stem, cell.source))
    return cells


def _notebook(root, cells):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3 (ipykernel)"}
    nb.cells = [nbformat.v4.new_code_cell("import os\nimport mlnotes as ml\nprint(os.getpid())")]
    nb.cells += [nbformat.v4.new_code_cell(source) for _, source in cells]
    nbformat.write(nb, root / "bench.ipynb")


def _cpu_s(pid):
    """CPU time of a process so far (its threads', from the scheduler's nanosecond counts in
    ``/proc/<pid>/task/*/schedstat``; a thread that has ended meanwhile is not counted), in
    seconds; without schedstat, user + system time in clock ticks (10 ms)."""
    ns = 0
    try:
        for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError):
                ns += int((task / "schedstat").read_text().split()[0])
        return ns / 1e9
    except (FileNotFoundError, ValueError):
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _parent(pid):
    """The parent process of ``pid`` (the kernel's: the Jupyter server)."""
    return int(pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


class Lab:
    """The benchmark notebook open in JupyterLab in a Chromium page."""

    def __init__(self, page, kernel_pid):
        self.page, self.kernel_pid = page, kernel_pid
        self.server_pid = _parent(kernel_pid)

    def idle(self, k=None, timeout=600_000):
        """Wait until the kernel is idle and, for explorer ``k``, a run under way has ended
        (its status line no longer says "running…": a streamed run goes on between the
        kernel's messages, with the kernel idle) and, for a replay, every snapshot of its run
        is in the page (play enabled)."""
        self.page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=timeout)
        self.page.wait_for_timeout(150)  # messages still on their way, then idle again
        self.page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=timeout)
        if k is not None:
            self.page.wait_for_function("o => !o.textContent.includes('running…')",
                                        arg=self.output(k).element_handle(), timeout=timeout)
        if k is not None and self.output(k).locator(".widget-play").count():
            play = self.output(k).locator(".widget-play button").first
            self.page.wait_for_function("b => !b.disabled", arg=play.element_handle(),
                                        timeout=timeout)

    def output(self, k):
        return self.page.locator(OUTPUT).nth(k)

    def act(self, k, action):
        """Do ``action()`` on output ``k``; return (ms from the input to the new picture shown,
        or None if none came; the kernel's CPU seconds until then; ms of it spent in the page:
        from the input to its message leaving, and from the picture's message arriving to the
        picture shown, or None when the picture came from the page itself)."""
        page = self.page
        page.evaluate(WATCH_JS, k)
        before = page.evaluate(f"() => {{ window.mlx[{k}].inputs = []; window.mlxSocket = [];"
                               f" return window.mlx[{k}].shown.length; }}")
        cpu, server = _cpu_s(self.kernel_pid), _cpu_s(self.server_pid)
        action()
        try:
            page.wait_for_function(f"() => window.mlx[{k}].shown.length > {before}",
                                   timeout=120_000)
        except Exception:  # noqa: BLE001 (Playwright's timeout: no new picture)
            self.idle(k)
            return None, _cpu_s(self.kernel_pid) - cpu, None
        cpu = _cpu_s(self.kernel_pid) - cpu
        self.last_server_s = _cpu_s(self.server_pid) - server
        # the input: its last event before its message left (a click's, not its pointerdown's:
        # a button acts when released, and a robot's press lasts as long as the load makes it)
        ms, page_ms = page.evaluate(f"""() => {{
          const st = window.mlx[{k}], shown = st.shown[{before}];
          const out = window.mlxSocket.find(m => m[0] === 0 && m[1] >= st.inputs[0]);
          const start = out ? Math.max(...st.inputs.filter(t => t <= out[1])) : st.inputs[0];
          const pictures = window.mlxSocket.filter(m => m[0] === 1 && m[2] > {PICTURE_BYTES}
                                                   && m[1] <= shown);
          const page = out && pictures.length
            ? (out[1] - start) + (shown - pictures.at(-1)[1]) : null;
          return [shown - start, page];
        }}""")
        self.idle(k)
        return ms, cpu, page_ms


def _slider_moves(lab, k, index, n):
    handle = lab.output(k).locator(".widget-slider").nth(index).locator(".noUi-handle")
    now, top = (float(handle.get_attribute(a)) for a in ("aria-valuenow", "aria-valuemax"))
    low = float(handle.get_attribute("aria-valuemin"))
    forward, back = ("ArrowRight", "ArrowLeft") if top - now >= now - low else \
        ("ArrowLeft", "ArrowRight")
    n = int(min(n, max(top - now, now - low)))

    def press(key):
        return lambda: (handle.focus(), lab.page.keyboard.press(key))

    return [press(forward)] * n, [press(back)] * n


def _choice_moves(lab, k, kind, index, n):
    out = lab.output(k)
    if kind == "buttons":
        group = out.locator(".widget-toggle-buttons").nth(index)
        names = [b.inner_text() for b in group.locator("button").all()]
        current = group.locator("button.mod-active").inner_text()

        def pick(name):
            return lambda: group.locator("button", has_text=name).first.click()
    else:
        select = out.locator(".widget-dropdown select").nth(index)
        names = [o.inner_text() for o in select.locator("option").all()]
        current = select.evaluate("s => s.options[s.selectedIndex].text")

        def pick(name):
            return lambda: select.select_option(label=name)
    others = [name for name in names if name != current][:n]
    path = [current, *others]
    return [pick(name) for name in others], [pick(name) for name in path[-2::-1]]


def _play(lab, k):
    """(frames of the replay, frames shown while "play" runs it from the first)."""
    out, page = lab.output(k), lab.page
    handle = out.locator(".widget-slider", has_text="snapshot").locator(".noUi-handle")
    handle.focus()
    page.keyboard.press("Home")
    lab.idle(k)
    total = int(float(handle.get_attribute("aria-valuemax"))) + 1
    page.evaluate(WATCH_JS, k)
    before = page.evaluate(f"() => window.mlx[{k}].shown.length")
    out.locator(".widget-play button").first.click()
    page.wait_for_function(
        "([h, last]) => +h.getAttribute('aria-valuenow') >= last",
        arg=[handle.element_handle(), total - 1], timeout=600_000)
    page.wait_for_timeout(1000)
    lab.idle(k)
    return total, 1 + page.evaluate(f"() => window.mlx[{k}].shown.length") - before


def _p90(values):
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 \
        else values[0]


@contextlib.contextmanager
def explorers_in_lab(cells, *, init_scripts=()):
    """JupyterLab (throw-away root) and Chromium with one notebook of ``cells`` (chapter, source),
    run top to bottom, every replay's snapshots in the page: yields the page and its :class:`Lab`.
    ``init_scripts`` run in the page before JupyterLab's own."""
    from test_browser_lab import run_lab

    from browser_support import launch_chromium

    with tempfile.TemporaryDirectory() as tmp, launch_chromium() as browser:
        root = pathlib.Path(tmp)
        _notebook(root, cells)
        every_cell = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
        with run_lab(root, settings=every_cell) as (base, token):
            context = browser.new_context(viewport={"width": 1280, "height": 1000})
            for script in init_scripts:
                context.add_init_script(script)
            page = context.new_page()
            page.goto(f"{base}/lab/tree/bench.ipynb?token={token}")
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
            page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
            page.keyboard.press("Escape")
            page.keyboard.press("Control+a")
            page.keyboard.press("Shift+Enter")  # run all selected cells
            page.wait_for_function(
                f"() => document.querySelectorAll('{OUTPUT} img.widget-image').length"
                f" >= {len(cells)}", timeout=900_000)
            lab = Lab(page, int(page.locator(OUTPUT).first.inner_text().strip()))
            for k in range(1, len(cells) + 1):  # every replay's snapshots in the page
                lab.idle(k)
            yield page, lab


def measure(n_moves=N_MOVES, only=()):
    """Every measurement: a list of dicts (explorer, control, kind new/seen/play, ms, cpu_s,
    page_ms, load), for the chapters named in ``only`` (default: all)."""
    cells = [cell for cell in explorer_cells() if not only or cell[0] in only]
    records = []
    with explorers_in_lab(cells, init_scripts=(SOCKETS_JS,)) as (page, lab):
        for k, (chapter, _) in enumerate(cells, start=1):
            load = os.getloadavg()[0]
            lab.output(k).scroll_into_view_if_needed()
            for kind, label, disabled, index in page.evaluate(CONTROLS_JS, k):
                if disabled:
                    continue
                if kind == "slider":
                    new, seen = _slider_moves(lab, k, index, n_moves)
                else:
                    new, seen = _choice_moves(lab, k, kind, index, n_moves)
                for what, actions in (("new", new), ("seen", seen)):
                    for nth, action in enumerate(actions):
                        lab.last_server_s = None
                        ms, cpu, page_ms = lab.act(k, action)
                        records.append({"explorer": chapter, "control": label.strip(),
                                        "kind": what, "nth": nth, "ms": ms, "cpu_s": cpu,
                                        "server_cpu_s": lab.last_server_s,
                                        "page_ms": page_ms, "load": load})
            if lab.output(k).locator(".widget-play").count():
                total, shown = _play(lab, k)
                records.append({"explorer": chapter, "control": "play", "kind": "play",
                                "frames": total, "shown": shown, "load": load})
    return records


def summary(records):
    """The table's rows from the measurements."""
    rows = []
    for chapter in dict.fromkeys(r["explorer"] for r in records):
        mine = [r for r in records if r["explorer"] == chapter]
        load = max(r["load"] for r in mine)
        for what, budget in (("new", NEW_BUDGET_S), ("seen", SEEN_BUDGET_S)):
            moves = [r for r in mine if r["kind"] == what and r["control"] != "snapshot"]
            ms = [r["ms"] for r in moves if r["ms"] is not None]
            if not ms:
                continue
            cpu = statistics.median(r["cpu_s"] for r in moves)
            server = [r["server_cpu_s"] for r in moves if r.get("server_cpu_s") is not None]
            server = f"; server CPU {statistics.median(server):.3f} s" if server else ""
            in_page = [r["page_ms"] for r in moves if r.get("page_ms") is not None]
            in_page = f"; page {statistics.median(in_page):.0f} ms" if in_page else ""
            lost = len(moves) - len(ms)
            rows.append({
                "case": f"lab: {chapter} {what} setting ({len(ms)} inputs"
                        + (f", {lost} without a new picture" if lost else "") + ")",
                "n": None, "mlnotes_s": statistics.median(ms) / 1e3, "sklearn_s": None,
                "agreement": None,
                "target": f"< {budget:.3f} s; p90 {_p90(ms) / 1e3:.3f} s; kernel CPU "
                          f"{cpu:.3f} s{server}{in_page}; load {load:.1f} on "
                          f"{os.cpu_count()} CPUs"})
        frames = [r["ms"] for r in mine if r["control"] == "snapshot" and r["ms"] is not None]
        if frames:
            rows.append({"case": f"lab: {chapter} snapshot slider ({len(frames)} inputs)",
                         "n": None, "mlnotes_s": statistics.median(frames) / 1e3,
                         "sklearn_s": None, "agreement": None,
                         "target": f"< {SEEN_BUDGET_S:.3f} s; p90 {_p90(frames) / 1e3:.3f} s"})
        for r in mine:
            if r["kind"] == "play":
                rows.append({"case": f"lab: {chapter} play shows {r['shown']} of {r['frames']}"
                                     " frames", "n": None, "mlnotes_s": None,
                             "sklearn_s": None, "agreement": None, "target": "every frame"})
    return rows


def table(records):
    """The short summary, in Markdown: per explorer, median and p90 (ms) of new and of seen
    settings, the kernel's median CPU (ms) per input of each, for a new setting the Jupyter
    server's CPU and the page's part (ms), and the frames "play" showed."""
    lines = ["| explorer | new median | new p90 | seen median | seen p90 | kernel CPU new | "
             "kernel CPU seen | server CPU new | page new | new, 1st move of a control | "
             "play shows | load |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for chapter in dict.fromkeys(r["explorer"] for r in records):
        mine = [r for r in records if r["explorer"] == chapter]
        cells = []
        for what in ("new", "seen"):
            moves = [r for r in mine if r["kind"] == what and r["control"] != "snapshot"]
            ms = [r["ms"] for r in moves if r["ms"] is not None]
            cpu = [1e3 * r["cpu_s"] for r in moves]
            cells.append((f"{statistics.median(ms):.0f}", f"{_p90(ms):.0f}") if ms else ("–", "–"))
            cells.append(f"{statistics.median(cpu):.0f}" if cpu else "–")
        new_moves = [r for r in mine if r["kind"] == "new" and r["control"] != "snapshot"]
        server = [1e3 * r["server_cpu_s"] for r in new_moves if r.get("server_cpu_s") is not None]
        in_page = [r["page_ms"] for r in new_moves if r.get("page_ms") is not None]
        server = f"{statistics.median(server):.0f}" if server else "–"
        in_page = f"{statistics.median(in_page):.0f}" if in_page else "–"
        firsts = [r["ms"] for r in new_moves if r.get("nth") == 0 and r["ms"] is not None]
        first = f"{statistics.median(firsts):.0f} ({len(firsts)})" if firsts else "–"
        play = "; ".join(f"{r['shown']} of {r['frames']}" for r in mine if r["kind"] == "play")
        (new, new_p90), new_cpu, (seen, seen_p90), seen_cpu = cells
        lines.append(f"| {chapter} | {new} | {new_p90} | {seen} | {seen_p90} | {new_cpu} | "
                     f"{seen_cpu} | {server} | {in_page} | {first} | {play or '–'} | "
                     f"{max(r['load'] for r in mine):.1f} |")
    return "\n".join(lines) + (f"\n\nms, wall clock from the input to the picture shown "
                               f"(targets: new {1e3 * NEW_BUDGET_S:.0f}, seen "
                               f"{1e3 * SEEN_BUDGET_S:.0f}); load: 1-min load average on "
                               f"{os.cpu_count()} CPUs as the explorer started. \"1st move "
                               f"of a control\": the median of each control's first step to a "
                               f"new setting (count in brackets), which the kernel cannot "
                               f"have drawn ahead (the later steps of a slider it draws while "
                               f"idle, Explorer.next_settings).\n")


def rows(only=()):
    if os.environ.get("MLNOTES_BENCH_LAB", "1") == "0":
        return
    try:
        records = measure(only=only)
    except BaseException as exc:  # pytest's skip (no Chromium) is a BaseException
        if isinstance(exc, KeyboardInterrupt):
            raise
        yield {"case": f"lab: not measured ({type(exc).__name__}: {exc})", "n": None,
               "mlnotes_s": None, "sklearn_s": None, "agreement": None, "target": ""}
        return
    (HERE / "results_lab.json").write_text(json.dumps(records, indent=1))
    (HERE / "results_lab.md").write_text(table(records))
    print(table(records), flush=True)
    yield from summary(records)


if __name__ == "__main__":  # python benchmarks/bench_lab_widgets.py [chapter ...]
    for row in rows(sys.argv[1:]):
        seconds = "–" if row["mlnotes_s"] is None else f"{row['mlnotes_s']:.4f}"
        print(f"| {row['case']} | {seconds} | {row['target']} |", flush=True)
