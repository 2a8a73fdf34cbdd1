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
pytestmark = pytest.mark.skipif(shutil.which("node") is None,
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


def test_first_screens_typeset_once_when_a_page_is_read_again(tmp_path):
    """The first screens of a page (``top``: a budget of characters and formulas) are chosen on
    the page as Sphinx wrote it: a second build that reads the page again (not rewritten, as on
    any rebuild) leaves it byte for byte as the first left it, whether the first stopped at the
    formula budget or at the character budget; the formulas after the top stay TeX."""
    prerender = _load_prerender()
    by_count = tmp_path / "count.html"
    by_chars = tmp_path / "chars.html"
    body = " ".join([_inline("x_1"), _inline(r"\alpha"), _display("a = b", "ab"),
                     _inline("y^2"), _display(r"\sum_i z_i")])
    by_count.write_text(f'<html><body><article class="bd-article">Text {body} end.</article>'
                        "</body></html>")
    prose = "Some prose. " * 20
    by_chars.write_text(f'<html><body><article class="bd-article">{_inline("p")} {prose}'
                        f'{_inline("q")} {prose}{_inline("r")}</article></body></html>')
    by_display = tmp_path / "display.html"  # its top: displays only (one numbered)
    by_display.write_text(f'<html><body><article class="bd-article">{_display("d", "d")}'
                          f'{_display("f")}{_inline("e")}</article></body></html>')
    pages = [by_count, by_chars, by_display]
    first = _run(prerender, tmp_path, pages, {"chars": 300, "formulas": 2})
    assert first[str(by_count)] == {"typeset": 2, "left": 3}
    assert first[str(by_chars)] == {"typeset": 2, "left": 1}
    assert first[str(by_display)] == {"typeset": 2, "left": 1}
    once = {p: p.read_text() for p in pages}
    assert prerender.pages_with_tex(tmp_path) == sorted(pages)  # TeX left below the top
    again = _run(prerender, tmp_path, pages, {"chars": 300, "formulas": 2})
    assert {p: p.read_text() for p in once} == once, "a page read again was typeset further"
    assert all(v["typeset"] == 0 for v in again.values()), again
    assert once[by_count].count("data-mlnotes-built") == 2
    assert r"\(y^2\)" in once[by_count] and r"\(r\)" in once[by_chars]
