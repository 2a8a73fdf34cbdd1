"""One publishing setting: the repository's public address, read when the book is built.

Whoever publishes the book sets ``MLNOTES_REPOSITORY_URL`` (for example
``https://github.com/<owner>/<repo>``; the GitHub workflow sets it to its own repository). With it
set, the built book gets:

* a repository button, and Binder and Colab launch buttons on every chapter;
* notebooks to download (and to open on Colab) whose first cell installs mlnotes from that
  repository when the kernel does not have it;
* ``.nojekyll`` at the root of the site (GitHub Pages then serves the ``_static`` folders), and
  Binder's environment in ``_build/binder`` beside the site, for the ``binder`` branch (below).

The launch buttons open the notebooks as *published* (the ``gh-pages`` branch holds the built site,
``_sources/`` its notebooks), because those are the copies whose install cell knows the address.

Binder builds one image per dependency change, not per commit: the environment lives on a branch
of its own, ``binder`` (``requirements.txt``: the chapters' dependencies as the lock file pins
them, and nbgitpuller; ``runtime.txt``), which the workflow publishes only when it changes. The
Binder button starts that image and lets nbgitpuller pull the published notebooks into it; the
notebook's install cell then installs mlnotes itself (pure Python, its dependencies already in
the image: seconds), so a new commit of the book or of the package needs no new image.

With the setting empty, nothing points anywhere: every chapter page gets a "Run locally" button
that leads to the introduction's instructions. No address is ever made up.

The whole book as one PDF (``make pdf``, .dev/pdf.py) is copied into the site as
``mlnotes.pdf``; every page then gets a "Book PDF" link in its header (added by .dev/pdf.py
after printing, and by every later build that finds the file). The theme's own ".pdf" button
prints only the page in view, so it is relabelled "Print this page".
"""

import json
import os
import re
import shutil
from pathlib import Path
from urllib.parse import urlencode

ENV_VAR = "MLNOTES_REPOSITORY_URL"
PUBLISHED_BRANCH = "gh-pages"
SOURCE_BRANCH = "main"
BINDERHUB_URL = "https://mybinder.org"
COLAB_URL = "https://colab.research.google.com"
RUN_LOCALLY_PAGE = "book/intro"
RUN_LOCALLY_ANCHOR = "run-this-book"
# The line of the install cell that the published copies fill in (see book chapters' first cell).
INSTALL_LINE = re.compile(r'^MLNOTES = ""(.*)$', flags=re.MULTILINE)
# What Binder's image holds: the chapters' dependencies, pinned as in requirements.txt, and
# nbgitpuller, which pulls the published notebooks into it at launch.
BINDER_PACKAGES = ("numpy", "scipy", "matplotlib", "ipywidgets", "scikit-learn", "ipykernel",
                   "threadpoolctl", "umap-learn")
NBGITPULLER = "nbgitpuller==1.3.0"
# The branch that holds Binder's environment only (published when it changes).
BINDER_BRANCH = "binder"
# the distribution's name (pyproject.toml) and the extras every chapter uses
DISTRIBUTION = "mlnotes-nldr"
CHAPTER_EXTRAS = "plot,widgets,sklearn"
# what a notebook imports beyond them -> the extra that installs it (the UMAP chapter compares
# with umap-learn; the homework notebooks import the checker, which reads notebooks with IPython)
IMPORT_EXTRAS = {"umap": "umap", "mlnotes.homework": "homework"}
_IMPORT = re.compile(r"^\s*(?:import|from)\s+([\w.]+)", flags=re.MULTILINE)
_GITHUB = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+$")


def repository_url():
    """The address from the environment, validated; '' when unset."""
    url = os.environ.get(ENV_VAR, "").strip().rstrip("/")
    if url.endswith(".git"):
        url = url[: -len(".git")]
    if url and not _GITHUB.match(url):
        raise ValueError(
            f"{ENV_VAR}={url!r} is not a GitHub repository address: set it to "
            "https://github.com/<owner>/<repo> (the launch buttons need a GitHub repository), "
            "or leave it empty to build the book without launch buttons.")
    return url


def notebook_extras(nb):
    """The extras a notebook (its JSON) needs: the chapters' own, and one for each import in
    ``IMPORT_EXTRAS`` that a code cell makes."""
    extras = CHAPTER_EXTRAS.split(",")
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        for module in _IMPORT.findall("".join(cell.get("source", []))):
            for name, extra in IMPORT_EXTRAS.items():
                if (module == name or module.startswith(name + ".")) and extra not in extras:
                    extras.append(extra)
    return ",".join(extras)


def install_requirement(url, extras=CHAPTER_EXTRAS):
    """The pip requirement that installs mlnotes from the repository (never PyPI's 'mlnotes',
    which is an unrelated project): the distribution ``mlnotes-nldr`` with ``extras`` (what a
    chapter imports: :func:`notebook_extras`), by a direct reference whose name pip checks
    against the package's metadata."""
    return f"{DISTRIBUTION}[{extras}] @ git+{url}.git@{SOURCE_BRANCH}"


def _configure(app, config):
    url = repository_url()
    options = config.html_theme_options
    if not url:
        options["use_repository_button"] = False
        options.pop("launch_buttons", None)
        return
    options["repository_url"] = url
    options["use_repository_button"] = True
    options["repository_branch"] = PUBLISHED_BRANCH
    options["path_to_docs"] = "_sources"
    options["launch_buttons"] = {
        "binderhub_url": BINDERHUB_URL,
        "colab_url": COLAB_URL,
        "notebook_interface": "jupyterlab",
    }


def _run_locally_button(app, pagename, templatename, context, doctree):
    if repository_url() or "header_buttons" not in context:
        return
    if not str(context.get("sourcename", "")).endswith((".ipynb", ".ipynb.txt")):
        return
    target = app.builder.get_relative_uri(pagename, RUN_LOCALLY_PAGE)
    context["header_buttons"].append({
        "type": "link",
        "url": f"{target}#{RUN_LOCALLY_ANCHOR}",
        "tooltip": "How to run this chapter on your machine",
        "text": "Run locally",
        "label": "run-locally-button",
    })


def fill_install_cells(sources, url):
    """Write the install requirement (with the notebook's own extras) into the first cell of
    every notebook under ``sources``."""
    filled = 0
    for path in Path(sources).rglob("*.ipynb"):
        nb = json.loads(path.read_text(encoding="utf-8"))
        requirement = json.dumps(install_requirement(url, notebook_extras(nb)))
        for cell in nb.get("cells", [])[:3]:
            source = "".join(cell.get("source", []))
            if cell.get("cell_type") == "code" and INSTALL_LINE.search(source):
                source = INSTALL_LINE.sub(
                    lambda m, line=f"MLNOTES = {requirement}": line + m.group(1), source)
                cell["source"] = source.splitlines(keepends=True)
                path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
                                encoding="utf-8")
                filled += 1
                break
    return filled


def binder_requirements(requirements_txt):
    """Binder's ``requirements.txt``: the chapters' dependencies as requirements.txt pins them,
    and nbgitpuller. Not mlnotes: the notebooks' install cell adds it, so the image changes only
    when a dependency does."""
    pins = {}
    for line in Path(requirements_txt).read_text(encoding="utf-8").splitlines():
        name, sep, version = line.strip().partition("==")
        if sep:
            pins[name.lower()] = f"{name}=={version}"
    lines = [pins[name] for name in BINDER_PACKAGES if name in pins]
    return "\n".join([*lines, NBGITPULLER]) + "\n"


def binder_launch_url(url, notebook):
    """Binder's link for ``notebook`` (its path in the published ``_sources/``): the image of the
    ``binder`` branch, into which nbgitpuller pulls the published notebooks."""
    owner, repo = url.rstrip("/").split("/")[-2:]
    pull = urlencode({"repo": url, "branch": PUBLISHED_BRANCH,
                      "urlpath": f"lab/tree/{repo}/_sources/{notebook}"})
    return (f"{BINDERHUB_URL}/v2/gh/{owner}/{repo}/{BINDER_BRANCH}?"
            + urlencode({"urlpath": f"git-pull?{pull}"}))


def _binder_through_nbgitpuller(app, pagename, templatename, context, doctree):
    """Point the theme's Binder button at the environment branch (see the module's docstring)."""
    url = repository_url()
    if not url:
        return
    for group in context.get("header_buttons", []):
        if group.get("label") != "launch-buttons":
            continue
        for button in group.get("buttons", []):
            if button.get("text") == "Binder":
                button["url"] = binder_launch_url(url, f"{pagename}.ipynb")


def write_binder_environment(folder, root):
    """The ``binder`` branch's files in ``folder``: requirements.txt, runtime.txt, a README."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "requirements.txt").write_text(binder_requirements(Path(root) / "requirements.txt"),
                                             encoding="utf-8")
    shutil.copy(Path(root) / "runtime.txt", folder / "runtime.txt")
    (folder / "README.md").write_text(
        "# Binder's environment for the mlnotes book\n\nWritten by the book's build "
        "(book/_ext/publish.py on main); the Binder buttons start this image and pull the "
        "published notebooks into it with nbgitpuller. Do not edit by hand.\n", encoding="utf-8")
    return folder


BOOK_PDF_NAME = "mlnotes.pdf"
BOOK_PDF_MARK = "btn-book-pdf-button"
# the theme's header button that switches light/dark: the book's PDF link goes just before it
THEME_BUTTON = '<button class="btn btn-sm nav-link pst-navbar-icon theme-switch-button'
PRINT_PAGE_OLD = ('title="Print to PDF"', '<span class="btn__text-container">.pdf</span>')
PRINT_PAGE_NEW = ('title="Print this page, or save it as a PDF"',
                  '<span class="btn__text-container">Print this page</span>')


def _html_pages(html_dir):
    for page in Path(html_dir).rglob("*.html"):
        parts = page.relative_to(html_dir).parts
        if parts and parts[0] not in ("_static", "_sources", "_images"):
            yield page


def book_pdf_link(depth, name=BOOK_PDF_NAME):
    """The header link to the book's PDF from a page ``depth`` folders below the site root."""
    href = "../" * depth + name
    return (f'<a href="{href}" class="btn btn-sm {BOOK_PDF_MARK}" '
            'title="The whole book as one PDF (title page, contents, page numbers)" '
            'data-bs-placement="bottom" data-bs-toggle="tooltip" download>'
            '<span class="btn__icon-container"><i class="fas fa-file-pdf"></i></span>'
            '<span class="btn__text-container">Book PDF</span></a>\n')


def relabel_print_button(text):
    """The theme's ".pdf" button prints one page: say so."""
    for old, new in zip(PRINT_PAGE_OLD, PRINT_PAGE_NEW, strict=True):
        text = text.replace(old, new)
    return text


def add_book_pdf_link(text, depth, name=BOOK_PDF_NAME):
    """``text`` (a page) with the "Book PDF" header link, once."""
    if BOOK_PDF_MARK in text or THEME_BUTTON not in text:
        return text
    return text.replace(THEME_BUTTON, book_pdf_link(depth, name) + THEME_BUTTON, 1)


def add_book_pdf_links(html_dir, name=BOOK_PDF_NAME):
    """Link every page of the built site at ``html_dir`` to its copy of the book's PDF."""
    html_dir = Path(html_dir)
    changed = 0
    for page in _html_pages(html_dir):
        text = page.read_text(encoding="utf-8")
        depth = len(page.relative_to(html_dir).parts) - 1
        new = add_book_pdf_link(relabel_print_button(text), depth, name)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def _finish(app, exception):
    url = repository_url()
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    (out / ".nojekyll").touch()
    has_pdf = (out / BOOK_PDF_NAME).exists()
    for page in _html_pages(out):
        text = page.read_text(encoding="utf-8")
        new = relabel_print_button(text)
        if has_pdf:
            new = add_book_pdf_link(new, len(page.relative_to(out).parts) - 1)
        if new != text:
            page.write_text(new, encoding="utf-8")
    if not url:
        return
    fill_install_cells(out / "_sources", url)
    # beside the site (the workflow publishes it to the binder branch), not in it
    write_binder_environment(out.parent / BINDER_BRANCH, app.confdir)


def setup(app):
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _run_locally_button, priority=502)
    # after sphinx-book-theme's own launch buttons (priority 501)
    app.connect("html-page-context", _binder_through_nbgitpuller, priority=503)
    app.connect("build-finished", _finish)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
