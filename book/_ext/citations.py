"""Author–year citations with an author–year bibliography.

The text cites as "Izenman (2008)" / "[Izenman, 2008]" (sphinxcontrib-bibtex's ``author_year``
reference style); this pybtex style gives the bibliography the same labels, "[Izenman, 2008]",
"[Roweis and Saul, 2000]", "[Pedregosa et al., 2011]", instead of numbers, and keeps pybtex's
``plain`` entry format (every author listed, sorted by author, year and title). Two works with
the same label get "a", "b", ... after the year.

Maths in an entry's fields (a title's ``$O(N \\log N)$``) is set as text, "O(N log N)": the
bibliography page loads no MathJax, and raw TeX must never reach a reader.
"""

import re
from collections import Counter

from docutils import nodes
from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle

STYLE_NAME = "mlnotes_author_year"
# Up to this many authors are named in a label; more become "First et al.".
MAX_NAMES_IN_LABEL = 2


def _last_name(person):
    latex = " ".join(person.prelast_names + person.last_names)
    return Text.from_latex(latex).render_as("text")


def author_year_label(entry):
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_last_name(p) for p in persons if _last_name(p) != "others"]
    if not names:
        who = entry.fields.get("key") or entry.fields.get("organization") or entry.key
    elif len(names) > MAX_NAMES_IN_LABEL or len(names) < len(persons):
        who = f"{names[0]} et al."
    else:
        who = " and ".join(names)
    year = entry.fields.get("year", "n.d.")
    return f"{who}, {year}"


class AuthorYearLabelStyle(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        labels = [author_year_label(e) for e in entries]
        repeated = {label for label, n in Counter(labels).items() if n > 1}
        seen = Counter()
        for label in labels:
            if label in repeated:
                seen[label] += 1
                who, year = label.rsplit(", ", 1)
                label = f"{who}, {year}{chr(ord('a') + seen[label] - 1)}"
            yield label


class AuthorYearStyle(PlainStyle):
    default_label_style = STYLE_NAME
    default_sorting_style = "author_year_title"


INLINE_MATH = re.compile(r"\$([^$]+)\$")
# TeX control words that stand for a word or a symbol; any other control word is dropped
TEX_WORDS = {"log": "log", "exp": "exp", "ln": "ln", "min": "min", "max": "max",
             "sqrt": "√", "times": "×", "cdot": "·", "le": "≤", "ge": "≥", "approx": "≈",
             "alpha": "α", "beta": "β", "gamma": "γ", "epsilon": "ε", "lambda": "λ",
             "sigma": "σ", "mu": "μ", "pi": "π", "ell": "ℓ", "infty": "∞"}


def tex_as_text(tex):
    """``O(N \\log N)`` -> ``O(N log N)``: a short formula of a bibliography field as text."""
    text = re.sub(r"\\([A-Za-z]+)(\s*)",
                  lambda m: TEX_WORDS.get(m.group(1), "") + (" " if m.group(2) else ""), tex)
    text = text.replace("_", "")
    text = re.sub(r"\\[,;:! ]", " ", text).replace("{", "").replace("}", "")
    text = re.sub(r"\s+([)\],])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _maths_as_text(app, doctree, docname):
    for citation in doctree.findall(nodes.citation):
        for node in list(citation.findall(nodes.Text)):
            if "$" in node.astext():
                node.parent.replace(node, nodes.Text(INLINE_MATH.sub(
                    lambda m: tex_as_text(m.group(1)), node.astext())))


def setup(app):
    app.connect("doctree-resolved", _maths_as_text)
    register_plugin("pybtex.style.labels", STYLE_NAME, AuthorYearLabelStyle, force=True)
    register_plugin("pybtex.style.formatting", STYLE_NAME, AuthorYearStyle, force=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
