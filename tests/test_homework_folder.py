"""Assignment folders (``--assignment-dir``): every problem of a folder gets a message saying what
is wrong and what to do; the shipped assignments are folders read by the same code; graded code
never reads a course's folder (its key, its checks) nor the passphrase."""

import json
import re
import shutil

import pytest
from test_homework_guide import GUIDE, guide_files

from mlnotes.homework import folder as hw_folder
from mlnotes.homework import keys
from mlnotes.homework.__main__ import main
from mlnotes.homework.assignments import ALL_ASSIGNMENTS, GRADED, OWN, shipped
from mlnotes.homework.folder import AssignmentError, load_assignment, self_test

pytest.importorskip("cryptography")
PASSPHRASE = "a made-up passphrase for these tests only"


@pytest.fixture(autouse=True)
def _no_course_key(monkeypatch):
    for name in (keys.KEY_FILE_ENV, keys.PASSPHRASE_ENV):
        monkeypatch.delenv(name, raising=False)
    keys.use_key_file(None)
    yield
    keys.use_key_file(None)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """The guide's assignment, made in-process: ``(course folder, assignment folder)``."""
    course = tmp_path_factory.mktemp("course")
    for path, body in guide_files(GUIDE.read_text(encoding="utf-8")).items():
        (course / path).parent.mkdir(parents=True, exist_ok=True)
        (course / path).write_text(body)
    (course / "secret" / "passphrase").write_text(PASSPHRASE + "\n")
    folder = course / "distances"
    (folder / "key.enc").write_text(keys.encrypt((course / "secret" / "key.py").read_text(),
                                                 PASSPHRASE))
    hw_folder.new_notebook(load_assignment(folder))
    return course, folder


@pytest.fixture
def work(made, tmp_path):
    """A fresh copy of the guide's folder, and the passphrase file (outside it)."""
    course, folder = made
    copy = tmp_path / "distances"
    shutil.copytree(folder, copy)
    keys.use_key_file(course / "secret" / "passphrase")
    return copy


def _edit(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def _fails(folder, pattern, **kwargs):
    with pytest.raises(AssignmentError, match=pattern):
        self_test(load_assignment(folder, **kwargs))


def test_the_guide_folder_passes(work):
    lines = self_test(load_assignment(work, need_notebook=True))
    assert lines == ["distances.squared: the key's answers pass on 2 case(s); 1 likely "
                     "mistake(s) rejected",
                     "distances.affinities: the key's answers pass on 2 case(s); 2 likely "
                     "mistake(s) rejected",
                     "distances.minkowski: the key's answers pass on 2 case(s); 1 likely "
                     "mistake(s) rejected"]


def test_not_a_folder_and_no_specification(tmp_path):
    with pytest.raises(AssignmentError, match=r"is not a folder: give --assignment-dir the "
                                              r"folder that holds assignment.toml"):
        load_assignment(tmp_path / "nowhere")
    with pytest.raises(AssignmentError, match=r"holds no assignment.toml: an assignment folder "
                                              r"needs its question specification; write "):
        load_assignment(tmp_path)


@pytest.mark.parametrize(("old", "new", "pattern"), [
    ('title = "', 'title = ', r"is not valid TOML \(.*line 1.*\): fix that line"),
    ('title =', 'titel =', r"unknown field\(s\) titel; the fields are checks, data, key, name"),
    ('name = "distances.squared"', 'name = "distances.squaredd"\nfunctionn = 1',
     r"question 'distances.squaredd': unknown field\(s\) functionn; a question's fields are"),
    ('points = 2', 'points = "two"', r"question 'distances.squared' has points = 'two' \(str\): "
                                     r"points must be a number >= 0, e.g. points = 2"),
    ('points = 2', 'points = true', r"has points = True \(bool\): points must be a number"),
    ('points = 2', 'points = -1', r"has points = -1 \(int\): points must be a number >= 0"),
    ('points = 2', 'points = nan', r"has points = nan \(float\): points must be a number"),
    ('points = 2\n', '', r"question 'distances.squared' has no points: add points = 2"),
    ('name = "distances.squared"\npoints = 2\nfunction = "squared_distances"',
     'name = "kernels.double_centre"\npoints = 2\nfunctio = "squared_distances"',
     r"unknown question 'kernels.double_centre': it is not one of the package's questions "
     r"\(python -m mlnotes.homework list shows them\) and the table does not define it"),
    ('name = "distances.squared"', 'name = "kernels.double_center"',
     r"'kernels.double_center' is one of the package's questions: give your question another"),
    ('name = "distances.affinities"', 'name = "distances.squared"',
     r"question 'distances.squared' is listed twice: list each question once"),
    ('function = "gaussian_affinities"\nsignature = "def gaussian_affinities(X, sigma):"',
     'function = "squared_distances"\nsignature = "def squared_distances(X, sigma):"',
     r"both ask for def squared_distances\(...\): give each its own function name"),
    ('signature = "def squared_distances(X):"', 'signature = "def distances(X):"',
     r"signature = 'def distances\(X\):' is not the line \"def squared_distances\(...\):\""),
    ('inputs = "point_cloud"', 'inputs = "points"',
     r"inputs 'points' is not a function of the checks module checks.py nor of the public "
     r"module public.py: define it there"),
    ('"nearer_is_larger"]', '"nearer_is_larger", "monotone"]',
     r"unknown property 'monotone': name one of symmetric, zero_diagonal, psd, nonnegative, "
     r"rows_sum_to_one or a function of checks.py or of public.py"),
    ('rtol = 1e-8', 'rtol = 0', r"rtol = 0: give the relative tolerance of the comparison"),
    ('key = "key.enc"', 'key = "missing.enc"',
     r"names key = 'missing.enc', but .*missing.enc is not a file: encrypt the key there"),
    ('key = "key.enc"\n', '', r"is defined in the folder, so its reference answer comes from "
                              r"the key: add key = \"key.enc\""),
    ('checks = "checks.py"', 'checks = "check.py"',
     r"names checks = 'check.py', but .*check.py is not a file: put the checks module"),
    ('notebook = "distances.ipynb"', 'notebook = "distances"',
     r"notebook = 'distances': name the student notebook \(a .ipynb file in the folder\)"),
    ('data = ["points.csv"]', 'data = ["points.csv", "landmarks.csv"]',
     r"names data = 'landmarks.csv', but .*landmarks.csv is not a file: put the data file in "),
    ('data = ["points.csv"]', 'data = "points.csv"',
     r"data = 'points.csv': give a list of file names, e.g. data = \[\"points.csv\"\]"),
    ('public = "public.py"', 'public = "public/"',
     r"names public = 'public/', but .*public is not a file: put the public module \(released "
     r"to students for their check\) in the folder, or drop the field"),
    # a variant per student: each declaration's problem named
    ('variant = {p = [3, 4, 5]}', 'variant = [3, 4, 5]',
     r"question 'distances.minkowski': variant = \[3, 4, 5\]: give a table of constants, each "
     r"with the list of values a student's is drawn from, e.g. variant = \{c = \[0.5, 2.0"),
    ('variant = {p = [3, 4, 5]}', 'variant = {}', r"variant = \{\}: give a table of constants"),
    ('variant = {p = [3, 4, 5]}', 'variant = {_p = [3, 4, 5]}',
     r"variant constant '_p' is not a Python name: use letters, digits and _ \(not first\)"),
    ('variant = {p = [3, 4, 5]}', 'variant = {"p q" = [3, 4, 5]}',
     r"variant constant 'p q' is not a Python name"),
    ('variant = {p = [3, 4, 5]}', 'variant = {X = [3, 4, 5]}',
     r"variant constant 'X' is also an argument of the stub: a constant is written into the "
     r"student's function, an argument is an input; rename one of them"),
    ('variant = {p = [3, 4, 5]}', 'variant = {p = 3}',
     r"variant constant 'p' = 3: give the list of numbers it is drawn from, e.g. p = \[0.5, "),
    ('variant = {p = [3, 4, 5]}', 'variant = {p = [3, "four"]}',
     r"variant constant 'p' = \[3, 'four'\]: give the list of numbers it is drawn from"),
    ('variant = {p = [3, 4, 5]}', 'variant = {p = [3, nan]}',
     r"variant constant 'p' = \[3, nan\]: give the list of numbers"),
    ('variant = {p = [3, 4, 5]}', 'variant = {p = [4, 4]}',
     r"variant constant 'p' = \[4, 4\] is the same for every student: give at least two "
     r"different values"),
    # the student's check: only what students receive
    ('check = ["symmetric", "zero_diagonal", "triangle_inequality"]', 'check = "symmetric"',
     r"check = 'symmetric': give the list of the properties the student's check verifies "
     r"without the key, e.g. check = \[\"symmetric\"\]"),
    ('check = ["symmetric", "zero_diagonal", "triangle_inequality"]',
     'check = ["symmetric", "nearer_is_larger"]',
     r"unknown check property 'nearer_is_larger': name one of symmetric, zero_diagonal, psd, "
     r"nonnegative, rows_sum_to_one or a function of public.py"),
    ('inputs = "small_cloud"', 'inputs = "point_cloud"',
     r"the student's check draws its cases with inputs 'point_cloud', which is not a function "
     r"of public.py: students never receive the checks module; move it into the public module"),
    ('public = "public.py"\n', '',
     r"question 'distances.minkowski': inputs 'small_cloud' is not a function of the checks "
     r"module checks.py: define it there"),
    ('check = ["symmetric", "zero_diagonal", "triangle_inequality"]\n', 'check = []\n',
     None),  # a question without a student-side check is fine
])
def test_every_problem_of_the_specification_is_named(work, old, new, pattern):
    _edit(work / "assignment.toml", old, new)
    if pattern is None:
        load_assignment(work)
        return
    with pytest.raises(AssignmentError, match=pattern):
        load_assignment(work)


def test_a_check_without_the_public_module(work):
    """A student-side check needs the module students receive; its inputs there."""
    _edit(work / "assignment.toml", 'public = "public.py"\n', "")
    _edit(work / "checks.py", "import numpy as np\n", "import numpy as np\n\n\ndef small_cloud(rng):"
          "\n    return {'X': rng.normal(size=(6, 2))}\n")
    with pytest.raises(AssignmentError, match=r"question 'distances.minkowski': check = "
                                              r"\['symmetric', 'zero_diagonal', "
                                              r"'triangle_inequality'\] runs in the student's "
                                              r"notebook, from the module students receive: add "
                                              r"public = \"public.py\""):
        load_assignment(work)


def test_a_public_module_that_does_not_load(work):
    _edit(work / "public.py", "import numpy as np", "import numpy as np\nimport checks")
    with pytest.raises(AssignmentError, match=r"the public module .*public.py failed to load "
                                              r"\(ModuleNotFoundError: No module named 'checks'"):
        load_assignment(work)


def test_a_key_that_does_not_decrypt(work, tmp_path):
    wrong = tmp_path / "wrong"
    wrong.write_text("not the course's passphrase\n")
    keys.use_key_file(wrong)
    _fails(work, r"the key cannot be opened: the passphrase does not open the graded key")
    keys.use_key_file(None)
    _fails(work, r"the key cannot be opened: the graded set's key is encrypted: give the "
                 r"course's passphrase with --key-file FILE")


def test_a_plain_or_damaged_key(work, made):
    shutil.copyfile(made[0] / "secret" / "key.py", work / "key.enc")
    with pytest.raises(AssignmentError, match=r"is not an encrypted key \(a plain source\?\): "
                                              r"encrypt the key with python -m mlnotes"):
        load_assignment(work)
    record = json.loads(keys.encrypt("REFERENCES = {}\n", PASSPHRASE))
    record["token"] = record["token"][:-8] + "AAAAAAAA"
    (work / "key.enc").write_text(json.dumps(record))
    _fails(work, r"the key cannot be opened: the passphrase does not open the graded key")


def test_a_key_without_a_question(work, made):
    source = (made[0] / "secret" / "key.py").read_text().replace(
        '"distances.affinities": gaussian_affinities,', "")
    (work / "key.enc").write_text(keys.encrypt(source, PASSPHRASE))
    _fails(work, r"the key cannot be used: the graded key has no reference for "
                 r"'distances.affinities': encrypt the course's current key again")


def test_a_key_whose_answer_fails_its_own_property(work, made):
    source = (made[0] / "secret" / "key.py").read_text().replace("2 * sigma**2", "-2 * sigma**2")
    (work / "key.enc").write_text(keys.encrypt(source, PASSPHRASE))
    _fails(work, r"the key's own answer to 'distances.affinities' is not accepted: in each row, "
                 r"a nearer point has a larger affinity \(row \d+ grows with the distance\); "
                 r"the property or the key is wrong")


def test_a_mistake_the_grader_accepts(work):
    _edit(work / "checks.py", "    return np.sqrt(_squared(X))", "    return _squared(X)")
    _fails(work, r"mistake 'distances_not_squared' of 'distances.squared' is accepted as right "
                 r"on every case")


def test_a_mistake_derived_from_the_keys_answer(work):
    """A mistake function taking (expected, inputs) derives its wrong answer from the key's
    (a shipped folder's checks.py then spells out no answer); one equal to the key is refused."""
    with open(work / "checks.py", "a") as f:
        f.write("\n\ndef doubled(expected, inputs):\n    return 2 * expected[0]\n")
    _edit(work / "assignment.toml", '    {answer = "distances_not_squared"',
          '    {answer = "doubled", diagnosis = "twice the squared distances."},\n'
          '    {answer = "distances_not_squared"')
    assert self_test(load_assignment(work))[0].endswith("2 likely mistake(s) rejected")
    _edit(work / "checks.py", "return 2 * expected[0]", "return expected[0]")
    _fails(work, r"mistake 'doubled' of 'distances.squared' is accepted as right on every case")


def test_inputs_that_are_not_the_stubs_arguments(work):
    _edit(work / "checks.py", 'return {"X": rng.normal(size=(n, d))}',
          'return {"points": rng.normal(size=(n, d))}')
    _fails(work, r"the inputs of 'distances.squared' give the arguments points, but its "
                 r"signature takes X: make them the same names")


def test_a_checks_module_that_does_not_load(work):
    _edit(work / "checks.py", "import numpy as np", "import numpy as np\n1 / 0")
    with pytest.raises(AssignmentError, match=r"the checks module .*checks.py failed to load "
                                              r"\(ZeroDivisionError: division by zero\): fix it"):
        load_assignment(work)


def test_the_notebook_missing_or_without_a_stub(work):
    nb = json.loads((work / "distances.ipynb").read_text())
    nb["cells"] = [c for c in nb["cells"] if "def gaussian_affinities(" not in "".join(
        c["source"])]
    (work / "distances.ipynb").write_text(json.dumps(nb))
    with pytest.raises(AssignmentError, match=r"the student notebook distances.ipynb has no stub "
                                              r"of question 'distances.affinities' \(def "
                                              r"gaussian_affinities\(...\)\): add a code cell "
                                              r"holding\n    def gaussian_affinities\(X, sigma\):"):
        load_assignment(work)
    (work / "distances.ipynb").unlink()
    load_assignment(work)  # grading needs no notebook; checking and releasing do
    with pytest.raises(AssignmentError, match=r"the student notebook .*distances.ipynb is "
                                              r"missing: write it \(python -m mlnotes.homework "
                                              r"new-notebook --assignment-dir FOLDER"):
        load_assignment(work, need_notebook=True)


def test_release_never_copies_the_key_nor_into_the_folder(work, tmp_path):
    assignment = load_assignment(work)
    with pytest.raises(AssignmentError, match=r"overlaps the assignment folder: release into a "
                                              r"folder of its own"):
        hw_folder.release(assignment, work / "release")
    assert hw_folder.release(assignment, tmp_path / "out") == [
        "check.json", "distances.ipynb", "points.csv", "public.py"]
    released = (tmp_path / "out" / "check.json").read_text()
    # what students get names no private function of checks.py (properties, mistakes)
    for private in ("nearer_is_larger", "distances_not_squared", "minkowski_without_the_root",
                    "checks.py", "key.enc", "mistakes"):
        assert private not in released, private
    with pytest.raises(AssignmentError, match=r"is not empty: release into a new folder"):
        hw_folder.release(assignment, tmp_path / "out")
    with pytest.raises(AssignmentError, match=r"exists: new-notebook never overwrites"):
        hw_folder.new_notebook(assignment)


def test_the_command_line_names_the_problem_and_exits_2(work, capsys):
    _edit(work / "assignment.toml", "points = 3", 'points = "3"')
    for argv in (["grade", str(work), "--assignment-dir", str(work), "--out", "x/g.csv"],
                 ["grade-one", "a.ipynb", "--assignment-dir", str(work), "--results", "r.json"],
                 ["check-assignment", "--assignment-dir", str(work)],
                 ["list", "--assignment-dir", str(work)],
                 ["variant", "alice", "--assignment-dir", str(work)],
                 ["release", "--assignment-dir", str(work), "--out", "rel"],
                 ["autograder", "--assignment-dir", str(work), "--out", "a.zip"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "question 'distances.affinities' has points = '3' (str): points must be a " \
               "number >= 0" in err, argv
        assert "usage:" not in err
    with pytest.raises(SystemExit):
        main(["check-assignment", "--assignment", "sne", "--assignment-dir", str(work)])
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["autograder", "--out", "a.zip"])
    assert "give a shipped ASSIGNMENT or --assignment-dir DIR" in capsys.readouterr().err


def test_list_and_variant_of_a_folder(work, capsys):
    assert main(["list", "--assignment-dir", str(work)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"distances.affinities +3 pt +def gaussian_affinities\(...\)", out)
    assert main(["variant", "alice", "--assignment-dir", str(work)]) == 0
    assert "alice" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(ALL_ASSIGNMENTS))
def test_shipped_assignments_are_folders_of_the_same_format(name):
    assignment = shipped(name)
    assert assignment.folder == hw_folder.SHIPPED / name
    assert assignment.points == ALL_ASSIGNMENTS[name]
    assert assignment.graded == (name in GRADED or name in OWN)
    assert (assignment.key == keys.ENCRYPTED) == (name in GRADED)
    if name in OWN:  # the worked example of a course's own format: its key in its folder
        assert assignment.key == assignment.folder / "key.enc"
    assert list(assignment.questions) == list(ALL_ASSIGNMENTS[name])
    assert assignment.private() == []  # in the package: nothing secret, hidden with it


def test_the_practice_set_checks_itself():
    for name in ("spectral", "embeddings", "sne"):
        lines = self_test(load_assignment(hw_folder.SHIPPED / name, need_notebook=True))
        assert len(lines) == len(ALL_ASSIGNMENTS[name])


def test_a_submission_cannot_read_the_assignment_folder(work, made, tmp_path):
    """An honest answer, unless the code could read the folder's key, checks or specification
    or the passphrase: full marks prove every read was refused."""
    pytest.importorskip("IPython")
    from mlnotes.homework.grader import grade_folder

    secrets_ = [work / "key.enc", work / "checks.py", work / "assignment.toml",
                work / "public.py", work / "points.csv",
                made[0] / "secret" / "passphrase", made[0] / "secret" / "key.py"]
    code = (f"import numpy as np\n\ndef squared_distances(X):\n"
            f"    for path in {[str(p) for p in secrets_]!r}:\n"
            "        try:\n            open(path).read()\n        except Exception:\n"
            "            continue\n        return np.zeros((len(X), len(X)))\n"
            "    sq = (X**2).sum(axis=1)\n"
            "    D2 = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0)\n"
            "    np.fill_diagonal(D2, 0.0)\n    return D2\n")
    nb = json.loads((work / "distances.ipynb").read_text())
    for cell in nb["cells"]:
        if "def squared_distances(" in "".join(cell["source"]):
            cell["source"] = code
    subs = tmp_path / "submissions"
    subs.mkdir()
    (subs / "mallory.ipynb").write_text(json.dumps(nb))
    results = grade_folder(subs, load_assignment(work), tmp_path / "grades" / "grades.csv",
                           jobs=1)
    [mallory] = results
    points = {r.name: r.points for r in mallory.results}
    assert points == {"distances.squared": 2, "distances.affinities": 0,
                      "distances.minkowski": 0}, mallory.results[0]
    # beyond the allow-listed root: the folder and the passphrase's are on the deny list too
    from mlnotes.homework.grader import Grader

    private = Grader(load_assignment(work), seed=0).private
    assert str(work.resolve()) in private and str((made[0] / "secret").resolve()) in private


def test_a_folders_bundle_grades_as_gradescope_would(work, made, tmp_path):
    """The autograder bundle of a course's folder carries the folder (never its notebook) and
    grades a correct submission with full marks, with the passphrase the instructor added."""
    pytest.importorskip("IPython")
    from test_homework_graded import _run_bundle

    from mlnotes.homework.gradescope import build_bundle

    zip_path = build_bundle(load_assignment(work), tmp_path / "autograder.zip",
                            include_passphrase=True)
    nb = json.loads((work / "distances.ipynb").read_text())
    key = (made[0] / "secret" / "key.py").read_text().split("\n\nREFERENCES")[0]
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if "def squared_distances(" in source or "def gaussian_affinities(" in source:
            cell["source"] = key if "def squared_distances(" in source else ""
    (tmp_path / "ada.ipynb").write_text(json.dumps(nb))
    results, _ = _run_bundle(tmp_path, zip_path, tmp_path / "ada.ipynb", "ada@example.org")
    assert results["score"] == 5, results
    assert [t["name"] for t in results["tests"]] == ["distances.squared", "distances.affinities",
                                                     "distances.minkowski"]


def test_grading_with_a_key_that_does_not_open_stops_before_any_mark(work, tmp_path, capsys):
    pytest.importorskip("IPython")
    wrong = tmp_path / "secret" / "wrong"
    wrong.parent.mkdir()
    wrong.write_text("not the course's passphrase\n")
    subs = tmp_path / "submissions"
    subs.mkdir()
    shutil.copy(work / "distances.ipynb", subs / "alice.ipynb")
    with pytest.raises(SystemExit) as exc:
        main(["grade", str(subs), "--assignment-dir", str(work), "--key-file", str(wrong),
              "--out", str(tmp_path / "grades" / "grades.csv")])
    assert exc.value.code == 2
    assert "the passphrase does not open the graded key" in capsys.readouterr().err
    assert not (tmp_path / "grades" / "grades.csv").exists()
