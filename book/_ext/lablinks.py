"""References written as links a JupyterLab reader can read: the book turns them back into roles.

jupyterlab-myst renders a notebook on its own: it knows no other chapter and no bibliography, so
a ``{prf:ref}``, ``{ref}``, ``{numref}`` or ``{eq}`` to another chapter and every ``{cite:p}`` /
``{cite:t}`` show "Cross Reference Not Found" / "Citation Not Found" there. Those references are
written as Markdown links carrying the text the book prints (``.dev/lab_references.py`` rewrote
them)::

    [Theorem 9.2](tsne.ipynb#tsne-thm-gradient)     a label in another chapter
    [Fig. 2.1](#pca-fig-intro)                      a label Lab cannot see (a figure's code cell)
    [Pearson [1901]](#pearson1901lines)             {cite:t}
    [[Eckart and Young, 1936, Mirsky, 1960]](#eckart1936approximation,mirsky1960symmetric)

JupyterLab shows the text and opens the chapter; the book resolves each link here, before
myst-parser's and Sphinx's resolvers run, as exactly the role it stands for (``prf:ref``,
``std:ref``, ``std:numref``, ``math:eq``, ``cite:p`` or ``cite:t``: the one whose rendering is
the link's text), so the page shows the same reference, number and hover title as the role.
A link to a section whose words name it (they hold its title or its lead, or are part of it) and
do not read as a number is ``{ref}`its words <label>```: ``[Erratum E35](errata.ipynb#errata-e35)``
for the section "E35. The linear autoencoder ...";
a renamed section is a warning like a renumbered theorem. A label before a paragraph (no title)
takes any words that do not read as a number.
A link whose text is none of those renderings (a renumbered theorem, a moved section, a typo)
or whose chapter does not hold the label is a build warning, an error under ``-W``: the text a
notebook reader sees cannot go stale.

``MLNOTES_REFERENCE_TEXTS=path.json``: the build also writes every role's rendering, per
document (what ``.dev/lab_references.py`` writes into the links).

A notebook's first cell may open with the MyST front matter that makes jupyterlab-myst number
as the book does (``---`` / ``numbering: {enumerator: "2.%s", ...}`` / ``---``, written by
``.dev/lab_references.py --front-matter``). myst-nb reads no front matter in a cell (its fences
would be a transition, an error), so the book drops the block when it reads the notebook: the
page is what it was without it.
"""

import json
import os
import re
from collections import defaultdict

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

# The roles a link may stand for, in the order they are tried.
ROLES = (("prf", "ref"), ("math", "eq"), ("std", "numref"), ("std", "ref"), ("cite", "p"),
         ("cite", "t"))
ENV_TEXTS = "MLNOTES_REFERENCE_TEXTS"
# Text that reads as a number the book assigns: a link with such a text must print exactly that
# (never taken as the link's own words, which would let a stale number through).
NUMBERED_RE = re.compile(r"^(?:[A-Z][a-z]+\.? \d+(?:\.\d+)*|\(\d+(?:\.\d+)*\))$|\[\d{4}|\d{4}[a-z]?\]")


def _plain(text):
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


def _defined_in(env, domain, label):
    """The document that defines ``label`` for ``domain`` (None: not there)."""
    if domain == "prf":
        return getattr(env, "proof_list", {}).get(label, {}).get("docname")
    if domain == "math":
        return env.get_domain("math").equations.get(label, (None, None))[0]
    if domain == "std":
        std = env.get_domain("std")
        return (std.labels.get(label) or std.anonlabels.get(label) or (None,))[0]
    cite = env.get_domain("cite")
    keys = [key.strip() for key in label.split(",")]
    known = {c.key: c.bibliography_key.docname for c in cite.citations}
    return known[keys[0]] if keys and all(k in known for k in keys) else None


def _resolve(app, env, docname, domain, typ, label):
    """What the role ``{domain:typ}`label``` renders to in ``docname`` (None: nothing)."""
    classes = ["xref", domain, f"{domain}-{typ}"]
    contnode = (nodes.literal(label, label, classes=classes) if domain in ("prf", "math")
                else nodes.inline(label, label, classes=classes))
    xref = addnodes.pending_xref("", contnode, refdomain=domain, reftype=typ, reftarget=label,
                                 refexplicit=False, refwarn=False, refdoc=docname)
    try:  # quietly: a role that does not apply to this label (numref of a theorem) warns
        with logging.suppress_logging():
            return env.get_domain(domain).resolve_xref(env, docname, app.builder, typ, label,
                                                       xref, contnode)
    except Exception:
        return None


def _names(words, title):
    """Whether ``words`` name the section ``title``: one holds the other, or the words hold
    the title's lead ("E35" of "E35. The linear autoencoder ...")."""
    def within(part, whole):
        return bool(part) and re.search(rf"(?<!\w){re.escape(part)}(?!\w)", whole,
                                        re.IGNORECASE) is not None
    lead = re.split(r"[.:]\s", title, maxsplit=1)[0]
    return within(title, words) or within(words, title) or within(lead, words)


def _resolve_explicit(app, env, docname, label, link):
    """What ``{ref}`words <label>``` renders to, the words being the link's text."""
    text = _plain(link.astext())
    contnode = nodes.inline(text, text, classes=["xref", "std", "std-ref"])
    xref = addnodes.pending_xref("", contnode, refdomain="std", reftype="ref",
                                 reftarget=label, refexplicit=True, refwarn=False,
                                 refdoc=docname)
    with logging.suppress_logging():
        return env.get_domain("std").resolve_xref(env, docname, app.builder, "ref", label,
                                                  xref, contnode)


class NoteAnchorTargets(SphinxTransform):
    """Keep the label of a ``[text](#label)`` link: myst-parser resolves a label of the same
    page at read time (ResolveAnchorIds, priority 879) into a plain link, which ``LabLinks``
    must still check and turn into its role."""

    default_priority = 878

    def apply(self, **kwargs):
        for node in self.document.findall(nodes.reference):
            if node.get("id_link") and node.get("refuri", "").startswith("#"):
                node["lablink_target"] = node["refuri"][1:]


def _links(document, docname):
    """(node, label, chapter) of every link to a label: chapter None for ``#label``."""
    for node in list(document.findall(nodes.Element)):
        if isinstance(node, nodes.reference) and node.get("lablink_target"):
            if node.get("refid"):  # resolved within the page by myst-parser
                yield node, node["lablink_target"], docname
        elif isinstance(node, addnodes.pending_xref) and node.get("reftype") == "myst":
            if node.get("refdomain") == "doc" and node.get("reftargetid"):
                yield node, node["reftargetid"], node["reftarget"]
            elif not node.get("refdomain"):
                yield node, node["reftarget"], None


class LabLinks(SphinxPostTransform):
    """``[text](chapter.ipynb#label)`` / ``[text](#label)`` -> the role whose rendering is text."""

    default_priority = 5  # before myst-parser's resolver (9) and Sphinx's (10)

    def run(self, **kwargs):
        env, app = self.env, self.app
        for node, label, chapter in _links(self.document, env.docname):
            owners = {domain: _defined_in(env, domain, label) for domain in ("prf", "math",
                                                                             "std", "cite")}
            if not any(owners.values()):
                continue  # not a label: myst-parser's own resolution (and warning) applies
            if chapter is not None and chapter not in owners.values():
                where = sorted({d for d in owners.values() if d})
                logger.warning(f"link to {label!r} in {chapter!r}, but {where} defines it: "
                               f"link to that chapter [lablink]", location=node,
                               type="mlnotes", subtype="lablink")
                node.replace_self(nodes.inline("", "", *node.deepcopy().children))
                continue
            text, seen, title = _plain(node.astext()), [], None
            for domain, typ in ROLES:
                if not owners[domain]:
                    continue
                result = _resolve(app, env, env.docname, domain, typ, label)
                if result is None:
                    continue
                if _plain(result.astext()) == text:
                    node.replace_self(result)
                    break
                if (domain, typ) == ("std", "ref"):
                    title = _plain(result.astext())
                seen.append(f"{{{domain}:{typ}}} prints {_plain(result.astext())!r}")
            else:
                # {ref}`words <label>`: words that name the section ("Erratum E35" for the
                # section "E35. The linear autoencoder ..."), never a number, so a renamed or
                # renumbered section is a warning too; a label without a title (before a
                # paragraph) takes any words
                named = title is None or _names(text, title)
                if owners["std"] and named and not NUMBERED_RE.search(text):
                    result = _resolve_explicit(app, env, env.docname, label, node)
                    if result is not None:
                        node.replace_self(result)
                        continue
                logger.warning(f"link text {text!r} for {label!r} is not what the book prints "
                               f"({'; '.join(seen)}): write that text, or the role itself for "
                               f"a reference within the same notebook [lablink]",
                               location=node, type="mlnotes", subtype="lablink")
                node.replace_self(nodes.inline("", "", *node.deepcopy().children))


class RecordRoles(SphinxPostTransform):
    """With ``MLNOTES_REFERENCE_TEXTS`` set: note what every role renders to, per document."""

    default_priority = 6

    def run(self, **kwargs):
        if not os.environ.get(ENV_TEXTS):
            return
        env = self.env
        texts = env.app.__dict__.setdefault("_mlnotes_reference_texts", defaultdict(dict))
        for node in self.document.findall(addnodes.pending_xref):
            domain, typ = node.get("refdomain"), node.get("reftype")
            if (domain, typ) not in ROLES or node.get("refexplicit"):
                continue
            result = _resolve(self.app, env, env.docname, domain, typ, node["reftarget"])
            if result is not None:
                texts[env.docname][f"{domain}:{typ}:{node['reftarget']}"] = _plain(
                    result.astext())


def _write_texts(app, exception):
    path = os.environ.get(ENV_TEXTS)
    if path and exception is None:
        texts = getattr(app, "_mlnotes_reference_texts", {})
        with open(path, "w", encoding="utf-8") as f:
            json.dump({doc: dict(sorted(t.items())) for doc, t in sorted(texts.items())}, f,
                      indent=1, ensure_ascii=False)


# the front matter block at the very top of a notebook's first cell (.dev/lab_references.py)
FRONT_MATTER_RE = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def _drop_lab_front_matter(app, docname, source):
    """``source-read``: a notebook without the front matter of its first cell."""
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    nb = json.loads(source[0])
    cells = nb.get("cells") or []
    if not cells or cells[0].get("cell_type") != "markdown":
        return
    text = "".join(cells[0]["source"])
    stripped = FRONT_MATTER_RE.sub("", text, count=1)
    if stripped != text:
        cells[0]["source"] = stripped
        source[0] = json.dumps(nb, ensure_ascii=False)


def setup(app):
    app.connect("source-read", _drop_lab_front_matter)
    app.add_transform(NoteAnchorTargets)
    app.add_post_transform(LabLinks)
    app.add_post_transform(RecordRoles)
    app.connect("build-finished", _write_texts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
