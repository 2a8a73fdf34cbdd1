"""Explorers in a real browser: live in JupyterLab, static in the built book.

JupyterLab: run an explorer cell, move a slider, the figure changes.

Starts ``jupyter lab`` from this environment on 127.0.0.1 (a free port, a random token, a
temporary root folder holding one small notebook, throw-away settings), opens the notebook in
headless Chromium, runs the cell, screenshots the explorer's image, moves the slider with the
keyboard, and asserts that the image changed. No request may leave the machine. Screenshots go
to ``tests/artifacts/lab/``. Chromium is required in CI (see ``browser_support``).

The book's static rendering of the explorers (every explorer cell draws a picture, no page
carries a widget view that would render as an empty box) is checked in the load of each page
test_browser_book.py makes (``_check_explorers_drawn``).
"""

import contextlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse

import pytest

from browser_support import ROOT, browser_required, scaled, wait_until

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "tests" / "artifacts" / "lab"
SERVER_START_S = 180  # a loaded machine starts it slowly; a start is not what is tested
CELL_SOURCE = "import mlnotes as ml\nex = ml.widgets.pca_explorer(angle=0)\nex"
MUTANT_SOURCE = "ex._image_widget.kept = 0  # the page keeps no picture (nor counts on one)"
# A kernel that, for the next setting, also sends a picture-sized message a second after its
# status line (once): a fixed pause after the status line let it pass unseen; the kernel's
# idle status after the key's message does not (run on demand: MLNOTES_TIMING_MUTANTS=1).
LATE_SOURCE = """import time
_show = ex._show
def _late(png):
    ex._show = _show
    _show(png)
    time.sleep(1.0)
    ex._image_widget.send({"late": "x" * 20000})
ex._show = _late"""
# In the page, before JupyterLab loads: when each websocket message leaves or arrives (ms,
# bytes), and what it is (Jupyter's message: its channel, type, id, its request's id and, for a
# kernel's status, the state): [out 0 / in 1, ms, bytes, channel, type, id, parent id, state].
# Messages in Jupyter Server's "v1.kernel.websocket.jupyter.org" framing (JupyterLab's: the
# part count and offsets as 64-bit integers, then the channel, the header, the parent header,
# the metadata, the content, the buffers) or as JSON text.
SOCKETS_JS = """
window.mlxSocket = [];
const mlxWhat = (d) => {
  try {
    let channel, header, parent, content;
    if (typeof d === 'string') {
      ({channel, header, parent_header: parent, content} = JSON.parse(d));
    } else if (d instanceof ArrayBuffer) {
      const view = new DataView(d);
      const n = Number(view.getBigUint64(0, true));
      const at = (k) => Number(view.getBigUint64(8 * (k + 1), true));
      const text = new TextDecoder();
      const part = (k) => k + 1 < n ? text.decode(new Uint8Array(d, at(k), at(k + 1) - at(k))) : '';
      channel = part(0); header = JSON.parse(part(1)); parent = JSON.parse(part(2));
      content = header.msg_type === 'status' ? JSON.parse(part(4)) : {};
    } else return [];
    return [channel, header.msg_type, header.msg_id, (parent || {}).msg_id || null,
            (content || {}).execution_state || null];
  } catch (error) { return []; }
};
const Socket = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new Socket(...args);
  const size = d => d.byteLength || d.size || d.length || 0;
  ws.addEventListener('message', e => window.mlxSocket.push(
    [1, performance.now(), size(e.data), ...mlxWhat(e.data)]));
  const send = ws.send.bind(ws);
  ws.send = d => { window.mlxSocket.push([0, performance.now(), size(d), ...mlxWhat(d)]);
                   return send(d); };
  return ws;
};
window.WebSocket.prototype = Socket.prototype;
Object.assign(window.WebSocket, Socket);
"""
PICTURE_BYTES = 5000  # a message this large carries a picture


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url, timeout=2):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status


def _lab_env(root):
    return {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(root / ".config"),
        "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / ".settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / ".workspaces"),
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYTHONPATH": str(ROOT),
        "OMP_NUM_THREADS": "1",
        "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ.get('PATH', '')}",
    }


@contextlib.contextmanager
def run_lab(root, *extra_args, settings=None):
    """A running JupyterLab on folder ``root``: yields (base URL, token); shut down afterwards.

    ``settings``: {plugin id: {setting: value}} written as the (throw-away) user settings.
    """
    for plugin, values in (settings or {}).items():
        package, name = plugin.rsplit(":", 1)
        folder = root / ".settings" / package
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.jupyterlab-settings").write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        "--ServerApp.port_retries=0", "--allow-root", "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabServerApp.extension_manager=readonly", *extra_args,
    ]
    log = open(root / "server.log", "w")  # noqa: SIM115 (closed below)
    server = subprocess.Popen(cmd, cwd=root, env=_lab_env(root), stdout=log,
                              stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"jupyter lab exited with {server.returncode}: "
                            f"{(root / 'server.log').read_text()[-2000:]}")
            try:
                if _get(f"{base}/api/status?token={token}") == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab did not answer within {SERVER_START_S} s")
            time.sleep(0.5)
        yield base, token
    finally:
        try:  # stops the kernels too
            request = urllib.request.Request(f"{base}/api/shutdown?token={token}", method="POST")
            urllib.request.urlopen(request, timeout=5).close()
            server.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        log.close()


def _notebook(cells):
    """A notebook of code cells {id: source}, with the kernelspec JupyterLab writes."""
    return json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "id": key, "metadata": {},
                   "outputs": [], "source": source} for key, source in cells.items()],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                    "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5})


@pytest.fixture(scope="module")
def live_lab(tmp_path_factory):
    """One running JupyterLab for the live explorer tests (a kernel each): a folder holding
    the PCA explorer's notebook and kernel PCA's."""
    root = tmp_path_factory.mktemp("lab")
    (root / "explorer.ipynb").write_text(_notebook({"explorer": CELL_SOURCE,
                                                    "mutant": MUTANT_SOURCE,
                                                    "late": LATE_SOURCE}))
    (root / "kpca.ipynb").write_text(_notebook({"explorer": KPCA_SOURCE}))
    (root / "kpca_mutant.ipynb").write_text(_notebook({"explorer": KPCA_MUTANT_SOURCE}))
    with run_lab(root) as running:
        yield running


# the live explorer tests share one JupyterLab (xdist sends them to one worker); each opens its
# notebook in a workspace of its own, so the other's notebook is not restored beside it
LIVE = pytest.mark.xdist_group("jupyterlab-live")


@LIVE
def test_moving_a_slider_redraws_the_explorer_in_jupyterlab(browser, live_lab):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    base, token = live_lab
    host = urlparse(base).netloc
    outside, page_errors = [], []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.add_init_script(SOCKETS_JS)
    page = context.new_page()
    page.on("request", lambda r: outside.append(r.url)
            if urlparse(r.url).scheme in ("http", "https", "ws", "wss")
            and urlparse(r.url).netloc != host else None)
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    page.route(lambda url: urlparse(url).netloc not in (host, ""), lambda route: route.abort())
    try:
        page.goto(f"{base}/lab/workspaces/explorer/tree/explorer.ipynb?token={token}")

        # wait until the kernel is idle, then run the cell from its editor (again if the
        # first key press came before the notebook was connected to the kernel)
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=scaled(60_000))
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=scaled(60_000))
        prompt = page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").first
        for _ in range(3):
            page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
            page.keyboard.press("Shift+Enter")
            try:
                page.wait_for_function(
                    "p => /\\[(\\*|\\d+)\\]/.test(p.textContent)", arg=prompt.element_handle(),
                    timeout=scaled(10_000))
                break
            except PlaywrightTimeout:
                continue

        image = page.locator(".jp-OutputArea-output img.widget-image")
        image.wait_for(state="visible", timeout=scaled(40_000))
        assert _picture_shown(page), "the explorer shows no picture"
        output = page.locator(".jp-OutputArea-output").first
        output.screenshot(path=str(ARTIFACTS / "explorer_before.png"))
        before_src = page.evaluate(f"() => {IMAGE_SRC_JS}")
        before = image.screenshot()

        # move the "angle" slider one step with the keyboard (0 -> 5 degrees)
        handle = page.locator(".jp-OutputArea-output .widget-slider .noUi-handle").first
        handle.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.jp-OutputArea-output .widget-readout'))"
            ".some(e => e.textContent.trim() === '5')", timeout=scaled(15_000))
        # the picture and the status line are two widgets, whose messages the page applies on
        # separate promise chains: each is waited for in its own state (the new picture loaded
        # and decoded, the status line's text), then read
        drawn = _picture_shown(page, before_src)
        updated = wait_until(page, f"() => {STATUS_JS}.includes('updated in')", timeout=30_000,
                             polling=100)
        after = image.screenshot()
        output.screenshot(path=str(ARTIFACTS / "explorer_after.png"))
        assert drawn and after != before, \
            "the explorer's figure did not change after moving the slider"
        assert updated, f"status line: {page.evaluate(f'() => {STATUS_JS}')!r}"

        # Back to 0, a setting seen: the page swaps to its kept picture, and no picture comes
        # from the kernel; on to 10, a new setting: its picture comes from the kernel.
        assert _shown_from_the_page(page, handle, "ArrowLeft"), \
            "a seen setting's picture came from the kernel"
        # compared once the kept picture is loaded and decoded (until then the page may still
        # show the last one: a new source is the image's pending request)
        assert _picture_shown(page), "the kept picture does not load"
        assert image.screenshot() == before, "the kept picture is not the setting's"
        assert _shown_from_the_kernel(page, handle, "ArrowRight", "ArrowRight")
        if os.environ.get("MLNOTES_TIMING_MUTANTS"):
            # back to 5 (seen), a picture-sized message a second after the status line
            _run_cell(page, 2)
            assert not _shown_from_the_page(page, handle, "ArrowLeft"), \
                "the check passed a kernel that sent a picture after its status line"
        # the mutant: the page keeps no picture; back to a seen setting (5, or 0 after the
        # mutant above) the check must see the kernel
        _run_cell(page, 1)
        assert not _shown_from_the_page(page, handle, "ArrowLeft"), \
            "the check passed a page that keeps no picture"
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "explorer_failure.png"))
        raise
    assert not outside, f"requests left the machine: {outside[:5]}"
    assert not page_errors, f"page errors: {page_errors[:5]}"


def _run_cell(page, k):
    """Run the notebook's cell ``k`` and wait until it has run (its prompt shows its count: the
    status bar's "Idle" may still be the one from before the cell started)."""
    page.locator(".jp-Notebook .jp-Cell .cm-content").nth(k).click()
    page.keyboard.press("Shift+Enter")
    prompt = page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").nth(k)
    page.wait_for_function("p => /\\[\\d+\\]/.test(p.textContent)", arg=prompt.element_handle(),
                           timeout=scaled(30_000))


SEEN_TEXT = "a setting seen before"  # the status line of a seen setting (_core.SEEN_STATUS)
# The explorer's picture and its status line, read in the page
IMAGE_SRC_JS = "document.querySelector('.jp-OutputArea-output img.widget-image').src"
STATUS_JS = ("[...document.querySelectorAll('.jp-OutputArea-output .widget-html')].at(-1)"
             ".textContent")
# Whether the explorer's picture has a source other than ``b`` (any, with null), loaded: a new
# source is the image's pending request until it has loaded (``complete``), and the old picture
# stays on the screen meanwhile.
IMAGE_LOADED_JS = """(b) => {
  const i = document.querySelector('.jp-OutputArea-output img.widget-image');
  return !!i && i.src !== b && i.complete && i.naturalWidth > 0;
}"""
DECODED_JS = ("() => document.querySelector('.jp-OutputArea-output img.widget-image').decode()"
              ".then(() => true, () => false)")


def _picture_shown(page, before_src=None, timeout=30_000):
    """Whether the explorer's picture comes to have a source other than ``before_src`` (any,
    with None), loaded and decoded (ready to be drawn: a screenshot shows it) within
    ``timeout`` ms (``scaled``)."""
    return (wait_until(page, IMAGE_LOADED_JS, before_src, timeout=timeout, polling=100)
            and page.evaluate(DECODED_JS))
PICTURES_SINCE_JS = (f"t => window.mlxSocket.filter(m => m[0] === 1 && m[1] >= t"
                     f" && m[2] > {PICTURE_BYTES}).length")
# Whether the kernel has answered every widget message the page sent since ``t``: each one's
# "idle" status has come back (and the page has sent at least one).
KERNEL_DONE_JS = """t => {
  const sent = window.mlxSocket.filter(m => m[0] === 0 && m[1] >= t && m[4] === 'comm_msg')
    .map(m => m[5]);
  const idle = new Set(window.mlxSocket.filter(m => m[0] === 1 && m[4] === 'status'
    && m[7] === 'idle').map(m => m[6]));
  return sent.length > 0 && sent.every(id => idle.has(id));
}"""


def _press(page, handle, *keys):
    """Press ``keys`` on the slider ``handle``; the page's clock when the first went down."""
    start = page.evaluate("() => performance.now()")
    handle.focus()
    for key in keys:
        page.keyboard.press(key)
    return start


def _shown_from_the_page(page, handle, key):
    """Whether pressing ``key`` (back to a seen setting) changes the explorer's picture with
    no picture from the kernel: the kernel heard of the move (its status line says the setting
    was seen) and sent no message large enough to carry a picture."""
    src, status = IMAGE_SRC_JS, STATUS_JS
    before = page.evaluate(f"() => {src}")
    start = _press(page, handle, key)
    page.wait_for_function(f"([t, b]) => ({PICTURES_SINCE_JS})(t) > 0 || ({src} !== b"
                           f" && {status}.includes('{SEEN_TEXT}'))", arg=[start, before],
                           timeout=scaled(30_000))
    # anything else on its way is in: the kernel has said it is idle again after each widget
    # message the key sent (its status, sent after every message of its answer; a fixed pause
    # here let a picture a slow machine's kernel sent later pass unseen)
    page.wait_for_function(f"t => ({KERNEL_DONE_JS})(t)", arg=start, timeout=scaled(30_000),
                           polling=100)
    return page.evaluate(f"() => {src}") != before and \
        page.evaluate(PICTURES_SINCE_JS, start) == 0


def _shown_from_the_kernel(page, handle, *keys):
    """Whether pressing ``keys`` (to a new setting) brings a picture from the kernel."""
    start = _press(page, handle, *keys)
    page.wait_for_function(f"t => ({PICTURES_SINCE_JS})(t) > 0", arg=start,
                           timeout=scaled(30_000))
    return True


BOOK_HTML = Path(os.environ.get("MLNOTES_BOOK_HTML", ROOT / "_build" / "html"))


# The built book's static rendering of every explorer (no widget view, a picture drawn on canvas)
# is checked in test_browser_book.py::test_page's 1366 px load of each page that calls one
# (``_check_explorers_drawn``), instead of a second load of those pages here.


# --- The book's markup in JupyterLab (jupyterlab-myst) -------------------------------------

CHAPTERS = sorted(p.relative_to(ROOT / "book").as_posix()
                  for p in [*(ROOT / "book").glob("*.ipynb"),
                            *(ROOT / "book" / "homework").glob("*.ipynb")])
# MyST source that must never reach the reader: a fence or colon fence, a directive or role,
# a label target `(name)=`, a directive option, display maths left as TeX.
RAW_MYST = {
    "fence": re.compile(r"```|^:::", re.MULTILINE),
    "directive": re.compile(r"\{(?:prf:\w+|exercise|solution[\w-]*|admonition|margin|note|"
                            r"warning|tip|figure|math|dropdown)\}"),
    "role": re.compile(r"\{(?:ref|eq|numref|cite(?::[tp])?|prf:ref|doc|math|term)\}`?"),
    "label": re.compile(r"^\([\w:-]+\)=\s*$", re.MULTILINE),
    "option": re.compile(r"^:(?:label|class|nonumber|name):", re.MULTILINE),
    "display maths": re.compile(r"\$\$"),
}
MARKDOWN_PAGES = sorted(p.name for p in (ROOT / "book").glob("*.md"))
OPEN_MARKDOWN_JS = """async path => {
  const app = window.jupyterapp;
  for (const w of [...app.shell.widgets('main')]) w.dispose();
  const widget = await app.commands.execute('docmanager:open',
                                            {path, factory: 'Markdown Preview'});
  await widget.context.ready;
  return true;
}"""
# what jupyterlab-myst marks "Cross Reference Not Found" / "Citation Not Found" (its title)
UNRESOLVED_JS = """() => [...window.jupyterapp.shell.currentWidget.node.querySelectorAll(
  '.myst [title]')].filter(e => /not found/i.test(e.title))
  .map(e => e.title + ': ' + e.innerText.trim())"""
# A notebook that refers to a theorem of another chapter with the role (what the chapters no
# longer do): the check must see it as unresolved.
UNRESOLVED_MUTANT = "mutant_unresolved_reference.ipynb"
# Open the notebook ``path`` alone, its kernel connected: the first chapter starts a kernel from
# its kernelspec, the others connect to that one (``kernel`` is its id) instead of starting and
# shutting down one each, which took most of the test's time. Connecting is what may modify a
# notebook (JupyterLab writes the running kernel's kernelspec and language_info into it), so
# "opens unmodified" is checked against a running python3 kernel as before; a chapter whose
# kernelspec differed from it would show as modified. Returns the kernel's id.
OPEN_CHAPTER_JS = """async ([path, kernel]) => {
  const app = window.jupyterapp;
  for (const w of [...app.shell.widgets('main')]) w.dispose();
  const panel = await app.commands.execute('docmanager:open',
                                           kernel ? {path, kernel: {id: kernel}} : {path});
  await panel.context.ready;
  await panel.sessionContext.ready;
  const connected = panel.sessionContext.session.kernel;
  await connected.info;  // what JupyterLab writes into the notebook's metadata
  await connected.spec;
  return connected.id;
}"""
RENDERED_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content) return false;
  const cells = panel.content.widgets.filter(c => c.model.type === 'markdown'
                                                  && c.model.sharedModel.getSource().trim());
  const kernel = panel.sessionContext.session?.kernel;
  return cells.length > 0 && cells.every(c => c.rendered && c.node.querySelector('.myst'))
         && kernel && kernel.status === 'idle';
}"""
# Whether what the current document shows is jupyterlab-myst's last rendering, within ``limit``
# ms: each MyST widget (a notebook's Markdown cells, a Markdown preview's renderer) redraws
# itself when its model changes (a notebook pass hands every rendered cell its new part), in an
# update request Lumino runs at an animation frame, and its ``renderPromise`` resolves once
# React has drawn it and the browser is idle. The cell showing its ``.myst`` node (RENDERED_JS)
# may precede that: under load a look between the two read a half-drawn notebook. So: every
# widget's drawing awaited, then a frame (the requests posted meanwhile run), until no widget
# started another.
DRAWN_JS = """async (limit) => {
  const end = performance.now() + limit;
  const widget = window.jupyterapp.shell.currentWidget;
  const mysts = () => widget.content && widget.content.widgets
    ? widget.content.widgets.filter(c => c._mystWidget).map(c => c._mystWidget)
    : [widget.content && widget.content.renderer].filter(r => r && 'renderPromise' in r);
  while (performance.now() < end) {
    const drawing = mysts().map(w => w.renderPromise);
    await Promise.all(drawing);
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
    const now = mysts();
    if (now.length === drawing.length && now.every((w, k) => w.renderPromise === drawing[k]))
      return true;
  }
  return false;
}"""
STATE_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const texts = [...panel.node.querySelectorAll('.jp-MarkdownCell .myst')].map(e => {
    const c = e.cloneNode(true);
    c.querySelectorAll('.katex-mathml, annotation').forEach(m => m.remove());
    // a detached copy has no layout: a block's end is a line's end only if marked so
    c.querySelectorAll('p, li, pre, div, h1, h2, h3, h4, h5, h6, dt, dd, tr, blockquote')
      .forEach(b => b.append('\\n'));
    return c.textContent; });
  const unresolved = [...panel.node.querySelectorAll('.jp-MarkdownCell .myst [title]')]
    .filter(e => /not found/i.test(e.title)).map(e => e.title + ': ' + e.innerText.trim());
  const count = s => panel.node.querySelectorAll(s).length;
  // every numbered item jupyterlab-myst renders (theorem-like box, exercise, equation): its
  // label (the anchor's target) and the number it shows
  const numbers = [...panel.node.querySelectorAll('.jp-MarkdownCell a[title^="Link to this"]')]
    .filter(a => !/Section/.test(a.title))
    .map(a => [decodeURIComponent(a.getAttribute('href').replace(/^#/, '')),
               a.textContent.trim()]);
  return {texts, unresolved, numbers, dirty: panel.context.model.dirty,
          kernelspec: panel.context.model.getMetadata('kernelspec'),
          proofs: count('.myst-proof'), exercises: count('.myst-exercise'),
          admonitions: count('.myst-admonition'), katex: count('.jp-MarkdownCell .katex'),
          equations: count('.jp-MarkdownCell .katex-display')};
}"""

# jupyterlab-myst renders a Markdown cell by processing the whole notebook's Markdown (every cell
# parsed so far: numbering, references, maths) and handing every rendered cell its new part,
# which each cell then draws again (KaTeX included): a notebook of n cells opens with n such
# passes, n^2 cells drawn (tsne.ipynb: 44 passes, 10-25 s of Chromium's CPU). BATCH_JS keeps
# its per-cell steps (the cell's own parse, the notebook pass, the cell placed in its input
# area) but lets the cells whose render starts within the same 50 ms share one notebook pass,
# the last of them running jupyterlab-myst's own ``render``: what every cell shows in the end is
# that pass's result, as it is after jupyterlab-myst's n passes (the last pass sees every cell:
# test_batched_rendering_shows_what_jupyterlab_myst_shows compares the two on one chapter).
# Installed on the notebook factory's ``createMarkdownCell`` (jupyterlab-myst's content
# factory), so the first cell of the first notebook already has it; ``window.mlxBatch = false``
# turns the sharing off. Returns false if jupyterlab-myst's cell is not what this expects.
BATCH_JS = """() => {
  const factory = window.jupyterapp.docRegistry.getWidgetFactory('Notebook').contentFactory;
  if (factory.mlxBatched) return true;
  const create = factory.createMarkdownCell;
  const waiting = new Map();  // notebook -> the batch of cells waiting for its pass
  window.mlxBatch = true;
  window.mlxPasses = 0;
  const patch = proto => {
    const render = proto.render;
    proto.render = async function () {
      if (!window.mlxBatch) { window.mlxPasses++; return render.call(this); }
      await this.updateFragmentMDAST();
      if (!this._mystWidget.node || !this.isAttached) return;
      const notebook = this.parent;
      let batch = waiting.get(notebook);
      if (!batch) {
        batch = {cells: []};
        batch.done = new Promise(resolve => { batch.resolve = resolve; });
        waiting.set(notebook, batch);
      }
      batch.cells.push(this);
      clearTimeout(batch.timer);
      batch.timer = setTimeout(() => {
        waiting.delete(notebook);
        window.mlxPasses++;
        render.call(batch.cells.at(-1)).finally(batch.resolve);
      }, 50);
      await batch.done;
      await this._mystWidget.renderPromise;
      this.inputArea.renderInput(this._mystWidget);
    };
  };
  let patched = null;
  factory.createMarkdownCell = function (options) {
    const cell = create.call(this, options);
    const proto = Object.getPrototypeOf(cell);
    if (patched !== proto) {
      if (!(typeof proto.render === 'function' && typeof proto.updateFragmentMDAST === 'function'
            && cell._mystWidget)) {
        window.mlxBatchBroken = `not jupyterlab-myst's cell: ${proto.constructor.name}`;
        return cell;
      }
      patch(proto);
      patched = proto;
    }
    return cell;
  };
  factory.mlxBatched = true;
  return typeof create === 'function';
}"""


# A chapter without its numbering front matter (what the chapters had): jupyterlab-myst numbers
# it "Theorem 1", "(1)", ...; the comparison with the book must see that.
NUMBERING_MUTANT = "mutant_numbering.ipynb"
# the built book's numbered items: a theorem-like box or exercise (its caption number) or a
# labelled equation (its eqno), with the label as the element's id
BOOK_NUMBER_RE = re.compile(
    r'<div class="[^"]*" id="(?P<id>[^"]+)"[^>]*>\s*(?:<p class="admonition-title">)?\s*'
    r'<span class="(?:caption-number|eqno)">(?P<number>[^<]+?)\s*<')


def book_numbers(name):
    """{label: number} the built book prints for the chapter ``name`` (None: not built)."""
    page = BOOK_HTML / "book" / Path(name).with_suffix(".html")
    if not page.exists():
        return None
    return {m["id"].removeprefix("equation-"): m["number"].strip()
            for m in BOOK_NUMBER_RE.finditer(page.read_text(encoding="utf-8"))}


def numbering_differences(lab, book):
    """(label, number in Lab, number in the book) wherever they differ."""
    lab = dict(lab)
    return sorted((label, lab.get(label), book.get(label))
                  for label in set(lab) | set(book) if lab.get(label) != book.get(label))


def _markdown(path):
    """The notebook's Markdown cells' sources."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


def _render_cost(name):
    """What opening chapter ``name`` costs Chromium, roughly: its Markdown's length (one
    notebook pass of jupyterlab-myst, BATCH_JS, then every cell drawn once)."""
    return sum(map(len, _markdown(ROOT / "book" / name)))


# the chapters, the costliest first (xdist hands them out in this order: the long ones do not
# come last, alone on one worker)
CHAPTERS_BY_COST = sorted(CHAPTERS, key=_render_cost, reverse=True)
# the directives jupyterlab-myst renders as a box of its own: every one must show as one
PROOF_RE = re.compile(r"^\s*(?:`{3,}|:{3,})\s*\{prf:(?!algorithm)\w+\}", re.MULTILINE)
EXERCISE_RE = re.compile(r"^\s*(?:`{3,}|:{3,})\s*\{(?:exercise|solution[\w-]*)\}", re.MULTILINE)
# A careless author's markup: an admonition indented four spaces (its source shows as text) and
# a label left inside a code fence.
RAW_MUTANT = "mutant_raw_directive.ipynb"
RAW_MUTANT_SOURCE = ["Objectives:\n\n    ```{admonition} Objectives\n    * the first\n    ```\n",
                     "```\n(lab-objectives)=\n```\n## Objectives"]


@pytest.fixture(scope="module")
def myst_lab(browser, tmp_path_factory):
    """JupyterLab on a copy of the book (the chapters' outputs dropped: the markup is the
    subject, the saved outputs only cost rendering) and three mutants, with a page open on it
    (``jupyterapp`` exposed, jupyterlab-myst's notebook passes shared: BATCH_JS):
    ``open(name)`` opens one notebook and returns what Lab shows."""
    root = tmp_path_factory.mktemp("myst") / "book"
    shutil.copytree(ROOT / "book", root, ignore=shutil.ignore_patterns("_build", "*.pdf"))
    for name in CHAPTERS:
        nb = json.loads((root / name).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
        (root / name).write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False)
                                 + "\n", encoding="utf-8")
    metadata = json.loads((root / CHAPTERS[0]).read_text(encoding="utf-8"))["metadata"]
    for name, sources in [(UNRESOLVED_MUTANT, ["Ky Fan's theorem ({prf:ref}`thm-ky-fan`) is in "
                                               "PCA."]),
                          (RAW_MUTANT, RAW_MUTANT_SOURCE)]:
        cells = [{"cell_type": "markdown", "id": f"m{i}", "metadata": {}, "source": s}
                 for i, s in enumerate(sources)]
        (root / name).write_text(json.dumps({"cells": cells, "metadata": metadata,
                                             "nbformat": 4, "nbformat_minor": 5}),
                                 encoding="utf-8")
    # PCA without its numbering front matter (its first cell's), every cell kept
    bare = json.loads((root / "pca.ipynb").read_text(encoding="utf-8"))
    first = "".join(bare["cells"][0]["source"])
    bare["cells"][0]["source"] = re.sub(r"\A---\n.*?\n---\n", "", first, flags=re.DOTALL)
    assert bare["cells"][0]["source"] != first, "pca.ipynb's first cell has no front matter"
    (root / NUMBERING_MUTANT).write_text(json.dumps(bare), encoding="utf-8")
    settings = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
                "@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                                 "checkForUpdates": False}}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with run_lab(root, "--LabApp.expose_app_in_browser=True", settings=settings) as (base, token):
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        page = context.new_page()
        host = urlparse(base).netloc
        page.route(lambda url: urlparse(url).netloc not in (host, ""),
                   lambda route: route.abort())
        page.goto(f"{base}/lab?token={token}")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started",
                               timeout=scaled(60_000))
        page.evaluate("() => window.jupyterapp.started")
        assert page.evaluate(BATCH_JS), "no Markdown cell factory to batch jupyterlab-myst on"
        kernel = [None]  # the first notebook starts the kernel the others connect to

        def open_notebook(name, batch=True):
            """What Lab shows of notebook ``name`` (its Markdown as text, the raw MyST found
            in it, the number of jupyterlab-myst's notebook passes, ...), None if its Markdown
            did not render within 30 s (90 s without ``batch``: one pass a cell)."""
            page.evaluate("b => { window.mlxBatch = b; window.mlxPasses = 0; }", batch)
            kernel[0] = page.evaluate(OPEN_CHAPTER_JS, [name, kernel[0]])
            broken = page.evaluate("() => window.mlxBatchBroken")
            assert not broken, f"BATCH_JS does not fit this jupyterlab-myst: {broken}"
            if not (_settled(page, RENDERED_JS, timeout=30_000 if batch else 90_000)
                    and page.evaluate(DRAWN_JS, scaled(30_000))):
                page.screenshot(path=str(ARTIFACTS / f"myst_{name.replace('/', '_')}.png"))
                return None
            state = page.evaluate(STATE_JS)
            state["passes"] = page.evaluate("() => window.mlxPasses")
            page.evaluate("() => { window.mlxBatch = true; }")
            state["text"] = text = "\n".join(state.pop("texts"))
            state["raw"] = {kind: sorted(set(rx.findall(text)))[:5]
                            for kind, rx in RAW_MYST.items() if rx.search(text)}
            (ARTIFACTS / f"myst_{name.replace('/', '_')}.json").write_text(
                json.dumps(state, indent=1))
            return state

        def open_page(name):
            """The references and citations Lab shows "Not Found" in the Markdown page
            ``name`` (None: it did not render within 30 s)."""
            page.evaluate(OPEN_MARKDOWN_JS, name)
            if not (_settled(page, "() => window.jupyterapp.shell.currentWidget?.node"
                                   ".querySelector('.myst')", timeout=30_000)
                    and page.evaluate(DRAWN_JS, scaled(30_000))):
                return None
            return page.evaluate(UNRESOLVED_JS)

        yield SimpleNamespace(root=root, open=open_notebook, open_page=open_page)
        context.close()


def _settled(page, expression, timeout):
    """Whether the JS ``expression`` becomes true within ``timeout`` ms (``scaled`` for this
    machine), looked at every 200 ms (not every frame, as ``wait_until`` does: the page renders
    meanwhile)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(expression, timeout=scaled(timeout), polling=200)
        return True
    except PlaywrightTimeout:
        return False


def expected_numbers(root, name):
    """{label: number} Lab must show in chapter ``name`` (a copy in ``root``): the built
    book's, less the equations' where the front matter turns Lab's equation numbers off. None:
    not a page of the book."""
    book = book_numbers(name)
    if book is None and book_numbers("pca.ipynb") is None:
        if browser_required():
            pytest.fail("_build/html is missing: run `make book` before the browser tests")
        pytest.skip("the book is not built (make book): numbers not compared")
    if book is not None and equations_off(root / name):  # Lab shows no equation numbers
        book = {k: v for k, v in book.items() if not v.startswith("(")}
    return book


@pytest.mark.parametrize("name", CHAPTERS_BY_COST)
def test_every_chapter_renders_its_myst_in_jupyterlab_and_opens_unmodified(myst_lab, name):
    """jupyterlab-myst renders the chapter's directives, roles and labels (no MyST source is
    visible; every proof, theorem, exercise and solution shows as its box), every reference
    and citation reads as text (none "Not Found": references outside a notebook and citations
    are links with the book's text, tests/test_lab_references.py), and opening the chapter
    (its kernel connected) leaves it unmodified.

    Numbers: every theorem-like box, exercise and equation jupyterlab-myst numbers carries the
    number the built book prints for the same label, and the book's numbered items all show
    theirs (equations excepted in a chapter whose front matter turns them off: see
    .dev/lab_references.py). test_the_myst_checks_fail_on_mutants shows each check can fail."""
    state = myst_lab.open(name)
    assert state is not None, f"{name}: its Markdown did not render within 30 s"
    assert not state["unresolved"], (
        f"{name}: references or citations JupyterLab shows as 'Not Found' "
        f"(.dev/lab_references.py rewrites them): {state['unresolved'][:5]}")
    assert not state["raw"], f"{name}: MyST source visible in JupyterLab: {state['raw']}"
    assert not state["dirty"], f"{name}: modified by opening it: {state['kernelspec']}"
    source = "\n".join(_markdown(ROOT / "book" / name))
    assert state["proofs"] >= len(PROOF_RE.findall(source)), state
    assert state["exercises"] >= len(EXERCISE_RE.findall(source)), state

    book = expected_numbers(myst_lab.root, name)
    if book is None:
        return  # not a page of the book
    bad = numbering_differences(state["numbers"], book)
    assert not bad, (f"{name}: numbers JupyterLab shows that are not the book's (label, Lab, "
                     f"book); run .dev/lab_references.py --front-matter: {bad[:6]}")


def test_the_myst_checks_fail_on_mutants(myst_lab):
    """A reference to another chapter's theorem is seen "Not Found"; an indented admonition
    and a label inside a code fence are seen raw; PCA without its numbering front matter
    disagrees with the book's numbers."""
    unresolved = myst_lab.open(UNRESOLVED_MUTANT)
    assert unresolved is not None and len(unresolved["unresolved"]) == 1, (
        f"the mutant's reference to another chapter was not seen as unresolved: {unresolved}")
    raw = myst_lab.open(RAW_MUTANT)
    assert raw is not None and {"fence", "directive", "label"} <= set(raw["raw"]), raw
    numbered = myst_lab.open(NUMBERING_MUTANT)
    assert numbered is not None and numbered["numbers"], numbered
    # (compared as the chapter is: the mutant's equations unnumbered, as PCA's own are)
    book = expected_numbers(myst_lab.root, "pca.ipynb")
    assert numbering_differences(numbered["numbers"], book), (
        "PCA without its numbering front matter numbered as the book: the check cannot fail")


# the chapter rendered both ways: proofs, numbered equations and references across its cells,
# and few cells (jupyterlab-myst's own way costs cells^2)
EQUIVALENCE_CHAPTER = "appendix_linalg.ipynb"
# what the comparison covers: everything the chapter checks read
COMPARED = ("text", "unresolved", "numbers", "proofs", "exercises", "admonitions", "katex",
            "equations", "dirty")


def test_batched_rendering_shows_what_jupyterlab_myst_shows(myst_lab):
    """The chapter checks see what jupyterlab-myst's own rendering shows: a chapter rendered
    with one notebook pass a cell (jupyterlab-myst's way) and with BATCH_JS's shared passes
    shows the same text, numbers, references and boxes, and sharing made fewer passes."""
    cells = len(_markdown(ROOT / "book" / EQUIVALENCE_CHAPTER))
    own = myst_lab.open(EQUIVALENCE_CHAPTER, batch=False)
    assert own is not None, "the chapter did not render in jupyterlab-myst's own way"
    shared = myst_lab.open(EQUIVALENCE_CHAPTER)
    assert shared is not None, "the chapter did not render with shared passes"
    assert own["passes"] >= cells > shared["passes"] >= 1, (own["passes"], shared["passes"])
    assert own["numbers"] and own["proofs"], own  # a chapter whose comparison says something
    differ = [key for key in COMPARED if own[key] != shared[key]]
    assert not differ, {key: (own[key], shared[key]) for key in differ}


def test_the_books_markdown_pages_show_no_reference_not_found(myst_lab):
    """The book's Markdown pages in JupyterLab's Markdown preview: none "Not Found"."""
    found = {name: myst_lab.open_page(name) for name in MARKDOWN_PAGES}
    assert all(v is not None for v in found.values()), (
        f"pages whose markdown did not render within 30 s: {found}")
    unresolved = {name: v[:5] for name, v in found.items() if v}
    assert not unresolved, ("references or citations JupyterLab shows as 'Not Found' "
                            f"(.dev/lab_references.py rewrites them): {unresolved}")


def test_the_chapters_hold_what_the_lab_checks_compare():
    """The per-chapter checks are not empty: the chapters hold 50 or more proofs and exercises
    each, and the book numbers 150 or more items that Lab's numbers are compared with."""
    sources = ["\n".join(_markdown(ROOT / "book" / name)) for name in CHAPTERS]
    assert sum(len(PROOF_RE.findall(s)) for s in sources) >= 50
    assert sum(len(EXERCISE_RE.findall(s)) for s in sources) >= 50
    numbers = [book_numbers(name) for name in CHAPTERS]
    if all(n is None for n in numbers):
        if browser_required():
            pytest.fail("_build/html is missing: run `make book` before the browser tests")
        pytest.skip("the book is not built (make book): numbers not counted")
    assert sum(len(n or {}) for n in numbers) >= 150  # 192 numbered items when written


def equations_off(path):
    """Whether the notebook's front matter turns jupyterlab-myst's equation numbers off."""
    source = "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])
    block = re.match(r"\A---\n(.*?\n)---\n", source, re.DOTALL)
    if not block:
        return False
    import yaml

    numbering = (yaml.safe_load(block[1]) or {}).get("numbering") or {}
    return (numbering.get("equation") or {}).get("enabled") is False


# --- a live explorer in JupyterLab: every control moves the figure, or says why it cannot ----
KPCA_SOURCE = "import mlnotes as ml\nml.widgets.kernel_pca_explorer(n_samples=120)"
# The mutant: an explorer that disables none of the controls a setting makes useless; the
# checks of the sliders' states (waited for, each widget in its own state) must fail on it (run
# on demand: MLNOTES_TIMING_MUTANTS=1).
KPCA_MUTANT_SOURCE = ("import mlnotes as ml\nex = ml.widgets.kernel_pca_explorer(n_samples=120)\n"
                      "ex.irrelevant = lambda **params: {}\nex")
# Whether each slider of the first output is disabled (in order)
SLIDERS_DISABLED_JS = """() => [...document.querySelector('.jp-OutputArea-output')
  .querySelectorAll('.widget-slider')]
  .map(s => !!s.querySelector('.noUi-target[disabled], [disabled]'))"""
# Whether the first output's sliders are as ``disabled`` says ({index: true if disabled}) and
# its text has (true) or has not (false) each text of ``says``
LIVE_STATE_JS = """([disabled, says]) => {
  const out = document.querySelector('.jp-OutputArea-output');
  if (!out) return false;
  const sliders = [...out.querySelectorAll('.widget-slider')];
  const text = out.innerText;
  return Object.entries(disabled).every(([k, off]) => !!sliders[k]
           && !!sliders[k].querySelector('.noUi-target[disabled], [disabled]') === off)
    && Object.entries(says).every(([t, present]) => text.includes(t) === present);
}"""


@LIVE
def test_every_control_of_a_live_explorer_redraws_or_is_disabled_with_its_reason(browser,
                                                                                 live_lab):
    """Kernel PCA's explorer in JupyterLab: a figure as soon as the cell runs (no static
    fallback), gamma and the data set redraw it; the linear kernel disables gamma and the
    degree and says why; the poly kernel enables the degree, which redraws it."""
    _check_live_kpca(browser, live_lab, "kpca")


@LIVE
@pytest.mark.skipif(not os.environ.get("MLNOTES_TIMING_MUTANTS"),
                    reason="run on demand: MLNOTES_TIMING_MUTANTS=1")
def test_the_live_controls_check_fails_its_mutant(browser, live_lab):
    with pytest.raises(AssertionError, match="rbf: sliders disabled"):
        _check_live_kpca(browser, live_lab, "kpca_mutant")


def _check_live_kpca(browser, live_lab, name):
    """The checks of the test above on the explorer of notebook ``name``."""
    base, token = live_lab
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    host = urlparse(base).netloc
    page.route(lambda url: urlparse(url).netloc not in (host, ""), lambda route: route.abort())
    out = page.locator(".jp-OutputArea-output").first
    image = out.locator("img.widget-image")
    try:
        page.goto(f"{base}/lab/workspaces/{name}/tree/{name}.ipynb?token={token}")
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=scaled(60_000))
        for _ in range(3):
            page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
            page.keyboard.press("Shift+Enter")
            if wait_until(page, "() => document.querySelector('.jp-OutputArea-output "
                                "img.widget-image')", timeout=60_000):
                break
        page.wait_for_function("() => { const i = document.querySelector("
                               "'.jp-OutputArea-output img.widget-image');"
                               " return i && i.complete && i.naturalWidth > 0; }",
                               timeout=scaled(30_000))
        assert "needs JavaScript" not in out.inner_text()

        def src():
            return image.get_attribute("src")

        def changed(before, what):
            ok = wait_until(page, "b => { const i = document.querySelector("
                            "'.jp-OutputArea-output img.widget-image');"
                            " return i.getAttribute('src') !== b && i.complete; }",
                            arg=before, timeout=30_000)
            assert ok, f"{what}: the figure did not change"

        def shows(disabled, says, what):
            """Wait until the sliders of ``disabled`` ({index: True if disabled}) are so and
            the output's text has (True) or has not (False) each text of ``says``: the
            sliders, the reason line and the picture are widgets of their own, whose messages
            the page applies on separate promise chains, so one that has changed says nothing
            of the others (read at once, a slider could still be enabled)."""
            ok = wait_until(page, LIVE_STATE_JS, [disabled, says], timeout=30_000, polling=100)
            assert ok, (f"{what}: sliders disabled {page.evaluate(SLIDERS_DISABLED_JS)} "
                        f"(wanted {disabled}), text {out.inner_text()!r} (wanted {says})")

        def slider(k):
            return out.locator(".widget-slider").nth(k)

        # default rbf kernel: degree disabled (with its reason), gamma moves the figure
        shows({1: True}, {"degree is disabled: only the poly kernel": True}, "rbf")
        before = src()
        slider(0).locator(".noUi-handle").focus()
        page.keyboard.press("ArrowRight")
        changed(before, "gamma")
        for kernel in ("linear", "poly"):
            before = src()
            out.locator(".widget-toggle-button", has_text=kernel).first.click()
            changed(before, f"kernel {kernel}")
            if kernel == "linear":
                shows({0: True, 1: True}, {"the linear kernel has no gamma": True}, "linear")
        shows({1: False}, {"is disabled": False}, "poly")
        before = src()
        slider(1).locator(".noUi-handle").focus()
        page.keyboard.press("ArrowRight")
        changed(before, "degree")
        before = src()
        data = out.locator(".widget-toggle-buttons").first.locator("button")
        data.nth(1).click()
        changed(before, "data set")
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}_failure.png"))
        raise
    finally:
        page.context.close()
