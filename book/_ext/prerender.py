"""The book's formulas typeset at build time (issue 32: maths readable at first paint).

After Sphinx has written the HTML pages, one Node process (``prerender_maths.cjs`` beside this
file) runs the bundled MathJax 4 (``book/_static/mathjax4``, with its liteDOM adaptor) over every
page and typesets each formula's TeX as MathJax's CHTML output with its assistive MathML, with
the pages' own configuration (``mathjax3_config``) and line-break places
(``book/_static/mlnotes-mathjax.js``): in place of the TeX, or in the page's island (below). A
page then shows typeset maths at first paint, with no MathJax to load: its MathJax script is
turned off (``data-mlnotes-mathjax`` keeps its address), and ``mlnotes-mathjax.js`` loads
MathJax only when a display formula is wider than the reader's column (a phone: it is typeset
again there, broken for that width) or a formula was left as TeX.
CHTML's style sheet, for every formula of the book, is one file, ``_static/mlnotes-chtml.css``,
that each such page links.

Display formulas are broken for the laptop's column (``COLUMN_PX``, ``NUMBERED_PX`` beside an
equation number: what MathJax measures at 1366 px); em, ex and the maths' scale are those
MathJax measures in the browser there.

``MLNOTES_PRERENDER_MATHS`` (and ``node`` on the PATH) says what is typeset and where it goes:

* ``island`` (``DEFAULT_MODE``): every formula. Those of each page's first screens
  (``TOP_CHARS``, ``TOP_FORMULAS``) are put in place; every other one stays TeX in the page,
  marked with its place (``data-mlnotes-chtml``) in one JSON text at the end of the body, the
  page's island (``<script type="application/json" id="mlnotes-chtml">``), which
  ``mlnotes-mathjax.js`` puts in place as the formulas come near the screen. The browser's
  parser only scans that text (no element is made of it), so the page costs what a page of
  TeX costs to parse and lay out, and no MathJax is loaded, started or run before the first
  screen's maths shows, at the top or at a link into the page. A display that a phone's column
  (``PHONE_PX``) breaks otherwise than the laptop's has both forms in the island. The page's
  MathJax script is turned off; MathJax is loaded only to break a display again for a column
  neither form fits, and for the menu on a right-click.
* ``top``: the first screens only, in place; the page keeps its MathJax script, whose lazy
  typesetter does the rest and skips these (``data-mlnotes-built``).
* ``1``: every formula in place: about 90 000 elements on t-SNE's page, whose parsing and
  layout cost more than MathJax's start-up and first batch saved (the API page's
  DOMContentLoaded went from about 4 s to about 20 s on a 4x slower phone). The screens below
  the places a link lands on were also tried in place: slower on the heaviest pages, even at
  those links, for the same reason (benchmarks/results-first-paint.md).
* ``0``: none, the browser typesets every formula lazily.

A built display too wide for the reader's column is typeset again for it in the page, as it
comes near the screen and whenever its column changes width (``mlnotes-mathjax.js``,
book/_static/mathjax4/README.md). Typesetting every formula (7 898, with the phone's forms of
the displays) takes about 11 s of one core in a build; the first screens alone about 1.5 s (565).
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

from sphinx.util import logging

LOG = logging.getLogger(__name__)
HERE = pathlib.Path(__file__).resolve().parent
SCRIPT = HERE / "prerender_maths.cjs"
STATIC = HERE.parent / "_static"
CSS = "_static/mlnotes-chtml.css"
# What MathJax measures in the browser for a display formula of a chapter at 1366 px: the
# column (748 px; 685 beside an equation number), the text 16 px, its ex 9 px: the maths is
# 127.3% of the text. A display in a narrower box (a theorem's: 618-726 px) that is wider than
# it is typeset again by the page (book/_static/mlnotes-mathjax.js), as on a phone.
COLUMN_PX, NUMBERED_PX, EM_PX, EX_PX, SCALE = 748, 685, 16, 9, 1.2726
# The width a display is also broken for when a phone's column breaks it otherwise (the island):
# a phone's column is 358 px at 390 px (328 at 360), a theorem's or proof's box there 291-336
# (261-306); a box narrower still has the display typeset again by the page, as any column
# neither form fits.
PHONE_PX = 320
# MLNOTES_PRERENDER_MATHS (the module's docstring): "island", "top", "1" (or "all"), "0". The
# first screens, typeset in place: the formulas of the article's first TOP_CHARS
# characters of text (a formula counting half its TeX), at most TOP_FORMULAS of them: a
# 390x844 phone's first screen shows about 1 500 characters of text, a 1366x768 laptop's about
# 2 500; the rest stays TeX for the page's lazy typesetter (book/_static/mlnotes-mathjax.js).
TOP_CHARS, TOP_FORMULAS = 4000, 80
MODES = {"0": None, "top": "top", "island": "island", "1": "all", "all": "all"}
DEFAULT_MODE = "island"  # benchmarks/results-first-paint.md, book/_static/mathjax4/README.md
FONT_URL = "mathjax4/fonts/mathjax-newcm-font/chtml/woff2"  # relative to CSS
# Sphinx's formula (what prerender_maths.cjs replaces) and its MathJax script
TEX = re.compile(r'<(?:span|div) class="math notranslate nohighlight"[^>]*>\n?'
                 r'(?:<span class="eqno">.*?</span>)?\\[(\[]', re.S)
MATHJAX_SCRIPT = re.compile(r'<script defer="defer" src="([^"]*mathjax4/tex-chtml\.js[^"]*)">'
                            r'</script>')


def pages_with_tex(outdir):
    """The HTML pages under ``outdir`` that hold a formula as TeX (not yet typeset)."""
    skip = {"_static", "_sources", "_images"}
    return sorted(p for p in pathlib.Path(outdir).rglob("*.html")
                  if not skip & set(p.relative_to(outdir).parts)
                  and TEX.search(p.read_text(encoding="utf-8")))


def merge_css(old, new):
    """One style sheet from ``old`` and ``new``: each rule once, ``old``'s first (an incremental
    build typesets only the pages it wrote; the others keep needing their rules). A rule of
    ``new`` whose selector ``old`` has with every one of its declarations is there already
    (MathJax writes its base rules with fewer declarations when it has typeset less)."""
    def parts(rule):
        selector, _, body = rule.partition("{")
        return selector.strip(), {d.strip() for d in body.rstrip("}").split(";") if d.strip()}

    rules = list(dict.fromkeys(r.strip() for r in old.split("\n\n") if r.strip()))
    seen = set(rules)
    declared = {}
    for rule in rules:
        selector, body = parts(rule)
        declared.setdefault(selector, set()).update(body)
    for rule in (r.strip() for r in new.split("\n\n") if r.strip()):
        selector, body = parts(rule)
        if rule in seen or body <= declared.get(selector, set()) and body:
            continue
        seen.add(rule)
        rules.append(rule)
        declared.setdefault(selector, set()).update(body)
    return "\n\n".join(rules) + "\n"


def finish_page(page, outdir, left):
    """Link the CHTML style sheet into ``page``; with no formula ``left`` to the browser's
    MathJax (typeset neither in place nor in the island), turn its MathJax script off
    (``mlnotes-mathjax.js`` loads it if a formula needs it)."""
    text = page.read_text(encoding="utf-8")
    href = os.path.relpath(pathlib.Path(outdir) / CSS, page.parent).replace(os.sep, "/")
    if href not in text:
        text = text.replace("</head>", f'<link rel="stylesheet" type="text/css" href="{href}" />\n'
                            "</head>", 1)
    if not left:
        text = MATHJAX_SCRIPT.sub(r'<script data-mlnotes-mathjax="\1"></script>', text)
    page.write_text(text, encoding="utf-8")


def prerender(app, exception):
    """build-finished: typeset every page's formulas with MathJax in Node."""
    if exception or app.builder.format != "html":
        return
    value = os.environ.get("MLNOTES_PRERENDER_MATHS", DEFAULT_MODE)
    if value not in MODES:
        raise ValueError(f"MLNOTES_PRERENDER_MATHS={value!r}: use one of {sorted(MODES)} "
                         "(island: every formula, the first screens in place; top: the first "
                         "screens only; 1: every formula in place; 0: none)")
    mode = MODES[value]
    if mode is None:
        return  # see the module's docstring for why not every formula
    node = shutil.which("node")
    if node is None:
        LOG.info("prerender: no Node.js, the browser typesets the maths")
        return
    outdir = pathlib.Path(app.outdir)
    pages = pages_with_tex(outdir)
    if not pages:
        return
    css = outdir / CSS
    with tempfile.TemporaryDirectory() as tmp:
        job = {"mathjax": str(STATIC / "mathjax4"), "linebreaks": str(STATIC / "mlnotes-mathjax.js"),
               "config": app.config.mathjax3_config or {}, "width": COLUMN_PX,
               "numbered": NUMBERED_PX, "phone": PHONE_PX, "island": mode == "island", "em": EM_PX,
               "ex": EX_PX, "scale": SCALE, "fontURL": FONT_URL,
               "css": str(pathlib.Path(tmp) / "chtml.css"), "files": [str(p) for p in pages],
               "budget": (None if mode == "all" else
                          {"chars": TOP_CHARS, "formulas": TOP_FORMULAS})}
        job_file = pathlib.Path(tmp) / "job.json"
        job_file.write_text(json.dumps(job), encoding="utf-8")
        run = subprocess.run([node, str(SCRIPT), str(job_file)], capture_output=True, text=True,
                             check=False)
        if run.returncode != 0:
            raise RuntimeError(f"prerender: MathJax in Node failed, the pages are unchanged:\n"
                               f"{run.stderr.strip()[-2000:]}")
        summary = json.loads(run.stdout)
        new = (pathlib.Path(tmp) / "chtml.css").read_text(encoding="utf-8")
    old = css.read_text(encoding="utf-8") if css.exists() else ""
    css.parent.mkdir(parents=True, exist_ok=True)
    css.write_text(merge_css(old, new), encoding="utf-8")
    left = 0
    for page in pages:
        counts = summary.get(str(page), {"typeset": 0, "left": 0})
        left += counts["left"]
        if counts["typeset"]:
            finish_page(page, outdir, counts["left"])
    done = sum(c["typeset"] for c in summary.values())
    LOG.info(f"prerender: {done} formulas typeset in {len(pages)} pages, {left} left to the browser")


def setup(app):
    # after the other extensions' build-finished steps (their pages are final)
    app.connect("build-finished", prerender, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
