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

from browser_support import RAW_TEX, ROOT, launch_chromium

pytestmark = pytest.mark.browser
HTML = Path(os.environ.get("MLNOTES_BOOK_HTML", ROOT / "_build" / "html"))
MAX_MEGABYTES = 15
ARTIFACTS = ROOT / "tests" / "artifacts" / "pdf"  # the printed book, to be looked at
MIN_INTERNAL_LINKS = 200  # cross-references, citations and the contents, live in the PDF
# Near-blank pages: A4 is 842 pt high; the print margins are 16 mm (45 pt) at the top and 18 mm
# (51 pt) at the foot, where the page number sits (below NUMBER_ZONE_PT).
MARGIN_TOP_PT, MARGIN_BOTTOM_PT, NUMBER_ZONE_PT = 45, 51, 40
MIN_FILLED = 0.3
FORM_OBJECT = 5  # PDFium's FPDF_PAGEOBJ_FORM


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
@pytest.mark.pdf
def test_make_pdf_prints_the_book(tmp_path):
    if not (HTML / "index.html").exists():
        pytest.fail("no built book: `make book` runs before the browser tests")
    with launch_chromium():          # skips or fails (CI) exactly as the other browser tests
        pass
    from pypdf import PdfReader

    pdf = _pdf_module()
    out, titles, n_pages = pdf.make_pdf(HTML, ARTIFACTS / "book.pdf", link_from_site=False)
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
    assert [item.title for item in outline] == titles + ["Index"]
    first = reader.get_destination_page_number(outline[0])
    assert first >= 2, "no title page and contents before the first chapter"
    assert _squash(pdf.BOOK_TITLE) in text[0]
    front = "".join(text[1:first])
    assert "contents" in front
    for title, item in zip(titles + ["Index"], outline, strict=True):
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

    _check_links(reader)
    _check_no_title_at_a_foot(out, first)
    _check_no_near_blank_pages(out, reader, first, outline)
    _check_index(pdf, text, first, outline)
    _check_no_raw_tex(out)


def _check_links(reader):
    """Every link resolves inside the PDF (a page of it) or to the published site: none to the
    print server, and the chapters' cross-references are live."""
    local, dangling, internal = [], [], 0
    n_pages = len(reader.pages)
    page_ids = {p.indirect_reference.idnum: i for i, p in enumerate(reader.pages)}
    for i, page in enumerate(reader.pages):
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            if re.match(r"https?://(127\.0\.0\.1|localhost)", uri):
                local.append((i, uri))
            dest = annot.get("/Dest")
            if dest is not None:
                dest = dest.get_object()
                target = dest[0].idnum if hasattr(dest, "__getitem__") and len(dest) else None
                if target in page_ids and 0 <= page_ids[target] < n_pages:
                    internal += 1
                else:
                    dangling.append((i, str(dest)[:40]))
    assert not local, f"{len(local)} links to the print server, e.g. {local[:3]}"
    assert not dangling, f"{len(dangling)} links to no page of the PDF, e.g. {dangling[:3]}"
    assert internal >= MIN_INTERNAL_LINKS, f"only {internal} links inside the PDF"


# A box's title line: "Theorem 9.2 (Gradient of SNE)", "Definition 6.1 (...)", "Proof."
BOX_TITLE = re.compile(r"^(Theorem|Definition|Lemma|Proposition|Corollary|Remark|Proof|Example|"
                       r"Exercise|Solution|Algorithm)\b[\s\d.]*(\(.*\))?\.?$")


def _check_no_title_at_a_foot(path, first):
    """No box ends a page with only its title (an empty "Theorem 9.2" box once sat at the foot
    of a page, its statement on the next): a page's last line of text, above its number, is
    not a statement's or a proof's title."""
    import pypdfium2

    document = pypdfium2.PdfDocument(str(path))
    alone = []
    try:
        for index in range(first, len(document)):
            lines = [ln.strip() for ln in
                     document[index].get_textpage().get_text_bounded().splitlines() if ln.strip()]
            if len(lines) >= 2 and BOX_TITLE.match(lines[-2]):
                alone.append((index - first + 1, lines[-2][:50]))
    finally:
        document.close()
    assert not alone, f"a box's title alone at the foot of a page (book page, title): {alone}"


def test_a_title_alone_is_found():
    # the check's pattern: a statement's title line, not a sentence that starts with its name
    assert BOX_TITLE.match("Theorem 9.2 (Gradient of SNE)")
    assert BOX_TITLE.match("Proof.")
    assert not BOX_TITLE.match("Theorem 9.2 shows that the gradient is a sum of springs.")


def _check_no_near_blank_pages(path, reader, first, outline):
    """No page but a chapter's last is mostly empty (a box too tall for what was left of a page
    once pushed everything after it over)."""
    import pypdfium2

    last_pages = {reader.get_destination_page_number(item) - 1 for item in outline[1:]}
    last_pages.add(len(reader.pages) - 1)
    document = pypdfium2.PdfDocument(str(path))
    sparse = []
    try:
        for index in range(first, len(document)):
            if index in last_pages:
                continue
            page = document[index]
            height = page.get_height()
            # the lowest content on the page: the page number at its foot, form containers
            # and the page's own background aside
            bottoms = []
            for obj in page.get_objects(max_depth=2):
                left, bottom, right, top = obj.get_bounds()
                if obj.type != FORM_OBJECT and top - bottom < 0.8 * height \
                        and bottom > NUMBER_ZONE_PT:
                    bottoms.append(bottom)
            filled = (height - MARGIN_TOP_PT - min(bottoms, default=height)) / (
                height - MARGIN_TOP_PT - MARGIN_BOTTOM_PT)
            if filled < MIN_FILLED:
                sparse.append((index - first + 1, round(filled, 2)))
    finally:
        document.close()
    assert not sparse, f"near-blank pages (book page, share filled): {sparse}"


def _check_index(pdf, text, first, outline):
    """An index of the glossary's terms at the back, each with pages on which the term is."""
    start = [item for item in outline if item.title == "Index"]
    assert start, "no Index in the outline"
    terms = pdf.glossary_terms(HTML)
    assert len(terms) >= 20, "the glossary's terms were not found"
    back = "".join(text[-4:])
    assert "index" in back
    found = [t for t in terms if _squash(t) in back]
    assert len(found) >= 0.8 * len(terms), f"terms missing from the index: {set(terms) - set(found)}"
    # the index's page numbers are right: spot-check a few terms
    squashed = [_squash(t) for t in text]
    for term in terms[:: max(1, len(terms) // 5)]:
        entries = dict(pdf.index_entries([term], [t for t in text[first:]]))
        for number in entries.get(term, [])[:3]:
            assert _squash(term).replace("-", "") in squashed[first + number - 1].replace("-", ""), (
                f"the index sends {term!r} to page {number}, which does not have it")


def _check_no_raw_tex(path):
    """No TeX source in the PDF's text (the browser test scans every page of the site the same
    way). Code prints TeX in Python strings (``xlabel="$z_1$"``): a match inside a straight-quoted
    string of its line is code (prose has typographic quotes), not a formula left as source."""
    import pypdfium2

    pattern = re.compile(RAW_TEX)
    document = pypdfium2.PdfDocument(str(path))
    found = []
    try:
        for index in range(len(document)):
            page_text = document[index].get_textpage().get_text_bounded()
            for match in pattern.finditer(page_text):
                line = page_text[:match.start()].rsplit("\n", 1)[-1]
                if line.count('"') % 2 == 0 and line.count("'") % 2 == 0:
                    found.append((index, match.group(0)))
    finally:
        document.close()
    assert not found, f"TeX source in the PDF's text (page index, text): {found[:5]}"


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
