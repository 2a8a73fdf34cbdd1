"""Print the built HTML book to one PDF, in table-of-contents order (``make pdf``).

Usage: .venv/bin/python .dev/pdf.py [_build/html] [_build/pdf/mlnotes.pdf]

Each page of ``_toc.yml`` is opened in headless Chromium (Debian's, driven by Playwright, as the
browser tests do) from a server on 127.0.0.1, typeset by the bundled MathJax, with the static
explorers drawn, and printed with print styles: no navigation, header, sidebars or buttons;
solutions and hints stay folded as on the page. No request leaves the machine.

The book around the pages: a title page and a table of contents (parts, numbered chapters and
the page each starts on) in front, page numbers at the foot of every page after them, and a
bookmark per chapter. Chapter titles keep their numbers ("6. Isomap ..."). Code and output boxes
split across pages where they must (only short ones are kept whole, so no page is left half
empty); figures and display equations are never split. Figures are printed at
``PRINT_PIXEL_RATIO`` pixels per CSS pixel (the site's PNGs carry 2), which keeps the file small.
Pages are opened at the width of the paper's column (``PRINT_WIDTH_PX``), so MathJax breaks the
formulas where the paper needs it; a formula still wider than the column stops the printing.

Links: a cross-reference inside a chapter and a link to another page of the book both go to
the page and height of their target in the PDF (every id of a page is made a destination before
it is printed); a link to a page the PDF does not hold goes to the published site (GitHub Pages
of ``MLNOTES_REPOSITORY_URL``) or, with no site set, is dropped; none goes to the print server.
Theorem-like statements are kept whole and no box title ends a page. At the back, an index of
the glossary's terms with the pages on which each is found.

The finished PDF is also copied into the HTML folder as ``BOOK_PDF_NAME`` and every page of the
site gets a "Book PDF" link in its header (book/_ext/publish.py, ``add_book_pdf_links``).
"""

import contextlib
import functools
import html
import http.server
import importlib.util
import io
import os
import re
import shutil
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("MLNOTES_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic", "--disable-dev-shm-usage"]
PAGE_TIMEOUT_MS = 60_000
MARGIN = {"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"}
# The pages are opened at the width of the paper's printed column (A4, 210 mm, less the side
# margins: 688 CSS px), so MathJax breaks a formula too wide for the column where the paper needs
# it. Opened at 1000 px, the article was 800 px wide on screen and 688 px on paper: formulas set
# for 800 px were cut at the column's edge.
PRINT_WIDTH_PX = round((210 - 14 - 14) / 25.4 * 96)
BOOK_TITLE = "Nonlinear Dimensionality Reduction"
BOOK_SUBTITLE = "an executable textbook"
BOOK_AUTHOR = "the mlnotes authors"
BOOK_PDF_NAME = "mlnotes.pdf"  # the copy in the HTML folder that every page links to
PRINT_PIXEL_RATIO = 1.3  # figure pixels per CSS pixel in print (the site's PNGs have 2)
JPEG_QUALITY = 0.82
KEEP_WHOLE_PX = 320  # code and output boxes at most this high are not split across pages
# Print styles: the article only, at the full width of the paper.
PRINT_CSS = """
@media print {
  .bd-header, .bd-header-article, .bd-sidebar-primary, .bd-sidebar-secondary,
  .prev-next-area, .bd-footer, .bd-footer-content, .bd-footer-article, footer,
  .header-article, .headerlink, .copybtn, .search-button, .theme-switch-button,
  .primary-toggle, .secondary-toggle, #pst-back-to-top, .skip-link,
  .bd-header-announcement, .toggle-secondary-sidebar, #jb-print-docs-body,
  .mlnotes-zoom-badge, .mlnotes-check__hint { display: none !important; }
  .bd-container, .bd-container__inner, .bd-page-width, .bd-main, .bd-content,
  .bd-article-container, .bd-article { max-width: 100% !important; width: 100% !important;
    margin: 0 !important; padding: 0 !important; }
  html, body { background: #fff !important; }
  /* the chapter's own numbered title (the theme prints an unnumbered copy instead) */
  .bd-main .bd-content .bd-article h1:first-of-type { display: block !important;
    font-size: 2.1em; margin: 0 0 0.8em; }
  /* shadows print as a masked bitmap each (half the file's size): none on paper */
  *, *::before, *::after { box-shadow: none !important; text-shadow: none !important; }
  h1, h2, h3, h4 { break-after: avoid; break-inside: avoid; }
  /* boxes split where they must; only short ones (mlnotes-keep) stay whole */
  div.cell, div.cell_input, div.cell_output, div.highlight, pre, details,
  div.admonition, div.proof { break-inside: auto !important; }
  /* (the theme keeps a code block's outer frame whole: a tall one went to the next page and
     left its cell's empty frame to the foot of this one) */
  div[class*="highlight-"] { break-inside: auto !important; }
  .mlnotes-keep, div.mlnotes-keep.mlnotes-keep { break-inside: avoid !important; }
  /* a statement (theorem, definition, ...) is kept whole, and no box title is left alone at
     the foot of a page (an empty "Theorem 9.2" box once ended a page) */
  div.proof.theorem, div.proof.definition, div.proof.lemma, div.proof.proposition,
  div.proof.corollary, div.proof.remark { break-inside: avoid !important; }
  .admonition-title, div.proof > p:first-child { break-after: avoid !important; }
  /* a cell's bar ("Figure code: ...", "✓ claim") goes with the figure or output under it: a
     bar left alone at the foot of a page, its tall figure on the next, made near-blank pages */
  div.cell > details { break-after: avoid !important; }
  div.highlight, .cell_output pre, div.admonition, div.proof {
    box-decoration-break: clone; -webkit-box-decoration-break: clone; }
  img, figure, mjx-container[display="true"], tr { break-inside: avoid; }
  /* a figure taller than wide is shrunk to fit one page, not sliced across pages */
  .bd-article img.mlnotes-tall { max-height: 160mm !important; width: auto !important;
    max-width: 100% !important; }
  pre { white-space: pre-wrap !important; word-break: break-word; overflow: visible !important; }
  figcaption, figcaption p, .caption, .caption-text, .caption-number {
    color: #1a1a1a !important; opacity: 1 !important; }
  .mlnotes-overflows { background: none !important; }
}
"""
# Before printing: short boxes are kept whole, figures are resampled for print.
PREPARE_JS = """async ([keepPx, ratio, quality]) => {
  // shadows print as a masked bitmap each (the theme's are !important): none on paper
  document.querySelectorAll('*').forEach(el => {
    if (getComputedStyle(el).boxShadow !== 'none') el.style.setProperty('box-shadow', 'none', 'important');
  });
  document.querySelectorAll('.bd-article div.cell, .bd-article div.highlight, '
      + '.bd-article .cell_output, .bd-article div.admonition, .bd-article div.proof').forEach(el => {
    if (el.getBoundingClientRect().height <= keepPx) el.classList.add('mlnotes-keep');
  });
  // a box kept whole takes its wrappers along (a cell's input frame around its code): split,
  // a wrapper left its empty top, border and background, at the foot of the page before
  document.querySelectorAll('.bd-article .mlnotes-keep').forEach(el => {
    let up = el.parentElement;
    while (up && !up.matches('article, section') && up.children.length === 1) {
      up.classList.add('mlnotes-keep');
      up = up.parentElement;
    }
  });
  for (const img of document.querySelectorAll('.bd-article img')) {
    // its width on the page: the inline width myst-nb wrote for a cell's figure
    const styled = parseFloat(img.style.width);
    if (img.naturalWidth && styled) img.dataset.mlnotesOwnWidth = styled;
    const w = img.getBoundingClientRect().width;
    // a figure taller than wide is shrunk to fit a page with what comes before it (the figure
    // code's last lines): resampled or not
    if (img.naturalWidth && img.naturalHeight > 1.1 * img.naturalWidth) img.classList.add('mlnotes-tall');
    if (!w || !img.naturalWidth || img.naturalWidth <= ratio * w * 1.05) continue;
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(ratio * w);
    canvas.height = Math.round(canvas.width * img.naturalHeight / img.naturalWidth);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    const url = canvas.toDataURL('image/jpeg', quality);
    img.removeAttribute('srcset');
    if (!img.classList.contains('mlnotes-tall')) img.style.width = w + 'px';
    await new Promise(r => { img.onload = r; img.onerror = r; img.src = url; });
  }
}"""
# Chromium writes a named destination (the element's id) for each target of a link within the
# page: one invisible link to every id of the article makes every section, equation, figure and
# statement a destination, which links from the other chapters are pointed at (_resolve_links).
DESTINATIONS_JS = """() => {
  const ids = new Set(Array.from(document.querySelectorAll('article.bd-article [id]'))
    .map(e => e.id).filter(id => id && !/^mjx|^MJX/.test(id)));
  const box = document.createElement('div');
  box.setAttribute('aria-hidden', 'true');
  box.style.cssText = 'position:absolute;top:0;left:0;width:1px;height:1px;overflow:hidden;';
  ids.forEach(id => { const a = document.createElement('a'); a.href = '#' + id;
                      a.textContent = '.'; box.append(a); });
  document.body.prepend(box);
}"""
# Each figure is printed with its own aspect ratio and at the size it has on the page (its own
# width in CSS pixels, or the column's when that is narrower; a tall figure may be shrunk to
# fit a page): returns those that are not.
MAX_STRETCH = 0.02
FIGURE_SIZES_JS = """(maxStretch) => {
  const bad = [];
  for (const img of document.querySelectorAll('.bd-article img')) {
    const r = img.getBoundingClientRect();
    const own = img.dataset.mlnotesOwnWidth ? +img.dataset.mlnotesOwnWidth : 0;
    if (!r.width || !img.naturalWidth || !own) continue;
    const stretch = (r.height / r.width) / (img.naturalHeight / img.naturalWidth);
    const column = img.closest('.bd-article').getBoundingClientRect().width;
    const want = Math.min(own, column);
    const name = (img.getAttribute('alt') || '').slice(0, 30);
    if (Math.abs(stretch - 1) > maxStretch) bad.push(`${name}: ${stretch.toFixed(2)}x as tall`);
    if (!img.classList.contains('mlnotes-tall') && Math.abs(r.width / want - 1) > maxStretch)
      bad.push(`${name}: ${Math.round(r.width)} px wide, ${Math.round(want)} px on the page`);
  }
  return bad;
}"""
# Every display formula fits the paper's column (a wider one would be cut at its edge): returns
# those that do not.
FORMULAS_FIT_JS = """() => Array.from(document.querySelectorAll(
    '.bd-article mjx-container[display="true"]')).filter(c => {
  const box = (c.closest('div.math') || c).getBoundingClientRect().width;
  const math = c.querySelector('mjx-math');
  return math && math.getBoundingClientRect().width > box + 1;
}).map(c => (c.querySelector('mjx-math').getAttribute('data-latex') || '').trim().slice(0, 60))"""
FRONT_CSS = """
@page { size: A4; margin: 28mm 24mm; }
body { font-family: "DejaVu Sans", sans-serif; color: #111; }
.title { height: 230mm; display: flex; flex-direction: column; justify-content: center;
  break-after: page; }
.title h1 { font-size: 30pt; margin: 0 0 6mm; line-height: 1.15; }
.title .sub { font-size: 17pt; color: #333; margin: 0 0 22mm; }
.title .by { font-size: 13pt; }
.title .note { margin-top: 30mm; font-size: 9.5pt; color: #333; max-width: 130mm; }
h2 { font-size: 20pt; margin: 0 0 8mm; }
.part { font-weight: 700; font-size: 11.5pt; margin: 5mm 0 1.5mm; }
.entry { display: flex; font-size: 11pt; margin: 0 0 1.6mm; }
.entry .t { flex: 0 1 auto; padding-right: 2mm; }
.entry .dots { flex: 1 1 auto; border-bottom: 1px dotted #777; margin-bottom: 1.1mm; }
.entry .n { flex: none; padding-left: 2mm; font-variant-numeric: tabular-nums; }
"""
GLOSSARY_PAGE = "book/appendix_glossary.html"
INDEX_MAX_PAGES = 12  # page numbers listed for a term (its first occurrences)
INDEX_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm; }
body { font-family: "DejaVu Sans", sans-serif; color: #111; font-size: 10pt; }
h2 { font-size: 20pt; margin: 0 0 6mm; }
.cols { column-count: 2; column-gap: 10mm; }
.ix { break-inside: avoid; margin: 0 0 1.4mm; padding-left: 4mm; text-indent: -4mm; }
.ix .t { font-weight: 600; }
.ix .n { font-variant-numeric: tabular-nums; }
"""
NUMBERS_CSS = """
@page { size: A4; margin: 0; }
body { margin: 0; }
.p { height: 296.9mm; position: relative; break-after: page; overflow: hidden; }
.n { position: absolute; bottom: 8mm; width: 100%; text-align: center;
  font: 9pt "DejaVu Sans", sans-serif; color: #333; }
"""


def toc_pages(toc_path=ROOT / "_toc.yml"):
    """Document names in reading order (root first), from _toc.yml without a YAML library."""
    return [name for kind, name in toc_entries(toc_path) if kind == "file"]


def toc_entries(toc_path=ROOT / "_toc.yml"):
    """("caption", part name) and ("file", document) in reading order, from _toc.yml."""
    entries = []
    for line in Path(toc_path).read_text(encoding="utf-8").splitlines():
        stripped = line.split(" #")[0].strip().lstrip("- ").strip()
        for key, kind in (("root:", "file"), ("file:", "file"), ("caption:", "caption")):
            if stripped.startswith(key):
                entries.append((kind, stripped[len(key):].strip().strip("\"'")))
    return entries


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
    response = page.goto(url, wait_until="load", timeout=PAGE_TIMEOUT_MS)
    if response is None or not response.ok:
        raise RuntimeError(f"{url}: HTTP {response and response.status} (is the page in the "
                           "toc but not in the built book? run `make book` first)")
    page.add_style_tag(content=PRINT_CSS)
    page.evaluate("""async () => {
        // typeset at build time: the displays wider than the paper's column typeset again
        if (window.mlnotesMathsReady) { await window.mlnotesMathsReady; }
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
    page.evaluate(PREPARE_JS, [KEEP_WHOLE_PX, PRINT_PIXEL_RATIO, JPEG_QUALITY])
    page.evaluate(DESTINATIONS_JS)
    page.wait_for_function("document.querySelectorAll("
                           "'.mlnotes-explorer:not(.mlx-ready)').length === 0",
                           timeout=PAGE_TIMEOUT_MS)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
    wrong = page.evaluate(FIGURE_SIZES_JS, MAX_STRETCH)
    if wrong:
        raise RuntimeError(f"{url}: figures not printed at their own shape and size: {wrong[:3]}")
    cut = page.evaluate(FORMULAS_FIT_JS)
    if cut:
        raise RuntimeError(f"{url}: formulas wider than the paper's column ({PRINT_WIDTH_PX} px), "
                           f"which print would cut: {cut[:3]} (give MathJax a place to break "
                           "them: book/_static/mlnotes-mathjax.js)")
    # the article's own title, with its chapter number ("6. Isomap ..."); the theme's print-only
    # copy of the title above it has no number and is hidden by PRINT_CSS
    title = page.evaluate("() => (document.querySelector('article.bd-article h1') || "
                          "document.querySelector('h1') || "
                          "{textContent: document.title}).textContent.replace('#', '')"
                          ".replace(/\\s+/g, ' ').trim()")
    pdf = page.pdf(format="A4", print_background=True, margin=MARGIN)
    if outside:
        raise RuntimeError(f"{url} requested addresses outside the machine: {outside[:3]}")
    return title, pdf


def _front_matter_html(contents):
    """A title page and a table of contents: ``contents`` lists ("part", name) and
    ("chapter", title, first page)."""
    rows = []
    for entry in contents:
        if entry[0] == "part":
            rows.append(f'<div class="part">{html.escape(entry[1])}</div>')
        else:
            rows.append(f'<div class="entry"><span class="t">{html.escape(entry[1])}</span>'
                        f'<span class="dots"></span><span class="n">{entry[2]}</span></div>')
    return (f"<!doctype html><html><head><meta charset='utf-8'><style>{FRONT_CSS}</style></head>"
            f"<body><section class='title'><h1>{html.escape(BOOK_TITLE)}</h1>"
            f"<p class='sub'>{html.escape(BOOK_SUBTITLE)}</p>"
            f"<p class='by'>{html.escape(BOOK_AUTHOR)}</p>"
            "<p class='note'>Printed from the online book. Its figures are computed by the code "
            "beside them, and its explorers respond to their controls in the online book and "
            "in Jupyter.</p></section>"
            f"<section><h2>Contents</h2>{''.join(rows)}</section></body></html>")


def glossary_terms(html_dir):
    """The terms of the book's glossary (its built page), in its order."""
    page = Path(html_dir) / GLOSSARY_PAGE
    if not page.exists():
        return []
    text = page.read_text(encoding="utf-8")
    return [html.unescape(re.sub(r"<[^>]+>", "", term)).strip()
            for term in re.findall(r'<dt id="term-[^"]*">(.*?)<a class="headerlink"', text)]


def index_entries(terms, page_texts):
    """(term, [book page numbers]) for each term found: the pages whose text has the term
    (case-insensitive, any spacing; plurals and other endings count), at most INDEX_MAX_PAGES."""
    squashed = [re.sub(r"\s+", " ", t).lower() for t in page_texts]
    entries = []
    for term in terms:
        words = [re.escape(w) for w in term.lower().split()]
        pattern = re.compile(r"(?<![\w-])" + r"[\s-]+".join(words))
        pages = [i + 1 for i, t in enumerate(squashed) if pattern.search(t)]
        if pages:
            entries.append((term, pages[:INDEX_MAX_PAGES]))
    return sorted(entries, key=lambda entry: entry[0].lower())


def _index_html(entries):
    rows = "".join(f'<div class="ix"><span class="t">{html.escape(term)}</span> '
                   f'<span class="n">{", ".join(str(n) for n in pages)}</span></div>'
                   for term, pages in entries)
    return (f"<!doctype html><html><head><meta charset='utf-8'><style>{INDEX_CSS}</style>"
            f"</head><body><h2>Index</h2><div class='cols'>{rows}</div></body></html>")


def _numbers_html(first, count):
    pages = "".join(f'<div class="p"><div class="n">{n}</div></div>'
                    for n in range(first, first + count))
    return (f"<!doctype html><html><head><meta charset='utf-8'><style>{NUMBERS_CSS}</style>"
            f"</head><body>{pages}</body></html>")


def _page_texts(pdf_bytes):
    """The text of each page of a PDF (PDFium reads it quickly)."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf_bytes)
    try:
        return [document[i].get_textpage().get_text_bounded() for i in range(len(document))]
    finally:
        document.close()


def _print_html(context, markup):
    page = context.new_page()
    try:
        page.set_content(markup, wait_until="load")
        return page.pdf(format="A4", print_background=True, prefer_css_page_size=True)
    finally:
        page.close()


def _publish_module():
    spec = importlib.util.spec_from_file_location("mlnotes_publish",
                                                  ROOT / "book" / "_ext" / "publish.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def published_site():
    """The address of the published book (GitHub Pages of ``MLNOTES_REPOSITORY_URL``), or ""."""
    repository = _publish_module().repository_url()
    match = re.match(r"https://github\.com/([^/]+)/([^/]+)$", repository)
    return f"https://{match[1].lower()}.github.io/{match[2]}/" if match else ""


def _destination(writer, index, top):
    from pypdf.generic import ArrayObject, FloatObject, NameObject, NullObject

    return ArrayObject([writer.pages[index].indirect_reference, NameObject("/XYZ"), NullObject(),
                        FloatObject(top) if top is not None else NullObject(), NullObject()])


def _resolve_links(writer, base, chapters):
    """Point every link of the bound book inside it, or at the published site.

    ``chapters`` lists (page name, its own PDF, index of its first page in ``writer``). A link
    within a chapter names a destination of that chapter's PDF, whose name table binding drops;
    a link to another page of the book is an address on the print server (``base``). Both
    become direct destinations (the page and height of the target); a link to a page the PDF
    does not hold (the search page, the general index) goes to the published site, or is
    dropped when no site is set (MLNOTES_REPOSITORY_URL). Returns the links left unresolved.
    """
    from pypdf.generic import NameObject, TextStringObject

    targets, first_page, owner = {}, {}, {}
    for name, reader, start in chapters:
        first_page[name] = start
        for key, dest in reader.named_destinations.items():
            number = reader.get_destination_page_number(dest)
            if number is not None:
                targets[(name, str(key).lstrip("/"))] = (start + number, dest.top)
        for i in range(len(reader.pages)):
            owner[start + i] = name
    site = published_site()
    unresolved = []
    for index, page in enumerate(writer.pages):
        annots = page.get("/Annots")
        annots = annots.get_object() if annots is not None else None
        if not annots:
            continue
        keep = []
        for ref in annots:
            annot = ref.get_object()
            dest = annot.get("/Dest")
            action = annot.get("/A")
            uri = action.get_object().get("/URI") if action is not None else None
            target = None
            if isinstance(dest, str) and index in owner:  # a named destination in the chapter
                target = targets.get((owner[index], str(dest).lstrip("/")))
            elif uri and str(uri).startswith(base):
                path, _, fragment = str(uri)[len(base):].lstrip("/").partition("#")
                if path in first_page:
                    target = targets.get((path, fragment), (first_page[path], None))
                elif site:
                    annot[NameObject("/A")].get_object()[NameObject("/URI")] = \
                        TextStringObject(site + str(uri)[len(base):].lstrip("/"))
                else:
                    unresolved.append(str(uri))
                    continue  # no page of the PDF and no site: the text stays, the link goes
            if target is not None:
                annot[NameObject("/Dest")] = _destination(writer, *target)
                if "/A" in annot:
                    del annot["/A"]
            elif isinstance(dest, str):
                unresolved.append(str(dest))
                continue
            keep.append(ref)
        annots.clear()
        annots.extend(keep)
    return unresolved


def make_pdf(html_dir=ROOT / "_build" / "html", out=ROOT / "_build" / "pdf" / "mlnotes.pdf",
             link_from_site=True):
    """Print every toc page of the built book and bind them (title page, contents, page
    numbers, bookmarks); return (out, titles, n_pages). With ``link_from_site`` the PDF is also
    copied into ``html_dir`` and every page of the site links to it."""
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter

    html_dir, out = Path(html_dir), Path(out)
    if not (html_dir / "index.html").exists():
        raise FileNotFoundError(f"no built book in {html_dir}: run `make book` first")
    if not os.path.exists(CHROMIUM):
        raise FileNotFoundError(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    chapters, contents, titles, names, texts = [], [], [], [], []
    with _serve(html_dir) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": PRINT_WIDTH_PX, "height": 1400})
            # every formula typeset at load, not only those near the screen (mlnotes-mathjax.js)
            context.add_init_script("localStorage.setItem('mlnotes-typeset', 'all');")
            # (images load lazily on the site: _print_page makes each eager and waits for it)
            first = 1
            for kind, name in toc_entries():
                if kind == "caption":
                    contents.append(("part", name))
                    continue
                page = context.new_page()
                title, pdf = _print_page(page, f"{base}/{name}.html")
                page.close()
                reader = PdfReader(io.BytesIO(pdf))
                texts += _page_texts(pdf)
                chapters.append((title, reader, first))
                names.append(f"{name}.html")
                contents.append(("chapter", title, first))
                titles.append(title)
                first += len(reader.pages)
            entries = index_entries(glossary_terms(html_dir), texts)
            index = PdfReader(io.BytesIO(_print_html(context, _index_html(entries))))
            contents.append(("chapter", "Index", first))
            front = PdfReader(io.BytesIO(_print_html(context, _front_matter_html(contents))))
            numbers = PdfReader(io.BytesIO(_print_html(
                context, _numbers_html(1, first - 1 + len(index.pages)))))
        finally:
            browser.close()
    writer = PdfWriter()
    for p in front.pages:
        writer.add_page(p)
    offset = len(front.pages)
    for title, reader, start in chapters + [("Index", index, first)]:
        for i, p in enumerate(reader.pages):
            writer.add_page(p).merge_page(numbers.pages[start - 1 + i])
        writer.add_outline_item(title=title, page_number=offset + start - 1)
    _resolve_links(writer, base, [(name, reader, offset + start - 1)
                                  for name, (_, reader, start) in zip(names, chapters, strict=True)])
    # book page 1 is the first chapter page; the front matter has roman numbers
    writer.set_page_label(0, offset - 1, style="/r")
    writer.set_page_label(offset, len(writer.pages) - 1, style="/D", start=1)
    for p in writer.pages:
        p.compress_content_streams()
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
    writer.add_metadata({"/Title": f"{BOOK_TITLE}: {BOOK_SUBTITLE}", "/Author": BOOK_AUTHOR})
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as fh:
        writer.write(fh)
    if link_from_site:
        shutil.copyfile(out, html_dir / BOOK_PDF_NAME)
        _publish_module().add_book_pdf_links(html_dir, BOOK_PDF_NAME)
    return out, titles, len(writer.pages)


if __name__ == "__main__":
    args = sys.argv[1:]
    path, titles, n = make_pdf(*(Path(a) for a in args))
    print(f"{path}: {n} pages, {len(titles)} chapters and appendices")
