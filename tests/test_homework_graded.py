"""The graded set: an encrypted key, a variant per student, a checker that teaches without the key.

Tests that need the key read the course's passphrase from ``../shared/homework-key/passphrase``
(beside the project's root, or beside the folder of worktrees it sits in) or from the file named
by ``MLNOTES_HOMEWORK_KEY_FILE``; without it they are skipped and say why. Everything else (the
checker without the key, variants, encryption round trips with a throw-away passphrase) runs
everywhere.
"""

import os
import re
from pathlib import Path

import numpy as np
import pytest

from mlnotes.homework import keys, run_check, variants
from mlnotes.homework.assignments import GRADED
from mlnotes.homework.bank import get_question
from mlnotes.homework.core import Report, evaluate_case, to_plain
from mlnotes.homework.student import NO_STUDENT, my_variant

ROOT = Path(__file__).resolve().parents[1]
GRADED_NAMES = sorted(q for qs in GRADED.values() for q in qs)
STUDENTS = ("alice", "bob", "chen")
NO_PASSPHRASE = ("the graded set's passphrase is not here (../shared/homework-key/passphrase "
                 "or $MLNOTES_HOMEWORK_KEY_FILE): the key-dependent tests of the graded set are "
                 "skipped; the practice set exercises every grader path")


def passphrase_file():
    env = os.environ.get(keys.KEY_FILE_ENV)
    candidates = [Path(env)] if env else [  # the variable, when set, is the only place looked at
        ROOT.parent / "shared" / "homework-key" / "passphrase",
        ROOT.parents[1] / "shared" / "homework-key" / "passphrase"]
    return next((p for p in candidates if p.is_file()), None)


@pytest.fixture
def no_key(monkeypatch):
    """What a student has: the package, no passphrase."""
    monkeypatch.delenv(keys.KEY_FILE_ENV, raising=False)
    monkeypatch.delenv(keys.PASSPHRASE_ENV, raising=False)
    keys.use_key_file(None)
    yield
    keys.use_key_file(None)


@pytest.fixture(scope="module")
def catalogue():
    """The references and the catalogue of mistakes, from the key (the test skips without it)."""
    path = passphrase_file()
    if path is None:
        pytest.skip(NO_PASSPHRASE)
    keys.use_key_file(path)
    try:
        module = keys._module()
        yield module["REFERENCES"], module["CATALOGUE"]
    finally:
        keys.use_key_file(None)


@pytest.fixture
def with_key(catalogue):
    keys.use_key_file(passphrase_file())
    yield catalogue
    keys.use_key_file(None)


def cases_for(name, who, seed=3):
    question = get_question(name)
    return question, question.cases(seed, variants.variant(question, who))


def judge(question, cases, answer_of):
    reports = []
    for inputs in cases:
        try:
            outcome = {"value": to_plain(answer_of(inputs))}
        except Exception as exc:  # noqa: BLE001 - a wrong formula may raise (an overflow)
            outcome = {"error": str(exc), "type": type(exc).__name__}
        reports.append(evaluate_case(question, inputs, outcome))
    return Report(question.name, reports)


# --- the set itself ------------------------------------------------------------------------------

def test_the_graded_set_is_large_enough_and_every_question_has_a_variant():
    points = sum(p for qs in GRADED.values() for p in qs.values())
    assert len(GRADED_NAMES) >= 16 and points >= 25, (len(GRADED_NAMES), points)
    assert len(GRADED) == 3 and all(len(qs) >= 4 for qs in GRADED.values())
    for name in GRADED_NAMES:
        q = get_question(name)
        assert q.variant is not None and q.conceal and q.properties, name
        assert re.search(r"YOUR\s+variant", q.docstring), name


def test_variants_differ_between_students_and_are_stable():
    differ = 0
    for name in GRADED_NAMES:
        q = get_question(name)
        a, b = variants.variant(q, "alice"), variants.variant(q, "bob")
        assert a == variants.variant(q, " ALICE ")  # ids compared after folding
        differ += a != b
    assert differ >= len(GRADED_NAMES) // 2
    labels = {variants.variant_label(GRADED_NAMES, s) for s in STUDENTS}
    assert len(labels) == len(STUDENTS)
    assert variants.variant_label(GRADED_NAMES, "alice", seed="course-x") != \
        variants.variant_label(GRADED_NAMES, "alice")


def test_a_graded_check_needs_the_student_and_names_the_variant(no_key, capsys):
    q = get_question("graded.star_spectrum")
    with pytest.raises(ValueError) as err:
        variants.set_student(None)
        run_check(q.name, q.stub)
    assert str(err.value) == NO_STUDENT.format(name=q.name)
    mine = my_variant("alice", "spectral-graded")
    assert set(mine) == set(GRADED["spectral-graded"])
    assert "write these constants into your functions" in repr(mine)
    report = run_check(q.name, q.stub)
    assert f"variant: alice: {variants.describe(mine[q.name])}" in report.text()
    # the label the grader writes in the CSV and the feedback
    assert variants.variant_label(list(GRADED["spectral-graded"]), "alice") in repr(mine)


# --- the key -------------------------------------------------------------------------------------

def test_encryption_round_trip_and_a_wrong_passphrase_is_refused():
    record = keys.encrypt("REFERENCES = {}\n", "correct horse battery staple")
    assert "REFERENCES" not in record
    assert keys.decrypt(record, "correct horse battery staple") == "REFERENCES = {}\n"
    with pytest.raises(keys.KeyUnavailable, match="does not open the graded key"):
        keys.decrypt(record, "wrong")
    with pytest.raises(ValueError, match="passphrase is empty"):
        keys.encrypt("x", "  ")


def test_without_the_passphrase_the_checker_says_so_and_never_fails_a_right_answer(no_key):
    assert not keys.available()
    with pytest.raises(keys.KeyUnavailable, match="--key-file"):
        keys.passphrase()


def test_the_key_opens_with_the_passphrase_and_covers_every_graded_question(catalogue):
    references, mistakes = catalogue
    assert set(references) == set(GRADED_NAMES)
    assert set(mistakes) == set(GRADED_NAMES)
    assert sum(len(m) for m in mistakes.values()) >= 60


@pytest.mark.parametrize("name", GRADED_NAMES)
def test_the_reference_passes_every_property_for_every_variant(name, with_key):
    reference = with_key[0][name]
    for who in STUDENTS:
        question, cases = cases_for(name, who)
        report = judge(question, cases, lambda inputs: reference(**inputs))
        assert report.passed, report.text()


def test_a_classmates_answers_earn_nothing(with_key):
    """Bob's right answers (his outputs, or his code with his constants) fail for Alice."""
    references, _ = with_key
    copied = 0
    for name in GRADED_NAMES:
        question, alice = cases_for(name, "alice")
        bob_constants = variants.variant(question, "bob")
        if bob_constants == alice[0]["_variant"]:
            continue
        bobs = references[name]
        report = judge(question, alice, lambda inputs, f=bobs, c=bob_constants: f(
            **dict(inputs, _variant=c)))
        assert not report.passed, name
        copied += 1
    assert copied >= len(GRADED_NAMES) // 2


# --- the checker without the key: the catalogue of realistic mistakes ----------------------------

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
_GIVES_AWAY = ("x the expected", "expected value", "should be", "the answer is", "sin(", "cos(",
               "sin^2", "multiply by", "divide by")


def _leaks(text, answer, expected):
    """Numbers in ``text`` that state an expected value or a correcting factor."""
    lowered = text.lower()
    found = [p for p in _GIVES_AWAY if p in lowered]
    targets = [float(x) for e in expected for x in np.ravel(e) if x != 0]
    ratios = [float(a) / float(e) for aa, ee in zip(answer, expected, strict=False)
              for a, e in zip(np.ravel(aa), np.ravel(ee), strict=False) if e != 0 and a != 0]
    for token in _NUMBER.findall(text):
        x = float(token)
        if x == round(x) and abs(x) <= 100:
            continue  # case numbers, dimensions, counts
        for t in targets + ratios:
            if abs(x - t) <= 1e-3 * abs(t):  # (the value itself stays out of the report)
                found.append("a number equal to an expected value or a correcting factor")
    return found


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # wrong formulas overflow
def test_the_mistake_catalogue_is_diagnosed_without_the_key(catalogue, no_key):
    """At least 90% of the catalogued mistakes get FAILED with a diagnosis, for several students;
    every right answer passes every check that can run; no message gives the answer away."""
    references, mistakes = catalogue
    total = diagnosed = 0
    missed, leaks = [], []
    for name in GRADED_NAMES:
        for who in STUDENTS[:2]:
            question, cases = cases_for(name, who)
            expected = [to_plain(references[name](**inputs)) for inputs in cases]
            right = judge(question, cases, lambda inputs, f=references[name]: f(**inputs))
            assert right.holds and not right.verified, right.text()
            assert "FAILED" not in right.text()
            for number, (_, wrong) in enumerate(mistakes[name]):
                label = f"mistake #{number}"  # never the key's own words in a test's report
                report = judge(question, cases, wrong)
                total += 1
                why = report.diagnosis or next((c.status for c in report.cases if c.status), "")
                if not report.holds and why:
                    diagnosed += 1
                else:
                    missed.append(f"{name} [{who}]: {label}")
                for inputs, case, exp in zip(cases, report.cases, expected, strict=True):
                    try:
                        got = question.shape_answer(to_plain(wrong(**inputs)))
                    except Exception:  # noqa: BLE001 - a wrong answer of the wrong shape
                        got = []
                    said = " ".join(t for _, t in case.lines) + f" {case.diagnosis} {case.status}"
                    leaks += [f"{name}: {label}: {hit}"
                              for hit in _leaks(said, got, question.shape_answer(exp))]
    assert total >= 120, total
    assert diagnosed >= 0.9 * total, (diagnosed, total, missed)
    assert not leaks, leaks[:10]


# --- the grader ----------------------------------------------------------------------------------

def test_the_grader_judges_each_student_against_their_own_variant(with_key):
    """Each student's expected answers come from the key for their variant: right answers earn
    full marks, a classmate's (copied outputs) earn nothing on a question whose constants
    differ."""
    from mlnotes.homework.grader import Grader

    references, _ = with_key
    grader = Grader("sne-graded", seed=5)
    plans = {who: grader.plan(who) for who in ("alice", "bob")}
    assert plans["alice"][3] != plans["bob"][3] and plans["alice"][3].startswith("v-")

    def outcomes(plan):
        return [{"answers": [{"value": to_plain(references[q.name](**inputs))}
                             for inputs in plan[0][k]]} for k, q in enumerate(grader.questions)]

    for who, plan in plans.items():
        got = [grader._judge(k, q, o, {}, plan)
               for k, (q, o) in enumerate(zip(grader.questions, outcomes(plan), strict=True))]
        assert all(r.points == r.max_points for r in got), (who, [r.feedback for r in got])
    copied = [grader._judge(k, q, o, {}, plans["alice"]) for k, (q, o) in
              enumerate(zip(grader.questions, outcomes(plans["bob"]), strict=True))]
    for k, (q, r) in enumerate(zip(grader.questions, copied, strict=True)):
        if plans["alice"][0][k][0]["_variant"] != plans["bob"][0][k][0]["_variant"]:
            assert r.points == 0, (q.name, r.feedback)


def test_grading_a_folder_names_variants_and_exports_derivations(with_key, tmp_path):
    import csv
    import json

    from mlnotes.homework.grader import grade_folder

    released = json.loads((ROOT / "book" / "homework" / "sne-graded.ipynb").read_text())
    subs = tmp_path / "submissions"
    subs.mkdir()
    for who, words in (("alice", None), ("bob", "I shifted the exponents by the smallest")):
        nb = json.loads(json.dumps(released))
        if words:
            cell = next(c for c in nb["cells"] if "".join(c["source"]).startswith("**Your der"))
            cell["source"] = f"**Your derivation**\n\n{words} ```` and more."
        (subs / f"{who}.ipynb").write_text(json.dumps(nb))
    out = tmp_path / "grades" / "grades.csv"
    results = grade_folder(subs, "sne-graded", out, jobs=1, timeout=5)
    assert all(r.total == 0 for r in results)  # the released stubs
    with open(out, newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert rows["alice"]["variant"] != rows["bob"]["variant"]
    assert rows["alice"]["hand mark"] == ""
    marks = (out.parent / "derivations.md").read_text()
    assert "I shifted the exponents by the smallest" in marks and "## `alice`" in marks
    assert (out.parent / "derivations.md").stat().st_mode & 0o077 == 0
    feedback = (out.parent / "feedback" / "bob.txt").read_text()
    assert f"Your variant: {rows['bob']['variant']}" in feedback
    secret = passphrase_file().read_text().strip()
    for path in out.parent.rglob("*"):
        if path.is_file():
            leaked = secret_in(secret, path.read_text(errors="replace"))
            assert not leaked, f"the passphrase is in {path.name}"


# --- Gradescope ----------------------------------------------------------------------------------

def _run_bundle(tmp_path, zip_path, notebook, email):
    """Unpack ``zip_path`` and run it as Gradescope does, in a folder laid out like
    ``/autograder``; returns the results.json and what the run printed."""
    import json
    import shutil
    import subprocess
    import sys
    import zipfile

    root = tmp_path / "autograder"
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "source")
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
    assert modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111
    (root / "submission").mkdir()
    (root / "results").mkdir()
    shutil.copy(notebook, root / "submission" / "homework.ipynb")
    (root / "submission_metadata.json").write_text(json.dumps(
        {"users": [{"email": email, "name": "A Student"}]}))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "AUTOGRADER_ROOT": str(root),
           "LANG": "C.UTF-8", "HOME": str(tmp_path)}
    run = subprocess.run([sys.executable, str(root / "source" / "run_autograder")],
                         capture_output=True, text=True, env=env, cwd=root / "source",
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads((root / "results" / "results.json").read_text()), run


def test_the_practice_bundle_grades_a_submission_as_gradescope_would(tmp_path):
    from mlnotes.homework.assignments import ASSIGNMENTS
    from mlnotes.homework.gradescope import build_bundle

    zip_path = build_bundle("sne", tmp_path / "autograder.zip")
    assert zip_path.stat().st_mode & 0o077 == 0
    results, _ = _run_bundle(tmp_path, zip_path,
                             ROOT / "book" / "homework" / "instructor" / "sne.ipynb",
                             "ada@example.org")
    assert results["score"] == sum(ASSIGNMENTS["sne"].values()), results
    assert [t["name"] for t in results["tests"]] == list(ASSIGNMENTS["sne"])


def test_the_graded_bundle_holds_the_key_encrypted_and_the_passphrase_only_on_request(
        with_key, tmp_path):
    import zipfile

    from mlnotes.homework.gradescope import build_bundle

    secret = passphrase_file().read_text().strip()
    without = build_bundle("sne-graded", tmp_path / "plain.zip")
    with zipfile.ZipFile(without) as zf:
        names = zf.namelist()
        blob = b"".join(zf.read(n) for n in names)
    assert "key/passphrase" not in names and "mlnotes/homework/data/graded-key.enc" in names
    leaked = secret_in(secret.encode(), blob)
    assert not leaked, "the passphrase is in a bundle built without --include-passphrase"
    assert not any(n.startswith("solutions/") for n in names)

    zip_path = build_bundle("sne-graded", tmp_path / "autograder.zip", include_passphrase=True)
    with zipfile.ZipFile(zip_path) as zf:
        shipped = secret_in(secret.encode(), zf.read("key/passphrase"))
    assert shipped, "the bundle built with --include-passphrase lacks the passphrase"
    results, run = _run_bundle(tmp_path, zip_path,
                               ROOT / "book" / "homework" / "sne-graded.ipynb",
                               "ada@example.org")
    assert results["score"] == 0 and len(results["tests"]) == len(GRADED["sne-graded"])
    assert all("not implemented yet" in t["output"] for t in results["tests"]), results
    leaked = secret_in(secret, run.stdout + run.stderr + json_text(results))
    assert not leaked, "the passphrase is in the autograder's output"
    label = variants.variant_label(list(GRADED["sne-graded"]), "ada@example.org")
    question = get_question("graded.two_cluster_q")
    constants = variants.describe(variants.variant(question, "ada@example.org"))
    assert constants in json_text(results), (label, results)


def secret_in(secret, text):
    """Whether ``secret`` is in ``text`` (a plain bool: an assertion on it never prints the
    secret, as pytest's report of ``secret in text`` would)."""
    return bool(secret) and secret in text


def json_text(data):
    import json

    return json.dumps(data)


# --- the command line ----------------------------------------------------------------------------

def test_the_command_line_prints_variants_and_rotates_a_key(tmp_path, capsys, no_key):
    from mlnotes.homework.__main__ import main

    assert main(["variant", "Ada", "--assignment", "sne-graded"]) == 0
    printed = capsys.readouterr().out
    for name in GRADED["sne-graded"]:
        assert name in printed
    assert "ada" in printed  # the id as the grader folds it
    new = tmp_path / "new-passphrase"
    new.write_text("a fresh passphrase for next term\n")
    source = tmp_path / "key.py"
    source.write_text("REFERENCES = {}\nCATALOGUE = {}\n")
    out = tmp_path / "graded-key.enc"
    assert main(["encrypt-key", str(source), "--key-file", str(new), "--out", str(out)]) == 0
    assert keys.decrypt(out.read_text(), "a fresh passphrase for next term") == source.read_text()
    with pytest.raises(keys.KeyUnavailable):
        keys.decrypt(out.read_text(), "last term's passphrase")
    keys.use_key_file(None)


def test_the_grader_without_the_passphrase_says_how_to_give_it(no_key):
    from mlnotes.homework.core import ReferenceUnavailable
    from mlnotes.homework.grader import Grader

    with pytest.raises(ReferenceUnavailable) as err:
        Grader("sne-graded", seed=1)
    assert str(err.value) == keys.FOR_INSTRUCTORS
