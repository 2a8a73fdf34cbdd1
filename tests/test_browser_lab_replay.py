"""A replay explorer in JupyterLab, in a real browser: "play" shows every frame.

JupyterLab (started as in ``test_browser_lab``) runs a small t-SNE explorer (31 snapshots) in
headless Chromium. Once the kernel has sent every snapshot (slider and play enabled), "play"
runs from the first snapshot to the last while the kernel is kept busy by another cell: each
snapshot's picture must appear in the page, in order (a ``MutationObserver`` counts the pictures
shown), since the replay runs in the page alone. The snapshot slider then moves a picture with
the kernel still busy.
"""

import json

import pytest
from test_browser_lab import ARTIFACTS, run_lab

from browser_support import scaled

# both tests share one JupyterLab (a module fixture): xdist sends them to one worker
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("jupyterlab-replay")]

N_FRAMES = 31  # max_iter=300, a snapshot every 10 iterations and the start
CELL = ("import mlnotes as ml\n"
        "ml.widgets.tsne_explorer(case='two_clusters', n_samples=60, max_iter=300)")
# Keeps the kernel busy until the test writes RELEASE (in the notebook's folder, the kernel's
# working folder) once its checks are done (also when they fail), 300 s at most (only if the
# test itself dies: its checks take 5-10 s here, and a slow machine's must not outlast the busy
# cell): the next test's kernel is idle at once, instead of after a fixed 30 s sleep.
RELEASE = "release-the-busy-cell"
BUSY = ("import pathlib, time\n"
        "deadline = time.monotonic() + 300\n"
        f"while not pathlib.Path({RELEASE!r}).exists() and time.monotonic() < deadline:\n"
        "    time.sleep(0.05)")
OUTPUT = ".jp-Notebook .jp-CodeCell .jp-OutputArea"
# The picture the output shows (the replay stacks one image a snapshot, the others hidden)
SHOWN_JS = ("(out) => [...out.querySelectorAll('img.widget-image')]"
            ".find(i => i.offsetParent !== null)")
# The snapshot number of every picture shown (its order in the stack's children is not in the
# DOM: the slider's value when the picture loads), recorded in the page.
WATCH = ("""() => {
  const out = document.querySelector('%s');
  const visible = """ + SHOWN_JS + """;
  window.shown = [];
  let src = null;
  const look = () => {
    const img = visible(out);
    if (!img || img.src === src) return;
    src = img.src;
    const handles = out.querySelectorAll('.widget-slider .noUi-handle');
    const at = +handles[handles.length - 1].getAttribute('aria-valuenow');
    const done = () => window.shown.push(at);
    if (img.complete && img.naturalWidth) done();
    else img.addEventListener('load', done, {once: true});
  };
  new MutationObserver(look).observe(out, {subtree: true, childList: true, attributes: true,
                                           attributeFilter: ['src']});
}""") % OUTPUT
# Every new picture the output shows from now on, in the order shown, each by a digest of its
# PNG's bytes (read from its blob URL: the page revokes a URL only 10 s after leaving it). The
# picture itself says which one it is: another widget read at the same moment (the progress
# bar) is no clock of it, since the page applies each widget's messages on its own chain, and
# a busy page applied the bar's last value before the image's first one.
DIGEST_JS = """async (src) => {
  const bytes = new Uint8Array(await (await fetch(src)).arrayBuffer());
  let h = 0x811c9dc5;  // FNV-1a
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return `${bytes.length}:${h.toString(16)}`;
}"""
NEW_PICTURES = """() => {
  const out = document.querySelector('%s');
  const digest = """ + DIGEST_JS + """;
  window.runShown = [];
  const visible = """ + SHOWN_JS + """;
  let src = visible(out).src;  // the picture already there is not a new one
  const look = () => {
    const img = visible(out);
    if (!img || img.src === src) return;
    src = img.src;
    const at = window.runShown.push(null) - 1;
    digest(src).then(d => { window.runShown[at] = d; });
  };
  new MutationObserver(look).observe(out, {subtree: true, childList: true, attributes: true,
                                           attributeFilter: ['src', 'style', 'class']});
}"""
SHOWN_DIGEST = ("() => (" + DIGEST_JS + ")((" + SHOWN_JS
                + ")(document.querySelector('%s')).src)")


@pytest.fixture(scope="module")
def replay_lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("replay")
    notebook = {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
                   "outputs": [], "source": source} for i, source in enumerate([CELL, BUSY])],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                    "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    (root / "replay.ipynb").write_text(json.dumps(notebook))
    with run_lab(root) as (base, token):
        yield base, token, root


def test_play_shows_every_frame_while_the_kernel_is_busy(browser, replay_lab):
    base, token, root = replay_lab
    (root / RELEASE).unlink(missing_ok=True)
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    out = page.locator(OUTPUT).first
    handle = out.locator(".widget-slider .noUi-handle").last  # the snapshot slider
    try:
        page.goto(f"{base}/lab/tree/replay.ipynb?token={token}")
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=60_000)
        page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
        page.keyboard.press("Shift+Enter")
        out.locator("img.widget-image").wait_for(timeout=120_000)
        play = out.locator(".widget-play button").first
        page.wait_for_function("b => !b.disabled", arg=play.element_handle(), timeout=120_000)
        assert float(handle.get_attribute("aria-valuemax")) == N_FRAMES - 1
        handle.focus()
        page.keyboard.press("Home")  # the first snapshot, drawn in the page
        page.wait_for_function("h => +h.getAttribute('aria-valuenow') === 0",
                               arg=handle.element_handle(), timeout=10_000)
        page.evaluate(WATCH)

        # the second cell keeps the kernel busy while play runs (3.1 s at 100 ms), until
        # released below
        page.locator(".jp-Notebook .jp-Cell .cm-content").nth(1).click()
        page.keyboard.press("Shift+Enter")
        # (the cell's prompt, not the status bar: JupyterLab may answer widget messages on a
        # subshell, whose idle status the status bar shows while the cell still runs)
        busy = page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").nth(1)
        page.wait_for_function("p => p.textContent.includes('*')", arg=busy.element_handle(),
                               timeout=10_000)
        play.click()
        page.wait_for_function(
            f"() => window.shown.length >= {N_FRAMES - 1} || window.shown.at(-1) === "
            f"{N_FRAMES - 1}", timeout=60_000)
        # play has stopped (its button shows "play" again): no picture of its is on its way,
        # however slow the machine (a fixed 500 ms pause was this machine's guess)
        page.wait_for_function("b => !!b.querySelector('i.fa-play')", arg=play.element_handle(),
                               timeout=scaled(30_000))
        shown = page.evaluate("() => window.shown")
        assert shown == list(range(1, N_FRAMES)), f"play showed snapshots {shown}"

        handle.focus()
        page.keyboard.press("Home")  # the slider too answers without the kernel
        page.wait_for_function("() => window.shown.at(-1) === 0", timeout=5_000)
        assert "*" in busy.text_content(), "the busy cell ended before the checks"
        (root / RELEASE).touch()
        page.wait_for_function("p => !p.textContent.includes('*')", arg=busy.element_handle(),
                               timeout=30_000)
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "replay_failure.png"))
        raise
    finally:
        (root / RELEASE).touch()
        page.context.close()
    assert not errors, f"page errors: {errors[:5]}"


def test_a_new_run_shows_its_start_then_its_end_in_the_page(browser, replay_lab):
    """A control that starts a new run: the page shows a new picture while the run is under
    way (one that is not the run's end: ``NEW_PICTURES``), then the run's end, and play is
    enabled with every snapshot of the new run."""
    base, token, _ = replay_lab
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    out = page.locator(OUTPUT).first
    try:
        page.goto(f"{base}/lab/tree/replay.ipynb?token={token}")
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=60_000)
        page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
        page.keyboard.press("Shift+Enter")
        play = out.locator(".widget-play button").first
        play.wait_for(timeout=120_000)
        page.wait_for_function("b => !b.disabled", arg=play.element_handle(), timeout=120_000)
        page.evaluate(NEW_PICTURES % OUTPUT)
        perplexity = out.locator(".widget-slider").nth(0).locator(".noUi-handle")
        perplexity.focus()
        page.keyboard.press("ArrowRight")  # perplexity 30 -> 50: a new run
        page.wait_for_function("b => b.disabled", arg=play.element_handle(), timeout=30_000)
        page.wait_for_function("b => !b.disabled", arg=play.element_handle(), timeout=120_000)
        # the run's end: the picture shown now, once every picture seen has been read
        end = page.evaluate(SHOWN_DIGEST % OUTPUT)
        page.wait_for_function("() => window.runShown.every(d => d !== null)",
                               timeout=scaled(10_000))
        shown = page.evaluate("() => window.runShown")
        assert end in shown, f"the run's end ({end}) never shown as a new picture: {shown}"
        before = shown[:shown.index(end)]
        assert before, f"no picture before the run's end: {shown}"
        handle = out.locator(".widget-slider .noUi-handle").last
        assert float(handle.get_attribute("aria-valuemax")) == N_FRAMES - 1
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "new_run_failure.png"))
        raise
    finally:
        page.context.close()
    assert not errors, f"page errors: {errors[:5]}"
