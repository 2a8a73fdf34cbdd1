"""The instructor's guide (book/homework/instructors.md), followed literally.

Every file the page shows (a code block with a ``:caption:`` path) is written into an empty
folder, and every command of its ``bash`` blocks runs there, in the page's order, through a
shell, as an instructor would type it (``python`` is this interpreter). After the release, the
student's check the page shows runs in the released folder on a right and a wrong answer of the
question with a variant (and on the wrong one with the released property made vacuous: the
mutant that shows the check is what catches it). Before the grading command, a folder of three
lone notebooks is made from the released notebook: a correct one (the key's functions, reading
the data file), a wrong one (two of the guide's likely mistakes) and a broken one (a syntax
error, a stub left). The marks and the feedback are then checked. Nothing of ``mlnotes/`` is
written: the assignment lives in the temporary folder only.
"""

import csv
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "book" / "homework" / "instructors.md"
# a file shown in several blocks: the later ones are captioned "PATH (continued)"
FILE_BLOCK = re.compile(r"```\{code-block\} \w+\n:caption: (\S+)[^\n]*\n\n(.*?)\n```", re.S)
BASH_BLOCK = re.compile(r"```bash\n(.*?)\n```", re.S)
PYTHON_BLOCK = re.compile(r"```python\n(.*?)\n```", re.S)
# alice's constant of the question with a variant, as the page says my_variant prints it
ALICE_P = 3

pytest.importorskip("IPython")
pytest.importorskip("cryptography")


def guide_files(text):
    """``{relative path: content}`` of the files the guide shows (a file's blocks joined)."""
    files = {}
    for path, body in FILE_BLOCK.findall(text):
        files[path] = files.get(path, "") + ("\n\n" if path in files else "") + body + "\n"
    return files


def guide_commands(text):
    """The guide's commands, in order (one a line)."""
    return [line for block in BASH_BLOCK.findall(text) for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def run(command, cwd):
    """Run one of the guide's lines as an instructor would, ``python`` being this Python."""
    line = re.sub(r"^python ", f"{sys.executable} ", command)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLNOTES_")}
    env.update(PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def _submission(released, student, replace):
    """A copy of the released notebook whose stub cells are replaced per ``{function: code}``."""
    nb = json.loads(released.read_text())
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        for function, code in replace.items():
            if cell["cell_type"] == "code" and f"def {function}(" in source:
                cell["source"] = code
    return student, nb


def minkowski(p, root=True):
    """A student's function for ``distances.minkowski`` with the constant ``p`` written in."""
    return (f"import numpy as np\n\ndef minkowski_distances(X):\n    p = {p}\n"
            "    S = (np.abs(X[:, None, :] - X[None, :, :]) ** p).sum(axis=-1)\n"
            f"    return {'S ** (1 / p)' if root else 'S'}\n")


def _submissions(course):
    key = (course / "secret" / "key.py").read_text()
    own = key.split("\n\nREFERENCES")[0] + (
        '\n\nP = np.loadtxt("points.csv", delimiter=",")  # the data file, by its bare name\n'
        "D_demo = squared_distances(P)\n")
    released = course / "release" / "distances.ipynb"
    wrong_d = ("import numpy as np\n\ndef squared_distances(X):\n"
               "    return np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))\n")
    wrong_p = ("import numpy as np\n\ndef gaussian_affinities(X, sigma):\n"
               "    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)\n"
               "    E = np.exp(-D2 / sigma**2)\n    np.fill_diagonal(E, 0.0)\n"
               "    return E / E.sum(axis=1, keepdims=True)\n")
    return [
        _submission(released, "alice", {"squared_distances": own, "gaussian_affinities": "",
                                        "minkowski_distances": minkowski(ALICE_P)}),
        _submission(released, "bob", {"squared_distances": wrong_d,
                                      "gaussian_affinities": wrong_p}),
        _submission(released, "carol", {"squared_distances": "def squared_distances(X)\n"
                                                             "    return X @ X.T\n"}),
    ]


def test_the_guide_is_linked_from_the_book_and_readme():
    assert "instructors" in (ROOT / "book" / "homework" / "index.md").read_text()
    assert "book/homework/instructors" in (ROOT / "_toc.yml").read_text()
    assert "book/homework/instructors.md" in (ROOT / "README.md").read_text()


def student_check(course, code):
    """Run the page's student code in the released folder after ``code`` (the student's
    function): what the notebook prints."""
    [block] = [b for b in PYTHON_BLOCK.findall(GUIDE.read_text()) if "my_variant(" in b]
    return run(f"python -c {shlex.quote(code + chr(10) + block)}", course / "release")


def test_following_the_guide_end_to_end(tmp_path):
    text = GUIDE.read_text(encoding="utf-8")
    files, commands = guide_files(text), guide_commands(text)
    assert set(files) == {"distances/assignment.toml", "distances/checks.py",
                          "distances/public.py", "distances/points.csv", "secret/key.py"}
    assert [c.split()[3] if c.startswith("python -m") else c.split()[0] for c in commands] == [
        "mkdir", "python", "chmod", "encrypt-key", "new-notebook", "check-assignment", "release",
        "variant", "grade", "autograder"]
    course = tmp_path / "course"
    course.mkdir()
    before = sorted(p for p in (ROOT / "mlnotes").rglob("*") if "__pycache__" not in p.parts)
    outputs = {}
    for command in commands:
        if command.startswith("mkdir"):
            assert run(command, course).returncode == 0
            for path, body in files.items():  # the guide shows each file after the folders
                (course / path).write_text(body, encoding="utf-8")
            continue
        if " grade " in f" {command} ":
            (course / "submissions").mkdir()
            for student, nb in _submissions(course):
                (course / "submissions" / f"{student}.ipynb").write_text(json.dumps(nb))
        done = run(command, course)
        assert done.returncode == 0, (command, done.stderr[-2000:])
        outputs[command.split()[3] if command.startswith("python -m") else command] = done.stdout
    # no passphrase nor plain key reached the folder, the release or the bundle
    secret = (course / "secret" / "passphrase").read_text().strip()
    assert len(secret) >= 32
    assert "distances is ready" in outputs["check-assignment"]
    assert sorted(p.name for p in (course / "release").iterdir()) == [
        "check.json", "distances.ipynb", "points.csv", "public.py"]
    assert f"distances.minkowski: p = {ALICE_P}" in outputs["variant"]
    assert f"`my_variant` prints `distances.minkowski: p = {ALICE_P}` (alice's" in text
    # the student's check, in the released folder, without the key
    right = student_check(course, minkowski(ALICE_P))
    assert f"variant: alice: p = {ALICE_P}" in right.stdout, right.stderr[-2000:]
    assert "distances.minkowski: no check that can run here fails" in right.stdout
    wrong = student_check(course, minkowski(ALICE_P, root=False))
    assert "distances.minkowski: FAILED" in wrong.stdout, wrong.stderr[-2000:]
    assert "[FAIL] every triple of points satisfies the triangle inequality" in wrong.stdout
    assert "likely mistake: A distance never exceeds the path through a third point" in \
        wrong.stdout
    public = course / "release" / "public.py"
    kept = public.read_text()
    public.write_text(kept.replace("    D = answer[0]\n", "    return True, ''\n"))
    mutant = student_check(course, minkowski(ALICE_P, root=False))
    public.write_text(kept)
    assert "FAILED" not in mutant.stdout and "distances.minkowski" in mutant.stdout
    shared = [*(course / "distances").rglob("*"), *(course / "release").rglob("*")]
    for path in shared:
        if path.is_file():
            data = path.read_bytes()
            assert secret.encode() not in data, path.name
            assert b"REFERENCES" not in data, path.name
    import zipfile

    with zipfile.ZipFile(course / "autograder.zip") as zf:
        names = zf.namelist()
        assert {"assignment/assignment.toml", "assignment/checks.py", "assignment/public.py",
                "assignment/points.csv", "assignment/key.enc"} <= set(names)
        assert not [n for n in names if n.endswith(".ipynb") or n.startswith("key/")]
        assert not any(secret.encode() in zf.read(n) for n in names)
    # the marks
    with open(course / "grades" / "grades.csv", newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert sorted(rows) == ["alice", "bob", "carol"]
    marks = {s: (float(r["distances.squared"]), float(r["distances.affinities"]),
                 float(r["distances.minkowski"]), float(r["total"]), float(r["max"]))
             for s, r in rows.items()}
    assert marks == {"alice": (2, 3, 1, 6, 6), "bob": (0, 0, 0, 0, 6), "carol": (0, 0, 0, 0, 6)}
    feedback = {s: (course / "grades" / "feedback" / f"{s}.txt").read_text() for s in rows}
    assert feedback["alice"].startswith("Feedback for alice: 6 / 6 points")
    # alice's notebook read points.csv, copied beside it by the grader: nothing failed
    assert "What your code itself reported" not in feedback["alice"], feedback["alice"]
    assert "distances.squared: PASSED" in feedback["alice"]
    assert "likely mistake: these are the distances |x_i - x_j|, not their squares." in \
        feedback["bob"]
    assert "the 2 in the denominator is missing" in feedback["bob"]
    assert "[FAIL] the diagonal" not in feedback["bob"]  # bob's diagonal is right: only
    assert "[pass] the diagonal of the matrix is zero" in feedback["bob"]  # the value fails
    assert "code cell 2 does not parse (line 1)" in feedback["carol"]  # 1: my_variant
    assert "not implemented yet" in feedback["carol"]
    results = json.loads((course / "grades" / "results" / "bob" / "results.json").read_text())
    assert results["score"] == 0 and {t["name"] for t in results["tests"]} == {
        "distances.squared", "distances.affinities", "distances.minkowski"}
    after = sorted(p for p in (ROOT / "mlnotes").rglob("*") if "__pycache__" not in p.parts)
    assert after == before  # nothing was added to the package
