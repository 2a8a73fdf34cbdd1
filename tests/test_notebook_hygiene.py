"""Static checks of the book's notebooks: what a reader sees must not show test machinery.

For every notebook in ``_toc.yml`` (read as JSON, nothing is executed):

* no ``# NBVAL_CHECK_OUTPUT`` comment (nbval reads the cell tag ``nbval-check-output``);
* no ``# noqa`` comment (ruff's per-file ignores live in pyproject.toml);
* no leaked matplotlib repr in a saved output (``Text(0, 0.5, 'PC 2')``, ``<matplotlib...>``);
* check cells are marked both ways: a cell starting ``# Check: <claim>`` carries the tag
  ``check`` (so the book folds it under its claim), and a ``check`` cell starts with that line;
* plotting-only cells likewise: ``# Figure: <title>`` on the first line if and only if the tag
  ``plot`` (the book folds their code under the title; the figure stays visible);
* every image output has alt text (``metadata.mystnb.image.alt``) that is a sentence, not a path;
* every code line fits 79 characters.

``.dev/tidy_notebooks.py`` fixes the mechanical part and lists the rest; this file also pins
that script's behaviour on small synthetic notebooks.
"""

import importlib.util
import json
import re

import nbformat
import pytest

from browser_support import ROOT

MAX_LINE = 79
CHECK_LINE_RE = re.compile(r"^\s*#\s*Check:\s*\S")
FIGURE_LINE_RE = re.compile(r"^\s*#\s*Figure:\s*\S")
MPL_REPR_RE = re.compile(r"<matplotlib\.|<mpl_toolkits\.|<Axes[:\s]|<Figure size|^\s*\[?Text\(",
                         re.MULTILINE)
PATHLIKE_RE = re.compile(r"^[\w./\\-]+\.(png|svg|jpe?g|gif)$|^(_build|book|_images)/", re.I)
IMAGE_MIMES = ("image/png", "image/svg+xml", "image/jpeg")


def _toc_notebooks():
    """The toc's notebooks, as the tidy script lists them (one reading of _toc.yml)."""
    spec = importlib.util.spec_from_file_location("tidy_toc", ROOT / ".dev" / "tidy_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [path.relative_to(ROOT).as_posix() for path in module.toc_notebooks(ROOT)]


NOTEBOOKS = _toc_notebooks()


def _code_cells(name):
    nb = json.loads((ROOT / name).read_text(encoding="utf-8"))
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            source = cell["source"]
            yield index, ("".join(source) if isinstance(source, list) else source), cell


def _text(value):
    return "".join(value) if isinstance(value, list) else value


def _first_line(source):
    return next((line for line in source.split("\n") if line.strip()), "")


def test_the_toc_lists_notebooks():
    assert len(NOTEBOOKS) >= 10, f"expected the chapters in _toc.yml, found {NOTEBOOKS}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_nbval_comment_markers(name):
    bad = [i for i, src, _ in _code_cells(name) if re.search(r"#\s*NBVAL_", src)]
    assert not bad, (f"{name}: cells {bad} carry an '# NBVAL_…' comment; use the cell tag "
                     "'nbval-check-output' instead (.dev/tidy_notebooks.py converts them)")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_code_cell_was_executed(name):
    # A cell saved without running (no execution count) has no outputs for nbval or the book.
    bad = [i for i, src, cell in _code_cells(name)
           if src.strip() and cell.get("execution_count") is None]
    assert not bad, (f"{name}: code cells {bad} were never executed; run "
                     ".dev/execute_notebooks.py on the notebook and save it with its outputs")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_noqa_comments(name):
    bad = [i for i, src, _ in _code_cells(name) if re.search(r"#\s*noqa\b", src, re.I)]
    assert not bad, (f"{name}: cells {bad} carry '# noqa'; ruff's per-file ignores for notebooks "
                     "are in pyproject.toml (.dev/tidy_notebooks.py removes the comments)")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_matplotlib_reprs_in_outputs(name):
    bad = []
    for i, _, cell in _code_cells(name):
        for out in cell.get("outputs", []):
            text = _text(out.get("data", {}).get("text/plain", ""))
            if out.get("output_type") == "execute_result" and MPL_REPR_RE.search(text):
                bad.append((i, text.strip()[:60]))
    assert not bad, (f"{name}: matplotlib reprs shown in outputs {bad}; end the plotting line "
                     "by assigning it, _ = ... (.dev/tidy_notebooks.py does it)")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_check_cells_are_tagged_and_named(name):
    untagged, unnamed = [], []
    for i, src, cell in _code_cells(name):
        tagged = "check" in cell.get("metadata", {}).get("tags", [])
        named = bool(CHECK_LINE_RE.match(_first_line(src)))
        if named and not tagged:
            untagged.append(i)
        if tagged and not named:
            unnamed.append(i)
    assert not untagged, (f"{name}: cells {untagged} start with '# Check:' but lack the tag "
                          "'check', so the book shows them unfolded")
    assert not unnamed, (f"{name}: cells {unnamed} are tagged 'check' but do not start with "
                         "'# Check: <claim>', so their folded bar has no claim")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_plot_cells_are_tagged_and_titled(name):
    untagged, untitled = [], []
    for i, src, cell in _code_cells(name):
        tagged = "plot" in cell.get("metadata", {}).get("tags", [])
        titled = bool(FIGURE_LINE_RE.match(_first_line(src)))
        if titled and not tagged:
            untagged.append(i)
        if tagged and not titled:
            untitled.append(i)
    assert not untagged, (f"{name}: cells {untagged} start with '# Figure:' but lack the tag "
                          "'plot', so the book shows their code unfolded")
    assert not untitled, (f"{name}: cells {untitled} are tagged 'plot' but do not start with "
                          "'# Figure: <what the figure shows>', so their folded bar has no title")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_image_output_has_alt_text(name):
    bad = []
    for i, _, cell in _code_cells(name):
        if not any(m in out.get("data", {}) for out in cell.get("outputs", []) for m in IMAGE_MIMES):
            continue
        alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt", "").strip()
        if len(alt) < 10 or PATHLIKE_RE.search(alt):
            bad.append(i)
    assert not bad, (f"{name}: figure cells {bad} have no alt text (a sentence) in "
                     "metadata.mystnb.image.alt")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_code_lines_fit_79_characters(name):
    bad = [(i, n, len(line)) for i, src, _ in _code_cells(name)
           for n, line in enumerate(src.split("\n"), 1) if len(line) > MAX_LINE]
    assert not bad, (f"{name}: {len(bad)} code line(s) longer than {MAX_LINE} characters "
                     f"(cell, line, length): {bad[:8]}")


# ---------- the tidy script on synthetic notebooks ----------

def _load_tidy():
    spec = importlib.util.spec_from_file_location("tidy_notebooks",
                                                  ROOT / ".dev" / "tidy_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tidy():
    return _load_tidy()


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def test_tidy_converts_markers_and_is_idempotent(tidy):
    cell = nbformat.v4.new_code_cell(
        "# NBVAL_CHECK_OUTPUT\n# noqa: E402\nimport numpy as np  # noqa: F401\nx = 1")
    nb = _nb(cell)
    changes, reports, _ = tidy.tidy_notebook(nb)
    assert cell.source == "import numpy as np\nx = 1"
    assert cell.metadata["tags"] == ["nbval-check-output"]
    assert changes and not reports
    again = tidy.tidy_notebook(nb)
    assert again[0] == [] and cell.source == "import numpy as np\nx = 1"


def test_tidy_keeps_noqa_inside_strings(tidy):
    cell = nbformat.v4.new_code_cell('s = "# noqa here"\nprint(s)')
    tidy.tidy_notebook(_nb(cell))
    assert cell.source == 's = "# noqa here"\nprint(s)'


def test_tidy_silences_a_final_plot_repr_and_drops_it(tidy):
    cell = nbformat.v4.new_code_cell("fig, ax = plt.subplots()\nax.set_ylabel(\n    'PC 2'\n)")
    image = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="})
    repr_ = nbformat.v4.new_output("execute_result", data={"text/plain": "Text(0, 0.5, 'PC 2')"},
                                   execution_count=1)
    cell.outputs = [image, repr_]
    tidy.tidy_notebook(_nb(cell))
    assert cell.source.endswith("_ = ax.set_ylabel(\n    'PC 2'\n)")
    assert cell.outputs == [image], "the figure stays, the repr goes"


def test_tidy_replaces_a_trailing_semicolon_by_an_assignment(tidy):
    # nbval runs cells without history, so IPython reads ';' from the wrong cell.
    cell = nbformat.v4.new_code_cell("ax.plot([1, 2]);  # the line")
    tidy.tidy_notebook(_nb(cell))
    assert cell.source == "_ = ax.plot([1, 2])  # the line"


def test_tidy_keeps_a_result_that_is_not_a_repr(tidy):
    cell = nbformat.v4.new_code_cell("ax.get_xlim()")
    result = nbformat.v4.new_output("execute_result", data={"text/plain": "(0.0, 1.0)"},
                                    execution_count=1)
    cell.outputs = [result]
    tidy.tidy_notebook(_nb(cell))
    assert cell.source == "ax.get_xlim()" and cell.outputs == [result]


def test_tidy_tags_check_cells_and_reports_missing_claims(tidy):
    named = nbformat.v4.new_code_cell("# Check: the weights sum to one\nassert abs(w.sum() - 1) < 1e-12")
    bare = nbformat.v4.new_code_cell("assert np.allclose(K, K.T)\nassert K.shape == (3, 3)")
    teaching = nbformat.v4.new_code_cell("Z = fit(X)\nW = solve(Z)\nplt.plot(Z)\nassert Z.ndim == 2")
    changes, reports, notes = tidy.tidy_notebook(_nb(named, bare, teaching))
    assert "check" in named.metadata["tags"] and "check" in bare.metadata["tags"]
    assert "tags" not in teaching.metadata
    assert any("cell 1" in r and "# Check:" in r for r in reports), reports
    assert any("cell 2" in n for n in notes), notes


def test_tidy_moves_long_trailing_comments_above_their_line(tidy):
    src = "x = compute(a, b)  # " + "a remark that makes this line far too long " * 2
    out = tidy.hoist_long_comments(src)
    comment, code = out.split("\n")
    assert code == "x = compute(a, b)" and comment.startswith("# a remark")


def test_tidy_reports_figures_without_alt_text(tidy):
    cell = nbformat.v4.new_code_cell("plt.plot([1, 2]);")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="})]
    _, reports, _ = tidy.tidy_notebook(_nb(cell))
    assert any("alt text" in r for r in reports), reports


def test_tidy_refuses_a_file_that_is_not_a_notebook(tidy, tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text("{not json")
    with pytest.raises(SystemExit, match="not a readable notebook"):
        tidy.tidy_file(path)


# ---------- the book's Sphinx extensions (book/_ext), pure functions ----------

def _load_ext(name):
    spec = importlib.util.spec_from_file_location(f"book_ext_{name}",
                                                  ROOT / "book" / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_check_claim_is_the_first_comment_line():
    surface = _load_ext("surface")
    assert surface.check_claim("\n# Check: K is centred\nassert 1") == "K is centred"
    assert surface.check_claim("#Check:   sums to one  \nx = 1") == "sums to one"
    assert surface.check_claim("x = 1\n# Check: too late") is None
    assert surface.check_claim("# check the sums\nx = 1") is None


def test_figure_title_and_setup_cell_are_recognised():
    surface = _load_ext("surface")
    assert surface.figure_title("# Figure: the swiss roll, coloured by t\nplt.show()") == \
        "the swiss roll, coloured by t"
    assert surface.figure_title("fig = plt.figure()\n# Figure: late") is None
    assert surface.is_setup_source("import mlnotes as ml\nml.plotting.setup_notebook()")
    assert not surface.is_setup_source("import numpy as np")
    bar = surface._summary_html("two <panels>", "plot")
    assert "Figure code" in bar and "two &lt;panels&gt;" in bar and "✓" not in bar


def test_search_maps_british_spellings_to_american():
    surface = _load_ext("surface")
    assert surface.spelling_key("Centring") == "centering"
    assert surface.spelling_key("neighbourhood") == "neighborhood"
    assert surface.spelling_key("centering") == "centering"
    search = surface._english_both_spellings()({})
    assert search.stem("centring") == search.stem("centering")
    assert search.stem("normalised") == search.stem("normalized")
    assert "MLNOTES_SPELLINGS" in search.js_stemmer_code


def test_book_pdf_link_and_print_button_label():
    publish = _load_ext("publish")
    page = ('<button class="btn btn-sm btn-download-pdf-button dropdown-item" title="Print to PDF">'
            '<span class="btn__text-container">.pdf</span></button>'
            + publish.THEME_BUTTON + '">')
    linked = publish.add_book_pdf_link(publish.relabel_print_button(page), depth=1)
    assert 'href="../mlnotes.pdf"' in linked and "Book PDF" in linked
    assert "Print this page" in linked and ">.pdf<" not in linked
    assert publish.add_book_pdf_link(linked, depth=1) == linked  # once


def test_fontawesome_script_is_dropped_and_nothing_else():
    surface = _load_ext("surface")
    page = ('<head>\n  <script defer src="../_static/scripts/bootstrap.js?digest=1"></script>\n'
            '  <script defer src="../_static/scripts/fontawesome.js?digest=55c2"></script>\n'
            '  <link rel="preload" as="script" href="../_static/scripts/fontawesome.js?digest=5" />\n'
            '</head>')
    trimmed = surface.drop_fontawesome_js(page)
    assert "fontawesome" not in trimmed
    assert "bootstrap.js" in trimmed
    assert surface.drop_fontawesome_js(trimmed) == trimmed


def test_bibliography_labels_are_author_year():
    from pybtex.database import Entry, Person

    citations = _load_ext("citations")

    def entry(*authors, year="2000"):
        return Entry("article", fields={"year": year},
                     persons={"author": [Person(a) for a in authors]})

    assert citations.author_year_label(entry("Izenman, Alan J.", year="2008")) == "Izenman, 2008"
    assert citations.author_year_label(entry("Roweis, Sam", "Saul, Lawrence")) == \
        "Roweis and Saul, 2000"
    assert citations.author_year_label(entry("Pedregosa, F.", "Varoquaux, G.", "Gramfort, A.")) \
        == "Pedregosa et al., 2000"
    assert citations.author_year_label(entry("Pedregosa, F.", "others")) == "Pedregosa et al., 2000"
    assert citations.author_year_label(entry("de Silva, Vin", "Tenenbaum, J.")) == \
        "de Silva and Tenenbaum, 2000"
    style = citations.AuthorYearLabelStyle()
    labels = list(style.format_labels([entry("Hinton, G."), entry("Hinton, G.")]))
    assert labels == ["Hinton, 2000a", "Hinton, 2000b"]


def test_no_chapter_draws_a_figure_whose_text_collides():
    """``mlnotes.plotting`` warns (``FigureTextOverlap``) when a saved figure's texts overlap
    after it thinned what it could: no stored output of any chapter may carry that warning."""
    from mlnotes.plotting import FigureTextOverlap

    name = FigureTextOverlap.__name__
    bad = [f"{notebook} cell {index}" for notebook in NOTEBOOKS
           for index, _, cell in _code_cells(notebook)
           for output in cell.get("outputs", [])
           if name in _text(output.get("text", "")) + _text(output.get("evalue", ""))
           + _text(output.get("data", {}).get("text/plain", ""))]
    assert not bad, (f"figures whose text collides: {bad}; give the figure more room (figsize, "
                     "two rows instead of three columns) or fewer ticks, and re-execute")
