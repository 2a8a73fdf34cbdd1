"""A class of 50 submissions (honest, wrong in known ways, stubs, hostile) graded through the
command line in one run, on 2 jobs, with every row checked."""

import csv
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from homework_fixtures import instructor, submission, write

from mlnotes.homework.assignments import ASSIGNMENTS
from mlnotes.homework.bank import get_question
from mlnotes.homework.notebook import student_version

ROOT = Path(__file__).resolve().parents[1]


def _class_folder(folder):
    """50 submissions: honest, stubs, functions that loop, crash or raise, hostile top-level
    lines; returns the expected totals (from the assignment's points, whatever its questions)."""
    points = ASSIGNMENTS["spectral"]
    full = float(sum(points.values()))
    graded = [q for q, p in points.items() if p > 0]
    fn = {q: get_question(q).function for q in graded}
    first, second, third = graded[:3]

    def redefined(question, body):  # the function defined again, below the honest one
        return submission("spectral", append=[f"def {fn[question]}(*args, **kwargs):\n"
                                              f"    {body}\n"])

    kinds = [
        (submission("spectral"), full),
        (student_version(instructor("spectral")), 0.0),
        (redefined(first, "raise ValueError('no')"), full - points[first]),
        (redefined(second, "import os; os._exit(3)"), full - points[second]),
        (redefined(third, "return None"), full - points[third]),
        (submission("spectral", extra=["import mlnotes as ml"]), full),
        (submission("spectral", extra=["import os\nbye = os._exit(0)"]), full),
        (submission("spectral", extra=["spin = sum(range(10**10))"]), full),
    ]
    expected = {}
    for k in range(50):
        nb, total = kinds[k % len(kinds)]
        name = f"student{k:02d}"
        if k in (5, 25):  # two endless loops (the 1 s timeout keeps the run fast)
            nb, total = redefined(first, "while True: pass"), full - points[first]
        if k == 40:
            (folder / name).mkdir()
            write(folder / name / "submission.ipynb", nb)
        else:
            write(folder / f"{name}.ipynb", nb)
        expected[name] = total
    return expected


@pytest.mark.slow
def test_class_of_50_graded_in_one_command(tmp_path):
    folder = tmp_path / "submissions"
    folder.mkdir()
    expected = _class_folder(folder)
    out = tmp_path / "grades" / "grades.csv"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "mlnotes.homework", "grade", str(folder), "--assignment",
         "spectral", "--out", str(out), "--jobs", "2", "--timeout", "1", "--memory", "1024",
         "--seed", "2026"],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )
    # the grader's CPU time, its sandboxes' included (each is waited for): the work, whatever
    # the machine's load (wall-clock time would measure the load)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["student"] for r in rows] == sorted(expected)
    got = {r["student"]: float(r["total"]) for r in rows}
    assert got == expected
    assert len(list((out.parent / "feedback").iterdir())) == 50
    assert len(list((out.parent / "results").iterdir())) == 50
    print(f"graded 50 submissions in {cpu:.1f} s of CPU time")
    assert cpu < 300
