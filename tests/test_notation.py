"""The notation appendix holds what the book does.

``book/appendix_notation.md`` lists, under "Symbols with more than one meaning", every symbol the
book uses in more than one sense, with the chapters (notebooks, in backticks) that use it. This
test reads that table and the mathematics of every chapter's markdown cells:

* every chapter listed for a symbol uses it (the list is not stale);
* every chapter that uses the symbol is listed (a new use must be declared, with its meaning);
* the single-meaning letters of "The book-wide choices" are not also listed as reused, except
  those that the table there sends to the list.

The errata appendix is not read: it quotes the notes in their own letters.
"""

import functools
import json
import re

import pytest

from browser_support import ROOT

BOOK = ROOT / "book"
APPENDIX = BOOK / "appendix_notation.md"
NOT_READ = {"errata"}  # quotes the notes' own letters
MATH_RE = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
# text inside these commands is words, not symbols (\text{t-SNE} has no t)
WORDS_RE = re.compile(r"\\(?:text|mathrm|operatorname|label|ref|eq)\s*\{[^{}]*\}")
# other alphabets are other symbols (the manifold \mathcal M is not the matrix M, \mathbb R not
# R), and the F of the Frobenius norm is a name, not a symbol
ALPHABETS_RE = re.compile(r"\\(?:mathcal|mathbb|mathscr|mathfrak)\s*\{?[A-Za-z]\}?")
FROBENIUS_RE = re.compile(r"(\\rVert|\\Vert|\\\|)\s*_\{?F\}?")
SECTION = "## Symbols with more than one meaning"


def _math(text):
    maths = []
    for m in MATH_RE.finditer(text):
        tex = FROBENIUS_RE.sub(r"\1", m.group(1) or m.group(2))
        maths.append(ALPHABETS_RE.sub(" ", WORDS_RE.sub(" ", tex)))
    return maths


def _symbol_regex(tex):
    tex = tex.strip()
    if tex.startswith("\\mathbf"):
        return re.compile(r"\\mathbf\s*\{?1\}?_\{?N\}?")
    if tex.startswith("\\"):
        return re.compile(re.escape(tex) + r"(?![A-Za-z])")
    return re.compile(r"(?<![\\A-Za-z{])" + re.escape(tex) + r"(?![A-Za-z])")


def _declared():
    text = APPENDIX.read_text(encoding="utf-8")
    assert SECTION in text, f"{APPENDIX.name} has no section '{SECTION}'"
    blocks = text.split(SECTION, 1)[1].split("\n\n")
    table = next(b for b in blocks if b.lstrip().startswith("| symbol"))
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            continue
        symbols = re.findall(r"\$([^$]+)\$", cells[0])
        chapters = set(re.findall(r"`([a-z_]+)`", cells[2]))
        assert symbols and chapters, f"unreadable row: {line}"
        rows[cells[0]] = (symbols, chapters, cells[1])
    assert len(rows) >= 10, "the list of reused symbols is unexpectedly short"
    return rows


@functools.lru_cache(maxsize=1)
def _chapter_math():
    maths = {}
    for path in sorted(BOOK.glob("*.ipynb")):
        if path.stem in NOT_READ:
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        maths[path.stem] = " ".join(
            s for c in cells if c["cell_type"] == "markdown" for s in _math("".join(c["source"])))
    return maths


ROWS = _declared()


def test_every_listed_chapter_exists():
    chapters = {p.stem for p in BOOK.glob("*.ipynb")}
    for label, (_, listed, _) in ROWS.items():
        assert listed <= chapters, f"{label}: no such chapter {sorted(listed - chapters)}"


@pytest.mark.parametrize("label", sorted(ROWS))
def test_reused_symbol_is_listed_where_it_occurs(label):
    symbols, listed, meanings = ROWS[label]
    assert ";" in meanings, f"{label}: a reused symbol lists two or more meanings"
    maths = _chapter_math()
    regexes = [_symbol_regex(s) for s in symbols]
    using = {name for name, math in maths.items() if any(r.search(math) for r in regexes)}
    assert using <= listed, (f"{label} is used in {sorted(using - listed)}, which the notation "
                             "appendix does not list for it: add the chapter and its meaning")
    assert listed <= using | NOT_READ, (f"{label} is listed for {sorted(listed - using)}, which "
                                        "do not use it: remove them from the appendix")


def _book_wide_rows():
    text = APPENDIX.read_text(encoding="utf-8")
    block = text.split("## The book-wide choices", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"\$[^$]+\$", cells[0]):
            rows[cells[0].strip("$")] = cells[1]
    assert len(rows) >= 8, "the table of book-wide choices is unexpectedly short"
    return rows


def test_book_wide_letter_is_reused_only_where_its_row_says_so():
    reused = {sym for symbols, _, _ in ROWS.values() for sym in symbols}
    for letter, means in _book_wide_rows().items():
        if letter in reused:
            assert "notation-reused" in means, (
                f"${letter}$ is a book-wide choice with one meaning, yet it is listed among the "
                "symbols with more than one meaning: say so in its row of 'The book-wide choices'")


def test_count():
    print(f"\n{len(ROWS)} reused symbols declared in the notation appendix")
