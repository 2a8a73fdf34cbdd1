"""Apply the book's notebook conventions to chapter notebooks, and report what needs a person.

Usage::

    .venv/bin/python .dev/tidy_notebooks.py                  # every notebook in _toc.yml
    .venv/bin/python .dev/tidy_notebooks.py book/pca.ipynb   # the named notebooks
    .venv/bin/python .dev/tidy_notebooks.py --dry-run ...    # change nothing, say what would change
    .venv/bin/python .dev/tidy_notebooks.py --no-format ...  # do not run ruff format on long cells

What it changes (idempotent: a second run changes nothing):

* a ``# NBVAL_CHECK_OUTPUT`` comment line becomes the cell tag ``nbval-check-output``;
* ``# noqa`` comments go (whole comment lines, and ``  # noqa: E501`` suffixes);
* a cell whose first line is ``# Check: <claim>``, or whose statements are mostly ``assert``, gets
  the cell tag ``check`` (the book folds it under a "✓ <claim>" bar);
* a cell ending in a plotting call whose saved output is only a matplotlib repr
  (``Text(0, 0.5, 'PC 2')``, ``<matplotlib.colorbar.Colorbar at 0x…>``, ...) gets a ``;`` after
  that call, and the repr output is dropped;
* a code cell with a line longer than 79 characters goes through ``ruff format --line-length 79``
  (which keeps the code's syntax tree, so its behaviour and its outputs stay the same).

Nothing else in the outputs is touched. What it reports (for the chapter owner; it never
invents text): check cells without a ``# Check:`` first line, code lines still longer than 79
characters, printed output lines longer than 79 characters, and figure cells without myst-nb
figure metadata (name, caption) or alt text.

Exit status: 0 when nothing is left to report, 1 otherwise (so it can gate a commit).
"""

import argparse
import ast
import copy
import io
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAX_LINE = 79
CHECK_TAG = "check"
NBVAL_TAG = "nbval-check-output"
NBVAL_LINE_RE = re.compile(r"^\s*#\s*NBVAL_CHECK_OUTPUT\s*$")
NOQA_LINE_RE = re.compile(r"^\s*#\s*noqa\b.*$", re.IGNORECASE)
NOQA_SUFFIX_RE = re.compile(r"\s*#\s*noqa\b[^#\n]*$", re.IGNORECASE)
CHECK_LINE_RE = re.compile(r"^\s*#\s*Check:\s*\S")
# A saved text/plain result that is only the repr of a matplotlib object, e.g.
# "Text(0, 0.5, 'PC 2')", "<matplotlib.colorbar.Colorbar at 0x7f…>", "[<matplotlib.lines.Line2D …>]".
MPL_REPR_RE = re.compile(
    r"<matplotlib\.|<mpl_toolkits\.|<Axes[:\s]|<Figure size|^\s*\[?Text\(", re.MULTILINE)
PLOT_CALL_RE = re.compile(
    r"\b(plt|ax|axes|fig|axs|cbar|ml\.plotting|\w*ax\w*)\s*(\[[^\]]*\])?\s*\.\s*\w+\s*\(")
# A cell counts as a check when at least this share of its top-level statements are asserts.
ASSERT_SHARE = 0.5
IMAGE_MIMES = ("image/png", "image/svg+xml", "image/jpeg")


def toc_notebooks(root=ROOT):
    """The .ipynb files listed in ``_toc.yml`` (in book order)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        for key in ("parts", "chapters", "sections"):
            for child in node.get(key) or []:
                if "file" in child:
                    files.append(child["file"])
                walk(child)

    walk(toc)
    paths = []
    for name in files:
        path = root / name
        if path.suffix != ".ipynb":
            path = path.with_suffix(".ipynb")
        if path.exists():
            paths.append(path)
    return paths


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _tags(cell):
    return cell.setdefault("metadata", {}).setdefault("tags", [])


def _add_tag(cell, tag):
    tags = _tags(cell)
    if tag not in tags:
        tags.append(tag)
        return True
    return False


def _drop_empty_tags(cell):
    if not cell.get("metadata", {}).get("tags", True):
        del cell["metadata"]["tags"]


def strip_markers(source):
    """Remove ``# NBVAL_CHECK_OUTPUT`` lines and ``# noqa`` comments.

    Returns ``(new_source, had_nbval_marker)``.
    """
    lines = source.split("\n")
    out, had_nbval = [], False
    for line in lines:
        if NBVAL_LINE_RE.match(line):
            had_nbval = True
            continue
        if NOQA_LINE_RE.match(line):
            continue
        if "noqa" in line.lower() and "#" in line:
            stripped = NOQA_SUFFIX_RE.sub("", line)
            if stripped != line and _is_comment_suffix(line, len(stripped)):
                line = stripped.rstrip()
        out.append(line)
    return "\n".join(out), had_nbval


def _is_comment_suffix(line, start):
    """True when the ``#`` after ``start`` opens a comment (not a ``#`` inside a string)."""
    head = line[:start]
    return head.count('"') % 2 == 0 and head.count("'") % 2 == 0


def _python_only(source):
    """The source with IPython magics and shell lines blanked, so ``ast`` can parse it."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.split("\n"))


def _is_assert_stmt(node):
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, (ast.For, ast.With, ast.If)):
        body = [n for n in node.body if not _is_print(n)]
        return bool(body) and all(_is_assert_stmt(n) for n in body)
    return False


def _is_print(node):
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name) and node.value.func.id == "print")


def looks_like_check(source):
    """True for a ``# Check:`` cell, or one whose statements are mostly asserts."""
    first = next((line for line in source.split("\n") if line.strip()), "")
    if CHECK_LINE_RE.match(first):
        return True
    try:
        tree = ast.parse(_python_only(source))
    except SyntaxError:
        return False
    if any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in tree.body):
        return False
    stmts = [n for n in tree.body if not _is_print(n)]
    asserts = sum(_is_assert_stmt(n) for n in stmts)
    return asserts > 0 and asserts >= ASSERT_SHARE * len(stmts)


def has_claim_line(source):
    first = next((line for line in source.split("\n") if line.strip()), "")
    return bool(CHECK_LINE_RE.match(first))


def _has_image(cell):
    return any(mime in out.get("data", {}) for out in cell.get("outputs", [])
               for mime in IMAGE_MIMES)


def _is_mpl_repr_result(output):
    if output.get("output_type") != "execute_result":
        return False
    data = output.get("data", {})
    if set(data) - {"text/plain"}:
        return False
    text = data.get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else text
    return bool(MPL_REPR_RE.search(text))


def silence_final_plot_expr(source):
    """Assign the cell's final expression to ``_`` if it is a plotting call.

    Not a trailing ``;``: nbval runs cells without storing history, and IPython then decides
    whether ``;`` silences the result from the wrong cell, so a checked cell would print a repr
    under nbval that the saved notebook does not have. A trailing ``;`` left by an earlier run is
    replaced. Returns the new source, or None when the final statement is not such an expression.
    """
    try:
        tree = ast.parse(_python_only(source))
    except SyntaxError:
        return None
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return None
    last = tree.body[-1]
    lines = source.split("\n")
    end_line = lines[last.end_lineno - 1]
    segment = "\n".join(lines[last.lineno - 1:last.end_lineno])
    if not PLOT_CALL_RE.search(segment):
        return None
    code, comment = end_line[:last.end_col_offset], end_line[last.end_col_offset:]
    if comment.lstrip().startswith(";"):
        comment = comment.lstrip()[1:]
    lines[last.end_lineno - 1] = code + comment
    first = lines[last.lineno - 1]
    lines[last.lineno - 1] = first[:last.col_offset] + "_ = " + first[last.col_offset:]
    return "\n".join(lines)


def long_lines(source, limit=MAX_LINE):
    return [(i, line) for i, line in enumerate(source.split("\n"), 1) if len(line) > limit]


def long_output_lines(cell, limit=MAX_LINE):
    found = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            text = out.get("text", "")
        elif out.get("output_type") in ("execute_result", "display_data") and \
                not any(m in out.get("data", {}) for m in IMAGE_MIMES + ("text/html",)):
            text = out.get("data", {}).get("text/plain", "")
        else:
            continue
        text = "".join(text) if isinstance(text, list) else text
        found += [line for line in text.split("\n") if len(line) > limit]
    return found


def figure_metadata_problems(cell):
    """What a cell with an image output lacks: myst-nb figure name/caption and alt text."""
    if not _has_image(cell):
        return []
    meta = cell.get("metadata", {}).get("mystnb", {})
    figure, image = meta.get("figure", {}), meta.get("image", {})
    missing = []
    if not figure.get("name"):
        missing.append("figure name")
    if not figure.get("caption"):
        missing.append("caption")
    alt = image.get("alt", "")
    if not alt.strip():
        missing.append("alt text")
    return missing


def hoist_long_comments(source, limit=MAX_LINE):
    """Move a trailing comment that makes its line too long onto its own line above.

    ``x = f(t)  # a long remark`` becomes ``# a long remark`` + ``x = f(t)`` (same indentation).
    Only real comments move (found with ``tokenize``), so the code itself is unchanged.
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(_python_only(source)).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    lines = source.split("\n")
    moves = {}
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        row, col = tok.start
        line = lines[row - 1]
        code = line[:col].rstrip()
        if len(line) > limit and code.strip() and len(code) <= limit:
            moves[row] = (code, tok.string)
    for row in sorted(moves, reverse=True):
        code, comment = moves[row]
        indent = code[:len(code) - len(code.lstrip())]
        lines[row - 1:row] = [indent + comment, code]
    return "\n".join(lines)


def ruff_format_cell(source, ruff):
    """``source`` formatted by ruff at 79 columns, or None when ruff cannot format it."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells.append(nbformat.v4.new_code_cell(source))
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "cell.ipynb"
        nbformat.write(nb, path)
        result = subprocess.run(
            [ruff, "format", "--quiet", "--isolated", "--line-length", str(MAX_LINE), str(path)],
            capture_output=True, text=True,
        )
        if result.returncode != 0:
            return None
        formatted = _source(nbformat.read(path, as_version=4).cells[0])
    return formatted


def tidy_notebook(nb, *, ruff=None):
    """Tidy ``nb`` (a notebook) in place.

    Returns ``(changes, reports, notes)``: lists of what changed, what a person must fix, and
    cells a person should look at (asserts in a cell not tagged ``check``).
    """
    changes, reports, notes = [], [], []
    for index, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        where = f"cell {index}"
        source = _source(cell)
        new, had_nbval = strip_markers(source)
        if had_nbval and _add_tag(cell, NBVAL_TAG):
            changes.append(f"{where}: # NBVAL_CHECK_OUTPUT -> tag {NBVAL_TAG}")
        if new != source:
            if "noqa" in source.lower() and "noqa" not in new.lower():
                changes.append(f"{where}: removed # noqa")
            source = new

        outputs = cell.get("outputs", [])
        reprs = [o for o in outputs if _is_mpl_repr_result(o)]
        trailing = re.search(r";[ \t]*(#[^\n]*)?\s*$", source) is not None
        if reprs or trailing:
            silenced = silence_final_plot_expr(source)
            if silenced is not None:
                source = silenced
                cell["outputs"] = [o for o in outputs if o not in reprs]
                changes.append(f"{where}: final plotting call assigned to _, repr dropped")
            elif trailing and not reprs:
                pass
            else:
                reports.append(f"{where}: a matplotlib repr in the output, but the final "
                               "statement is not a plotting call: assign it to _ by hand")

        if long_lines(source):
            hoisted = hoist_long_comments(source)
            if hoisted != source:
                source = hoisted
                changes.append(f"{where}: long trailing comment(s) moved above their line")
        if ruff and long_lines(source):
            formatted = ruff_format_cell(source, ruff)
            if formatted is not None and formatted != source:
                source = formatted
                changes.append(f"{where}: ruff format --line-length {MAX_LINE}")

        if source != _source(cell):
            cell["source"] = source

        if looks_like_check(source):
            if _add_tag(cell, CHECK_TAG):
                changes.append(f"{where}: tagged '{CHECK_TAG}'")
            if not has_claim_line(source):
                first = next((ln for ln in source.split("\n") if ln.strip()), "")
                reports.append(f"{where}: check cell without a '# Check: <claim>' first line "
                               f"(starts: {first[:60]!r})")
        elif CHECK_TAG in cell.get("metadata", {}).get("tags", []):
            if not has_claim_line(source):
                reports.append(f"{where}: tagged '{CHECK_TAG}' but has no '# Check: <claim>' "
                               "first line")
        elif re.search(r"^\s*assert\b", source, re.MULTILINE):
            notes.append(f"{where}: asserts, not tagged '{CHECK_TAG}'. If the cell's job is to "
                         "verify a claim, make its first line '# Check: <claim>' (the next run "
                         "tags it); if it teaches, leave it open")
        _drop_empty_tags(cell)

        for lineno, line in long_lines(source):
            reports.append(f"{where}, line {lineno}: {len(line)} > {MAX_LINE} characters: "
                           f"{line.strip()[:50]!r}")
        for line in long_output_lines(cell):
            reports.append(f"{where}: printed output line of {len(line)} > {MAX_LINE} "
                           f"characters: {line.strip()[:50]!r}")
        missing = figure_metadata_problems(cell)
        if missing:
            reports.append(f"{where}: figure without {', '.join(missing)} "
                           "(cell.metadata['mystnb'] = {'figure': {'name', 'caption'}, "
                           "'image': {'alt'}})")
    return changes, reports, notes


def tidy_file(path, *, write=True, ruff=None):
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several types for a file that is not a notebook
        raise SystemExit(f"{path}: not a readable notebook ({exc}); fix or remove it") from exc
    before = copy.deepcopy(nb)
    changes, reports, notes = tidy_notebook(nb, ruff=ruff)
    if write and nb != before:
        nbformat.write(nb, path)
    return changes, reports, notes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path,
                        help="notebooks to tidy (default: every notebook in _toc.yml)")
    parser.add_argument("--dry-run", action="store_true", help="report, change no file")
    parser.add_argument("--no-format", action="store_true",
                        help="do not run ruff format on cells with long lines")
    args = parser.parse_args(argv)
    paths = args.notebooks or toc_notebooks()
    for path in paths:
        if path.suffix != ".ipynb" or not path.exists():
            parser.error(f"{path}: not an existing .ipynb file")
    ruff = None
    if not args.no_format:
        ruff = shutil.which("ruff") or str(ROOT / ".venv" / "bin" / "ruff")
        if not pathlib.Path(ruff).exists():
            parser.error("ruff not found: install it (it is in requirements.txt) or pass --no-format")
    left = 0
    for path in paths:
        changes, reports, notes = tidy_file(path, write=not args.dry_run, ruff=ruff)
        verb = "would change" if args.dry_run else "changed"
        print(f"== {path}: {verb} {len(changes)}, to fix by hand {len(reports)}, "
              f"to consider {len(notes)}")
        for line in changes:
            print(f"   {verb}: {line}")
        for line in reports:
            print(f"   FIX: {line}")
        for line in notes:
            print(f"   CONSIDER: {line}")
        left += len(reports)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
