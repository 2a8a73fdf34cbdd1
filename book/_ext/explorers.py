"""The explorers of the static book: their script and style, once, on every page.

An explorer cell's static output (``mlnotes.widgets._static.explorer_html``) carries its data;
``book/_static/explorer.js`` draws it and ``explorer.css`` styles it (both in the book's
``html_static_path``). Sphinx writes each file's address relative to the page, so they load at
any depth (``book/``, ``book/homework/``). The script is deferred (the first paint never waits
for it), a few KB that the browser caches once for the whole book, and it does nothing on a page
without an explorer.

Jupyter Book registers an extension's files a second time (without their loading method) when
it reads the environment again, so each page's lists are cleaned to one deferred script and one
style sheet.
"""

from sphinx.builders.html._assets import _CascadingStyleSheet, _JavaScript

SCRIPT, STYLE = "_static/explorer.js", "_static/explorer.css"


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
    return {"parallel_read_safe": True, "parallel_write_safe": True}
