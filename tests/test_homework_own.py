"""The shipped worked example of a course's own format, ``ellipse-graded``: a question defined in
its folder, with a variant per student and a student-side check that needs no key.

Without the passphrase (what a student has), ``check`` from the package's folder and from a
released copy runs the public properties on the student's own constants: a right answer holds,
a wrong one reads FAILED with the property's hint, and with the decisive property made vacuous
(the mutant) the wrong answer is no longer caught. With the passphrase (skipped without it),
the folder checks itself and the grader gives a student's right answer full marks, and a
classmate's constants copied into another notebook nothing.
"""

import json

import numpy as np
import pytest
from test_homework_graded import NO_PASSPHRASE, passphrase_file

from mlnotes.homework import keys, student, variants
from mlnotes.homework.assignments import OWN, shipped
from mlnotes.homework.folder import SHIPPED, load_assignment, release, self_test
from mlnotes.homework.student import my_variant, run_check

NAME = "ellipse.mds_eigenvalues"


@pytest.fixture(autouse=True)
def _student(monkeypatch):
    """A student's kernel: no passphrase, no folder remembered."""
    for name in (keys.KEY_FILE_ENV, keys.PASSPHRASE_ENV, variants.COURSE_SEED_ENV):
        monkeypatch.delenv(name, raising=False)
    keys.use_key_file(None)
    monkeypatch.setitem(student._folder, "assignment", None)
    yield
    keys.use_key_file(None)
    variants.set_student(None)


def answer(a, b, half=True):
    """A function for the question with the constants ``a`` and ``b`` written in, as a student
    without the derivation could write it (this file holds no answer of the graded question):
    classical MDS computed from its definition on the small sizes (with the 1/2 of B dropped,
    ``half=False``: a likely mistake), any positive decreasing pair at the large ones (which
    only the key judges)."""
    def mds_eigenvalues(Ns):
        rows = []
        for N in np.asarray(Ns):
            if N > 1000:
                rows.append([2.0, 1.0])
                continue
            theta = 2 * np.pi * np.arange(N) / N
            X = np.column_stack([a * np.cos(theta), b * np.sin(theta)])
            D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)
            J = np.eye(N) - 1.0 / N
            B = (-0.5 if half else -1.0) * J @ D2 @ J
            rows.append(np.linalg.eigvalsh(B)[::-1][:2])
        return np.array(rows)
    return mds_eigenvalues


def test_the_example_is_shipped_as_a_course_folder():
    assert OWN == {"ellipse-graded": {NAME: 3}}
    assignment = shipped("ellipse-graded")
    assert assignment.public == SHIPPED / "ellipse-graded" / "public.py"
    assert assignment.questions[NAME].variant is not None


def test_the_students_check_without_the_key(tmp_path):
    mine = my_variant("alice", assignment="ellipse-graded")[NAME]
    assert set(mine) == {"a", "b"} and mine["a"] > mine["b"]
    right = run_check(NAME, answer(**mine), seed=5)
    assert right.holds and not right.verified
    assert right.text().startswith(f"{NAME}: no check that can run here fails")
    wrong = run_check(NAME, answer(**mine, half=False), seed=5)
    assert not wrong.holds and wrong.text().startswith(f"{NAME}: FAILED")
    assert "[FAIL] on the small sizes, agrees with classical MDS computed from its definition" \
        in wrong.text()
    assert wrong.diagnosis.startswith("On a size small enough to build, your eigenvalues differ")
    # a classmate's constants fail alice's check
    other = next(s for s in ("bob", "chen", "dana", "eve")
                 if variants.variant(shipped("ellipse-graded").questions[NAME], s) != mine)
    copied = variants.variant(shipped("ellipse-graded").questions[NAME], other)
    assert not run_check(NAME, answer(**copied), seed=5).holds


def test_the_released_copy_checks_alone_and_its_mutant_does_not(tmp_path):
    """What students get (notebook, public.py, check.json) is enough for the check; with the
    dense property made vacuous the wrong answer passes: the property is what catches it."""
    out = tmp_path / "release"
    assert release(load_assignment(SHIPPED / "ellipse-graded"), out) == [
        "check.json", "ellipse-graded.ipynb", "public.py"]
    record = json.loads((out / "check.json").read_text())
    assert [q["check"] for q in record["questions"]] == [["positive_decreasing",
                                                          "on_small_ellipses"]]
    assert "mistakes" not in json.dumps(record) and "key" not in record
    mine = my_variant("alice", assignment=out)[NAME]
    assert mine == my_variant("alice", assignment="ellipse-graded")[NAME]
    wrong = answer(**mine, half=False)
    assert not run_check(NAME, wrong, seed=7, assignment=out).holds
    public = out / "public.py"
    public.write_text(public.read_text().replace('    v, values = inputs["_variant"]',
                                                 '    return True, ""\n    v, values = '
                                                 'inputs["_variant"]'))
    mutant = out.parent / "mutant"
    out.rename(mutant)
    assert run_check(NAME, wrong, seed=7, assignment=mutant).holds


@pytest.fixture
def with_key():
    path = passphrase_file()
    if path is None:
        pytest.skip(NO_PASSPHRASE)
    keys.use_key_file(path)
    yield
    keys.use_key_file(None)


def test_with_the_key_the_example_checks_itself_and_grades(with_key, tmp_path):
    pytest.importorskip("IPython")
    from mlnotes.homework.grader import grade_folder

    assert self_test(load_assignment(SHIPPED / "ellipse-graded", need_notebook=True)) == [
        f"{NAME}: the key's answers pass on 2 case(s); 2 likely mistake(s) rejected"]
    question = shipped("ellipse-graded").questions[NAME]
    mine = variants.variant(question, "alice")
    other = next(s for s in ("bob", "chen", "dana", "eve")
                 if variants.variant(question, s) != mine)
    nb = json.loads((SHIPPED / "ellipse-graded" / "ellipse-graded.ipynb").read_text())
    # the key's own function with alice's constants written in (only in this temporary notebook)
    key = keys.decrypt((SHIPPED / "ellipse-graded" / "key.enc").read_text(),
                       passphrase_file().read_text())
    code = (key.split("\n\nREFERENCES")[0].replace("def mds_eigenvalues(", "def _key(")
            + f"\n\n\ndef mds_eigenvalues(Ns):\n    return _key(Ns, {dict(mine)!r})\n")
    for cell in nb["cells"]:
        if "def mds_eigenvalues(" in "".join(cell["source"]):
            cell["source"] = code
    subs = tmp_path / "submissions"
    subs.mkdir()
    for who in ("alice", other):  # the same notebook: alice's constants
        (subs / f"{who}.ipynb").write_text(json.dumps(nb))
    results = {r.student: r for r in grade_folder(subs, shipped("ellipse-graded"),
                                                  tmp_path / "out" / "g.csv", jobs=1, seed=2)}
    assert results["alice"].total == 3 and results[other].total == 0
    assert "on the small sizes, agrees with classical MDS" in results[other].results[0].feedback


def test_a_question_without_a_student_side_check_says_so(tmp_path):
    """A released question that declares no check: ``check`` says it is checked when graded
    (never a traceback, never a verdict)."""
    from test_homework_guide import GUIDE, guide_files

    folder = tmp_path / "distances"
    for path, body in guide_files(GUIDE.read_text()).items():
        if path.startswith("distances/"):
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(body)
    (folder / "key.enc").write_text(keys.encrypt("REFERENCES = {}\n", "throw-away"))
    from mlnotes.homework.folder import new_notebook

    new_notebook(load_assignment(folder))
    out = tmp_path / "release"
    release(load_assignment(folder), out)
    with pytest.raises(ValueError, match=r"distances.squared has no check in your copy of the "
                                         r"assignment \(its checks need the key, which is your "
                                         r"instructor's\): your function is checked when your "
                                         r"work is graded"):
        run_check("distances.squared", lambda X: X, assignment=out)
