"""The book's reading surface: folded check cells and the static files that style the pages.

Check cells (cell tag ``check``, first line ``# Check: <claim>``) verify a claim the text makes.
They are rendered folded: the cell's code sits inside a ``<details>`` element whose summary is a
one-line bar "✓ <claim>"; the output stays visible below the bar. This happens at build time, so
the fold works without JavaScript and with the keyboard (``<summary>`` is focusable and toggles
with Enter or Space). The styling lives in ``book/_static/mlnotes.css``.
"""

import html
import re

from docutils import nodes

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


def setup(app):
    app.connect("doctree-resolved", fold_check_cells)
    app.add_css_file("mlnotes.css")
    app.add_js_file("mlnotes.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
