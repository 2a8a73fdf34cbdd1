"""The static explorers in a real browser: every control of every explorer moves the picture.

A small Jupyter Book is built in a temporary directory: two pages (one at the top, one a folder
deeper, as ``book/`` and ``book/homework/``) whose cells carry the static output of the ten
explorers, exactly as an executed chapter saves it (small sizes, so that it builds in seconds),
with the book's explorer extension, script and style. Headless Chromium (``/usr/bin/chromium``)
then moves each control with the keyboard or a click (a tap at phone width), and checks that the
canvases' pixels change, that nothing is requested from another host and that no error is
logged. Screenshots at 1366 and 390 px, light and dark, go to ``tests/artifacts/explorers/``.
"""

import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
from urllib.parse import urlparse

import nbformat
import pytest

import mlnotes.widgets as mw

from browser_support import (
    POLL_MS,
    ROOT,
    after_transitions,
    scaled,
    serve_directory,
    serve_mutant,
    wait_until,
)

# one pytest-xdist worker runs the whole file, so the small book below is built once
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("explorer_book")]

ARTIFACTS = ROOT / "tests" / "artifacts" / "explorers"
# (page, source shown in the cell, explorer): small sizes, the chapters' controls
PAGES = {
    "explorers": [
        ("ml.widgets.pca_explorer(angle=60)", lambda: mw.pca_explorer(angle=60)),
        ("ml.widgets.mds_explorer()", lambda: mw.mds_explorer(n_samples=120)),
        ("ml.widgets.smacof_explorer()", lambda: mw.smacof_explorer(n_samples=80, max_iter=20)),
        ("ml.widgets.kernel_pca_explorer()", lambda: mw.kernel_pca_explorer(n_samples=120)),
        ("ml.widgets.isomap_explorer()", lambda: mw.isomap_explorer()),
    ],
    "deeper/explorers": [
        ("ml.widgets.lle_explorer()", lambda: mw.lle_explorer(n_samples=300)),
        ("ml.widgets.eigenmaps_explorer()", lambda: mw.eigenmaps_explorer(n_samples=300)),
        ("ml.widgets.tsne_explorer()", lambda: mw.tsne_explorer(n_samples=60, max_iter=300)),
        ("ml.widgets.autoencoder_explorer()", lambda: mw.autoencoder_explorer(n_samples=100)),
        ("ml.widgets.umap_explorer()", lambda: mw.umap_explorer(n_samples=150, n_epochs=60)),
    ],
}
CONFIG = """title: explorers
execute:
  execute_notebooks: "off"
only_build_toc_files: true
sphinx:
  local_extensions:
    explorers: _ext
    selfcontained: _ext
  config:
    html_static_path: ["_static"]
    html_context:
      default_mode: light
"""
TOC = """format: jb-book
root: intro
chapters:
- file: explorers
- file: deeper/explorers
"""


def _notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata.update(kernelspec={"name": "python3", "display_name": "Python 3 (ipykernel)",
                                   "language": "python"},
                       language_info={"name": "python"})
    nb.cells.append(nbformat.v4.new_markdown_cell("# Explorers"))
    for source, make in cells:
        bundle = make().static_bundle()
        cell = nbformat.v4.new_code_cell(source, execution_count=1)
        cell.outputs = [nbformat.v4.new_output("execute_result", data=bundle, execution_count=1)]
        nb.cells.append(cell)
    return nb


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    src = tmp_path_factory.mktemp("explorer_book")
    (src / "_config.yml").write_text(CONFIG)
    (src / "_toc.yml").write_text(TOC)
    (src / "intro.md").write_text("# Intro\n")
    (src / "_ext").mkdir()
    for name in ("explorers.py", "selfcontained.py"):  # the book's own (no Thebe, no CDN)
        shutil.copy(ROOT / "book" / "_ext" / name, src / "_ext")
    (src / "_static").mkdir()
    for name in ("explorer.js", "explorer.css"):
        shutil.copy(ROOT / "book" / "_static" / name, src / "_static")
    for page, cells in PAGES.items():
        (src / page).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(_notebook(cells), src / f"{page}.ipynb")
    out = tmp_path_factory.mktemp("explorer_build")
    jupyter_book = pathlib.Path(sys.executable).with_name("jupyter-book")
    subprocess.run([str(jupyter_book), "build", str(src), "--path-output", str(out),
                    "--warningiserror", "--quiet"], check=True, cwd=src)
    with serve_directory(out / "_build" / "html") as url:
        yield url


PIXELS_JS = """root => Array.from(root.querySelectorAll('canvas')).map(c => c.toDataURL()).join('|')"""
# Every text an explorer draws on its canvases (tick and axis labels, text layers), with the
# CSS pixels it is shown at: the font's size times the drawing's scale (the context's transform,
# rotation included) times the canvas' shown width over its pixel width (a canvas stretched or
# shrunk by the page shows its text so much larger or smaller). The same rule as the figures'
# (mlnotes.plotting.PHONE_MIN_TEXT_PX at a 390 px screen), for the pictures the static book draws.
CANVAS_TEXT_JS = """(() => {
  window.mlxCanvasTexts = [];
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    const c = this.canvas, m = this.getTransform();
    const size = parseFloat((this.font.match(/([0-9.]+)px/) || [0, 0])[1]);
    if (c.closest && c.closest('.mlnotes-explorer') && String(text).trim() && c.width) {
      window.mlxCanvasTexts.push({text: String(text).slice(0, 30),
        px: size * Math.hypot(m.a, m.b) * c.getBoundingClientRect().width / c.width});
    }
    return fill.call(this, text, ...rest);
  };
})();"""


def _small_canvas_texts(tab):
    """The texts the page's explorers drew on canvas under ``PHONE_MIN_TEXT_PX`` as shown, and
    how many texts were drawn in all."""
    from mlnotes.plotting import PHONE_MIN_TEXT_PX

    drawn = tab.evaluate("window.mlxCanvasTexts")
    return [t for t in drawn if t["px"] < PHONE_MIN_TEXT_PX - 0.05], len(drawn)


def _open(browser, site, page, *, width, touch=False, mutant=None):
    """The page, with every explorer started; records requests to other hosts, errors and the
    texts drawn on the explorers' canvases (``CANVAS_TEXT_JS``). ``mutant``: a static file's
    name and (find, replace), served instead of the file."""
    host = urlparse(site).netloc
    context = browser.new_context(viewport={"width": width, "height": 900}, has_touch=touch,
                                  is_mobile=touch)
    if mutant:
        serve_mutant(context, mutant[0], mutant[1])
    tab = context.new_page()
    tab.outside, tab.errors = [], []
    tab.on("request", lambda r: tab.outside.append(r.url) if urlparse(r.url).scheme in ("http", "https")
           and urlparse(r.url).netloc != host else None)
    tab.on("console", lambda m: tab.errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: tab.errors.append(str(e)))
    tab.route(lambda url: urlparse(url).netloc not in (host, ""), lambda route: route.abort())
    tab.add_init_script(CANVAS_TEXT_JS)
    tab.goto(f"{site}/{page}.html", wait_until="networkidle")
    tab.wait_for_function("window.MLNotesExplorers !== undefined", polling=POLL_MS,
                          timeout=scaled(30_000))
    tab.evaluate("MLNotesExplorers.initAll()")
    tab.wait_for_function("document.querySelectorAll('.mlnotes-explorer.mlx-ready').length === "
                          "document.querySelectorAll('.mlnotes-explorer').length", polling=POLL_MS,
                          timeout=scaled(30_000))
    return tab


def _picture(root):
    return hashlib.sha1(root.evaluate(PIXELS_JS).encode()).hexdigest()


def _move_everything(tab, root, *, tap=False):
    """Move each control (radio groups cycle through their options, sliders step with the
    arrow keys; disabled ones wait until another control enables them); each move must change
    the picture. Returns the names of the controls moved."""
    moved = set()
    n_controls = root.evaluate("r => r.querySelectorAll('.mlx-control:not(.mlx-fixed)').length")
    for _ in range(6):
        for i in range(n_controls):
            control = root.locator(".mlx-control:not(.mlx-fixed)").nth(i)
            name = control.evaluate("c => (c.querySelector('legend, label') || {}).textContent")
            before, state = _picture(root), root.get_attribute("data-mlx-state")
            radios = control.locator("input[type=radio]")
            if radios.count():
                if radios.first.is_disabled():
                    continue
                checked = [radios.nth(k).is_checked() for k in range(radios.count())]
                target = control.locator("label").nth((checked.index(True) + 1) % radios.count())
                target.tap() if tap else target.click()
            elif control.locator("input[type=range]").count():
                slider = control.locator("input[type=range]")
                if slider.is_disabled():
                    continue
                at_end = slider.evaluate("s => +s.value === +s.max")
                slider.focus()
                tab.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
            else:
                continue
            assert _state_changed(tab, root, state), f"{name}: the setting did not change"
            assert _picture(root) != before, f"{name}: the picture did not change"
            moved.add(name)
        if len(moved) == n_controls:
            break
    return moved


def _state_changed(tab, root, state):
    """Whether the explorer ``root`` comes to show a setting other than ``state`` (its
    ``data-mlx-state``, which explorer.js sets once it has drawn a setting): a tap's click
    comes from the touch screen's gesture, after the tap itself has returned."""
    return wait_until(tab, "([r, s]) => r.getAttribute('data-mlx-state') !== s",
                      [root.element_handle(), state], timeout=5000, polling=POLL_MS)


def _redrawn(roots, before, timeout_s=5.0):
    """The explorers' pictures once every one differs from ``before`` (they redraw on the
    next frame after a theme change), or as they are when ``timeout_s`` (``scaled`` for this
    machine) has passed."""
    deadline = time.monotonic() + scaled(timeout_s)
    while True:
        after = [_picture(roots.nth(i)) for i in range(roots.count())]
        if all(a != b for a, b in zip(before, after, strict=True)) or time.monotonic() > deadline:
            return after
        time.sleep(0.05)


def _labels(root):
    return root.evaluate("r => Array.from(r.querySelectorAll('.mlx-control:not(.mlx-fixed)'))"
                         ".map(c => (c.querySelector('legend, label') || {}).textContent)")


@pytest.mark.parametrize("page", list(PAGES))
def test_every_control_of_every_explorer_moves_the_picture(page, site, browser):
    tab = _open(browser, site, page, width=1366)
    # the script and the style were loaded relative to the page's depth, by the extension
    scripts = tab.evaluate("Array.from(document.scripts).map(s => s.getAttribute('src') || '')")
    prefix = "../" if "/" in page else ""
    assert any(s.startswith(f"{prefix}_static/explorer.js") for s in scripts), scripts
    roots = tab.locator(".mlnotes-explorer")
    assert roots.count() == len(PAGES[page])
    for i in range(roots.count()):
        root = roots.nth(i)
        root.scroll_into_view_if_needed()
        assert root.locator("canvas").count() >= 2
        assert "This page holds" in root.locator(".mlx-note").text_content()
        moved = _move_everything(tab, root)
        never = set(_labels(root)) - moved
        assert not never, f"explorer {i}: controls never moved: {never}"
        play = root.locator("button.mlx-play")
        if play.count():  # a replay: from the first snapshot, play advances it
            frame = root.locator(".mlx-replay input[type=range]")
            frame.focus()
            tab.keyboard.press("Home")
            first = _picture(root)
            play.click()
            tab.wait_for_function("f => +f.value > 1", arg=frame.element_handle(),
                                  timeout=scaled(5000))
            assert _picture(root) != first
            play.click()  # pause
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{page.replace('/', '_')}_1366.png"), full_page=True)
    before = [_picture(roots.nth(i)) for i in range(roots.count())]
    tab.evaluate("document.documentElement.setAttribute('data-theme', 'dark')")
    after = _redrawn(roots, before)
    assert all(a != b for a, b in zip(before, after, strict=True)), "dark mode did not redraw"
    tab.screenshot(path=str(ARTIFACTS / f"{page.replace('/', '_')}_1366_dark.png"), full_page=True)
    assert not tab.outside, f"requests to other hosts: {tab.outside[:5]}"
    assert not tab.errors, f"console errors: {tab.errors[:5]}"
    tab.context.close()


@pytest.mark.parametrize("page", list(PAGES))
def test_explorers_fit_a_phone_and_answer_to_touch(page, site, browser):
    tab = _open(browser, site, page, width=390, touch=True)
    overflow = tab.evaluate("""Array.from(document.querySelectorAll('.mlnotes-explorer *')).filter(
        e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length""")
    assert overflow == 0, "an explorer is wider than the phone's screen"
    root = tab.locator(".mlnotes-explorer").first
    root.scroll_into_view_if_needed()
    radio_group = root.locator("fieldset.mlx-choice")
    if radio_group.count():
        before, state = _picture(root), root.get_attribute("data-mlx-state")
        radio_group.first.locator("label").last.tap()
        assert _state_changed(tab, root, state), "a tap on an option changed no setting"
        assert _picture(root) != before
    small = tab.evaluate("""Array.from(document.querySelectorAll(
        '.mlnotes-explorer input[type=range], .mlnotes-explorer .mlx-choice label, .mlnotes-explorer button'))
        .filter(e => e.getBoundingClientRect().height < 43.5).length""")
    assert small == 0, "touch targets under 44 px high"
    tiny = tab.evaluate("""Array.from(document.querySelectorAll('.mlnotes-explorer *'))
        .filter(e => e.childNodes.length && Array.from(e.childNodes).some(n => n.nodeType === 3
                 && n.textContent.trim()) && e.getBoundingClientRect().width > 0
                 && parseFloat(getComputedStyle(e).fontSize) < 13.9)
        .map(e => e.textContent.trim().slice(0, 30))""")
    assert not tiny, f"explorer text under 14 px on a phone: {tiny[:5]}"
    # the pictures' own texts (tick labels, axis labels, labels on the data) as the phone
    # shows them: at least the figures' 9 px
    small, drawn = _small_canvas_texts(tab)
    assert drawn and not small, f"{len(small)} of {drawn} texts drawn under 9 px: {small[:5]}"
    # one-handed: with the main panel scrolled to mid-screen, the controls are still on screen
    sticky = root.evaluate("""r => {
        const controls = r.querySelector('.mlx-controls'), canvas = r.querySelector('canvas');
        window.scrollTo(0, canvas.getBoundingClientRect().top + scrollY - innerHeight / 2);
        const c = controls.getBoundingClientRect(), p = canvas.getBoundingClientRect();
        return {controls_on_screen: c.top >= 0 && c.bottom <= innerHeight,
                panel_on_screen: p.bottom > c.bottom + 40 && p.top < innerHeight}; }""")
    assert sticky == {"controls_on_screen": True, "panel_on_screen": True}, sticky
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{page.replace('/', '_')}_390.png"), full_page=True)
    # dark mode: no light band around the explorer (the output area the theme paints light)
    band = _band_in_dark(tab, root)
    assert band < 0.35, f"a light band (luminance {band:.2f}) around the explorer in dark mode"
    assert not tab.outside and not tab.errors, (tab.outside[:5], tab.errors[:5])
    tab.context.close()


def test_the_phone_text_check_sees_a_small_font_in_an_explorers_picture(site, browser):
    """The mutant of the check above: explorer.js drawing its text layers (the labels placed
    on the data, e.g. the PCA explorer's curve names) at 7 px is caught on the phone."""
    mutant = ('ctx.font = "11px system-ui, sans-serif"; ctx.textAlign = l.align;',
              'ctx.font = "7px system-ui, sans-serif"; ctx.textAlign = l.align;')
    tab = _open(browser, site, "explorers", width=390, touch=True, mutant=("explorer.js", mutant))
    small, drawn = _small_canvas_texts(tab)
    assert small and len(small) < drawn, (len(small), drawn)
    assert all(t["px"] == pytest.approx(7, abs=0.2) for t in small), small[:5]
    tab.context.close()


def _band_in_dark(tab, root):
    """The luminance of the first coloured box around the explorer ``root`` once the page is
    switched to dark mode and its colours have ended their fade (not after a fixed pause)."""
    tab.evaluate("document.documentElement.setAttribute('data-theme', 'dark')")
    after_transitions(tab)
    return root.evaluate("""r => { for (let n = r.parentElement; n; n = n.parentElement) {
        const m = getComputedStyle(n).backgroundColor.match(/rgba?\\(([^)]*)\\)/);
        if (!m) continue; const [R, G, B, A] = m[1].split(',').map(Number);
        if (A === 0) continue; return (0.2126 * R + 0.7152 * G + 0.0722 * B) / 255; } return 0; }""")


def test_first_paint_does_not_wait_for_the_explorers(site, browser):
    """The script is deferred and the data is inert until used: the page's HTML parses without
    running any explorer code, and explorers far below the screen start only when needed."""
    tab = browser.new_page(viewport={"width": 1366, "height": 900})
    tab.goto(f"{site}/explorers.html", wait_until="domcontentloaded")
    attrs = tab.evaluate("""Array.from(document.scripts).filter(s => (s.src || '').includes('explorer.js'))
        .map(s => ({defer: s.defer, async: s.async}))""")
    assert attrs and all(a["defer"] or a["async"] for a in attrs), attrs
    data = tab.evaluate("Array.from(document.querySelectorAll('script.mlx-data')).map(s => s.type)")
    assert data and set(data) == {"application/gzip"}  # not executed, not parsed as script
    # the data is not in the page's HTML: the build moved it to a file of its own
    # (book/_ext/explorers.py), which the page's first paint never downloads or parses
    inline = tab.evaluate("Array.from(document.querySelectorAll('script.mlx-data'))"
                          ".filter(s => s.textContent.trim() || !s.dataset.src).length")
    assert inline == 0, f"{inline} explorer(s) carry their data inline"
    tab.close()


def test_the_build_moves_explorer_data_to_files_of_its_own(tmp_path):
    """book/_ext/explorers.py: each explorer's inline data becomes a file named by its digest
    (the same data, one file) that hands the same base64 text to explorer.js, addressed
    relative to the page."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import explorers

    from mlnotes.widgets._static import decode_spec

    html = mw.pca_explorer(angle=60).static_bundle()["text/html"]
    body = f"<p>a</p>{html}<p>b</p>{html}"
    moved = explorers.move_data_out(body, tmp_path, lambda name, _: f"../{name}")
    assert "mlx-data" in moved  # the script element stays, empty
    files = list((tmp_path / explorers.DATA_DIR).glob("*.js"))
    assert len(files) == 1, files  # the same data twice: one file
    key = files[0].stem
    assert moved.count(f'data-src="../{explorers.DATA_DIR}/{key}.js"') == 2
    assert moved.count('class="mlx-data" data-key') == 2
    assert len(moved) < len(body) - len(html) // 2
    text = files[0].read_text()
    b64 = json.loads(text[text.rindex("] = ") + 4:].rstrip().rstrip(";"))
    spec = decode_spec(f'<script type="application/gzip" class="mlx-data">{b64}</script>')
    assert spec == decode_spec(html)
    assert text.startswith("(window.MLNotesExplorerData = window.MLNotesExplorerData || {})"
                           f'["{key}"]')


def test_the_inline_loader_finds_the_script_without_the_extension(tmp_path, browser):
    """A page that did not load explorer.js itself (another builder, no extension) gets it from
    the directory of its own ``_static`` scripts, at any depth."""
    (tmp_path / "_static").mkdir()
    for name in ("explorer.js", "explorer.css"):
        shutil.copy(ROOT / "book" / "_static" / name, tmp_path / "_static")
    (tmp_path / "_static" / "documentation_options.js").write_text("var DOCUMENTATION_OPTIONS = {};")
    (tmp_path / "a" / "b").mkdir(parents=True)
    html = mw.pca_explorer().static_bundle()["text/html"]
    (tmp_path / "a" / "b" / "page.html").write_text(
        '<!doctype html><html><head><meta charset="utf-8">'
        '<script src="../../_static/documentation_options.js"></script></head>'
        f"<body>{html}</body></html>")
    with serve_directory(tmp_path) as url:
        tab = browser.new_page()
        tab.goto(f"{url}/a/b/page.html", wait_until="networkidle")
        tab.wait_for_function("window.MLNotesExplorers !== undefined", polling=POLL_MS,
                              timeout=scaled(30_000))
        tab.evaluate("MLNotesExplorers.initAll()")
        tab.wait_for_selector(".mlnotes-explorer.mlx-ready canvas", timeout=scaled(30_000))
        tab.close()


# The output area around an explorer painted light again in dark mode: the band check, which
# reads the colours once their fade has ended, must reject it (run on demand:
# ``MLNOTES_TIMING_MUTANTS=1``).
BAND_MUTANT = ("  background: transparent !important;\n  padding: 0 !important;",
               "  padding: 0 !important;")


@pytest.mark.skipif(not os.environ.get("MLNOTES_TIMING_MUTANTS"),
                    reason="run on demand: MLNOTES_TIMING_MUTANTS=1")
def test_dark_band_check_fails_its_mutant(site, browser):
    tab = _open(browser, site, "explorers", width=390, touch=True,
                mutant=("explorer.css", BAND_MUTANT))
    try:
        root = tab.locator(".mlnotes-explorer").first
        root.scroll_into_view_if_needed()
        band = _band_in_dark(tab, root)
    finally:
        tab.context.close()
    assert band >= 0.35, f"the band check passed the mutant (luminance {band:.2f})"


# explorer.js answering no tap on an option: the phone's check, which waits for the setting a
# tap's click brings, must reject it (run on demand: ``MLNOTES_TIMING_MUTANTS=1``)
TAP_MUTANT = ("r.addEventListener(\"change\", function () { if (r.checked) choose(x, j, i); });",
              "r.addEventListener(\"change\", function () {});")


@pytest.mark.skipif(not os.environ.get("MLNOTES_TIMING_MUTANTS"),
                    reason="run on demand: MLNOTES_TIMING_MUTANTS=1")
def test_tap_check_fails_its_mutant(site, browser):
    tab = _open(browser, site, "explorers", width=390, touch=True,
                mutant=("explorer.js", TAP_MUTANT))
    try:
        root = tab.locator(".mlnotes-explorer", has=tab.locator("fieldset.mlx-choice")).first
        root.scroll_into_view_if_needed()
        state = root.get_attribute("data-mlx-state")
        root.locator("fieldset.mlx-choice").first.locator("label").last.tap()
        changed = _state_changed(tab, root, state)
    finally:
        tab.context.close()
    assert not changed, "the tap check passed an explorer that answers no tap"
