"""Submissions for the grader's tests, generated from the instructor notebooks.

``submission(assignment, replace=..., extra=..., drop=...)`` returns a notebook dict: the
instructor's solutions (an honest submission), with some function cells replaced by other code,
some cells added before the first function, and some function cells deleted.
"""

import json
from pathlib import Path

HOMEWORK = Path(__file__).resolve().parents[2] / "book" / "homework"


def instructor(assignment):
    return json.loads((HOMEWORK / "instructor" / f"{assignment}.ipynb").read_text())


def _code(cell):
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def submission(assignment, *, replace=None, extra=(), drop=(), append=()):
    """An instructor notebook with function cells replaced, dropped, or code added."""
    nb = instructor(assignment)
    replace = dict(replace or {})
    cells = []
    for cell in nb["cells"]:
        text = _code(cell)
        if cell["cell_type"] == "code":
            name = next((f for f in list(replace) + list(drop) if f"def {f}(" in text), None)
            if name in drop:
                continue
            if name in replace:
                cell = dict(cell, source=replace[name])
            if text.startswith("import numpy"):
                cells.append(cell)
                cells += [_cell(code) for code in extra]
                continue
        cells.append(cell)
    cells += [_cell(code) for code in append]
    return dict(nb, cells=cells)


def _cell(code):
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
            "source": code}


def write(path, nb):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))
    return path
