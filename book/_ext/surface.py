"""The book's reading surface: folded check cells and the static files that style the pages.

Check cells (cell tag ``check``, first line ``# Check: <claim>``) verify a claim the text makes.
They are rendered folded: the cell's code sits inside a ``<details>`` element whose summary is a
one-line bar "✓ <claim>"; the output stays visible below the bar. This happens at build time, so
the fold works without JavaScript and with the keyboard (``<summary>`` is focusable and toggles
with Enter or Space). The styling lives in ``book/_static/mlnotes.css``.

Plotting-only cells (cell tag ``plot``, first line ``# Figure: <what the figure shows>``) fold the
same way under a bar marked with a small chart and the words "Figure code"; the figure stays
visible. The set-up cell of a chapter (the first code cell that calls
``ml.plotting.setup_notebook()``) folds under a "Set-up" bar without any tag.

Every "Learning objectives" box gets the class ``admonition-learning-objectives`` (whatever
admonition the chapter wrote it with), so the book styles them one way.

Search finds British and American spellings alike ("centring" and "centering"): the English
search language's stemmer, in Python for the index and in JavaScript for the query, maps each
spelling in ``SPELLINGS`` to one form before stemming.

The index of theorems, definitions and algorithms (``prf-statements.html``) lists each statement
by its number and title under its kind, in book order; it replaces sphinx-proof's own index,
which showed only the raw labels.
"""

import html
import json
import re
from collections import defaultdict
from pathlib import Path

from docutils import nodes
from sphinx.domains import Index

CHECK_TAG = "tag_check"
PLOT_TAG = "tag_plot"
CLAIM_RE = re.compile(r"^\s*#\s*Check:\s*(?P<claim>\S.*?)\s*$")
FIGURE_RE = re.compile(r"^\s*#\s*Figure:\s*(?P<claim>\S.*?)\s*$")
SETUP_CALL_RE = re.compile(r"\bsetup_notebook\s*\(")
# Shown when a check cell has no "# Check:" line (tests/test_notebook_hygiene.py flags those).
UNNAMED_CLAIM = "A check of the text (open to see the code)"
UNNAMED_FIGURE = "The code that draws the figure below"
SETUP_TITLE = "imports and figure settings for this chapter"
# A small bar chart (the mark of a folded figure cell), drawn in the text colour.
FIGURE_ICON = (
    '<svg viewBox="0 0 16 16" width="1em" height="1em" focusable="false">'
    '<path d="M1.5 14.5h13" stroke="currentColor" stroke-width="1.4" fill="none"/>'
    '<rect x="2.5" y="8" width="2.6" height="5.5" rx="0.4" fill="currentColor"/>'
    '<rect x="6.7" y="3" width="2.6" height="10.5" rx="0.4" fill="currentColor"/>'
    '<rect x="10.9" y="6" width="2.6" height="7.5" rx="0.4" fill="currentColor"/>'
    "</svg>")
GEAR = "⚙"
MATHJAX_CONFIG_PRIORITY = 501


def _first_line_match(source, pattern):
    for line in source.splitlines():
        if line.strip():
            match = pattern.match(line)
            return match.group("claim") if match else None
    return None


def check_claim(source):
    """The claim of a check cell: the text after ``# Check:`` on its first non-blank line."""
    return _first_line_match(source, CLAIM_RE)


def figure_title(source):
    """The title of a plot cell: the text after ``# Figure:`` on its first non-blank line."""
    return _first_line_match(source, FIGURE_RE)


def is_setup_source(source):
    """Whether a code cell is a chapter's set-up cell (it calls ``setup_notebook()``)."""
    return bool(SETUP_CALL_RE.search(source))


# kind -> (details class modifier, mark HTML, words read by a screen reader / shown as a label)
FOLD_KINDS = {
    "check": ("", "✓", "Check: "),
    "plot": (" mlnotes-fold--plot", FIGURE_ICON, "Figure code: "),
    "setup": (" mlnotes-fold--setup", GEAR, "Set-up: "),
}


def _summary_html(claim, kind="check"):
    modifier, mark, words = FOLD_KINDS[kind]
    fallback = {"check": UNNAMED_CLAIM, "plot": UNNAMED_FIGURE, "setup": SETUP_TITLE}[kind]
    text = html.escape(claim) if claim else fallback
    label = ("" if kind == "check" else
             f'<span class="mlnotes-check__label" aria-hidden="true">{words.rstrip(": ")}</span>')
    return (
        f'<details class="mlnotes-check{modifier}">'
        '<summary class="mlnotes-check__bar">'
        f'<span class="mlnotes-check__mark" aria-hidden="true">{mark}</span>'
        f'<span class="visually-hidden">{words}</span>'
        f"{label}"
        f'<span class="mlnotes-check__claim">{text}</span>'
        '<span class="mlnotes-check__hint" aria-hidden="true"></span>'
        "</summary>"
    )


def _cell_input(cell):
    inputs = [child for child in cell.children
              if isinstance(child, nodes.container) and "cell_input" in child.get("classes", [])]
    return inputs[0] if inputs else None


def _fold(cell, cell_input, claim, kind):
    position = cell.index(cell_input)
    cell.insert(position, nodes.raw("", _summary_html(claim, kind), format="html"))
    cell.insert(position + 2, nodes.raw("", "</details>", format="html"))
    cell["classes"].append("mlnotes-check-cell")
    if kind != "check":
        cell["classes"].append(f"mlnotes-{kind}-cell")


def fold_check_cells(app, doctree, docname):
    """Fold the input of every ``check`` or ``plot`` cell, and of the set-up cell, under a bar."""
    setup_seen = False
    for cell in list(doctree.findall(nodes.container)):
        classes = cell.get("classes", [])
        if "cell" not in classes:
            continue
        cell_input = _cell_input(cell)
        if cell_input is None:
            continue
        blocks = list(cell_input.findall(nodes.literal_block))
        source = blocks[0].astext() if blocks else ""
        if CHECK_TAG in classes:
            _fold(cell, cell_input, check_claim(source), "check")
        elif PLOT_TAG in classes:
            _fold(cell, cell_input, figure_title(source), "plot")
        elif not setup_seen and is_setup_source(source):
            _fold(cell, cell_input, None, "setup")
        else:
            continue
        if is_setup_source(source):
            setup_seen = True


OBJECTIVES_TITLE = "learning objectives"
OBJECTIVES_CLASS = "admonition-learning-objectives"


def mark_objectives(app, doctree, docname=None):
    """Give every admonition titled "Learning objectives" one class (and no colour class)."""
    for node in doctree.findall(nodes.Admonition):
        title = node.children[0] if node.children else None
        if not isinstance(title, nodes.title) or title.astext().strip().lower() != OBJECTIVES_TITLE:
            continue
        node["classes"] = [c for c in node.get("classes", [])
                           if c not in ("tip", "note", "hint", "important", "attention",
                                        "caution", "warning", "danger", "error", "seealso")]
        if OBJECTIVES_CLASS not in node["classes"]:
            node["classes"].append(OBJECTIVES_CLASS)


# British spelling -> American: search maps both to one form. Word forms are listed (the
# stemmer does not reduce "centring" and "centering" to one stem by itself).
SPELLINGS = {
    "centre": "center", "centres": "centers", "centred": "centered", "centring": "centering",
    "neighbour": "neighbor", "neighbours": "neighbors", "neighbourhood": "neighborhood",
    "neighbourhoods": "neighborhoods", "neighbouring": "neighboring",
    "colour": "color", "colours": "colors", "coloured": "colored", "colouring": "coloring",
    "behaviour": "behavior", "behaviours": "behaviors", "favour": "favor",
    "grey": "gray", "licence": "license", "modelling": "modeling", "modelled": "modeled",
    "labelled": "labeled", "labelling": "labeling", "travelling": "traveling",
    "analyse": "analyze", "analysed": "analyzed", "analysing": "analyzing",
    "catalogue": "catalog", "programme": "program", "fibre": "fiber", "metre": "meter",
    "optimise": "optimize", "optimised": "optimized", "optimising": "optimizing",
    "optimisation": "optimization", "minimise": "minimize", "minimised": "minimized",
    "minimises": "minimizes", "minimising": "minimizing", "minimiser": "minimizer",
    "minimisation": "minimization", "maximise": "maximize", "maximised": "maximized",
    "maximises": "maximizes", "maximising": "maximizing", "maximiser": "maximizer",
    "maximisation": "maximization", "normalise": "normalize", "normalised": "normalized",
    "normalises": "normalizes", "normalising": "normalizing", "normalisation": "normalization",
    "regularise": "regularize", "regularised": "regularized", "regularisation": "regularization",
    "symmetrise": "symmetrize", "symmetrised": "symmetrized", "symmetrisation": "symmetrization",
    "initialise": "initialize", "initialised": "initialized", "initialisation": "initialization",
    "visualise": "visualize", "visualised": "visualized", "visualisation": "visualization",
    "generalise": "generalize", "generalised": "generalized", "generalisation": "generalization",
    "parametrise": "parametrize", "parametrised": "parametrized",
    "parametrisation": "parametrization", "parameterise": "parameterize",
    "parameterised": "parameterized", "linearise": "linearize", "linearised": "linearized",
    "summarise": "summarize", "summarised": "summarized", "recognise": "recognize",
    "characterise": "characterize", "characterised": "characterized",
    "characterisation": "characterization", "standardise": "standardize",
    "standardised": "standardized", "standardisation": "standardization",
    "discretise": "discretize", "discretised": "discretized", "discretisation": "discretization",
    "vectorise": "vectorize", "vectorised": "vectorized", "vectorisation": "vectorization",
    "orthogonalise": "orthogonalize", "orthogonalised": "orthogonalized",
    "orthonormalise": "orthonormalize", "diagonalise": "diagonalize",
    "diagonalised": "diagonalized", "diagonalisation": "diagonalization",
    "randomised": "randomized", "realise": "realize", "emphasise": "emphasize",
    "organise": "organize", "organised": "organized", "stabilise": "stabilize",
    "penalise": "penalize", "penalised": "penalized",
}


def spelling_key(word):
    """The form a word is searched under: its American spelling if it has a British one."""
    word = word.lower()
    return SPELLINGS.get(word, word)


def _spelling_js():
    pairs = json.dumps(sorted(SPELLINGS.items()))
    return f"""
var MLNOTES_SPELLINGS = {pairs};
var MlnotesPorterStemmer = Stemmer;
var MLNOTES_SPELLING_MAP = Object.fromEntries(MLNOTES_SPELLINGS);
Stemmer = function() {{
  var inner = new MlnotesPorterStemmer();
  this.stemWord = function(w) {{
    var lower = w.toLowerCase();
    return inner.stemWord(MLNOTES_SPELLING_MAP[lower] || lower);
  }};
}};
"""


def _english_both_spellings():
    from sphinx.search.en import SearchEnglish

    class SearchEnglishBothSpellings(SearchEnglish):
        """English search with British spellings indexed and queried as American ones."""

        js_stemmer_code = SearchEnglish.js_stemmer_code + _spelling_js()

        def stem(self, word):
            return super().stem(spelling_key(word))

    return SearchEnglishBothSpellings


def _collect_statement_titles(app, doctree):
    """Remember the title of every sphinx-proof statement (its own index keeps only labels)."""
    env = app.env
    titles = env.__dict__.setdefault("mlnotes_statement_titles", {})
    for node in doctree.findall(nodes.Element):
        if "realtype" in node.attributes and node.get("label") and node.children:
            title = node.children[0]
            text = title.astext().strip() if isinstance(title, nodes.title) else ""
            if text.startswith("(") and text.endswith(")"):  # sphinx-proof's " (%t)" format
                text = text[1:-1].strip()
            titles[node["label"]] = (env.docname, text)


def _purge_statement_titles(app, env, docname):
    titles = getattr(env, "mlnotes_statement_titles", {})
    for label in [k for k, (doc, _) in titles.items() if doc == docname]:
        del titles[label]


def _merge_statement_titles(app, env, docnames, other):
    env.__dict__.setdefault("mlnotes_statement_titles", {}).update(
        getattr(other, "mlnotes_statement_titles", {}))


def _book_order(env):
    """Docnames in reading order (depth-first through the toctrees from the root document)."""
    order, seen = [], set()

    def walk(doc):
        if doc in seen:
            return
        seen.add(doc)
        order.append(doc)
        for child in env.toctree_includes.get(doc, []):
            walk(child)

    walk(env.config.root_doc)
    return {doc: i for i, doc in enumerate(order)}


class StatementIndex(Index):
    """Theorems, definitions, algorithms ... by kind, numbered and titled, in book order."""

    name = "statements"
    localname = "Theorems, definitions and algorithms"
    shortname = "statements"

    def generate(self, docnames=None):
        env = self.domain.env
        statements = getattr(env, "proof_list", {})
        titles = getattr(env, "mlnotes_statement_titles", {})
        order = _book_order(env)
        groups = defaultdict(list)
        for label, info in statements.items():
            doc = info["docname"]
            if docnames and doc not in docnames:
                continue
            kind = info["realtype"].capitalize()
            number = env.toc_fignumbers.get(doc, {}).get(info["countertype"], {}).get(label)
            numbered = f"{kind} {'.'.join(map(str, number))}" if number else kind
            title = titles.get(label, (doc, ""))[1]
            chapter = env.titles[doc].astext() if doc in env.titles else doc
            name = f"{numbered}: {title}" if title else numbered
            groups[kind + "s"].append(
                ((order.get(doc, len(order)), number or ()), (name, 0, doc, label, chapter, "", "")))
        content = [(kind, [entry for _, entry in sorted(entries)])
                   for kind, entries in sorted(groups.items())]
        return content, True


def _remove_stale_proof_index(app, exception):
    """An earlier build into the same folder may have left sphinx-proof's raw-label index."""
    if exception is None and app.builder.format == "html":
        stale = Path(app.outdir) / "prf-prf.html"
        if "prf-prf" not in (app.config.html_domain_indices or []) and stale.exists():
            stale.unlink()


FONTAWESOME_JS_RE = re.compile(
    r'[ \t]*<(?:script defer src|link rel="preload" as="script" href)="[^"]*/scripts/fontawesome\.js'
    r'[^"]*"(?:></script>|\s*/?>)\n?')


def drop_fontawesome_js(html_text):
    """The page without pydata-sphinx-theme's fontawesome.js (its <script> and preload link)."""
    return FONTAWESOME_JS_RE.sub("", html_text)


IMG_TAG_RE = re.compile(r"<img\b[^>]*>")
SIZE_STYLE_RE = re.compile(r'style="width:\s*(?P<w>[\d.]+)px;\s*height:\s*(?P<h>[\d.]+)px;?"')


def lazy_images(html_text):
    """Every image loads when it comes near the screen (``loading="lazy"``), so a page weighs
    only its first screens at load; an image sized by an inline style keeps its box before it
    loads (``aspect-ratio``, since mlnotes.css sets ``height: auto`` on figures)."""
    def one(match):
        tag = match.group(0)
        if "loading=" not in tag:
            tag = tag.replace("<img ", '<img loading="lazy" decoding="async" ', 1)
        return SIZE_STYLE_RE.sub(
            lambda m: (f'style="width: {m["w"]}px; height: {m["h"]}px; '
                       f'aspect-ratio: {m["w"]} / {m["h"]};"'), tag)

    return IMG_TAG_RE.sub(one, html_text)


SEARCH_SCRIPT_RE = re.compile(
    r'<script src="(?P<src>[^"]*(?:_static/searchtools\.js|_static/language_data\.js|'
    r'searchindex\.js))"></script>')


def defer_search_scripts(html_text):
    """The page with pydata-sphinx-theme's search scripts deferred: the theme loads Sphinx's
    search tools and the whole search index (250 KB) on every page, in the head, where they
    stop the page from being parsed (and its maths typeset) until they have loaded and run; the
    search box needs them only once it is opened. Deferred, they keep their order."""
    return SEARCH_SCRIPT_RE.sub(r'<script defer="defer" src="\g<src>"></script>', html_text)


# The theme's own head script copies the stored mode ("auto" on a first visit) into data-theme,
# which no style rule matches: the page was first painted in no colour mode and styled again
# when pydata-sphinx-theme.js resolved it. This one, right after it, resolves it before the first
# paint (the reader's choice, else the system's setting) and follows the system's setting while
# the reader has made no choice, also before the theme's script has run.
THEME_MODE_SCRIPT = (
    '<script data-mlnotes-mode="">(() => {\n'
    '  const root = document.documentElement;\n'
    '  const dark = window.matchMedia ? matchMedia("(prefers-color-scheme: dark)") : null;\n'
    '  const follow = () => {\n'
    '    let mode = null;\n'
    '    try { mode = localStorage.getItem("mode"); } catch (error) { mode = null; }\n'
    '    root.dataset.theme = mode === "light" || mode === "dark" ? mode\n'
    '      : (dark && dark.matches ? "dark" : "light");\n'
    '  };\n'
    '  follow();\n'
    '  if (dark && dark.addEventListener) dark.addEventListener("change", follow);\n'
    '})();</script>\n')
THEME_HEAD_SCRIPT_RE = re.compile(
    r'<script data-cfasync="false">\s*document\.documentElement\.dataset\.mode = .*?</script>\n',
    re.S)
THEME_SCRIPT_RE = re.compile(
    r'<script defer src="(?P<src>[^"]*/scripts/pydata-sphinx-theme\.js[^"]*)"></script>')
THEME_PRELOAD_RE = re.compile(
    r'[ \t]*<link rel="preload" as="script" href="[^"]*/scripts/pydata-sphinx-theme\.js'
    r'[^"]*"\s*/?>\n?')


def theme_script_late(html_text):
    """The page with pydata-sphinx-theme.js run after its first screen's maths, not before it.

    Its work at DOMContentLoaded (the colour mode, the sidebar's scroll position, the page
    TOC's scroll spy, the header's buttons: 100-160 ms of a 4x slower phone's main thread, with
    a style recalculation and a layout of the page) held MathJax's start-up back, and none of it
    changes the layout. Its ``<script>`` becomes ``<script data-mlnotes-late-src>`` (mlnotes.js
    loads it once the first screen's maths is drawn, or at once when the reader presses a
    header button before then) and its preload goes; the colour mode is resolved in the head
    before the first paint (``THEME_MODE_SCRIPT``). A second pass changes nothing; a page
    without the theme's scripts is left as it is."""
    if "data-mlnotes-mode" not in html_text and THEME_SCRIPT_RE.search(html_text):
        html_text = THEME_HEAD_SCRIPT_RE.sub(
            lambda m: m.group(0) + THEME_MODE_SCRIPT, html_text, count=1)
    html_text = THEME_PRELOAD_RE.sub("", html_text)
    return THEME_SCRIPT_RE.sub(r'<script data-mlnotes-late-src="\g<src>"></script>', html_text)


def _drop_fontawesome_js(app, exception):
    """fontawesome.js (1.5 MB) draws a dozen icons; mlnotes.css draws them with the theme's web
    font instead, so every built page loses the script. Images load lazily (``lazy_images``);
    the search scripts are deferred (``defer_search_scripts``); the theme's script runs after the
    first screen's maths (``theme_script_late``)."""
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        trimmed = theme_script_late(defer_search_scripts(lazy_images(drop_fontawesome_js(text))))
        if trimmed != text:
            page.write_text(trimmed, encoding="utf-8")


def setup(app):
    app.connect("build-finished", _remove_stale_proof_index)
    app.connect("build-finished", _drop_fontawesome_js)
    app.connect("doctree-read", _collect_statement_titles)
    app.connect("env-purge-doc", _purge_statement_titles)
    app.connect("env-merge-info", _merge_statement_titles)
    app.add_index_to_domain("prf", StatementIndex)
    app.connect("doctree-resolved", fold_check_cells)
    app.connect("doctree-resolved", mark_objectives)
    app.add_search_language(_english_both_spellings())
    app.add_css_file("mlnotes.css")
    app.add_js_file("mlnotes.js", loading_method="defer")
    # after the page's MathJax configuration (priority 500), before MathJax itself (deferred)
    app.add_js_file("mlnotes-mathjax.js", priority=MATHJAX_CONFIG_PRIORITY)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
