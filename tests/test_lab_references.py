"""References a JupyterLab reader can read (issue 34): no role jupyterlab-myst leaves "Not Found".

jupyterlab-myst renders each notebook alone, with no bibliography: a ``{prf:ref}``, ``{ref}``,
``{numref}`` or ``{eq}`` to a label outside the notebook's own Markdown, and every ``{cite:p}``
/ ``{cite:t}``, shows "Cross Reference Not Found" / "Citation Not Found" there. Such references
are Markdown links carrying the text the book prints (``.dev/lab_references.py`` writes them;
``book/_ext/lablinks.py`` turns them back into the roles at build time and fails the ``-W``
build when a link's text is not what the book prints). Here: no page keeps a role Lab cannot
render, every link names a label its target page defines, and the build-time check rejects a
stale text (a small Sphinx build). The browser test (tests/test_browser_lab.py) looks for "Not
Found" in every chapter as JupyterLab renders it.
"""

import importlib.util
import io
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


refs = _load(ROOT / ".dev" / "lab_references.py", "lab_references_34")
LINK_RE = re.compile(r"\]\((?P<page>[\w./-]*)#(?P<label>[\w:,.-]+)\)")


def _bib_keys():
    return set(re.findall(r"^@\w+\{([^,\s]+),", (BOOK / "references.bib").read_text(
        encoding="utf-8"), re.MULTILINE))


def test_no_page_keeps_a_reference_jupyterlab_shows_as_not_found():
    left = {p.relative_to(BOOK).as_posix(): [*refs.cannot_render(p), *refs.explicit_elsewhere(p)][:5]
            for p in refs.pages()}
    left = {name: roles for name, roles in left.items() if roles}
    assert not left, ("roles JupyterLab shows as 'Not Found' (a label outside the notebook, "
                      "or a citation) or as a link to nowhere ({ref}`words <label>` to another "
                      "page); run .dev/lab_references.py (its docstring says how): "
                      f"{left}")


def test_every_reference_link_names_a_label_its_page_defines():
    defined, keys, bad = refs.defined_labels(), _bib_keys(), []
    for path in refs.pages():
        for text in refs.markdown_sources(path):
            for m in LINK_RE.finditer(text):
                label, page = m["label"], m["page"]
                if not page and all(k in keys for k in label.split(",")):
                    continue  # a citation
                owner = defined.get(label)
                target = (path.parent / page).resolve() if page else path
                if owner is None or owner != target:
                    bad.append((path.name, m.group(0), owner and owner.name))
    assert not bad, f"links whose page does not define the label (page, link, definer): {bad}"


def _page(tmp_path, name, source):
    path = tmp_path / name
    if name.endswith(".ipynb"):
        nb = {"cells": [{"cell_type": "markdown", "id": f"c{i}", "metadata": {}, "source": s}
                        for i, s in enumerate(source)],
              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        path.write_text(json.dumps(nb), encoding="utf-8")
    else:
        path.write_text(source, encoding="utf-8")
    return path


def test_the_detector_finds_what_jupyterlab_cannot_render(tmp_path, monkeypatch):
    """Mutants of a page: a role to another notebook's theorem, a citation, a reference to the
    page's own title are found; a theorem and an equation of the same notebook are not."""
    page = _page(tmp_path, "a.ipynb", [
        "(chap-a)=\n# A\n\nSee {ref}`chap-a`.",
        "(a-sec)=\n## Sec\n\n```{prf:theorem} T\n:label: a-thm\nx\n```\n\n$$\nx\n$$ (a-eq)\n\n"
        "Here {prf:ref}`a-thm`, {eq}`a-eq`, {ref}`a-sec`, {ref}`the text <b-thm>`; "
        "there {prf:ref}`b-thm`; {cite:t}`pearson1901lines`, {cite:p}`a,b`."])
    assert sorted(refs.cannot_render(page)) == [
        ("cite:p", "a,b"), ("cite:t", "pearson1901lines"), ("prf:ref", "b-thm"),
        ("ref", "chap-a")]
    assert refs.explicit_elsewhere(page) == [("the text", "b-thm")]


SPHINX_CONF = """
extensions = ["myst_parser", "sphinx_proof", "sphinxcontrib.bibtex", "lablinks"]
bibtex_bibfiles = ["refs.bib"]
bibtex_reference_style = "author_year"
numfig = True
math_numfig = True
math_eqref_format = "({number})"
myst_enable_extensions = ["dollarmath", "amsmath"]
exclude_patterns = ["_build"]
"""
BIB = "@article{pearson1901lines, author={Karl Pearson}, title={Lines}, journal={PM}, year={1901}}\n"


# 1x1 PNG for a figure of the small build
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
GOOD = ("[Theorem 1.2](a.md#a-thm2), [(1.1)](a.md#a-eq), [Alpha](a.md#a-title), [Fig. 2.1](#b-fig), "
        "[Pearson [1901]](#pearson1901lines), [[Pearson, 1901]](#pearson1901lines), "
        "[the Alpha chapter](a.md#a-title), [the remark on dots](a.md#a-para), "
        "[Erratum E35](a.md#a-e35)")
# each a careless or stale link: a renumbered theorem, equation or figure (of another page, of
# the same page), a wrong year, a label that lives in another page than the link names, a
# section number the book does not print, a section renamed since (a section's link may carry
# its own words, as {ref}`words <label>`, if they hold the section's title and no number; a
# paragraph's label, any words but a number; an erratum renumbered)
STALE = ["[Theorem 1.1](a.md#a-thm2)", "[(1.2)](a.md#a-eq)", "[Fig. 2.2](#b-fig)",
         "[Fig. 3.2](#c-fig)",
         "[Pearson (1902)](#pearson1901lines)", "[Theorem 1.2](b.md#a-thm2)",
         "[Section 7](a.md#a-title)", "[the Beta chapter](a.md#a-title)",
         "[Remark 3](a.md#a-para)", "[Erratum E36](a.md#a-e35)"]


def test_the_book_build_turns_links_into_roles_and_rejects_a_text_it_does_not_print(tmp_path):
    """A two-chapter Sphinx build with the book's extension: the good links render as their
    roles would; each stale link is a warning (an error under the book's -W)."""
    from sphinx.application import Sphinx

    (tmp_path / "conf.py").write_text(SPHINX_CONF, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "dot.png").write_bytes(PNG)
    (tmp_path / "index.md").write_text(
        "# Book\n\n```{toctree}\n:numbered:\na\nb\nc\n```\n", encoding="utf-8")
    (tmp_path / "a.md").write_text(
        "(a-title)=\n# Alpha\n\n```{prf:theorem} T\n:label: a-thm\nx\n```\n\n"
        "```{prf:theorem} U\n:label: a-thm2\ny\n```\n\n$$\nx\n$$ (a-eq)\n\n"
        "(a-para)=\nA paragraph with a label and no title.\n\n"
        "(a-e35)=\n## E35. A slip in the notes\n\n"
        "```{bibliography}\n:all:\n```\n", encoding="utf-8")
    (tmp_path / "b.md").write_text(
        f"# B\n\n```{{figure}} dot.png\n:name: b-fig\n\nA dot.\n```\n\n{GOOD}\n",
        encoding="utf-8")
    (tmp_path / "c.md").write_text("# C\n\n```{figure} dot.png\n:name: c-fig\n\nA dot.\n```\n\n"
                                   + "\n\n".join(STALE) + "\n", encoding="utf-8")
    warnings = io.StringIO()
    sys.path.insert(0, str(BOOK / "_ext"))
    try:
        app = Sphinx(str(tmp_path), str(tmp_path), str(tmp_path / "_build"),
                     str(tmp_path / "_build" / ".doctrees"), "html", status=None,
                     warning=warnings, freshenv=True)
        app.build()
    finally:
        sys.path.remove(str(BOOK / "_ext"))
    lines = warnings.getvalue().splitlines()
    assert not [w for w in lines if "b.md" in w], lines  # the good links: no warning
    flagged = [w for w in lines if "c.md" in w and "lablink" in w]
    assert len(flagged) == len(STALE), lines
    html = (tmp_path / "_build" / "b.html").read_text(encoding="utf-8")
    assert 'href="a.html#a-thm2">Theorem 1.2</a>' in html  # as {prf:ref} renders it
    assert '<span class="std std-numref">Fig. 2.1</span>' in html  # as {numref}
    assert html.count('class="bibtex-citation"') == 2  # as {cite:t} and {cite:p}
    # as {ref}`the Alpha chapter <a-title>`
    assert ('href="a.html#a-title"><span class="std std-ref">the Alpha chapter</span></a>'
            in html)


def test_every_notebook_carries_the_numbering_front_matter_jupyterlab_needs():
    """jupyterlab-myst numbers as the book does only with the front matter of the notebook's
    first cell (chapter number as the enumerator, equations off where the book leaves some
    unnumbered): each notebook carries exactly what .dev/lab_references.py computes. The
    browser test compares the numbers Lab renders with the built book's."""
    numbers = refs.chapter_numbers()
    assert numbers[(BOOK / "pca.ipynb").resolve()] == 2  # as the book: datasets is chapter 1
    wrong = {p.name: refs.first_cell_front_matter(p) for p in refs.pages()
             if p.suffix == ".ipynb"
             and refs.first_cell_front_matter(p) != refs.front_matter(
                 refs.lab_numbering(p, numbers))}
    assert not wrong, ("notebooks whose first cell lacks the numbering front matter "
                       f"(run .dev/lab_references.py --front-matter): {wrong}")


def test_the_numbering_front_matter_follows_the_chapter_and_its_equations(tmp_path):
    """Mutants: a chapter of the toc gets its number; one unlabelled display equation turns
    Lab's equation numbers off and makes its {eq} references links; a notebook outside the
    numbered parts, with labelled equations only, needs nothing; a stale block is replaced,
    and only the first cell changes."""
    labelled = "$$\nx\n$$ (a-eq)\n\nSee {eq}`a-eq`."
    page = _page(tmp_path, "a.ipynb", ["(chap-a)=\n# A\n", labelled])
    numbers = {page.resolve(): 3}
    assert refs.lab_numbering(page, numbers) == {"enumerator": "3.%s"}
    assert refs.lab_numbering(page, {}) is None
    assert refs.cannot_render(page) == []
    page = _page(tmp_path, "a.ipynb", ["---\nnumbering: stale\n---\n(chap-a)=\n# A\n",
                                       labelled + "\n\n$$\ny\n$$\n"])
    assert refs.lab_numbering(page, numbers) == {"enumerator": "3.%s",
                                                 "equation": {"enabled": False}}
    assert refs.cannot_render(page) == [("eq", "a-eq")]
    before = json.loads(page.read_text(encoding="utf-8"))
    assert refs.set_front_matter(page, numbers)
    after = json.loads(page.read_text(encoding="utf-8"))
    assert after["cells"][1] == before["cells"][1]
    assert "".join(after["cells"][0]["source"]) == (
        '---\nnumbering: {enumerator: "3.%s", equation: {enabled: false}}\n\n---\n'
        '(chap-a)=\n# A\n')
    assert not refs.set_front_matter(page, numbers)  # already there


def test_the_book_reads_a_notebook_without_its_lab_front_matter():
    """book/_ext/lablinks.py drops the first cell's front matter when Sphinx reads a notebook
    (myst-nb would read its fences as a transition, an error under -W); a Markdown page, and a
    rule further down a notebook, are left alone."""
    lablinks = _load(BOOK / "_ext" / "lablinks.py", "lablinks_34")

    class App:
        class env:
            @staticmethod
            def doc2path(docname):
                return Path(f"/book/{docname}")

    first = '---\nnumbering: {enumerator: "2.%s"}\n\n---\n(chap-a)=\n# A\n'
    nb = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": first},
                    {"cell_type": "markdown", "id": "b", "metadata": {}, "source": "x\n\n---\n"}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    source = [json.dumps(nb)]
    lablinks._drop_lab_front_matter(App, "a.ipynb", source)
    cells = json.loads(source[0])["cells"]
    assert [c["source"] for c in cells] == ["(chap-a)=\n# A\n", "x\n\n---\n"]
    page = [first]
    lablinks._drop_lab_front_matter(App, "a.md", page)
    assert page == [first]
