"""`make pdf`: one PDF of the whole book, a book and not a print-out.

Every toc page in order, math and figures included; a title page and a table of contents in
front; page numbers on every page after them (and as page labels); numbered chapter titles; a
bookmark per chapter; no page chrome; a file a student downloads on a phone connection
(``MAX_MEGABYTES``); and, once printed, every page of the site links to it.
"""

import importlib.util
import os
import re
import shutil
from pathlib import Path

import pytest

from browser_support import ROOT, launch_chromium

pytestmark = pytest.mark.browser
HTML = Path(os.environ.get("MLNOTES_BOOK_HTML", ROOT / "_build" / "html"))
MAX_MEGABYTES = 15


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pdf_module():
    return _load(ROOT / ".dev" / "pdf.py", "pdf")


def _squash(text):
    return re.sub(r"\s+", "", text).lower()


def _page_texts(path):
    """Each page's text, squashed. PDFium reads it (pypdf's pure-Python extraction took 28 s for
    the 500 pages; the outline and page labels are read with pypdf)."""
    import pypdfium2

    document = pypdfium2.PdfDocument(str(path))
    try:
        return [_squash(document[i].get_textpage().get_text_bounded())
                for i in range(len(document))]
    finally:
        document.close()


@pytest.mark.slow
def test_make_pdf_prints_the_book(tmp_path):
    if not (HTML / "index.html").exists():
        pytest.fail("no built book: `make book` runs before the browser tests")
    with launch_chromium():          # skips or fails (CI) exactly as the other browser tests
        pass
    from pypdf import PdfReader

    pdf = _pdf_module()
    out, titles, n_pages = pdf.make_pdf(HTML, tmp_path / "book.pdf", link_from_site=False)
    pages = pdf.toc_pages()
    assert len(titles) == len(pages)
    reader = PdfReader(out)
    assert len(reader.pages) == n_pages
    # At least a page per toc entry, and a book, not a few hundred blank sheets.
    assert len(pages) <= n_pages <= 60 * len(pages)
    text = _page_texts(out)
    assert len(text) == n_pages
    assert sum(1 for t in text if len(t) < 20) < 0.05 * n_pages, "blank pages"
    size = out.stat().st_size / 1e6
    assert size < MAX_MEGABYTES, f"the PDF is {size:.1f} MB (at most {MAX_MEGABYTES})"

    # front matter: the title page, then the contents listing every chapter with its page
    outline = list(reader.outline)
    assert [item.title for item in outline] == titles
    first = reader.get_destination_page_number(outline[0])
    assert first >= 2, "no title page and contents before the first chapter"
    assert _squash(pdf.BOOK_TITLE) in text[0]
    front = "".join(text[1:first])
    assert "contents" in front
    for title, item in zip(titles, outline, strict=True):
        start = reader.get_destination_page_number(item) - first + 1
        assert _squash(title) in front, f"{title!r} missing from the contents"
        assert re.search(re.escape(_squash(title)) + r"\.*" + str(start), front), (
            f"the contents do not give page {start} for {title!r}")

    # chapters in numbered parts carry their number ("6. Isomap ...")
    numbered = [t for t in titles if re.match(r"^\d+\. \S", t)]
    assert len(numbered) >= 10, f"chapter titles without numbers: {titles}"

    # every page after the front matter shows its number, and its page label says the same
    labels = reader.page_labels
    for index in range(first, n_pages, max(1, (n_pages - first) // 12)):
        number = str(index - first + 1)
        assert labels[index] == number
        # the number is stamped last, at the foot of the page: the page's text ends with it
        assert text[index].endswith(number), f"page {number} does not show its number"

    # the chapters in toc order, with no navigation chrome
    full = "".join(text[first:])
    position = -1
    for title in titles:
        found = full.find(_squash(title), position + 1)
        assert found > position, f"chapter {title!r} missing or out of order in the PDF"
        position = found
    assert "search" not in text[first][:200]
    assert "printthispage" not in full and "runlocally" not in full


def test_every_page_of_the_site_links_to_the_book_pdf(tmp_path):
    publish = _load(ROOT / "book" / "_ext" / "publish.py", "publish")
    if not (HTML / "book" / "pca.html").exists():
        pytest.fail("no built book: `make book` runs before the browser tests")
    site = tmp_path / "site"
    (site / "book" / "homework").mkdir(parents=True)
    for page in ("index.html", "book/pca.html", "book/homework/index.html"):
        if (HTML / page).exists():
            shutil.copy(HTML / page, site / page)
    (site / publish.BOOK_PDF_NAME).write_bytes(b"%PDF-1.7\n")
    publish.add_book_pdf_links(site)
    for page, depth in (("book/pca.html", 1), ("book/homework/index.html", 2)):
        if not (site / page).exists():
            continue
        text = (site / page).read_text(encoding="utf-8")
        href = "../" * depth + publish.BOOK_PDF_NAME
        assert f'href="{href}"' in text and "Book PDF" in text, page
        assert (site / page).parent.joinpath(href).resolve() == (site / publish.BOOK_PDF_NAME)
        assert "Print this page" in text and ">.pdf<" not in text
