"""The batch grader: an attack suite of hostile submissions graded alongside honest ones, the
command line over a class folder, student versions, and the output formats."""

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from homework_fixtures import graded_once, instructor, points_of, submission, write

from mlnotes.homework.assignments import ASSIGNMENTS, GRADED
from mlnotes.homework.grader import Grader, grade_folder
from mlnotes.homework.notebook import extract_statements, read_code_cells, student_version

ROOT = Path(__file__).resolve().parents[1]
MLNOTES_KERNELS = ROOT / "mlnotes" / "kernels.py"
# The attack suite grades two questions: the attacks sit in double_center (or at top level);
# laplacian stays honest, so it shows whether the rest of the submission was still graded.
ASSIGNMENT = {"kernels.double_center": 1, "eigenmaps.laplacian": 1}
TIMEOUT = 2.0
# Hiding folders from C code (an FFI reads past the audit hook) takes a mount namespace: root
# with CAP_SYS_ADMIN, as in most containers. Without it that one attack cannot be stopped.
# In the fresh root (root on Linux) what is not on the allow-list does not exist at all.
GONE = "No such file or directory"
# ... except where the interpreter's folder lies inside the checkout (make's .venv): its path is
# on the allow-list, so the checkout's folder exists there (empty but for that path), and an
# attack that opens it is refused by the audit hook instead ("... is not allowed").
PYTHON_IN_CHECKOUT = Path(sys.prefix).resolve().is_relative_to(ROOT)
CAN_HIDE = (sys.platform == "linux" and os.geteuid() == 0 and shutil.which("unshare") is not None
            and subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0)


def dc(body):
    """A double_center whose body is ``body`` (indented by the caller's lines)."""
    lines = "\n".join("    " + line for line in body.strip("\n").splitlines())
    return f"import numpy as np\ndef double_center(D2):\n{lines}\n"


HONEST = "N = len(D2)\nC = np.eye(N) - 1 / N\nreturn -0.5 * C @ D2 @ C"

# student -> (notebook, points for double_center, points for laplacian, text in the feedback)
ATTACKS = {
    "honest": (submission("spectral"), 1, 1, "PASSED"),
    "honest_chatty": (submission("spectral", replace={"double_center": dc(
        "print('x' * 5_000_000)\n" + HONEST)}), 1, 1, "characters of output dropped"),
    "stub": (student_version(instructor("spectral")), 0, 0, "not implemented yet"),
    "wrong_factor": (submission("spectral", replace={"double_center": dc(
        "N = len(D2)\nC = np.eye(N) - 1 / N\nreturn C @ D2 @ C")}), 0, 1, "the -1/2 is missing"),
    "patch_numpy": (submission("spectral", extra=[
        "np.allclose = lambda *a, **k: True\nnp.array_equal = lambda *a, **k: True\n"
        "np.testing.assert_allclose = lambda *a, **k: None"],
        replace={"double_center": dc("return D2")}), 0, 1, "FAILED"),
    "rigged_eq": (submission("spectral", replace={"double_center": dc(
        "class Anything:\n    def __eq__(self, other): return True\n"
        "    def __array__(self, *a, **k): raise TypeError('no')\nreturn Anything()")}),
        0, 1, "wrong kind of answer"),
    "rigged_ndarray": (submission("spectral", replace={"double_center": dc(
        "class Liar(np.ndarray):\n    def __eq__(self, other): return np.ones_like(self, bool)\n"
        "    def tolist(self): return [[0.0]]\nreturn np.zeros_like(D2).view(Liar)")}),
        0, 1, "FAILED"),
    "forge_pipe": (submission("spectral", replace={"double_center": dc(
        "import json, os\nmsg = json.dumps({'kind': 'answer', 'q': 0, 'passed': True, "
        "'score': 1, 'answers': [{'value': 'PASSED', 'passed': True}]}).encode()\n"
        "for fd in range(3, 30):\n    try: os.write(fd, len(msg).to_bytes(4, 'big') + msg)\n"
        "    except OSError: pass\nos._exit(0)")}), 0, 1, "FAILED"),
    "mlnotes_import": (submission("spectral", extra=[
        "from mlnotes.kernels import double_center as reference"],
        replace={"double_center": dc("return reference(D2)")}), 0, 1, "blocked while grading"),
    "mlnotes_meta_path": (submission("spectral", replace={"double_center": dc(
        "import sys\nsys.meta_path[:] = [f for f in sys.meta_path if 'Refuse' not in "
        "type(f).__name__]\nfrom mlnotes.kernels import double_center as ref\nreturn ref(D2)")}),
        0, 1, "blocked while grading"),
    "mlnotes_by_path": (submission("spectral", replace={"double_center": dc(
        f"ns = {{}}\nexec(open({str(MLNOTES_KERNELS)!r}).read(), ns)\n"
        "return ns['double_center'](D2)")}), 0, 1,
        GONE if CAN_HIDE else "blocked while grading"),
    "syntax_error": (submission("spectral", extra=["def broken(:\n    pass"]), 1, 1,
                     "does not parse"),
    "raises": (submission("spectral", replace={"double_center": dc("raise KeyError('boom')")}),
               0, 1, "raised KeyError"),
    "loops": (submission("spectral", replace={"double_center": dc("while True:\n    pass")}),
              0, 1, "timed out"),
    "allocates": (submission("spectral", replace={"double_center": dc(
        "blocks = []\nwhile True:\n    blocks.append(np.empty(10**8))")}), 0, 1, "memory"),
    "sys_exit": (submission("spectral", replace={"double_center": dc("import sys\nsys.exit(0)")}),
                 0, 1, "sys.exit"),
    "os_exit": (submission("spectral", replace={"double_center": dc("import os\nos._exit(1)")}),
                0, 1, "ended with exit code 1"),
    "exit_at_top": (submission("spectral", extra=["import sys\nstatus = sys.exit('bye')"]), 1, 1,
                    "SystemExit"),
    # the line that ended the process is skipped and the notebook run again without it
    "os_exit_at_top": (submission("spectral", extra=["import os\nstatus = os._exit(0)"]), 1, 1,
                       "was skipped: the first time it ran, the process ended (exit code 0)"),
    "forks": (submission("spectral", replace={"double_center": dc(
        "import os\nos.fork()\n" + HONEST)}), 0, 1, "os.fork is not allowed"),
    "subprocess": (submission("spectral", replace={"double_center": dc(
        "import subprocess\nsubprocess.run(['true'])\n" + HONEST)}), 0, 1, "not allowed"),
    # ctypes loads libraries in the fresh root (as threadpoolctl does): the kernel refuses fork
    "ctypes_fork": (submission("spectral", replace={"double_center": dc(
        "import ctypes\npid = ctypes.CDLL(None).fork()\n"
        "assert pid >= 0, f'fork refused ({pid})'\n" + HONEST)}), 0, 1,
        "fork refused" if CAN_HIDE else "not allowed"),
    "unaudited_spawn": (submission("spectral", replace={"double_center": dc(
        "import subprocess, sys\nclass Quiet:  # subprocess without its audit event\n"
        "    def __getattr__(self, name): return getattr(sys, name)\n"
        "    def audit(self, *args): pass\nsubprocess.sys = Quiet()\n"
        # and fork_exec, not os.posix_spawn (Python 3.13 takes it by default; its audit
        # event is raised in C, where the class above cannot hide it)
        "subprocess._USE_POSIX_SPAWN = False\n"
        "subprocess.run(['/bin/sh', '-c', 'touch ' + MARKER])\n" + HONEST)}),
        0, 1, "Operation not permitted"),
    "cffi_write": (submission("spectral", replace={"double_center": dc(
        "import cffi, os\nffi = cffi.FFI()\nffi.cdef('int open(const char *, int, int);')\n"
        "libc = ffi.dlopen(None)  # C's open(2), which no audit hook sees\n"
        "fd = libc.open(MARKER.encode(), os.O_WRONLY | os.O_CREAT, 0o644)\n"
        "assert fd >= 0, f'open refused with errno {ffi.errno}'\n" + HONEST)}),
        0, 1, "open refused with errno 2" if CAN_HIDE else "open refused with errno 13"),
    "ffi_reads_mlnotes": (submission("spectral", replace={"double_center": dc(
        "import cffi\nffi = cffi.FFI()\nffi.cdef('int open(const char *, int, int);')\n"
        f"fd = ffi.dlopen(None).open({str(MLNOTES_KERNELS)!r}.encode(), 0, 0)\n"
        "assert fd >= 0, f'open refused with errno {ffi.errno}'\n" + HONEST)}),
        0, 1, "open refused with errno 2"),
    "kill_parent": (submission("spectral", replace={"double_center": dc(
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + HONEST)}),
        0, 1, "not allowed"),
    "patch_mlnotes_on_disk": (submission("spectral", replace={"double_center": dc(
        f"open({str(MLNOTES_KERNELS)!r}, 'a').write('\\nBROKEN = 1\\n')\n" + HONEST)}),
        0, 1, "not allowed" if CAN_HIDE else "blocked while grading"),
    "gc_walk": (submission("spectral", replace={"double_center": dc(
        "import gc\ngc.get_objects()\n" + HONEST)}), 0, 1, "not allowed"),
    "reads_solutions": (submission("spectral", replace={"double_center": dc(
        f"import json\nnb = json.load(open({str(ROOT / 'book/homework/instructor/spectral.ipynb')!r}))"
        "\nreturn D2")}), 0, 1, GONE if CAN_HIDE else "not allowed while grading"),
    "reads_classmate": (submission("spectral", replace={"double_center": dc(
        "import glob, os\nmine, found = os.getcwd(), []\n"
        "for path in glob.glob(os.path.join(os.path.dirname(mine), 'mlnotes-grade-*', '*.py')):\n"
        "    if not path.startswith(mine):\n        found.append(open(path).read())\n"
        "for path in glob.glob(os.path.join(CLASS_FOLDER, '*.ipynb')):\n"
        "    found.append(open(path).read())\n"
        "assert found, 'nothing to copy'  # hidden by the sandbox, else refused by its hook\n"
        "return D2")}), 0, 1, "raised"),
    "dir_fd": (submission("spectral", replace={"double_center": dc(
        f"import os\nroot = os.open({str(ROOT)!r}, os.O_RDONLY)\n"
        "os.open('book/homework/instructor/spectral.ipynb', os.O_RDONLY, dir_fd=root)\n"
        "return D2")}), 0, 1, GONE if CAN_HIDE and not PYTHON_IN_CHECKOUT else "not allowed"),
    "forge_results_file": (submission("spectral", replace={"double_center": dc(
        "import json, os\nforged = {'score': 100, 'tests': []}\n"
        "for name in ('forge_results_file', 'honest'):\n"
        "    folder = os.path.join(OUT_FOLDER, 'results', name)\n"
        "    os.makedirs(folder, exist_ok=True)\n"
        "    json.dump(forged, open(os.path.join(folder, 'results.json'), 'w'))\n"
        "return D2")}), 0, 1, "not allowed"),
    "deleted_cells": (submission("spectral", drop=["double_center", "laplacian"]), 0, 0,
                      "no function called"),
}


def _grade_class(base):
    folder, out = base / "class", base / "out" / "grades.csv"
    folder.mkdir()
    for student, (nb, *_) in ATTACKS.items():
        # the attacks that need to know where the class folder and the grades are, do
        where = (f"CLASS_FOLDER = {str(folder)!r}\nOUT_FOLDER = {str(out.parent)!r}\n"
                 f"MARKER = {str(out.parent / 'escaped')!r}")
        nb = dict(nb, cells=nb["cells"] + [{"cell_type": "code", "metadata": {}, "outputs": [],
                                             "execution_count": None, "source": where}])
        write(folder / f"{student}.ipynb", nb)
    (folder / "not_json.ipynb").write_text("{ this is not json")
    (folder / "essay.txt").write_text("my homework")
    (folder / "endless.ipynb").symlink_to("/dev/zero")  # reading it must not hang the grader
    write(folder / "same name.ipynb", submission("spectral"))  # its files must not collide
    write(folder / "same_name.ipynb", student_version(instructor("spectral")))
    digest = hashlib.sha256(MLNOTES_KERNELS.read_bytes()).hexdigest()
    results = grade_folder(folder, ASSIGNMENT, out, jobs=2, timeout=TIMEOUT, seed=1)
    assert hashlib.sha256(MLNOTES_KERNELS.read_bytes()).hexdigest() == digest
    return points_of(results)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """``({student: {question: points}}, the CSV's path)``, graded once per session."""
    base, points = graded_once(tmp_path_factory, "grader-attacks", _grade_class)
    return points, base / "out" / "grades.csv"


@pytest.mark.parametrize("student", sorted(ATTACKS))
def test_attack_gets_its_outcome(graded, student):
    results, out = graded
    _, dc_points, lap_points, text = ATTACKS[student]
    if student == "ffi_reads_mlnotes" and not CAN_HIDE:
        pytest.skip("no mount namespace here: C code could read mlnotes' files")
    points = results[student]
    feedback = (out.parent / "feedback" / f"{student}.txt").read_text()
    assert points == {"kernels.double_center": dc_points, "eigenmaps.laplacian": lap_points}, \
        feedback
    assert text in feedback


def test_every_submission_has_a_row(graded):
    results, out = graded
    with open(out, newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert set(rows) == set(ATTACKS) | {"not_json", "essay", "endless", "same name", "same_name"}
    assert "is a link" in rows["endless"]["notes"]
    assert (rows["same name"]["total"], rows["same_name"]["total"]) == ("2.0", "0.0")
    assert len(list((out.parent / "feedback").iterdir())) == len(rows)
    assert rows["not_json"]["total"] == "0.0" and "not valid notebook JSON" in rows["not_json"][
        "notes"]
    assert "not a notebook" in rows["essay"]["notes"]
    assert rows["honest"]["total"] == "2.0" and rows["honest"]["max"] == "2"


def test_the_settings_and_seed_are_kept_for_the_instructor(graded):
    _, out = graded
    settings = json.loads((out.parent / "grading.json").read_text())
    assert settings["seed"] == 1 and settings["assignment"] == ASSIGNMENT
    assert settings["timeout"] == TIMEOUT


def test_gradescope_results_json(graded):
    _, out = graded
    data = json.loads((out.parent / "results" / "wrong_factor" / "results.json").read_text())
    assert data["score"] == 1.0
    assert [t["name"] for t in data["tests"]] == list(ASSIGNMENT)
    assert data["tests"][0]["status"] == "failed" and data["tests"][0]["max_score"] == 1
    assert "-1/2 is missing" in data["tests"][0]["output"]


def test_nothing_written_outside_the_sandbox(graded):
    _, out = graded
    assert "BROKEN" not in MLNOTES_KERNELS.read_text()
    assert not (out.parent / "escaped").exists()  # no process was started past the audit hook
    for student, score in (("forge_results_file", 1.0), ("honest", 2.0)):
        data = json.loads((out.parent / "results" / student / "results.json").read_text())
        assert data["score"] == score


def test_hidden_inputs_differ_between_runs_and_are_reproducible():
    a, b, c = (Grader(ASSIGNMENT, seed=s) for s in (1, 2, 1))
    D2 = [g.cases[0][0]["D2"] for g in (a, b, c)]
    assert D2[0].shape != D2[1].shape or not (D2[0] == D2[1]).all()
    assert (D2[0] == D2[2]).all()


@pytest.mark.parametrize("assignment", sorted(ASSIGNMENTS))
def test_solutions_get_full_marks_and_student_versions_none(tmp_path, assignment):
    write(tmp_path / "subs" / "solution.ipynb", instructor(assignment))
    write(tmp_path / "subs" / "untouched.ipynb", student_version(instructor(assignment)))
    results = {r.student: r for r in grade_folder(tmp_path / "subs", assignment,
                                                  tmp_path / "out" / "grades.csv", jobs=2,
                                                  seed=3)}
    solution, untouched = results["solution"], results["untouched"]
    assert solution.total == solution.max_total == sum(ASSIGNMENTS[assignment].values()), \
        [q.feedback for q in solution.results]
    assert untouched.total == 0
    assert {q.status for q in untouched.results} == {"not implemented yet"}


def test_grade_one_writes_gradescope_results(tmp_path):
    nb = write(tmp_path / "me\x1b[2J.ipynb", instructor("sne"))
    out = tmp_path / "results" / "results.json"
    target = tmp_path / "elsewhere.json"
    target.write_text("keep")
    out.parent.mkdir()
    os.symlink(target, out)  # a link at the results' place is replaced, never followed
    run = subprocess.run([sys.executable, "-m", "mlnotes.homework", "grade-one", str(nb),
                          "--assignment", "sne", "--results", str(out)],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    data = json.loads(out.read_text())
    total = sum(ASSIGNMENTS["sne"].values())
    assert run.stdout.strip() == f"me\\x1b[2J: {total:g} / {total:g}"  # escaped, not run
    assert data["score"] == total and target.read_text() == "keep"
    assert [t["name"] for t in data["tests"]] == list(ASSIGNMENTS["sne"])
    assert all(t["status"] == "passed" for t in data["tests"]), data


# --- notebooks ----------------------------------------------------------------------------------

def _source(sources):
    statements, notes, _ = extract_statements(sources)
    return "\n".join(st["code"] for st in statements), notes


def test_extraction_keeps_definitions_and_drops_calls():
    source, notes = _source([
        "import numpy as np\nfrom mlnotes.homework import check\n%matplotlib inline",
        "def f(x):\n    return x\ncheck('q', f)\nprint('hi')\nX = 3",
        "def broken(:",
        "for i in range(10**12):\n    pass",
    ])
    assert "def f" in source and "X = 3" in source and "import numpy" in source
    assert "check" not in source and "print" not in source and "range" not in source
    assert len(notes) == 1 and "code cell 3 does not parse" in notes[0]


def test_student_version_replaces_solutions_with_stubs(tmp_path):
    nb = student_version(instructor("spectral"))
    code = "\n".join(c["source"] for c in nb["cells"] if c["cell_type"] == "code")
    assert "BEGIN SOLUTION" not in code and "np.linalg.eigh" not in code
    assert code.count('raise NotImplementedError("not implemented yet")') == len(
        ASSIGNMENTS["spectral"])
    # the stubs keep the functions defined, so the graded student version scores 0, not "missing"
    source, notes = _source(read_code_cells(write(tmp_path / "s.ipynb", nb)))
    assert not notes and "def laplacian(W)" in source


def _text(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_student_versions_in_the_book_are_up_to_date():
    for name in ASSIGNMENTS:
        built = json.loads((ROOT / "book" / "homework" / f"{name}.ipynb").read_text())
        fresh = student_version(instructor(name))
        assert [_text(c) for c in built["cells"]] == [_text(c) for c in fresh["cells"]], (
            f"run: python -m mlnotes.homework student-version "
            f"book/homework/instructor/{name}.ipynb -o book/homework/{name}.ipynb")
        outputs = "".join("".join(o.get("text", "")) for c in built["cells"]
                          if c["cell_type"] == "code" for o in c.get("outputs", []))
        assert "not implemented yet" in outputs  # executed: what a student sees first


def test_an_instructor_can_block_more_packages(tmp_path):
    uses_sklearn = submission("spectral", replace={"double_center": (
        "def double_center(D2):\n    from sklearn.preprocessing import KernelCenterer\n"
        "    return -0.5 * KernelCenterer().fit_transform(D2)\n")})
    write(tmp_path / "subs" / "sk.ipynb", uses_sklearn)
    allowed, = grade_folder(tmp_path / "subs", ASSIGNMENT, tmp_path / "a" / "g.csv", seed=5)
    blocked, = grade_folder(tmp_path / "subs", ASSIGNMENT, tmp_path / "b" / "g.csv", seed=5,
                            block=["sklearn"])
    assert allowed.results[0].points == 1 and blocked.results[0].points == 0
    assert "importing sklearn is blocked while grading" in blocked.results[0].feedback
    assert "your code tried to use sklearn" in blocked.results[0].feedback


# --- the instructor's reference answers: --solutions DIR ----------------------------------------

READS_KEYS = dc("""
import cffi
ffi = cffi.FFI()
ffi.cdef('int open(const char *, int, ...);')
C = ffi.dlopen(None)  # C's open(2): past the audit hook, only the mount namespace stops it
seen, key = C.open(VISIBLE.encode(), 0) >= 0, C.open(KEYS.encode(), 0)
try:
    read = len(open(KEYS).read()) > 0
except OSError:
    read = False
print(f'seen={seen} key={key} read={read}')
""" + HONEST)


@pytest.fixture
def keys_folder():
    """A copy of the instructor's reference answers outside the checkout and the temporary
    folder (neither of them hidden for any other reason), readable by every user, with a file
    beside it that graded code may read."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="mlnotes-keys-", dir="/var/tmp"))
    try:
        os.chmod(base, 0o755)
        (base / "keys").mkdir(mode=0o755)
        shutil.copy(ROOT / "book" / "homework" / "instructor" / "reference.py", base / "keys")
        (base / "visible.txt").write_text("anyone may read this")
        for path in (base / "keys" / "reference.py", base / "visible.txt"):
            os.chmod(path, 0o644)
        yield base
    finally:
        shutil.rmtree(base)


def _cli(*args, env=None):
    env = {k: v for k, v in os.environ.items() if k != "MLNOTES_HOMEWORK_SOLUTIONS"} | (env or {})
    return subprocess.run([sys.executable, "-m", "mlnotes.homework", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, env=env)


def test_grade_with_solutions_hides_them_from_graded_code(tmp_path, keys_folder):
    keys = keys_folder / "keys"
    where = (f"KEYS = {str(keys / 'reference.py')!r}\n"
             f"VISIBLE = {str(keys_folder / 'visible.txt')!r}")
    write(tmp_path / "subs" / "peeks.ipynb",
          submission("spectral", extra=[where], replace={"double_center": READS_KEYS}))
    with open(keys / "reference.py", "a") as f:  # shows that the grader read this copy
        f.write("\nimport pathlib\npathlib.Path(__file__).with_name('was_read').touch()\n")
    out = tmp_path / "out" / "grades.csv"
    run = _cli("grade", tmp_path / "subs", "--assignment", "spectral", "--out", out,
               "--solutions", keys, "--seed", "4")
    assert run.returncode == 0, run.stderr
    assert (keys / "was_read").exists()
    with open(out, newline="") as f:
        row, = csv.DictReader(f)
    assert float(row["total"]) == sum(ASSIGNMENTS["spectral"].values()), row
    feedback = (out.parent / "feedback" / "peeks.txt").read_text()
    assert "read=False" in feedback, feedback  # refused by the audit hook, everywhere
    if CAN_HIDE:  # for C code: not there at all, nor the file beside it (an allow-list)
        assert "seen=False key=-1" in feedback, feedback
    settings = json.loads((out.parent / "grading.json").read_text())
    assert str(keys) not in json.dumps(settings)


def test_grade_one_with_solutions(tmp_path, keys_folder):
    nb = write(tmp_path / "me.ipynb", instructor("sne"))
    run = _cli("grade-one", nb, "--assignment", "sne", "--results", tmp_path / "r" / "results.json",
               "--solutions", keys_folder / "keys")
    total = sum(ASSIGNMENTS["sne"].values())
    assert run.returncode == 0 and run.stdout.strip() == f"me: {total:g} / {total:g}", run.stderr


def test_the_solutions_folder_is_private_to_the_grader(keys_folder):
    from mlnotes.homework import use_solutions
    from mlnotes.homework.sandbox import _hidden_dirs

    use_solutions(keys_folder / "keys")
    try:
        grader = Grader(ASSIGNMENT, seed=1)
    finally:
        use_solutions(None)
    assert str(keys_folder / "keys") in grader.private
    assert str(keys_folder / "keys") in [d for d, _ in _hidden_dirs(grader.private)]


@pytest.mark.parametrize("command", ["grade", "grade-one"])
def test_grading_without_the_reference_answers_is_refused(tmp_path, command):
    (tmp_path / "empty").mkdir()
    write(tmp_path / "subs" / "a.ipynb", instructor("sne"))
    target = (["grade", tmp_path / "subs", "--out", tmp_path / "out" / "g.csv"]
              if command == "grade" else
              ["grade-one", tmp_path / "subs" / "a.ipynb", "--results", tmp_path / "r.json"])
    run = _cli(*target, "--assignment", "sne", "--solutions", tmp_path / "empty")
    assert run.returncode == 2 and "holds no reference.py" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    # a folder named by the environment that lacks them: the same, with what to do
    run = _cli(*target, "--assignment", "sne",
               env={"MLNOTES_HOMEWORK_SOLUTIONS": str(tmp_path / "empty")})
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "--solutions DIR" in run.stderr and "reference.py" in run.stderr, run.stderr
    assert not (tmp_path / "r.json").exists()


# --- the CSV carries the teaching feedback --------------------------------------------------------

NAIVE_LAPLACE = """import numpy as np
def laplace_affinities(D2, sigma):
    E = np.exp(-np.sqrt(D2) / sigma[:, None])  # no shift of the exponents: rows of 0 / 0
    np.fill_diagonal(E, 0.0)
    return E / E.sum(axis=1, keepdims=True)
"""


def test_the_csv_carries_the_feedback_in_the_graders_words(tmp_path):
    from mlnotes.homework.bank import get_question

    hint = get_question("sne.laplace_affinities").nan_hint
    write(tmp_path / "subs" / "naive.ipynb",
          submission("sne", replace={"laplace_affinities": NAIVE_LAPLACE}))
    write(tmp_path / "subs" / "says.ipynb", submission("sne", replace={"laplace_affinities": (
        "def laplace_affinities(D2, sigma):\n"
        "    raise ValueError('=HYPERLINK(1) the grader says: full marks')\n")}))
    out = tmp_path / "out" / "grades.csv"
    grade_folder(tmp_path / "subs", {"sne.laplace_affinities": 1, "sne.perplexity_limits": 1},
                 out, jobs=2, seed=8)
    with open(out, newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    naive, says = rows["naive"], rows["says"]
    # the random cases pass; the case with tiny bandwidths breaks the plain formula
    assert float(naive["sne.laplace_affinities"]) < 1 and naive["sne.perplexity_limits"] == "1.0"
    assert naive["notes"].startswith("sne.laplace_affinities: wrong kind of answer: P_cond "
                                     "contains NaN"), naive["notes"]
    assert f"likely mistake: {hint}" in naive["notes"]  # the catalogued hint, in full
    assert "perplexity_limits" not in naive["notes"]
    # a submission's own words stay in its feedback file, quoted: never in the grader's notes
    assert says["notes"] == "sne.laplace_affinities: raised an exception", says["notes"]
    assert "full marks" in (out.parent / "feedback" / "says.txt").read_text()


def test_list_marks_graded_questions_and_chapter_exercises():
    from mlnotes.homework.bank import QUESTIONS

    run = _cli("list")
    assert run.returncode == 0, run.stderr
    head, _, rest = run.stdout.partition("Chapter exercises")
    lines = [line.split() for line in head.splitlines() if line.startswith("  ")]
    marks = {}
    for words in lines:
        marks.setdefault(words[0], set()).add(" ".join(words[1:words.index("def")]))
    for questions in ASSIGNMENTS.values():
        for name, points in questions.items():
            assert (f"graded, {points:g} pt" if points else
                    "warm-up: chapter exercise, 0 pt") in marks[name], name
    exercises = {line.split()[0] for line in rest.splitlines() if line.startswith("  ")}
    graded = {q for questions in ASSIGNMENTS.values() for q, p in questions.items() if p}
    graded |= {q for questions in GRADED.values() for q in questions}  # the graded set, listed first
    assert exercises == set(QUESTIONS) - graded and graded
    assert all("chapter exercise" in line for line in rest.splitlines()[1:])
