"""The build-time maths (book/_ext/prerender.py, prerender_maths.cjs) on small pages, with Node.

A rebuild of the book over an existing ``_build`` re-reads the pages Sphinx did not write again,
which the build before already typeset at their top: the result must be the page a fresh build
writes (a second pass once typeset 53 formulas at the top of umap.html instead of 34)."""

import html.parser
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from browser_support import ISLAND_RE

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


def _run(prerender, tmp_path, pages, budget, island=False):
    """One build's prerender step over ``pages`` (paths): prerender_maths.cjs's summary."""
    job = {"mathjax": str(prerender.STATIC / "mathjax4"),
           "linebreaks": str(prerender.STATIC / "mlnotes-mathjax.js"),
           "config": yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"][
               "mathjax3_config"],
           "width": prerender.COLUMN_PX, "numbered": prerender.NUMBERED_PX,
           "em": prerender.EM_PX, "ex": prerender.EX_PX, "scale": prerender.SCALE,
           "fontURL": prerender.FONT_URL, "css": str(tmp_path / "chtml.css"),
           "files": [str(p) for p in pages], "budget": budget,
           "island": island, "phone": prerender.PHONE_PX}
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




@NODE
def test_the_island_holds_each_formula_as_a_whole_build_typesets_it(tmp_path):
    """MLNOTES_PRERENDER_MATHS=island: the first screens typeset in place, every other formula
    kept TeX in the page, marked with its place (data-mlnotes-chtml, in the page's order) in one
    JSON text at the end of the body: exactly the HTML a build typesetting every formula puts
    in place (a display wide enough to break on a phone also broken for PHONE_PX, and only
    then). Nothing in the JSON can end its script element early (no "</" nor "<!--"; a formula
    whose text holds both), the page parses whole, and a rebuild reading it again leaves it
    byte for byte."""
    prerender = _load_prerender()
    prose = "Some prose. " * 20
    long_display = "c = " + " + ".join(f"a_{{{k}}} b_{{{k}}}" for k in range(14))
    tricky = _inline(r"\text{&lt;/script&gt; &lt;!-- a --&gt;}")
    body = (f'{_inline("p")} {prose}{_inline("q")} {prose}{_inline(r"x^2")}'
            f'{_display(long_display, "wide")}{_display("d = e")}{tricky}')
    page = '<html><body><article class="bd-article">{}</article></body></html>'.format(body)
    island, whole = tmp_path / "island", tmp_path / "whole"
    island.mkdir()
    whole.mkdir()
    (island / "p.html").write_text(page)
    (whole / "p.html").write_text(page)
    budget = {"chars": 300, "formulas": 2}
    assert _run(prerender, island, [island / "p.html"], budget, island=True) == {
        str(island / "p.html"): {"typeset": 6, "left": 0}}
    _run(prerender, whole, [whole / "p.html"], None)
    built = (island / "p.html").read_text()
    everything = (whole / "p.html").read_text()
    found = ISLAND_RE.findall(built)
    assert len(found) == 1 and built.rindex("</script>") < built.rindex("</body>")
    text = found[0]
    assert "</" not in text and "<!--" not in text, "the island's JSON could end its script"
    entries = json.loads(text)
    # in place: the two formulas of the top, as the whole build has them; the rest marked
    in_place = re.findall(r"<mjx-container .*?</mjx-container>", everything, re.S)
    dom = built[:built.index('<script type="application/json"')]
    assert len(in_place) == 6 and dom.count("<mjx-container") == 2
    assert re.findall(r"<mjx-container .*?</mjx-container>", dom, re.S) == in_place[:2]
    marks = re.findall(r'<(?:span|div) class="math notranslate nohighlight"[^>]* '
                       r'data-mlnotes-chtml="(\d+)">', built)
    assert marks == ["0", "1", "2", "3"], marks
    assert r"\(x^2\)" in built and r"\[d = e\]" in built  # TeX kept until put in place
    # each entry is what the whole build put in place; the long display also broken for a phone
    assert isinstance(entries[1], list) and len(entries[1]) == 2, "no phone form of a long display"
    wide, narrow = entries[1]
    assert all(e.startswith('<mjx-container data-mlnotes-island="" ')
               for e in [e if isinstance(e, str) else e[0] for e in entries] + entries[1])
    assert [(e if isinstance(e, str) else e[0]).replace(' data-mlnotes-island=""', "", 1)
            for e in entries] == in_place[2:]
    assert f'data-mlnotes-width="{prerender.PHONE_PX}"' in narrow
    assert narrow.count("<mjx-linebox") > wide.count("<mjx-linebox")
    assert all(isinstance(e, str) for e in (entries[0], entries[2], entries[3])), entries
    # the page parses with one script element holding the whole island
    scripts = []

    class Scripts(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "script":
                scripts.append("")

        def handle_data(self, data):
            if scripts and self.lasttag == "script":
                scripts[-1] += data

    Scripts().feed(built)
    assert len(scripts) == 1 and json.loads(scripts[0]) == entries
    _run(prerender, island, [island / "p.html"], budget, island=True)
    assert (island / "p.html").read_text() == built, "a page read again was changed"
