"""The built book in a real browser: every page, headless Chromium driven by Playwright.

For each page of ``_build/html`` (built by ``make book``; built here if absent) this asserts:
math is typeset by the bundled MathJax with no error, every image loaded, no console error, and
no request left the local server (the book must be self-contained). A screenshot of each page is
saved to ``tests/artifacts/book/``.

Chromium comes from the system (``/usr/bin/chromium``). Where it is missing the tests skip,
except when ``CI`` or ``MLNOTES_REQUIRE_BROWSER`` is set: there they fail.
"""

import pathlib
import re
import subprocess
import sys
from urllib.parse import urlparse

import pytest
import yaml

from browser_support import ROOT, launch_chromium, serve_directory

pytestmark = pytest.mark.browser

HTML = ROOT / "_build" / "html"
ARTIFACTS = ROOT / "tests" / "artifacts" / "book"


def _toc_pages():
    """The HTML pages the book must have: one per file in _toc.yml, plus Sphinx's own."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        for key in ("parts", "chapters", "sections"):
            for child in node.get(key, []) or []:
                if "file" in child:
                    files.append(child["file"])
                walk(child)

    walk(toc)
    # Sphinx's own pages: the redirect, the general index, search, and sphinx-proof's index of
    # theorems and proofs.
    return ["index.html", "genindex.html", "search.html", "prf-prf.html"] + [f"{f}.html" for f in files]


PAGES = _toc_pages()


@pytest.fixture(scope="module")
def built():
    """The built book (``make book`` builds it first; build it here if it is missing)."""
    if not (HTML / "index.html").exists():
        subprocess.run(
            [sys.executable, "-m", "jupyter_book", "build", str(ROOT), "--warningiserror",
             "--quiet"], check=True, cwd=ROOT,
        )
    return HTML


def test_every_built_page_is_checked(built):
    built_pages = {p.relative_to(built).as_posix() for p in built.rglob("*.html")
                   if "_static" not in p.parts and "_sources" not in p.parts}
    assert built_pages == set(PAGES), (
        f"pages built but not checked: {sorted(built_pages - set(PAGES))}; "
        f"pages expected but not built: {sorted(set(PAGES) - built_pages)}")


@pytest.fixture(scope="module")
def site(built):
    with serve_directory(built) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as b:
        yield b


# Every method chapter has at least one ipywidgets explorer (DESIGN.md, "Widgets").
CHAPTERS_WITH_EXPLORERS = {
    "pca", "classical_mds", "metric_mds", "kernel_pca", "isomap", "lle", "eigenmaps", "tsne",
    "autoencoders",
}

EXPLORER_OUTPUTS_JS = """
Array.from(document.querySelectorAll('div.cell')).filter(
    c => /widgets\\.\\w+_explorer\\(/.test((c.querySelector('.cell_input') || {}).textContent || '')
).map(c => {
    const out = c.querySelector('.cell_output');
    const imgs = out ? Array.from(out.querySelectorAll('img')).filter(
        i => i.complete && i.naturalWidth > 50) : [];
    return {source: c.querySelector('.cell_input').textContent.trim(),
            images: imgs.length, height: out ? out.getBoundingClientRect().height : 0};
})
"""


def _redirect_target(page):
    """The target of a meta-refresh page (Jupyter Book's root index.html), else None."""
    match = re.search(r'http-equiv="refresh"[^>]*url=([^"]+)"', (HTML / page).read_text(), re.I)
    return match and match.group(1)


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_self_contained(page, site, browser):
    target = _redirect_target(page)
    if target:
        assert (HTML / pathlib.PurePosixPath(page).parent / target).exists(), (
            f"{page} redirects to {target}, which was not built")
        return
    host = urlparse(site).netloc
    outside, failed, console_errors = [], [], []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pw_page = context.new_page()

    def on_request(request):
        parsed = urlparse(request.url)
        if parsed.scheme in ("data", "blob", "about"):
            return
        if parsed.netloc != host:
            outside.append(request.url)

    pw_page.on("request", on_request)
    pw_page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))
    pw_page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    pw_page.on("pageerror", lambda e: console_errors.append(str(e)))
    # Anything addressed to another host is aborted (and recorded above).
    pw_page.route(lambda url: urlparse(url).netloc not in (host, ""), lambda route: route.abort())

    response = pw_page.goto(f"{site}/{page}", wait_until="networkidle")
    assert response is not None and response.ok, f"{page}: HTTP {response and response.status}"

    n_math = pw_page.evaluate("document.querySelectorAll('.math, div.math, span.math').length")
    if n_math:
        # Wait for the bundled MathJax to finish typesetting.
        pw_page.wait_for_function(
            "window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30000
        )
        pw_page.evaluate("MathJax.startup.promise")
        pw_page.wait_for_function(
            "document.querySelectorAll('mjx-container').length > 0", timeout=30000
        )
        errors = pw_page.evaluate(
            "Array.from(document.querySelectorAll('mjx-merror, [data-mjx-error]'))"
            ".map(e => e.getAttribute('data-mjx-error') || e.textContent)"
        )
        assert not errors, f"{page}: MathJax errors {errors[:5]}"
        raw = pw_page.evaluate(
            "Array.from(document.querySelectorAll('.math')).filter("
            "e => !e.querySelector('mjx-container') && e.tagName !== 'MJX-CONTAINER').length"
        )
        assert raw == 0, f"{page}: {raw} math element(s) left untypeset"

    broken = pw_page.evaluate(
        "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0))"
        ".map(i => i.src)"
    )
    assert not broken, f"{page}: images that did not load: {broken[:5]}"

    # Explorer cells (``ml.widgets.*_explorer(...)``) must show their static rendering here, where
    # no kernel runs: a loaded image of real size, never an empty box.
    explorers = pw_page.evaluate(EXPLORER_OUTPUTS_JS)
    for cell in explorers:
        assert cell["images"] > 0 and cell["height"] > 150, (
            f"{page}: explorer cell `{cell['source'][:60]}` shows no static figure: {cell}")
    if pathlib.PurePosixPath(page).stem in CHAPTERS_WITH_EXPLORERS:
        assert explorers, f"{page}: the chapter has no explorer cell"

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pw_page.screenshot(path=str(ARTIFACTS / (page.replace("/", "_") + ".png")), full_page=False)
    context.close()

    assert not outside, f"{page}: requests to other hosts (the book must be self-contained): {outside[:5]}"
    assert not failed, f"{page}: failed requests: {failed[:5]}"
    assert not console_errors, f"{page}: console errors: {console_errors[:5]}"


def test_notebook_pages_offer_their_ipynb(built):
    """Every chapter notebook page links to its .ipynb source for download."""
    notebooks = sorted(p.relative_to(ROOT).with_suffix("").as_posix()
                       for p in (ROOT / "book").rglob("*.ipynb")
                       if (HTML / p.relative_to(ROOT).with_suffix(".html")).exists())
    assert notebooks, "no notebook pages were built"
    for stem in notebooks:
        html = (HTML / f"{stem}.html").read_text()
        assert f"_sources/{stem}.ipynb" in html, f"{stem}.html has no download link for its .ipynb"
        assert (HTML / "_sources" / f"{stem}.ipynb").exists()


def test_screenshots_exist():
    """The screenshots are there to be looked at; make sure the run produced them."""
    shots = list(pathlib.Path(ARTIFACTS).glob("*.png"))
    assert shots, "no screenshots were taken"
