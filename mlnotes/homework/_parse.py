"""Reading a submitted notebook into the statements the sandbox runs, in a process of its own.

The batch grader runs this file as a script (``python -I -B _parse.py``) with the notebook on its
standard input (a file the grader opened itself, without following links) and limits on its
memory and CPU time: a notebook is untrusted data, and parsing a forged one (a 5 MB code cell, a
deeply nested literal) costs memory and time that must not be the grader's. The script writes
one JSON object to its standard output: ``{"statements": [...], "notes": [...], "broken": {...}}``
or ``{"error": text}``. :mod:`mlnotes.homework.notebook` imports the same functions for use in
the grader's tests and the student's own process.

Every bound is checked before the thing it bounds is parsed: the notebook's bytes, the number of
cells, each code cell's characters, the code kept in all.

Each code cell goes through IPython's own input transformation
(:class:`IPython.core.inputtransformer2.TransformerManager`), exactly what a notebook runs: magics
and shell escapes become calls, and nothing else changes (a ``!=`` that starts a continuation
line, a form feed, a U+2028 in a comment stay what they are). Then :mod:`ast` keeps the top-level
statements a graded function can depend on (imports, function and class definitions,
assignments, and ``if``/``try``/``with`` blocks and loops that hold a definition) and drops the
rest (calls such as ``check(...)``, plots, blocks that only compute). Each kept statement
is compiled here on its own: one that does not compile is reported with its error and line and
costs only the names it defines. A cell that does not parse is split at its top-level lines and
each piece parsed alone, so that one broken function does not take its neighbours with it.
"""

import ast
import json
import sys

# Bounds on what a submission may hold; no assignment needs more.
MAX_NOTEBOOK_BYTES = 50 * 2**20   # images of outputs are the usual bulk
MAX_CELLS = 5000
MAX_CELL_CHARS = 100_000           # a code cell (the longest solution cell is ~2 kB)
MAX_CODE_CHARS = 1_000_000         # all kept code
MAX_STATEMENTS = 2000
MAX_NOTES = 20
KEPT_NODES = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
              ast.Assign, ast.AnnAssign, ast.AugAssign)
DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Compound statements (``if``, ``try``, ``with``, loops) are kept when they hold a definition: a
# function, a class or an import (an import with a fallback, a guarded definition); with it
# go the assignments beside it. One that only assigns is a computation (a demonstration that
# calls the student's functions, a loop), as the notebook's check cells are: dropped.
BRANCHES = tuple(getattr(ast, n) for n in ("If", "Try", "TryStar", "With", "AsyncWith", "Match")
                 if hasattr(ast, n))
LOOPS = (ast.For, ast.AsyncFor, ast.While)
# Cell magics whose body IPython runs as ordinary code in the notebook's namespace.
TRANSPARENT_CELL_MAGICS = ("%%time", "%%capture")
# Lines at column 0 that continue the statement above rather than start a new one.
CONTINUATIONS = ("else", "elif", "except", "finally", ")", "]", "}")


class NotebookError(ValueError):
    """The file cannot be read as a notebook; the message says why. ``summary``: the same
    without any name the submission chose (for the grades CSV, in the grader's own words)."""

    def __init__(self, message, summary=None):
        super().__init__(message)
        self.summary = summary or message


def code_cells(data):
    """The sources of a notebook's code cells (``data``: the file's bytes), in order."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise NotebookError(f"the notebook is larger than {MAX_NOTEBOOK_BYTES // 2**20} MB; "
                            "clear its outputs")
    try:
        nb = json.loads(bytes(data).decode("utf-8-sig"))  # a byte-order mark is allowed
    except UnicodeDecodeError as exc:
        raise NotebookError(f"the file could not be read: {exc}") from None
    except RecursionError:
        raise NotebookError("the notebook's JSON is nested too deeply to be read (a notebook "
                            "nests a few levels): save it again from Jupyter") from None
    except ValueError as exc:
        raise NotebookError(f"the file is not valid notebook JSON: {exc}") from None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("the file is not a Jupyter notebook (nbformat 4): it has no cells")
    if len(cells) > MAX_CELLS:
        raise NotebookError(f"the notebook has {len(cells)} cells, more than {MAX_CELLS}")
    sources = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            if sum(len(s) for s in source if isinstance(s, str)) > MAX_CELL_CHARS:
                source = None
            else:
                source = "".join(s for s in source if isinstance(s, str))
        sources.append(source if isinstance(source, str) or source is None else "")
    return sources


def _transform(source, transformer):
    """IPython's own transformation of a cell (magics -> calls), the two transparent cell
    magics (with or without arguments, after blank lines as IPython allows) unwrapped to their
    bodies."""
    rest = source
    while True:
        head, newline, body = rest.partition("\n")
        if head.strip() or not newline:
            break
        rest = body
    words = head.split()
    if words and words[0] in TRANSPARENT_CELL_MAGICS:
        source = body
    protected, stand_ins = _protect(source)
    return _restore(transformer.transform_cell(protected), stand_ins)


# Characters that ``str.splitlines`` (and so IPython's transformation) takes for the end of a
# line, but Python's tokenizer does not: a form feed and a vertical tab are blanks, the others
# may stand only in a comment or a string. Pasted from a PDF, they must cost nothing.
SPLITLINES_ONLY = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# Stand-ins while IPython reads the cell: private-use characters (plane 15) absent from it.
STAND_IN_BASE = 0xF0000


def _protect(source):
    """``source`` with every :data:`SPLITLINES_ONLY` character that follows something else on
    its line (not the blanks that start a line, which mean the same either way) replaced by a
    private-use character absent from the cell; returns it and ``{stand-in: character}``."""
    if not any(c in source for c in SPLITLINES_ONLY):
        return source, {}
    free = (chr(k) for k in range(STAND_IN_BASE, STAND_IN_BASE + 0xFFFE)
            if chr(k) not in source)
    stand_in = {c: next(free) for c in SPLITLINES_ONLY if c in source}
    lines = []
    for line in source.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        body = line.lstrip(" \t\x0b\x0c")
        head = line[: len(line) - len(body)]
        lines.append(head + "".join(stand_in.get(c, c) for c in body))
    return "\n".join(lines), {v: k for k, v in stand_in.items()}


def _restore(code, stand_ins):
    for stand_in, original in stand_ins.items():
        code = code.replace(stand_in, original)
    return code


def _is_homework_import(node):
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").startswith("mlnotes.homework") or (
            node.module == "mlnotes" and all(a.name == "homework" for a in node.names))
    if isinstance(node, ast.Import):
        return all(a.name.startswith("mlnotes.homework") for a in node.names)
    return False


def _top_level(node):
    """The nodes of ``node`` that run when it runs at the top level: not the bodies of the
    functions (and lambdas) it defines, which run only when called."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack += [*n.decorator_list, n.args, *([n.returns] if n.returns else [])]
        elif not isinstance(n, ast.Lambda):
            stack += ast.iter_child_nodes(n)


def _uses_ipython(node):
    """Whether running ``node`` calls IPython (a magic or a shell escape): a function whose body
    does so is still kept, and fails only if it is called."""
    return any(isinstance(n, ast.Name) and n.id == "get_ipython" for n in _top_level(node))


def _binds(node):
    return any(isinstance(n, DEFINITIONS) for n in _top_level(node) if n is not node)


def _kept(node):
    if isinstance(node, BRANCHES + LOOPS):
        return _binds(node) and not _uses_ipython(node)
    return (isinstance(node, KEPT_NODES) and not _is_homework_import(node)
            and not _uses_ipython(node))


def _defined_names(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, BRANCHES + LOOPS):
        return list(dict.fromkeys(name for n in _top_level(node) if n is not node
                                  and isinstance(n, KEPT_NODES) for name in _defined_names(n)))
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _lines(code):
    """Lines as Python counts them (only \\n, \\r\\n and \\r end a line; a form feed or a
    U+2028 does not), each without its ending."""
    return code.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _pieces(code):
    """A cell that does not parse, split where a top-level statement may start:
    ``[(first line number, text)]``."""
    pieces, current, start = [], [], 1
    for n, line in enumerate(_lines(code), 1):
        starts = line[:1] not in ("", " ", "\t", "#") and not line.startswith(CONTINUATIONS)
        after_decorator = current and current[-1].startswith("@")
        if starts and current and not after_decorator:
            pieces.append((start, "\n".join(current)))
            current, start = [], n
        current.append(line)
    if current:
        pieces.append((start, "\n".join(current)))
    return pieces


def _parse(code, cell, first_line, notes):
    """The module of ``code`` (a cell or a piece of one), or None with a note saying why."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {first_line + line - 1})" if line else ""
        msg = getattr(exc, "msg", None) or f"{type(exc).__name__}: {exc}"
        notes.append(f"code cell {cell} does not parse{where}: {str(msg)[:200]}; "
                     "that part was skipped")
        return None


def _statements_of(tree, lines, cell, first_line):
    """The kept statements of a parsed ``tree`` as ``{"cell", "line", "code", "names",
    "kind"}`` (``kind``: "import", "definition": ``def`` and ``class`` only, or "statement");
    statements sharing a line
    (``a = 1; b = 2``) travel together."""
    groups = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        if groups and start <= groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], node.end_lineno)
            groups[-1][2].append(node)
        else:
            groups.append([start, node.end_lineno, [node]])
    out = []
    for start, end, nodes in groups:
        kept = [n for n in nodes if _kept(n)]
        if not kept:
            continue
        if len(kept) == len(nodes):
            code = "\n".join(lines[start - 1:end])
        else:
            code = ast.unparse(ast.Module(body=kept, type_ignores=[]))
        imports = all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in kept)
        definitions = all(isinstance(n, DEFINITIONS) for n in kept)
        out.append({"cell": cell, "line": first_line + start - 1, "code": code,
                    "names": [name for n in kept for name in _defined_names(n)],
                    "kind": "import" if imports else "definition" if definitions else
                    "statement"})
    return out


def _compiles(statement):
    """``None`` if the statement compiles on its own, else why not (with the line)."""
    try:
        compile("\n" * (statement["line"] - 1) + statement["code"], f"<cell {statement['cell']}>",
                "exec")
    except SyntaxError as exc:
        return (f"does not compile: {type(exc).__name__}: {str(exc.msg)[:160]} "
                f"(code cell {statement['cell']}, line {exc.lineno or statement['line']})")
    except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
        return (f"does not compile: {type(exc).__name__}: {str(exc)[:160]} "
                f"(code cell {statement['cell']}, line {statement['line']})")
    return None


def extract_statements(sources, transformer=None):
    """The statements of a notebook's code cells: ``(statements, notes, broken)``.

    ``broken`` maps each name whose definition does not compile to the reason (with its line).
    """
    if transformer is None:
        from IPython.core.inputtransformer2 import TransformerManager

        transformer = TransformerManager()
    statements, notes, broken, total = [], [], {}, 0
    for cell, source in enumerate(sources, 1):
        if source is None or len(source) > MAX_CELL_CHARS:
            notes.append(f"code cell {cell} is longer than {MAX_CELL_CHARS} characters; it was "
                         "skipped")
            continue
        try:
            code = _transform(source, transformer)
        except Exception as exc:  # noqa: BLE001 - IPython could not read it: neither could a notebook
            notes.append(f"code cell {cell} could not be read as IPython input "
                         f"({type(exc).__name__}); it was skipped")
            continue
        lines = _lines(code)
        tree = _parse(code, cell, 1, [])
        parts = [(1, tree)] if tree is not None else [
            (start, _parse(text, cell, start, notes)) for start, text in _pieces(code)]
        for start, part in parts:
            if part is None:
                continue
            for st in _statements_of(part, lines[start - 1:], cell, start):
                why = _compiles(st)
                if why:
                    first = st["code"].lstrip().split("\n", 1)[0][:80]
                    notes.append(f"`{first}` {why}")
                    broken.update(dict.fromkeys(st["names"], why))
                    continue
                total += len(st["code"])
                if total > MAX_CODE_CHARS or len(statements) >= MAX_STATEMENTS:
                    raise NotebookError(f"the notebook defines more than {MAX_CODE_CHARS} "
                                        f"characters or {MAX_STATEMENTS} statements of code")
                statements.append(st)
                for name in st["names"]:
                    broken.pop(name, None)  # defined again further down, and this one compiles
    if len(notes) > MAX_NOTES:
        notes = notes[:MAX_NOTES] + [f"... and {len(notes) - MAX_NOTES} more notes like these"]
    return statements, notes, broken


def _transformer_alone():
    """IPython's TransformerManager, imported without running IPython's ``__init__`` (which
    loads the whole shell: half a second for every submission). The module is the same; if
    this way of importing it fails, IPython is imported as usual."""
    import importlib.util
    import types

    if "IPython" not in sys.modules:
        spec = importlib.util.find_spec("IPython")
        if spec is not None and spec.submodule_search_locations:
            package = types.ModuleType("IPython")
            package.__path__ = list(spec.submodule_search_locations)
            package.__spec__ = spec
            sys.modules["IPython"] = package
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        for name in [m for m in sys.modules if m == "IPython" or m.startswith("IPython.")]:
            del sys.modules[name]
        from IPython.core.inputtransformer2 import TransformerManager
    return TransformerManager()


def main():
    data = sys.stdin.buffer.read(MAX_NOTEBOOK_BYTES + 1)
    try:
        transformer = _transformer_alone()
    except ImportError:
        sys.stdout.write(json.dumps({"error": "the grader needs IPython to read notebooks as "
                                              "Jupyter runs them: pip install ipython"}))
        return
    try:
        statements, notes, broken = extract_statements(code_cells(data), transformer)
        out = {"statements": statements, "notes": notes, "broken": broken}
    except NotebookError as exc:
        out = {"error": str(exc)}
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
