"""`make pdf`: one PDF of the whole book, every toc page in order, math and figures included."""

import importlib.util
import os
import re
from pathlib import Path

import pytest

from browser_support import ROOT, launch_chromium

pytestmark = pytest.mark.browser
HTML = Path(os.environ.get("MLNOTES_BOOK_HTML", ROOT / "_build" / "html"))


def _pdf_module():
    spec = importlib.util.spec_from_file_location("pdf", ROOT / ".dev" / "pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _squash(text):
    return re.sub(r"\s+", "", text).lower()


def test_make_pdf_prints_every_chapter_in_toc_order(tmp_path):
    if not (HTML / "index.html").exists():
        pytest.fail("no built book: `make book` runs before the browser tests")
    with launch_chromium():          # skips or fails (CI) exactly as the other browser tests
        pass
    from pypdf import PdfReader

    pdf = _pdf_module()
    out, titles, n_pages = pdf.make_pdf(HTML, tmp_path / "book.pdf")
    pages = pdf.toc_pages()
    assert len(titles) == len(pages)
    reader = PdfReader(out)
    assert len(reader.pages) == n_pages
    # At least a page per toc entry, and a book, not a few hundred blank sheets.
    assert len(pages) <= n_pages <= 60 * len(pages)
    text = [_squash(p.extract_text() or "") for p in reader.pages]
    full = "".join(text)
    assert sum(1 for t in text if len(t) < 20) < 0.05 * n_pages, "blank pages"
    position = -1
    for title in titles:
        found = full.find(_squash(title), position + 1)
        assert found > position, f"chapter {title!r} missing or out of order in the PDF"
        position = found
    outline = [item.title for item in reader.outline]
    assert outline == titles
    # No navigation chrome: the sidebar's search box and the footer's links are not printed.
    assert "search" not in _squash(reader.pages[0].extract_text() or "")[:200]
