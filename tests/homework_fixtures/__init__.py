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


def graded_once(tmp_path_factory, name, grade):
    """Run ``grade(folder)`` once per test session, even with pytest-xdist's workers.

    The class folders of the attack suites take a while to grade: the first worker to ask
    grades (under a file lock in the session's shared temporary folder) and saves what
    ``grade`` returns (plain JSON data); the other workers wait and read it.
    Returns ``(folder, data)``.
    """
    import fcntl
    import os

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of one session
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / "graded.json"
        if not done.exists():
            folder.mkdir(exist_ok=True)
            data = grade(folder)
            done.write_text(json.dumps(data))
        return folder, json.loads(done.read_text())


def points_of(results):
    """``{student: {question: points}}`` of a list of SubmissionResult."""
    return {r.student: {q.name: q.points for q in r.results} for r in results}


def short_backstops(monkeypatch, **shorter):
    """Give the grader's wall-clock backstops the test's shorter values (``sandbox``'s module
    constants: ``WALL_EXTRA=0.5``, ``ALONE_PATIENCE=2.0``, any other by keyword, e.g.
    ``IMPORT_WALL_BASE``), and record every backstop that fires: returns the list of
    ``(kind, the wall limit that fired)``, filled as the grader runs."""
    from mlnotes.homework import sandbox

    for name, value in {"WALL_EXTRA": 0.5, "ALONE_PATIENCE": 2.0, **shorter}.items():
        monkeypatch.setattr(sandbox, name, value)
    fired, check = [], sandbox._Limits.check

    def counted(limits, child):  # every limit this side's measurement finds passed
        try:
            check(limits, child)
        except sandbox._Failure as exc:
            fired.append((exc.kind, limits.wall))
            raise

    monkeypatch.setattr(sandbox._Limits, "check", counted)
    return fired
