"""Tests that read the built book (``_build/html``) without a browser: marked ``built_book``,
they run in ``make test``'s browser phase, after ``make book`` (tests/phase_guard.py)."""

import pytest
import test_homework_no_plaintext as plaintext

from browser_support import BOOK_HTML, browser_required

fingerprints = plaintext.fingerprints  # the graded key's fingerprints (a fixture)


@pytest.mark.built_book  # make test runs it after the book is built (its browser phase)
def test_the_built_book_holds_no_line_of_the_key(fingerprints):
    site = BOOK_HTML
    if not (site / "index.html").is_file():
        why = (f"no built book at {site} (_build/html, or $MLNOTES_BOOK_HTML): build it with "
               "`make book` to test it")
        if browser_required():  # in CI the book is built first: absent, it is an error
            pytest.fail(why + " (required because CI / MLNOTES_REQUIRE_BROWSER is set)")
        pytest.skip(why)
    found = {}
    for path in site.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".ipynb", ".txt", ".js", ".md", ".py"):
            hits = plaintext._hits(path.read_text(errors="replace"), fingerprints)
            found.update({str(path.relative_to(site)): hits} if hits else {})
    assert not found, f"lines of the graded key in the built book: {found}"
