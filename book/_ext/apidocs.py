"""The API reference (book/api.md): the package's numpydoc docstrings, rendered by autodoc.

This extension loads ``sphinx.ext.autodoc`` and ``sphinx.ext.napoleon`` (numpydoc sections:
Parameters, Returns, References, ...) and makes the docstrings build under ``-W --nitpick``:

* A docstring's numbered references (``.. [1]`` and ``[1]_``, the numpydoc habit) become
  auto-numbered footnotes named after the object they belong to, so that two modules' "[1]" on
  the one page are two footnotes, not a duplicate target.
* Types in "Parameters" are prose ("ndarray of shape (N, D)", "{'auto', 'dense'}"), not class
  names: ``_config.yml`` tells nitpick not to resolve them (``nitpick_ignore_regex``) and napoleon
  writes them as text (``napoleon_use_param = False``).
"""

import re

# ".. [1] ..." (a numbered reference) and "[1]_" (a citation of it) in a numpydoc docstring.
_TARGET = re.compile(r"^(\s*)\.\. \[(\d+)\]", flags=re.MULTILINE)
_CITATION = re.compile(r"\[(\d+)\]_")


def unique_footnotes(name, text):
    """``text`` with its numbered references renamed after ``name`` (auto-numbered)."""
    key = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")
    text = _TARGET.sub(lambda m: f"{m[1]}.. [#{key}-{m[2]}]", text)
    return _CITATION.sub(lambda m: f"[#{key}-{m[1]}]_", text)


def _process_docstring(app, what, name, obj, options, lines):
    renamed = unique_footnotes(name, "\n".join(lines)).split("\n")
    lines[:] = renamed


def setup(app):
    app.setup_extension("sphinx.ext.autodoc")
    app.setup_extension("sphinx.ext.napoleon")
    app.connect("autodoc-process-docstring", _process_docstring)
    # narrower indentation of the nested parameter lists on a phone (book/_static/apidocs.css)
    app.add_css_file("apidocs.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
