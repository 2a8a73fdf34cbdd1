"""The book's reading surface: folded check cells and the static files that style the pages.

Check cells (cell tag ``check``, first line ``# Check: <claim>``) verify a claim the text makes.
They are rendered folded: the cell's code sits inside a ``<details>`` element whose summary is a
one-line bar "✓ <claim>"; the output stays visible below the bar. This happens at build time, so
the fold works without JavaScript and with the keyboard (``<summary>`` is focusable and toggles
with Enter or Space). The styling lives in ``book/_static/mlnotes.css``.

The index of theorems, definitions and algorithms (``prf-statements.html``) lists each statement
by its number and title under its kind, in book order; it replaces sphinx-proof's own index,
which showed only the raw labels.
"""

import html
import re
from collections import defaultdict
from pathlib import Path

from docutils import nodes
from sphinx.domains import Index

CHECK_TAG = "tag_check"
CLAIM_RE = re.compile(r"^\s*#\s*Check:\s*(?P<claim>\S.*?)\s*$")
# Shown when a check cell has no "# Check:" line (tests/test_notebook_hygiene.py flags those).
UNNAMED_CLAIM = "A check of the text (open to see the code)"


def check_claim(source):
    """The claim of a check cell: the text after ``# Check:`` on its first non-blank line."""
    for line in source.splitlines():
        if line.strip():
            match = CLAIM_RE.match(line)
            return match.group("claim") if match else None
    return None


def _summary_html(claim):
    text = html.escape(claim) if claim else UNNAMED_CLAIM
    return (
        '<details class="mlnotes-check">'
        '<summary class="mlnotes-check__bar">'
        '<span class="mlnotes-check__mark" aria-hidden="true">✓</span>'
        '<span class="visually-hidden">Check: </span>'
        f'<span class="mlnotes-check__claim">{text}</span>'
        '<span class="mlnotes-check__hint" aria-hidden="true"></span>'
        "</summary>"
    )


def fold_check_cells(app, doctree, docname):
    """Wrap the input of every ``check``-tagged cell in a ``<details>`` with the claim bar."""
    for cell in list(doctree.findall(nodes.container)):
        if CHECK_TAG not in cell.get("classes", []):
            continue
        inputs = [child for child in cell.children
                  if isinstance(child, nodes.container) and "cell_input" in child.get("classes", [])]
        if not inputs:
            continue
        cell_input = inputs[0]
        blocks = list(cell_input.findall(nodes.literal_block))
        claim = check_claim(blocks[0].astext()) if blocks else None
        position = cell.index(cell_input)
        cell.insert(position, nodes.raw("", _summary_html(claim), format="html"))
        cell.insert(position + 2, nodes.raw("", "</details>", format="html"))
        cell["classes"].append("mlnotes-check-cell")


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


def _drop_fontawesome_js(app, exception):
    """fontawesome.js (1.5 MB) draws a dozen icons; mlnotes.css draws them with the theme's web
    font instead, so every built page loses the script."""
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        trimmed = drop_fontawesome_js(text)
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
    app.add_css_file("mlnotes.css")
    app.add_js_file("mlnotes.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
