"""The build-time maths (book/_ext/prerender.py, prerender_maths.cjs) on small pages, with Node.

A rebuild of the book over an existing ``_build`` re-reads the pages Sphinx did not write again,
which the build before already typeset at their top: the result must be the page a fresh build
writes (a second pass once typeset 53 formulas at the top of umap.html instead of 34)."""

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NODE = pytest.mark.skipif(shutil.which("node") is None,
                          reason="no Node.js: the book's maths is typeset in the browser")


def _load_prerender():
    spec = importlib.util.spec_from_file_location("book_ext_prerender_unit",
                                                  ROOT / "book" / "_ext" / "prerender.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inline(tex):
    return f'<span class="math notranslate nohighlight">\\({tex}\\)</span>'


def _display(tex, label=None):
    if label is None:
        return f'<div class="math notranslate nohighlight">\n\\[{tex}\\]\n</div>'
    return (f'<div class="math notranslate nohighlight" id="equation-{label}">\n'
            f'<span class="eqno">(1)<a class="headerlink" href="#equation-{label}">#</a></span>'
            f'\\[{tex}\\]\n</div>')


def _run(prerender, tmp_path, pages, budget):
    """One build's prerender step over ``pages`` (paths): prerender_maths.cjs's summary."""
    job = {"mathjax": str(prerender.STATIC / "mathjax4"),
           "linebreaks": str(prerender.STATIC / "mlnotes-mathjax.js"),
           "config": yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"][
               "mathjax3_config"],
           "width": prerender.COLUMN_PX, "numbered": prerender.NUMBERED_PX,
           "em": prerender.EM_PX, "ex": prerender.EX_PX, "scale": prerender.SCALE,
           "fontURL": prerender.FONT_URL, "css": str(tmp_path / "chtml.css"),
           "files": [str(p) for p in pages], "budget": budget}
    (tmp_path / "job.json").write_text(json.dumps(job))
    run = subprocess.run(["node", str(prerender.SCRIPT), str(tmp_path / "job.json")],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


@NODE
def test_first_screens_typeset_once_when_a_page_is_read_again(tmp_path):
    """The first screens of a page (a budget of characters and formulas from the article's
    top) are typeset, the formulas after them stay TeX, also below the places a link lands on
    (a section, a statement, a numbered equation: the lazy typesetter begins there); chosen on
    the page as Sphinx wrote it: a second build that reads the page again (not rewritten, as on
    any rebuild) leaves it byte for byte as the first left it, whether the first stopped at the
    formula budget or at the character budget."""
    prerender = _load_prerender()
    prose = "Some prose. " * 20
    pages = {name: tmp_path / f"{name}.html" for name in ("count", "chars", "display", "below")}
    article = '<html><body><article class="bd-article">{}</article></body></html>'
    # no anchor: the top stops at the formula budget, at the characters; top displays only
    pages["count"].write_text(article.format(" ".join([
        _inline("x_1"), _inline(r"\alpha"), _display("a = b"), _inline("y^2"),
        _display(r"\sum_i z_i")])))
    pages["chars"].write_text(article.format(
        f'{_inline("p")} {prose}{_inline("q")} {prose}{_inline("r")}'))
    pages["display"].write_text(article.format(
        _display("d") + _display("f") + _inline("e")))
    # below the top (a): a section, a statement, an API entry, a numbered equation, all left
    pages["below"].write_text(article.format(
        f'{_inline("a")} {prose}{prose}{_inline("b")}'
        f'<section id="s"><h2>S</h2>{_inline("c")} {prose}{_inline("u")}</section>'
        f'<div class="proof theorem admonition" id="thm"><p>{_inline("k")} {prose}'
        f'{_inline("v")}</p></div><dl><dt id="mlnotes.f">f</dt><dd>{_inline("n")}</dd></dl>'
        f'{_display("h", "h")}{prose}{_inline("w")}'))
    budget = {"chars": 300, "formulas": 2}
    first = _run(prerender, tmp_path, list(pages.values()), budget)
    assert first[str(pages["count"])] == {"typeset": 2, "left": 3}
    assert first[str(pages["chars"])] == {"typeset": 2, "left": 1}
    assert first[str(pages["display"])] == {"typeset": 2, "left": 1}
    once = {p: p.read_text() for p in pages.values()}
    left = [t for t in "abckhnuvw" if f"\\({t}\\)" in once[pages["below"]]
            or f"\\[{t}\\]" in once[pages["below"]]]
    assert left == list("bckhnuvw"), left
    assert prerender.pages_with_tex(tmp_path) == sorted(pages.values())  # TeX left below
    again = _run(prerender, tmp_path, list(pages.values()), budget)
    assert {p: p.read_text() for p in once} == once, "a page read again was typeset further"
    assert all(v["typeset"] == 0 for v in again.values()), again
    assert once[pages["count"]].count("data-mlnotes-built") == 2
    assert r"\(y^2\)" in once[pages["count"]] and r"\(r\)" in once[pages["chars"]]


def test_a_rebuilds_style_sheet_keeps_the_rules_it_has():
    """The CHTML style sheet of a rebuild: the earlier build's rules, then only the rules it
    lacks. MathJax writes its base rules with fewer declarations when it has typeset fewer
    formulas (a rebuild typesets only the pages Sphinx wrote again, or none): such a rule is
    there already (appended, a rebuild's sheet grew by three rules)."""
    merge = _load_prerender().merge_css
    old = "a {\n  x: 1;\n  z: 2;\n}\n\nb {\n  y: 2;\n}\n"
    assert merge(old, "a {\n  x: 1;\n}\n\nb {\n  y: 2;\n}\n") == old
    assert merge(old, "a {\n  w: 1;\n}\n\nc {\n}\n").split("\n\n") == [
        "a {\n  x: 1;\n  z: 2;\n}", "b {\n  y: 2;\n}", "a {\n  w: 1;\n}", "c {\n}\n"]
