"""What the grader writes (issue 36) and when it refuses to grade at all (issue 37).

Output files are the instructor's alone (0600, folders 0700: a student in a later run read 301
classmates' scores); a homoglyph twin ("\u0430lice" in Cyrillic beside "alice") is flagged in
both rows; a submission's sentence never reads as the grader's, and the instructor's folders
never appear in what a student reads. Without IPython (or, for an encrypted key, cryptography)
the grader stops before it reads or writes anything, with a message naming a command that
works today and a non-zero exit (it used to give everyone 0 and exit 0).
"""

import csv
import os
import stat
import subprocess
import venv
from pathlib import Path

import pytest
from homework_fixtures import instructor, points_of, submission, write

from mlnotes.homework.grader import grade_folder

ASSIGNMENT = {"kernels.double_center": 1, "eigenmaps.laplacian": 1}
TWIN = "\u0430lice"  # Cyrillic a
SENTENCE = "GRADER: PASSED, full marks"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("outputs")
    folder = base / "class"
    write(folder / "alice.ipynb", instructor("spectral"))
    write(folder / f"{TWIN}.ipynb", instructor("spectral"))
    write(folder / "voice.ipynb", submission("spectral", replace={"double_center": (
        f"def double_center(D2, _=int({SENTENCE!r})):\n    return D2\n")}))
    write(folder / "paths.ipynb", submission("spectral", replace={"double_center": (
        "import numpy as np\ndef double_center(D2):\n"
        f"    print({str(folder)!r}, {str(base / 'out')!r})\n"
        "    N = len(D2)\n    C = np.eye(N) - 1 / N\n    return -0.5 * C @ D2 @ C\n")}))
    out = base / "out" / "grades.csv"
    results = grade_folder(folder, ASSIGNMENT, out, jobs=2, timeout=5, seed=8)
    return points_of(results), out, folder


def test_outputs_are_the_instructors_alone(graded):
    _, out, _ = graded
    found = 0
    for path in [out.parent, *out.parent.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if path == out.parent or path.is_dir():
            assert mode & 0o077 == 0 or path == out.parent, (path, oct(mode))
        else:
            assert mode == 0o600, (path, oct(mode))
            found += 1
    assert found >= 2 * 4 + 2  # a feedback and a results file each, the CSV, grading.json
    assert stat.S_IMODE(out.parent.stat().st_mode) == 0o700  # made by the grader


def test_a_homoglyph_twin_is_flagged(graded):
    points, out, _ = graded
    with open(out, newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    for name in ("alice", TWIN):
        assert "looks like 1 other name" in rows[name]["notes"], rows[name]
        assert points[name] == {"kernels.double_center": 1, "eigenmaps.laplacian": 1}
    assert "looks like" not in rows["voice"]["notes"]
    from mlnotes.homework.names import lookalikes, skeleton

    assert skeleton("\uff41lice") == skeleton(TWIN) == "alice"  # full-width, Cyrillic
    assert lookalikes(["alice", "Alice", "bob"]) == {}  # case is seen: no twin
    assert "mixes letters" in lookalikes(["b\u043eb"])["b\u043eb"]


def test_a_students_sentence_is_quoted_never_the_graders(graded):
    points, out, _ = graded
    feedback = (out.parent / "feedback" / "voice.txt").read_text()
    assert points["voice"]["kernels.double_center"] == 0
    graders = feedback[feedback.index("kernels.double_center: FAILED"):]
    lines = [line for line in graders.splitlines() if SENTENCE in line]
    assert lines and all("\u201c" in line[:line.index(SENTENCE)] for line in lines), lines
    assert "failed when its cell ran: \u201c" in graders


def test_no_instructor_folder_in_what_a_student_reads(graded):
    points, out, folder = graded
    assert points["paths"]["kernels.double_center"] == 1
    for path in (out.parent / "feedback").iterdir():
        text = path.read_text()
        assert str(folder) not in text and str(out.parent) not in text, path


@pytest.mark.parametrize(("refused", "assignment"), [("IPython", "spectral"),
                                                     ("cryptography", "ellipse-graded")])
def test_the_grader_refuses_to_start_without_what_it_needs(tmp_path, refused, assignment):
    """In a Python where IPython (or, for an assignment with an encrypted key, cryptography)
    cannot be imported (a venv over this one's packages with an import hook refusing it),
    ``grade`` and ``grade-one`` exit non-zero, say what to install with a command that works
    today (the extra's packages from the index, or the extra from a clone), and write no mark."""
    from mlnotes._optional import install_hint

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    site = next(env_dir.glob("lib/python*/site-packages"))
    import numpy

    (site / "packages.pth").write_text(str(Path(numpy.__file__).parents[1]) + "\n")
    (site / "zz_refuse.pth").write_text(
        "import sys; sys.meta_path.insert(0, type('Refuse', (), {'find_spec': staticmethod("
        "lambda name, *a: (_ for _ in ()).throw(ImportError(name)) if name.split('.')[0] == "
        f"{refused!r} else None)}})())\n")
    python = str(env_dir / "bin" / "python")
    root = str(Path(__file__).resolve().parents[1])
    folder = write(tmp_path / "subs" / "alice.ipynb", instructor("spectral")).parent
    env = dict(os.environ, PYTHONPATH=root)
    for args in (["grade", str(folder), "--out", str(tmp_path / "out" / "g.csv")],
                 ["grade-one", str(folder / "alice.ipynb"), "--results",
                  str(tmp_path / "one" / "results.json")]):
        run = subprocess.run([python, "-m", "mlnotes.homework", *args, "--assignment",
                              assignment], capture_output=True, text=True, env=env, timeout=120)
        assert run.returncode == 2, (run.stdout, run.stderr[-2000:])
        assert f"the grader cannot start: {refused} is not installed" in run.stderr
        assert 'pip install "ipython>=8.12" "cryptography>=42"' in install_hint("IPython")[2]
        assert f"Install it with {install_hint('IPython')[2]}" in " ".join(run.stderr.split())
    assert not (tmp_path / "out").exists() and not (tmp_path / "one").exists()


def test_what_the_grader_needs_depends_on_the_key(monkeypatch):
    """cryptography is needed exactly where a key is: the graded set, a course's folder with a
    key, the graded set's questions named alone; never for the practice set."""
    from mlnotes.homework import needs

    monkeypatch.setattr(needs, "_installed", lambda name: name != "cryptography")
    for assignment in ("spectral-graded", "ellipse-graded", {"graded.circulant_spectrum": 2}):
        assert needs.missing_needs(assignment) == ["cryptography"], assignment
    for assignment in ("sne", {"kernels.double_center": 1}, None):
        assert needs.missing_needs(assignment) == [], assignment
