"""Notebooks: extracting a submission's definitions, and making student versions.

Extraction reads the notebook as JSON and parses each code cell with :mod:`ast` (nothing is
executed here). It keeps only the top-level statements a graded function can depend on (imports,
function and class definitions, assignments) and drops everything else: calls such as
``check(...)``, plots, loops, IPython magics. A cell that does not parse is skipped and reported.
Imports of ``mlnotes.homework`` (the student's own ``check``) are dropped; any other ``mlnotes``
import is kept so that the sandbox can refuse it and say so.

Student versions: in an instructor notebook, the lines between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (inclusive) are replaced by a stub that raises
``NotImplementedError("not implemented yet")``, indented like the marker; markdown between
``<!-- BEGIN SOLUTION -->`` and ``<!-- END SOLUTION -->`` is removed.
"""

import ast
import json
import re
from pathlib import Path

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
MD_BEGIN, MD_END = "<!-- BEGIN SOLUTION -->", "<!-- END SOLUTION -->"
STUB_LINES = ("# YOUR CODE HERE", 'raise NotImplementedError("not implemented yet")')
# Larger notebooks are refused (no assignment needs more; images of outputs are the usual bulk).
MAX_NOTEBOOK_BYTES = 50 * 2**20
KEPT_NODES = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
              ast.Assign, ast.AnnAssign)
MAGIC = re.compile(r"^\s*[%!?]")


class NotebookError(ValueError):
    """The file cannot be read as a notebook; the message says why."""


def read_code_cells(path):
    """The sources of a notebook's code cells, in order (a :class:`NotebookError` if unreadable)."""
    path = Path(path)
    if not path.is_file():
        raise NotebookError(f"{path.name} is not a regular file")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_NOTEBOOK_BYTES + 1)  # bounded, whatever the file claims
        if len(data) > MAX_NOTEBOOK_BYTES:
            raise NotebookError(f"the notebook is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB; "
                                "clear its outputs")
        nb = json.loads(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise NotebookError(f"the file could not be read: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise NotebookError(f"the file is not valid notebook JSON: {exc}") from None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("the file is not a Jupyter notebook (nbformat 4): it has no cells")
    sources = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if isinstance(source, str):
            sources.append(source)
    return sources


def _is_homework_import(node):
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").startswith("mlnotes.homework") or (
            node.module == "mlnotes" and all(a.name == "homework" for a in node.names))
    if isinstance(node, ast.Import):
        return all(a.name.startswith("mlnotes.homework") for a in node.names)
    return False


def extract_definitions(sources):
    """Keep the top-level definitions of the cells; return ``(source, notes)``."""
    kept, notes = [], []
    for k, source in enumerate(sources, 1):
        code = "\n".join("" if MAGIC.match(line) else line for line in source.splitlines())
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
            notes.append(f"code cell {k} does not parse{where}: {getattr(exc, 'msg', exc)}; "
                         "it was skipped")
            continue
        kept += [n for n in tree.body if isinstance(n, KEPT_NODES) and not _is_homework_import(n)]
    try:
        return ast.unparse(ast.Module(body=kept, type_ignores=[])), notes
    except (RecursionError, ValueError) as exc:
        raise NotebookError(f"the notebook's code could not be processed: {exc}") from None


def student_version(nb):
    """A copy of the notebook dict with solutions replaced by stubs and outputs cleared."""
    nb = json.loads(json.dumps(nb))
    for cell in nb["cells"]:
        source = cell["source"]
        text = "".join(source) if isinstance(source, list) else source
        if cell["cell_type"] == "code":
            text = _strip_code(text)
            cell["outputs"], cell["execution_count"] = [], None
        elif cell["cell_type"] == "markdown":
            text = re.sub(re.escape(MD_BEGIN) + r".*?" + re.escape(MD_END) + r"\n?", "", text,
                          flags=re.S)
        cell["source"] = text
    return nb


def _strip_code(text):
    out, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise ValueError(f"nested {BEGIN!r}")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out += [indent + s for s in STUB_LINES]
        elif stripped == END:
            if not inside:
                raise ValueError(f"{END!r} without {BEGIN!r}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{BEGIN!r} without {END!r}")
    return "\n".join(out)


def write_student_version(src, dst):
    """Read the instructor notebook ``src`` and write its student version to ``dst``."""
    nb = json.loads(Path(src).read_text(encoding="utf-8"))
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    Path(dst).write_text(json.dumps(student_version(nb), indent=1, ensure_ascii=False) + "\n",
                         encoding="utf-8")
