"""Keep the built book self-contained and its pages free of console errors.

Jupyter Book 1.x always loads ``sphinx_thebe``, which registers its inline configuration (with a
CDN address) each time the environment is read, so an incremental build can declare the same
``const`` twice and the browser reports an error. The book does not use Thebe (launch buttons are
off until the repository has a public URL), so its scripts are dropped from every page.
"""

THEBE_MARKERS = ("THEBE_JS_URL", "sphinx-thebe.js", "thebe@")


def _is_thebe(script):
    text = " ".join(str(part) for part in (getattr(script, "filename", None) or "",
                                           script.attributes.get("body", "")))
    return any(marker in text for marker in THEBE_MARKERS)


def _drop_thebe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if scripts:
        context["script_files"] = [s for s in scripts if not _is_thebe(s)]


def setup(app):
    app.connect("html-page-context", _drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
