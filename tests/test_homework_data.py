"""An assignment's data files reach every submission: the grader copies them beside the notebook
in a private working folder made for each submission (a lone notebook has no folder of its own),
a submitted folder's own file of the same name wins, and graded code still reads nothing of the
assignment's folder (its key, its checks, its specification).

The assignment asks for the squared distances from each point to the landmarks of
``landmarks.csv``, a data file of the assignment: the student's function reads it, so a notebook
graded without the file scores nothing.
"""

import json
import shutil

import numpy as np
import pytest

from mlnotes.homework import keys
from mlnotes.homework.__main__ import main
from mlnotes.homework.folder import load_assignment, self_test

pytest.importorskip("cryptography")
pytest.importorskip("IPython")
PASSPHRASE = "a made-up passphrase for the data tests only"
LANDMARKS = np.array([[0.0, 0.0], [1.0, 2.0], [-1.5, 0.5]])

SPEC = '''title = "Landmarks"
notebook = "landmarks.ipynb"
checks = "checks.py"
key = "key.enc"
data = ["landmarks.csv"]

[[questions]]
name = "landmarks.distances"
points = 2
function = "landmark_distances"
signature = "def landmark_distances(X):"
docstring = "Squared distances from the rows of X to the landmarks of landmarks.csv."
inputs = "cloud"
outputs = ["D2"]
properties = ["nonnegative"]
mistakes = [{answer = "not_squared", diagnosis = "these are the distances, not their squares."}]
'''

CHECKS = '''from pathlib import Path

import numpy as np

LANDMARKS = np.loadtxt(Path(__file__).with_name("landmarks.csv"), delimiter=",")


def cloud(rng):
    return {"X": rng.normal(size=(int(rng.integers(4, 9)), 2)), "_landmarks": LANDMARKS}


def not_squared(X, _landmarks):
    return np.sqrt(((X[:, None] - _landmarks[None]) ** 2).sum(-1))
'''

KEY = '''import numpy as np


def landmark_distances(X, _landmarks):
    return ((X[:, None] - _landmarks[None]) ** 2).sum(-1)


REFERENCES = {"landmarks.distances": landmark_distances}
'''

RIGHT = '''import numpy as np

L = np.loadtxt("landmarks.csv", delimiter=",")


def landmark_distances(X):
    return ((X[:, None] - L[None]) ** 2).sum(-1)
'''

WRONG = RIGHT.replace("** 2).sum(-1)", "** 2).sum(-1) ** 0.5")
# reads the assignment's folder where it lies: every read must fail (then the answer is right)
PRYING = '''import numpy as np

L = np.loadtxt("landmarks.csv", delimiter=",")


def landmark_distances(X):
    for path in {paths!r}:
        try:
            open(path).read()
        except Exception:
            continue
        return np.zeros((len(X), len(L)))
    return ((X[:, None] - L[None]) ** 2).sum(-1)
'''


def _notebook(code):
    return {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# Landmarks"},
                      {"cell_type": "code", "metadata": {}, "source": code, "outputs": [],
                       "execution_count": None}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def course(tmp_path):
    """The assignment folder (with its data file) and the passphrase's file outside it."""
    folder = tmp_path / "landmarks"
    folder.mkdir()
    (folder / "assignment.toml").write_text(SPEC)
    (folder / "checks.py").write_text(CHECKS)
    np.savetxt(folder / "landmarks.csv", LANDMARKS, delimiter=",")
    (folder / "key.enc").write_text(keys.encrypt(KEY, PASSPHRASE))
    (folder / "landmarks.ipynb").write_text(json.dumps(_notebook(
        'def landmark_distances(X):\n    raise NotImplementedError("not implemented yet")\n')))
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passphrase").write_text(PASSPHRASE + "\n")
    keys.use_key_file(secret / "passphrase")
    yield folder
    keys.use_key_file(None)


def test_data_files_reach_every_submission(course, tmp_path):
    """A lone notebook reading the data file: full marks; a wrong one: the right diagnosis; a
    folder shipping its own landmarks.csv is run with its own file; a notebook trying the
    assignment's folder and the passphrase reads none of them."""
    from mlnotes.homework.grader import grade_folder

    assert self_test(load_assignment(course, need_notebook=True))
    subs = tmp_path / "submissions"
    (subs / "carol").mkdir(parents=True)
    (subs / "alice.ipynb").write_text(json.dumps(_notebook(RIGHT)))
    (subs / "bob.ipynb").write_text(json.dumps(_notebook(WRONG)))
    (subs / "carol" / "hw.ipynb").write_text(json.dumps(_notebook(RIGHT)))
    np.savetxt(subs / "carol" / "landmarks.csv", LANDMARKS + 1.0, delimiter=",")
    secrets_ = [str(course / name) for name in ("key.enc", "checks.py", "assignment.toml",
                                                "landmarks.csv")]
    secrets_.append(str(tmp_path / "secret" / "passphrase"))
    (subs / "mallory.ipynb").write_text(json.dumps(_notebook(PRYING.format(paths=secrets_))))
    results = grade_folder(subs, load_assignment(course), tmp_path / "out" / "grades.csv",
                           jobs=1, seed=3)
    by = {r.student: r for r in results}
    points = {s: r.total for s, r in by.items()}
    assert points == {"alice": 2, "bob": 0, "carol": 0, "mallory": 2}, {
        s: r.results[0].feedback for s, r in by.items()}
    assert "likely mistake: these are the distances, not their squares." in \
        by["bob"].results[0].feedback
    assert not by["alice"].reported and not by["mallory"].reported
    # carol's own file won: her answer is computed from her landmarks, not the assignment's
    assert "agrees with the reference" in by["carol"].results[0].feedback
    assert not (course / "work").exists() and sorted(p.name for p in course.iterdir()) == [
        "assignment.toml", "checks.py", "key.enc", "landmarks.csv", "landmarks.ipynb"]


def test_grade_one_stages_the_data_and_without_it_the_notebook_fails(course, tmp_path, capsys):
    """grade-one (an autograder's command) stages the data beside a lone notebook; the
    control: the same notebook with the file unlisted fails, the error names the file."""
    notebook = tmp_path / "alice.ipynb"
    notebook.write_text(json.dumps(_notebook(RIGHT)))
    assert main(["grade-one", str(notebook), "--assignment-dir", str(course), "--results",
                 str(tmp_path / "results.json"), "--seed", "1"]) == 0
    assert json.loads((tmp_path / "results.json").read_text())["score"] == 2
    unlisted = tmp_path / "unlisted"
    shutil.copytree(course, unlisted)
    spec = unlisted / "assignment.toml"
    spec.write_text(spec.read_text().replace('data = ["landmarks.csv"]\n', ""))
    assert main(["grade-one", str(notebook), "--assignment-dir", str(unlisted), "--results",
                 str(tmp_path / "control.json"), "--seed", "1"]) == 0
    control = json.loads((tmp_path / "control.json").read_text())
    assert control["score"] == 0
    assert "landmarks.csv" in json.dumps(control)


def test_the_students_check_says_when_a_data_file_is_not_beside_the_notebook(
        course, tmp_path, monkeypatch):
    """A function that reads the data file by its bare name, checked in a kernel whose working
    folder lacks it: the report says which file and where it belongs; beside it, it passes."""
    from mlnotes.homework import student
    from mlnotes.homework.student import run_check

    monkeypatch.setitem(student._folder, "assignment", None)

    def landmark_distances(X):
        L = np.loadtxt("landmarks.csv", delimiter=",")
        return ((X[:, None] - L[None]) ** 2).sum(-1)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    report = run_check("landmarks.distances", landmark_distances, seed=1, assignment=course)
    assert not report.passed and "FileNotFoundError" in report.text()
    assert (f"note: landmarks.csv, a data file of this assignment, is not in this kernel's "
            f"working folder ({elsewhere})") in report.text()
    monkeypatch.chdir(course)
    report = run_check("landmarks.distances", landmark_distances, seed=1)  # the folder, kept
    assert report.passed and "landmarks.csv" not in report.text()


def test_the_working_folder_is_made_of_copies_only(tmp_path, monkeypatch):
    """``stage`` without running anything: a lone notebook gets the data files alone; a folder
    is copied (its own file wins, a link stays a link and is never followed, a hard-linked file
    and a pipe are left out) with the missing data beside the notebook; a folder too large is
    refused with a reason; without data files nothing is copied."""
    import os

    from mlnotes.homework import sandbox

    data = tmp_path / "course" / "landmarks.csv"
    data.parent.mkdir()
    data.write_text("0,0\n")
    (tmp_path / "course" / "key.enc").write_text("secret")
    subs = tmp_path / "subs"
    folder = subs / "carol"
    (folder / "hw").mkdir(parents=True)
    (folder / "hw" / "hw.ipynb").write_text("{}")
    (folder / "hw" / "landmarks.csv").write_text("1,1\n")
    (folder / "hw" / "extra.csv").write_text("2,2\n")
    os.symlink(str(tmp_path / "course" / "key.enc"), folder / "hw" / "key.enc")
    os.link(tmp_path / "course" / "key.enc", folder / "hw" / "hard.enc")
    os.mkfifo(folder / "hw" / "pipe")
    assert sandbox.stage(tmp_path / "t0", [], (subs, "carol/hw/hw.ipynb")) == (
        str(folder), "hw")  # no data: the folder itself, as before
    lone = tmp_path / "t1"
    lone.mkdir()
    work, cwd = sandbox.stage(lone, [data], (subs, "alice.ipynb"))
    assert cwd == "." and sorted(os.listdir(work)) == ["landmarks.csv"]
    other = tmp_path / "t2"
    other.mkdir()
    work, cwd = sandbox.stage(other, [data], (subs, "carol/hw/hw.ipynb"))
    here = os.path.join(work, cwd)
    assert sorted(os.listdir(here)) == ["extra.csv", "hw.ipynb", "key.enc", "landmarks.csv"]
    assert open(os.path.join(here, "landmarks.csv")).read() == "1,1\n"  # carol's own wins
    assert os.path.islink(os.path.join(here, "key.enc"))  # a link, as submitted, not its target
    monkeypatch.setattr(sandbox, "STAGE_ENTRIES", 3)
    big = tmp_path / "t3"
    big.mkdir()
    with pytest.raises(sandbox.StageError, match="the submitted folder holds more than 3 files"):
        sandbox.stage(big, [data], (subs, "carol/hw/hw.ipynb"))
