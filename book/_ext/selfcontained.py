"""Keep the built book self-contained and its pages free of console errors.

Jupyter Book 1.x always loads ``sphinx_thebe``, which registers its inline configuration (with a
CDN address) each time the environment is read, so an incremental build can declare the same
``const`` twice and the browser reports an error. The book does not use Thebe (launch buttons are
off until the repository has a public URL), so its scripts are dropped from every page.

Sphinx copies the static files (``html_static_path``: the book's CSS and JavaScript) only when it
writes some page: a rebuild after a change to a static file alone ("no targets are out of date")
kept the old copy in ``_build``, so the browser tests and a reader of a local build saw the
previous style sheet. Each build ends by copying every static file whose built copy differs.
"""

import filecmp
import shutil
from pathlib import Path

THEBE_MARKERS = ("THEBE_JS_URL", "sphinx-thebe.js", "thebe@")


def _is_thebe(script):
    text = " ".join(str(part) for part in (getattr(script, "filename", None) or "",
                                           script.attributes.get("body", "")))
    return any(marker in text for marker in THEBE_MARKERS)


def _drop_thebe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if scripts:
        context["script_files"] = [s for s in scripts if not _is_thebe(s)]


def _refresh_static_files(app, exception):
    """Copy each file of ``html_static_path`` whose copy in the built ``_static`` is missing or
    differs (Sphinx skips its own copying when no page is out of date). Runs before the other
    extensions' build-finished passes (priority 100), which may write beside these files."""
    if exception is not None or app.builder.format != "html":
        return
    built = Path(app.outdir) / "_static"
    for entry in app.config.html_static_path:
        source = Path(app.confdir) / entry
        for path in (source.rglob("*") if source.is_dir() else [source]):
            if not path.is_file() or path.name.startswith(".") or path.name.endswith("_t"):
                continue
            target = built / path.relative_to(source if source.is_dir() else source.parent)
            if not target.is_file() or not filecmp.cmp(path, target, shallow=False):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)


def setup(app):
    app.connect("html-page-context", _drop_thebe, priority=900)
    app.connect("build-finished", _refresh_static_files, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
