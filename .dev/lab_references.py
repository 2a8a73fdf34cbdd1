"""Rewrite the references JupyterLab cannot resolve as links carrying the book's own text.

jupyterlab-myst renders each notebook (and Markdown page) alone: a ``{prf:ref}``, ``{ref}``,
``{numref}`` or ``{eq}`` whose label is not in the same notebook's Markdown (another chapter, a
figure made by a code cell, the notebook's own title) shows "Cross Reference Not Found", and every
``{cite:p}`` / ``{cite:t}`` shows "Citation Not Found" (it reads no bibliography). This script
rewrites exactly those roles, in place, as Markdown links::

    {prf:ref}`tsne-thm-x`    ->  [Theorem 9.2](tsne.ipynb#tsne-thm-x)   (JupyterLab opens tsne)
    {numref}`pca-fig-intro`  ->  [Fig. 2.1](#pca-fig-intro)
    {cite:t}`pearson1901lines`  ->  [Pearson [1901]](#pearson1901lines)

with the text the book prints for the role, read from a build made with
``MLNOTES_REFERENCE_TEXTS=texts.json`` (book/_ext/lablinks.py writes it). The book turns each
link back into that role, and warns (an error under ``-W``) when the text is not what it prints.
A ``{ref}`words <label>``` to another page becomes ``[words](page.ipynb#label)`` (Lab showed
the words as a link to nowhere; now it opens the page). Roles Lab resolves itself (a theorem or
equation of the same notebook) are left as they are. Only the role's own characters change,
so a diff shows one change per reference. tests/test_lab_references.py fails on any role left
that Lab cannot render.

Numbers. jupyterlab-myst numbers a notebook's theorems, definitions, algorithms, exercises
and display equations 1, 2, ... on their own, where the book (Jupyter Book 1.x: sphinx-proof,
sphinx-exercise, numfig) prints "Theorem 2.1", "Exercise 2.3", "(2.4)": the chapter's number
from the toc's numbered parts, then a count per kind. ``--front-matter`` writes, at the top of
each notebook's first cell, the MyST front matter jupyterlab-myst 2.7 reads there (its
``processNotebookMDAST`` calls ``getFrontmatter`` on the first Markdown cell; the
``numbering`` keys of myst-frontmatter 1.10)::

    ---
    numbering: {enumerator: "2.%s", equation: {enabled: false}}

    ---

``enumerator`` numbers every kind "2.1", "2.2", ... (Theorem 2.1, Exercise 2.1, (2.1));
``equation: {enabled: false}`` only where the chapter has an unlabelled display equation. One
flow-style line and a blank line before the closing fence, so that a plain Markdown renderer
(Colab, GitHub) shows one line between two rules, not a heading. The book drops the block
before myst-nb reads the notebook (``book/_ext/lablinks.py``: myst-nb would read its fences as
a transition, an error).

Both count each kind on its own (Theorem 2.3, then Algorithm 2.1). The book numbers only
labelled equations (``$$ ... $$ (label)``); jupyterlab-myst numbers every display equation and
has no per-equation switch for ``$$`` maths, so a chapter with an unlabelled display equation
shows no equation numbers in Lab (rather than numbers that disagree with the book), and its
``{eq}`` references become links carrying the book's text, ``[(2.3)](#pca-eq-error)``.

Usage::

    MLNOTES_REFERENCE_TEXTS=/tmp/texts.json jupyter-book build . ...
    python .dev/lab_references.py --front-matter [FILE ...]     # the numbering front matter
    python .dev/lab_references.py /tmp/texts.json [FILE ...]    # default: every page of book/
"""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
ROLE_RE = re.compile(r"\{(?P<role>prf:ref|ref|numref|eq|cite:p|cite:t)\}`(?P<target>[^`<>]+)`")
# {ref}`words <label>`: JupyterLab shows the words, as a link that goes nowhere when the label
# is outside the page; a link [words](chapter.ipynb#label) opens the chapter
EXPLICIT_RE = re.compile(r"\{ref\}`(?P<text>[^`<>]+?)\s*<(?P<target>[^`<>]+)>`")
TARGET_RE = re.compile(r"^\((?P<label>[\w:-]+)\)=\s*$", re.MULTILINE)
DIRECTIVE_LABEL_RE = re.compile(r"^:label:\s*(?P<label>\S+)\s*$", re.MULTILINE)
EQUATION_LABEL_RE = re.compile(r"\$\$\s*\((?P<label>[\w:-]+)\)")
# display maths as jupyterlab-myst (and myst-parser) reads it, with its label if it has one
DISPLAY_MATH_RE = re.compile(r"\$\$(?P<body>.+?)\$\$(?:[ \t]*\((?P<label>[\w:-]+)\))?", re.DOTALL)
# the front matter block at the very top of a notebook's first cell
FRONT_MATTER_RE = re.compile(r"\A---\n(?P<yaml>.*?\n)---\n", re.DOTALL)
ROLE_DOMAIN = {"prf:ref": "prf:ref", "ref": "std:ref", "numref": "std:numref", "eq": "math:eq",
               "cite:p": "cite:p", "cite:t": "cite:t"}


def pages():
    """Every book page JupyterLab opens: the notebooks and the Markdown pages."""
    return sorted([*BOOK.glob("*.ipynb"), *BOOK.glob("homework/*.ipynb"), *BOOK.glob("*.md")])


def markdown_sources(path):
    """The Markdown of a page: each Markdown cell of a notebook, or the whole file."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    return [path.read_text(encoding="utf-8")]


def lab_labels(path):
    """The labels jupyterlab-myst resolves within ``path``: targets before a heading other
    than the page's first one (which becomes the page title and loses its label), directive
    labels (theorems, equations, exercises) and ``$$ (label)`` equations."""
    text = "\n".join(markdown_sources(path))
    labels = set(DIRECTIVE_LABEL_RE.findall(text)) | set(EQUATION_LABEL_RE.findall(text))
    first_heading = True
    for match in TARGET_RE.finditer(text):
        following = text[match.end():].lstrip("\n").split("\n", 1)[0]
        if re.match(r"#{1,6}\s", following):
            if not (first_heading and following.startswith("# ")):
                labels.add(match["label"])
            first_heading = False
    return labels


def chapter_numbers():
    """Each chapter's number (path -> int), as Jupyter Book numbers the toc's numbered parts:
    one count through all of them, in toc order."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    chapters = [c["file"] for part in toc.get("parts", []) if part.get("numbered")
                for c in part.get("chapters", [])]
    return {(ROOT / f"{name}.ipynb").resolve(): k for k, name in enumerate(chapters, 1)}


def _without_front_matter(text):
    return FRONT_MATTER_RE.sub("", text, count=1)


def display_equations(path):
    """The display equations of a notebook, in order: their labels (None: unlabelled)."""
    return [m["label"] for text in markdown_sources(path)
            for m in DISPLAY_MATH_RE.finditer(_without_front_matter(text))]


def lab_numbering(path, numbers=None):
    """The ``numbering`` front matter that makes jupyterlab-myst number ``path`` as the book
    does (None: its own numbers already agree, or it numbers nothing)."""
    number = (numbers if numbers is not None else chapter_numbers()).get(Path(path).resolve())
    out = {}
    if number is not None:
        out["enumerator"] = f"{number}.%s"
    if None in display_equations(path):  # Lab would number it; the book does not
        out["equation"] = {"enabled": False}
    return out or None


def front_matter(numbering):
    """The YAML block (with its fences) for a ``numbering`` (None: no block)."""
    if not numbering:
        return ""
    parts = []
    if "enumerator" in numbering:
        parts.append(f'enumerator: "{numbering["enumerator"]}"')
    if "equation" in numbering:
        parts.append("equation: {enabled: false}")
    return f"---\nnumbering: {{{', '.join(parts)}}}\n\n---\n"


def first_cell_front_matter(path):
    """The front matter block at the top of a notebook's first cell ("" if none)."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    m = FRONT_MATTER_RE.match("".join(cells[0]["source"])) if cells else None
    return m.group(0) if m else ""


def set_front_matter(path, numbers=None):
    """Write ``lab_numbering(path)``'s front matter at the top of the first cell (replacing a
    block that is there); only that cell's source changes. Returns whether it changed."""
    raw = path.read_text(encoding="utf-8")
    nb = json.loads(raw)
    cell = nb["cells"][0]
    if cell["cell_type"] != "markdown":
        raise SystemExit(f"{path.name}: the first cell is not Markdown; front matter goes there")
    source = "".join(cell["source"])
    new = front_matter(lab_numbering(path, numbers)) + _without_front_matter(source)
    if new == source:
        return False
    cell["source"] = new.splitlines(keepends=True)
    path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    return True


def cannot_render(path):
    """The roles of ``path`` JupyterLab shows as "Not Found" (or, an ``{eq}`` in a notebook
    whose equations Lab does not number, as the word "Equation"): (role, target) pairs."""
    local = lab_labels(path)
    unnumbered = path.suffix == ".ipynb" and None in display_equations(path)
    found = []
    for text in markdown_sources(path):
        for m in ROLE_RE.finditer(text):
            if (m["role"].startswith("cite:") or m["target"] not in local
                    or (m["role"] == "eq" and unnumbered)):
                found.append((m["role"], m["target"]))
    return found


def explicit_elsewhere(path):
    """The ``{ref}`words <label>``` of ``path`` whose label is outside it: (words, label)."""
    local = lab_labels(path)
    return [(m["text"], m["target"]) for text in markdown_sources(path)
            for m in EXPLICIT_RE.finditer(text) if m["target"] not in local]


def _docname(path):
    return path.relative_to(ROOT).with_suffix("").as_posix()


def defined_labels():
    """label -> the page (path) whose source defines it (any kind of target)."""
    out = {}
    for path in pages():
        nb_text = path.read_text(encoding="utf-8")
        for rx in (TARGET_RE, DIRECTIVE_LABEL_RE, EQUATION_LABEL_RE):
            for m in rx.finditer(nb_text if path.suffix == ".md" else "\n".join(
                    markdown_sources(path))):
                out.setdefault(m["label"], path)
        if path.suffix == ".ipynb":  # figures made by code cells (mystnb figure name)
            for cell in json.loads(nb_text)["cells"]:
                name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
                if name:
                    out.setdefault(name, path)
    return out


def heading_source(label, defined):
    """The Markdown of the heading ``label`` marks (maths kept as ``$...$``), or None."""
    path = defined.get(label)
    if path is None:
        return None
    text = "\n".join(markdown_sources(path))
    m = re.search(rf"^\({re.escape(label)}\)=\s*\n+#+\s+(?P<title>.+)$", text, re.MULTILINE)
    return m["title"].strip() if m else None


def link_for(path, role, target, texts, defined):
    """The Markdown link that replaces ``{role}`target``` in ``path``."""
    key = f"{ROLE_DOMAIN[role]}:{target}"
    text = texts.get(_docname(path), {}).get(key)
    if text is None:
        raise SystemExit(f"{path.name}: no book text for {{{role}}}`{target}` in the texts file")
    if role == "ref":  # a section title with maths: keep its $...$ so Lab typesets it
        source = heading_source(target, defined)
        if source and re.sub(r"\$", "", source) == text:
            text = source
    if role.startswith("cite:"):
        return f"[{text}](#{target})"
    owner = defined.get(target)
    if owner is None:
        raise SystemExit(f"{path.name}: label {target!r} is defined on no page")
    where = "" if owner == path else owner.relative_to(path.parent).as_posix()
    return f"[{text}]({where}#{target})"


def rewrite(path, texts, defined):
    """Rewrite the roles of ``path`` Lab cannot render; returns how many changed."""
    todo, elsewhere = set(cannot_render(path)), set(explicit_elsewhere(path))
    changed = 0

    def sub(m):
        nonlocal changed
        if (m["role"], m["target"]) not in todo:
            return m.group(0)
        changed += 1
        return link_for(path, m["role"], m["target"], texts, defined)

    def sub_explicit(m):
        nonlocal changed
        if (m["text"], m["target"]) not in elsewhere:
            return m.group(0)
        changed += 1
        owner = defined[m["target"]]
        return f"[{m['text']}]({owner.relative_to(path.parent).as_posix()}#{m['target']})"

    def fix(line):
        return EXPLICIT_RE.sub(sub_explicit, ROLE_RE.sub(sub, line))

    if path.suffix == ".ipynb":
        raw = path.read_text(encoding="utf-8")
        nb = json.loads(raw)
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            lines = cell["source"] if isinstance(cell["source"], list) else [cell["source"]]
            new = [fix(line) for line in lines]
            cell["source"] = new if isinstance(cell["source"], list) else new[0]
        if changed:
            path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                            encoding="utf-8")
    else:
        text = path.read_text(encoding="utf-8")
        new = fix(text)
        if changed:
            path.write_text(new, encoding="utf-8")
    return changed


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    if argv[0] == "--front-matter":
        numbers = chapter_numbers()
        for path in [Path(p).resolve() for p in argv[1:]] or [p for p in pages()
                                                               if p.suffix == ".ipynb"]:
            if set_front_matter(path, numbers):
                print(f"{path.relative_to(ROOT)}: front matter {lab_numbering(path, numbers)}")
        return
    texts = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    defined = defined_labels()
    for path in [Path(p).resolve() for p in argv[1:]] or pages():
        n = rewrite(path, texts, defined)
        if n:
            print(f"{path.relative_to(ROOT)}: {n} references rewritten")


if __name__ == "__main__":
    main(sys.argv[1:])
