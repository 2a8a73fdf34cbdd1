"""Print the built HTML book to one PDF, in table-of-contents order (``make pdf``).

Usage: .venv/bin/python .dev/pdf.py [_build/html] [_build/pdf/mlnotes.pdf]

Each page of ``_toc.yml`` is opened in headless Chromium (Debian's, driven by Playwright, as the
browser tests do) from a server on 127.0.0.1, typeset by the bundled MathJax, with the static
explorers drawn, and printed with print styles: no navigation, header, sidebars or buttons;
solutions and hints stay folded as on the page. The pages are merged with pypdf into one file
with a bookmark per chapter. No request leaves the machine.
"""

import contextlib
import functools
import http.server
import io
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("MLNOTES_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic", "--disable-dev-shm-usage"]
PAGE_TIMEOUT_MS = 60_000
MARGIN = {"top": "16mm", "bottom": "16mm", "left": "14mm", "right": "14mm"}
# Print styles: the article only, at the full width of the paper.
PRINT_CSS = """
@media print {
  .bd-header, .bd-header-article, .bd-sidebar-primary, .bd-sidebar-secondary,
  .prev-next-area, .bd-footer, .bd-footer-content, .bd-footer-article, footer,
  .header-article, .headerlink, .copybtn, .search-button, .theme-switch-button,
  .primary-toggle, .secondary-toggle, #pst-back-to-top, .skip-link,
  .bd-header-announcement, .toggle-secondary-sidebar { display: none !important; }
  .bd-container, .bd-container__inner, .bd-page-width, .bd-main, .bd-content,
  .bd-article-container, .bd-article { max-width: 100% !important; width: 100% !important;
    margin: 0 !important; padding: 0 !important; }
  html, body { background: #fff !important; }
  h1, h2, h3 { break-after: avoid; }
  img, figure, .cell_output, mjx-container[display="true"] { break-inside: avoid; }
  pre { white-space: pre-wrap !important; word-break: break-word; }
}
"""


def toc_pages(toc_path=ROOT / "_toc.yml"):
    """Document names in reading order (root first), from _toc.yml without a YAML library."""
    pages = []
    for line in Path(toc_path).read_text(encoding="utf-8").splitlines():
        stripped = line.strip().lstrip("- ").strip()
        for key in ("root:", "file:"):
            if stripped.startswith(key):
                pages.append(stripped[len(key):].strip())
    return pages


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _serve(directory):
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _print_page(page, url):
    outside = []
    page.on("request", lambda r: outside.append(r.url)
            if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None)
    page.goto(url, wait_until="load", timeout=PAGE_TIMEOUT_MS)
    page.add_style_tag(content=PRINT_CSS)
    page.evaluate("""async () => {
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
            await MathJax.startup.promise;
            if (MathJax.typesetPromise) { await MathJax.typesetPromise(); }
        }
        await document.fonts.ready;
        for (const img of document.images) {
            img.loading = "eager";
            if (!img.complete) {
                await new Promise(r => { img.onload = r; img.onerror = r; });
            }
        }
    }""")
    # The static explorers draw when they come near the screen: draw them all, then wait for
    # every one to be ready and one more frame (their canvases redraw on resize).
    page.emulate_media(media="print")
    page.evaluate("async () => { if (window.MLNotesExplorers) "
                  "{ await MLNotesExplorers.initAll(); } }")
    page.wait_for_function("document.querySelectorAll("
                           "'.mlnotes-explorer:not(.mlx-ready)').length === 0",
                           timeout=PAGE_TIMEOUT_MS)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
    title = page.evaluate("() => (document.querySelector('main h1, article h1, h1') || "
                          "{textContent: document.title}).textContent.replace('#', '').trim()")
    pdf = page.pdf(format="A4", print_background=True, margin=MARGIN)
    if outside:
        raise RuntimeError(f"{url} requested addresses outside the machine: {outside[:3]}")
    return title, pdf


def make_pdf(html_dir=ROOT / "_build" / "html", out=ROOT / "_build" / "pdf" / "mlnotes.pdf"):
    """Print every toc page of the built book and merge them; return (out, titles, n_pages)."""
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter

    html_dir, out = Path(html_dir), Path(out)
    if not (html_dir / "index.html").exists():
        raise FileNotFoundError(f"no built book in {html_dir}: run `make book` first")
    if not os.path.exists(CHROMIUM):
        raise FileNotFoundError(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    writer = PdfWriter()
    titles = []
    with _serve(html_dir) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1000, "height": 1400})
            for name in toc_pages():
                page = context.new_page()
                title, pdf = _print_page(page, f"{base}/{name}.html")
                page.close()
                start = len(writer.pages)
                for p in PdfReader(io.BytesIO(pdf)).pages:
                    writer.add_page(p)
                writer.add_outline_item(title=title, page_number=start)
                titles.append(title)
        finally:
            browser.close()
    writer.add_metadata({"/Title": "Nonlinear Dimensionality Reduction: an executable textbook"})
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as fh:
        writer.write(fh)
    return out, titles, len(writer.pages)


if __name__ == "__main__":
    args = sys.argv[1:]
    path, titles, n = make_pdf(*(Path(a) for a in args))
    print(f"{path}: {n} pages, {len(titles)} chapters and appendices")
