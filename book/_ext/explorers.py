"""The explorers of the static book: their script and style, once, on every page, and their data
in files of their own.

An explorer cell's static output (``mlnotes.widgets._static.explorer_html``) carries its data;
``book/_static/explorer.js`` draws it and ``explorer.css`` styles it (both in the book's
``html_static_path``). Sphinx writes each file's address relative to the page, so they load at
any depth (``book/``, ``book/homework/``). The script is deferred (the first paint never waits
for it), a few KB that the browser caches once for the whole book, and it does nothing on a page
without an explorer.

The data (gzip-compressed JSON in base64, 20-340 kB a page: on t-SNE's page 338 of its 749 kB)
stays in the notebook's output, where JupyterLab and other builders read it inline; in the HTML
book it is moved at build time into ``_static/explorer-data/<digest>.js``, a script that hands
it to explorer.js (``window.MLNotesExplorerData[digest]``), and the page keeps an empty
``script.mlx-data`` whose ``data-src`` names that file. explorer.js loads it with a ``<script>``
element (which works from ``file://`` as well as from a server, where ``fetch`` would not) only
when the explorer comes near the screen or is printed: a phone parses and downloads the page's
text and maths, not the data of explorers it has not reached (issue 32, maths at first paint).

Jupyter Book registers an extension's files a second time (without their loading method) when
it reads the environment again, so each page's lists are cleaned to one deferred script and one
style sheet.
"""

import hashlib
import json
import pathlib
import re

from sphinx.builders.html._assets import _CascadingStyleSheet, _JavaScript

SCRIPT, STYLE = "_static/explorer.js", "_static/explorer.css"
DATA_DIR = "_static/explorer-data"
# the inline data explorer_html writes (base64 only: no quote, no "<")
INLINE_DATA = re.compile(r'<script type="application/gzip" class="mlx-data">([A-Za-z0-9+/=\s]+)</script>')


def data_script(key, b64):
    """The text of the file that hands the explorer data ``b64`` to explorer.js under ``key``."""
    return ("(window.MLNotesExplorerData = window.MLNotesExplorerData || {})"
            f"[{json.dumps(key)}] = {json.dumps(b64)};\n")


def move_data_out(body, outdir, pathto):
    """``body`` with each explorer's inline data replaced by a reference to a file of its own
    under ``outdir``/``DATA_DIR`` (named by the data's digest: the same data, one file);
    ``pathto(name, 1)`` gives the file's address relative to the page."""
    folder = pathlib.Path(outdir) / DATA_DIR
    folder.mkdir(parents=True, exist_ok=True)

    def out(match):
        b64 = "".join(match[1].split())
        key = hashlib.sha256(b64.encode("ascii")).hexdigest()[:20]
        file = folder / f"{key}.js"
        if not file.exists():
            file.write_text(data_script(key, b64), encoding="ascii")
        src = pathto(f"{DATA_DIR}/{key}.js", 1)
        return (f'<script type="application/gzip" class="mlx-data" data-key="{key}" '
                f'data-src="{src}"></script>')

    return INLINE_DATA.sub(out, body)


def _data_out(app, pagename, templatename, context, doctree):
    if app.builder.format == "html" and "mlx-data" in context.get("body", ""):
        context["body"] = move_data_out(context["body"], app.outdir, context["pathto"])


def _once(app, pagename, templatename, context, doctree):
    def others(files, name):
        return [f for f in files if getattr(f, "filename", f) != name]

    if "script_files" in context:
        context["script_files"] = others(context["script_files"], SCRIPT) + [
            _JavaScript(SCRIPT, defer="defer", priority=500)]
    if "css_files" in context:
        context["css_files"] = others(context["css_files"], STYLE) + [
            _CascadingStyleSheet(STYLE, rel="stylesheet", type="text/css", priority=500)]


def setup(app):
    app.connect("html-page-context", _once, priority=950)
    app.connect("html-page-context", _data_out, priority=950)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
