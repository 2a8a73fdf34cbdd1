"""The explorers of the static book: load their script and style on the pages that have one.

An explorer cell's static output (``mlnotes.widgets._static.explorer_html``) carries its data;
``book/_static/explorer.js`` draws it and ``explorer.css`` styles it (both in the book's
``html_static_path``). Sphinx writes each file's address relative to the page, so they load at
any depth (``book/``, ``book/homework/``); the script is deferred, so the first paint never
waits for it. Pages without an explorer do not load either file.
"""

MARKER = 'class="mlnotes-explorer"'


def _add_explorer_files(app, pagename, templatename, context, doctree):
    # Files added during html-page-context belong to this page only (Sphinx >= 3.5).
    if MARKER in context.get("body", ""):
        app.add_css_file("explorer.css")
        app.add_js_file("explorer.js", loading_method="defer")


def setup(app):
    app.connect("html-page-context", _add_explorer_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
