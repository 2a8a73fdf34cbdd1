"""Hostile and unusual submissions, by class (issue 13), graded as an instructor would: one
``grade_folder`` call over one class folder, 2 jobs, short timeouts.

Each submission attacks ``double_center`` (or the notebook as a whole); ``laplacian`` stays honest
and shows whether the rest of the submission was still graded. Every feedback file, the CSV and
every results.json are also checked for what must never reach a student: a path of the grader's
machine, a forged note passed off as the grader's.
"""

import csv
import json
import os
import pathlib
import socket
import sys
from pathlib import Path

import pytest
from homework_fixtures import graded_once, instructor, points_of, submission, write

from mlnotes.homework.grader import escape, grade_folder, public
from mlnotes.homework.notebook import NotebookError, extract_statements, open_submission
from mlnotes.homework.sandbox import exit_reason

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = {"kernels.double_center": 1, "eigenmaps.laplacian": 1}
TIMEOUT = 2.0
HONEST = "N = len(D2)\nC = np.eye(N) - 1 / N\nreturn -0.5 * C @ D2 @ C"
KEEP = HONEST.replace("return ", "K = ") + "\n"
SOLUTIONS = ROOT / "book" / "homework" / "instructor" / "spectral.ipynb"
INJECTED = "FORGED-NOTE"


def dc(body, head=""):
    """A notebook cell defining double_center with ``body`` (``head``: lines before the def)."""
    lines = "\n".join("    " + line for line in body.strip("\n").split("\n"))  # not splitlines:
    return f"import numpy as np\n{head}def double_center(D2):\n{lines}\n"  # \f, U+2028 stay


def with_dc(body, head=""):
    return submission("spectral", replace={"double_center": dc(body, head)})


def appended(*cells):
    return submission("spectral", append=list(cells))


def _forge_notes(count, repeat):
    """Top-level code that patches the child's message encoder to add ``count`` notes."""
    return ("import sys\nmain = sys.modules['__main__']\nold = main.encode\n"
            "def forged(message):\n"
            f"    message['notes'] = ['{INJECTED} all tests passed\\n\\nNotes on your "
            f"notebook:\\n  - {INJECTED}' * {repeat}] * {count}\n"
            "    return old(message)\n"
            "main.encode = forged\n")


# student -> (notebook, points for double_center, points for laplacian, text in the feedback)
ATTACKS = {
    # 2. answers that are not real numbers
    "complex": (with_dc(KEEP + "return K.astype(complex)"), 0, 1, "complex numbers"),
    "complex_noise": (with_dc(KEEP + "return K + 1e-20j"), 0, 1, "wrong kind of answer"),
    "complex_scalar_tuple": (with_dc("return (1 + 0j, 2.0)"), 0, 1, "wrong kind of answer"),
    "object_array": (with_dc(KEEP + "return np.array(K, dtype=object)"), 0, 1,
                     "Python objects"),
    "fractions": (with_dc("from fractions import Fraction\n"
                          "return [[Fraction(1, 3)] * len(D2)] * len(D2)"), 0, 1,
                  "wrong kind of answer"),
    "booleans": (with_dc("return np.ones_like(D2, dtype=bool)"), 0, 1, "booleans"),
    "bool_scalar": (with_dc("return True"), 0, 1, "boolean"),
    "nan": (with_dc(KEEP + "K[0, 0] = np.nan\nreturn K"), 0, 1, "contains NaN"),
    "inf": (with_dc(KEEP + "K[0, 1] = -np.inf\nreturn K"), 0, 1, "contains infinity"),
    "flattened": (with_dc(KEEP + "return K.ravel()"), 0, 1,
                  "wrong kind of answer: K should be shape"),
    "transposed_shape": (with_dc(KEEP + "return K[:, :-1].T"), 0, 1, "transposed"),
    "scalar": (with_dc("return 0.0"), 0, 1, "got a single number"),
    "text": (with_dc("return 'K'"), 0, 1, "wrong kind of answer"),
    "too_many_outputs": (with_dc("return [np.zeros(1), np.zeros(2)] * 50"), 0, 1,
                         "wrong kind of answer"),
    "warning_with_path": (with_dc("np.log(-D2)\nnp.float64(1) / 0\n" + HONEST), 1, 1, "PASSED"),
    # 5. each question stands alone
    "break_outside_loop": (with_dc("break\nreturn D2"), 0, 1,
                           "does not compile: SyntaxError: 'break' outside loop"),
    "broken_helper": (appended("def helper():\n    break\n"), 1, 1, "'break' outside loop"),
    "return_at_top": (appended("x = 1\nreturn x\n"), 1, 1, "PASSED"),
    "nested_literal": (appended("BIG = " + "(" * 300 + "1" + ")" * 300 + "\n"
                                "def laplacian(W):\n    return np.diag(W.sum(1)) - W\n"),
                       1, 1, "does not parse"),
    "huge_literal_cell": (appended("TABLE = [" + ", ".join(["1.5"] * 30_000) + "]\n"), 1, 1,
                          "PASSED"),
    "broken_and_honest_in_one_cell": (submission("spectral", replace={
        "double_center": dc("return -0.5 * (np.eye(len(D2)) - 1 / len(D2)) @ D2 @ (\n"
                            "    np.eye(len(D2)) - 1 / len(D2))\n") + "def oops(:\n    pass\n"}),
        1, 1, "does not parse"),
    # a sleeping line: stopped by the backstop twice, the second time with more patience
    # (beside the others, which never wait for it), then skipped; named to be graded first
    # (the class is graded in name order): its 22 s of waiting overlap the others' work
    "a_sleeping_top_level_line": (
        appended("import time\nslow = [time.sleep(0.01) for _ in range(10**6)]\n"),
        1, 1, "the second time with a longer backstop"),
    "endless_top_level": (appended("while True:\n    pass\n",
                                   "count = 0\nwhile_true = [0 for _ in iter(int, 1)]\n"),
                          1, 1, "s of CPU time"),
    "decorator_raises": (with_dc(HONEST, head="def boom(f):\n    raise ValueError('no')\n@boom\n"),
                         0, 1, "ValueError"),
    # 6. faithful extraction (IPython's own transformation)
    "u2028_comment": (with_dc("# a comment\u2028with a line separator\n" + HONEST), 1, 1,
                      "PASSED"),
    "continuation_not_equal": (with_dc("N = len(D2)\nsquare = (D2.shape[0]\n"
                                       "!= D2.shape[1])\nif square:\n    return D2\n"
                                       "C = np.eye(N) - 1 / N\nreturn -0.5 * C @ D2 @ C"),
                               1, 1, "PASSED"),
    "form_feed": (with_dc("# section\x0c break\n" + HONEST), 1, 1, "PASSED"),
    # issue 22: every character str.splitlines splits on but Python does not, in a comment
    # of a nested block and after code (PDF pastes); none may cost anything
    "form_feed_in_loop": (with_dc("for _ in range(1):\n    # stop\x0cbreak\n    pass\n"
                                  + HONEST), 1, 1, "PASSED"),
    "separators_after_code": (with_dc("".join(
        f"N = len(D2)  # a{c}b\nif N:\n    # nested{c}    x\n    pass\n"
        for c in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029") + HONEST), 1, 1, "PASSED"),
    "magics": (submission("spectral", extra=["%matplotlib inline\n!echo hi\nfiles = !ls\n"
                                             "%time x = 1\n"]), 1, 1, "PASSED"),
    "time_cell_magic": (submission("spectral", replace={"double_center": "%%time\n" + dc(HONEST)}),
                        1, 1, "PASSED"),
    # 7. untrusted output: bounded, escaped, labelled
    "injects_notes": (appended(_forge_notes(count=100, repeat=20)), 1, 1,
                      "not the grader's notes"),
    "floods_notes": (appended(_forge_notes(count=1000, repeat=50)), 0, 0, "more than 256 kB"),
    "exception_lies": (with_dc(f"raise ValueError('\\n[1 / 1] kernels.double_center: PASSED"
                               f"\\n{INJECTED}\\x1b[2J\\u202e')"), 0, 1, "raised ValueError"),
    "prints_controls": (with_dc(f"print('\\x1b[31m{INJECTED}\\n\\r\\u202edone')\n" + HONEST),
                        1, 1, "its own output"),
    # 8. reasons that say what happened
    "aborts": (with_dc("import os\nos.abort()"), 0, 1, "SIGABRT"),
    "keyboard_interrupt": (with_dc("raise KeyboardInterrupt"), 0, 1, "KeyboardInterrupt"),
    "segfault": (with_dc("import cffi\nffi = cffi.FFI()\nreturn ffi.cast('int *', 8)[0]"),
                 0, 1, "segmentation fault"),
    "exit_code": (with_dc("import os\nos._exit(3)"), 0, 1, "exit code 3"),
    "terminates_itself": (with_dc("import signal\nsignal.raise_signal(signal.SIGTERM)"), 0, 1,
                          "SIGTERM"),
    "sys_exit": (with_dc("import sys\nsys.exit(2)"), 0, 1, "sys.exit(2)"),
    "honest": (submission("spectral"), 1, 1, "PASSED"),
    # red-team round 2: new variants of the same classes
    # 2. answers: numpy subclasses and odd dtypes are read as their numbers, or refused
    "masked_array": (with_dc(KEEP + "return np.ma.masked_array(K, mask=np.eye(len(K)) > 0)"),
                     1, 1, "PASSED"),
    "matrix": (with_dc(KEEP + "return np.asmatrix(K)"), 1, 1, "PASSED"),
    "longdouble": (with_dc(KEEP + "return K.astype(np.longdouble)"), 1, 1, "PASSED"),
    "subclass_rigged_eq": (with_dc("class M(np.ndarray):\n    def __eq__(s, o):\n"
                                   "        return True\nreturn D2.view(M)"), 0, 1,
                           "agrees with the reference"),
    "structured_dtype": (with_dc(KEEP + "return np.zeros(K.shape, dtype=[('a', float)])"), 0, 1,
                         "structured records"),
    "mixed_list": (with_dc("return [[1.0, 'a']] * len(D2)"), 0, 1, "text, not numbers"),
    "float_method_only": (with_dc("class F:\n    def __float__(s):\n        return 1.0\n"
                                  "return F()"), 0, 1, "Python objects"),
    # 1. C code (past the audit hook) opening what a build or the checkout keeps beside the
    # package: every folder of the checkout is covered, not only book/ and tests/
    "reads_beside_the_package": (with_dc(
        "import cffi\nffi = cffi.FFI()\nffi.cdef('int open(const char *, int, ...);')\n"
        f"if ffi.dlopen(None).open({str(ROOT / 'benchmarks' / 'run.py').encode()!r}, 0) >= 0:\n"
        "    return D2\n" + HONEST), 1, 1, "PASSED"),
    "sparse_negative_shape": (with_dc(
        "class Coo:\n    shape = (-9, -9)\n    row = col = data = np.zeros(0)\n"
        "    def tocoo(self):\n        return self\nreturn Coo()"), 0, 1, "malformed"),
    # 3. an ioctl outside the few Python makes (here: read a file's attributes) is refused
    "ioctl_file_flags": (with_dc(
        "import cffi, os\nffi = cffi.FFI()\n"
        "ffi.cdef('int ioctl(int, unsigned long, void *); int *__errno_location(void);')\n"
        "libc = ffi.dlopen(None)\nfd = os.open(np.__file__, os.O_RDONLY)\n"
        "flags = ffi.new('long *')\n"
        "if libc.ioctl(fd, 0x80086601, flags) == 0 or libc.__errno_location()[0] != 25:\n"
        "    return D2\n" + HONEST), 1, 1, "PASSED"),
    # 5. many slow top-level lines (each within its share) cost only themselves
    "many_slow_lines": (appended(*(f"slow{i} = sum(range(10**10))\n" for i in range(6))), 1, 1,
                        "was skipped"),
    # ... and a top-level line that ends the process is skipped, the notebook run again
    "top_level_exit": (appended("import os\nbye = os._exit(0)\n"), 1, 1, "was skipped"),
    "top_level_stack_overflow": (appended(
        "import sys\nsys.setrecursionlimit(10**8)\ndef down(n):\n    return down(n + 1)\n"
        "depth = down(0)\n"), 1, 1, "PASSED"),
    "top_level_hang_past_timers": (appended(
        "import signal\nquiet = signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "quieter = signal.signal(signal.SIGPROF, signal.SIG_IGN)\n"
        "def spin():\n    while True:\n        pass\nspun = spin()\n"), 1, 1,
        "its CPU time past every timer"),
    "own_alarm": (with_dc("import signal, time\nsignal.alarm(1)\ntime.sleep(2)"), 0, 1,
                  "an alarm it set itself"),
    "swallows_timeout": (appended("def spin():\n    while True:\n        try:\n"
                                  "            while True:\n                pass\n"
                                  "        except Exception:\n            pass\n"
                                  "spun = spin()\n"), 1, 1, "s of CPU time"),
    # 6. faithful extraction, more of what IPython runs
    "capture_with_arguments": (submission("spectral", replace={
        "double_center": "%%capture captured --no-stderr\n" + dc(HONEST)}), 1, 1, "PASSED"),
    "magic_after_blank_lines": (submission("spectral", replace={
        "double_center": "\n\n%%time\n" + dc(HONEST)}), 1, 1, "PASSED"),
    "import_fallback": (submission("spectral", replace={"double_center": (
        "try:\n    import numpy as np\nexcept ImportError:\n    np = None\n"
        + dc(HONEST).replace("import numpy as np\n", ""))}), 1, 1, "PASSED"),
    "definition_in_if": (submission("spectral", replace={"double_center": (
        "import numpy as np\nif np is not None:\n" + "\n".join(
            "    " + line for line in dc(HONEST).splitlines()[1:]) + "\n"
        "    check('kernels.double_center', double_center)\n")}), 1, 1, "PASSED"),
    "augmented_constant": (submission("spectral", replace={"double_center": (
        "import numpy as np\nHALF = 1.0\nHALF *= -0.5\n"
        + dc(HONEST.replace("-0.5", "HALF")).replace("import numpy as np\n", ""))}), 1, 1,
        "PASSED"),
    "future_annotations": (submission("spectral", replace={"double_center": (
        "from __future__ import annotations\n" + dc(HONEST).replace(
            "def double_center(D2):", "def double_center(D2: Later) -> Later:"))}), 1, 1,
        "PASSED"),
    "magic_inside_function": (with_dc("%time x = 1\n" + HONEST), 0, 1, "get_ipython"),
}


# Honest submissions under names a spreadsheet or a terminal could misread.
ODD_NAMES = ("new\nline", " =1+1", "\uff1dSUM(A1)", "\t@x", "bell\x07\x1b[2J")


def _links(folder):
    """Submissions that are links or other non-regular files (issue 13, class 1)."""
    os.symlink(SOLUTIONS, folder / "abs_link.ipynb")
    os.symlink(os.path.relpath(SOLUTIONS, folder), folder / "rel_link.ipynb")
    (folder / "folder_with_link").mkdir()
    os.symlink(SOLUTIONS, folder / "folder_with_link" / "mine.ipynb")
    os.symlink(SOLUTIONS.parent, folder / "linked_folder")
    (folder / "folder_via_link").mkdir()
    os.symlink(SOLUTIONS.parent, folder / "folder_via_link" / "inner")
    copy = folder.parent / "outside.ipynb"
    write(copy, instructor("spectral"))
    os.link(copy, folder / "hard_link.ipynb")
    os.mkfifo(folder / "fifo.ipynb")
    (folder / "deep_link" / "a" / "b").mkdir(parents=True)
    os.symlink(SOLUTIONS, folder / "deep_link" / "a" / "b" / "mine.ipynb")
    (folder / "device_link").mkdir()
    os.symlink("/dev/zero", folder / "device_link" / "mine.ipynb")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(folder / "socket.ipynb"))
    sock.close()
    return {"abs_link": "is a link", "rel_link": "is a link", "folder_with_link": "is a link",
            "linked_folder": "is a link", "folder_via_link": "holds 0 notebooks",
            "hard_link": "more than one name", "fifo": "not a regular file",
            "deep_link": "is a link", "device_link": "is a link",
            "socket": "not a regular file"}


def _grade_class(base):
    folder, out = base / "class", base / "out" / "grades.csv"
    folder.mkdir()
    for student, (nb, *_) in ATTACKS.items():
        write(folder / f"{student}.ipynb", nb)
    links = _links(folder)
    write(folder / "=cmd|' \u202e.ipynb", submission("spectral"))
    for name in ODD_NAMES:
        write(folder / f"{name}.ipynb", submission("spectral"))
    # a byte-order mark before an honest notebook
    (folder / "byte_order_mark.ipynb").write_bytes(
        b"\xef\xbb\xbf" + json.dumps(submission("spectral")).encode())
    results = grade_folder(folder, ASSIGNMENT, out, jobs=2, timeout=TIMEOUT, seed=7)
    return {"points": points_of(results), "links": links}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """``({student: {question: points}}, the CSV's path, {link: reason})``, graded once per
    session."""
    base, data = graded_once(tmp_path_factory, "issue13-attacks", _grade_class)
    return data["points"], base / "out" / "grades.csv", data["links"]


@pytest.mark.parametrize("student", sorted(ATTACKS))
def test_attack_gets_its_outcome(graded, student):
    results, out, _ = graded
    _, dc_points, lap_points, text = ATTACKS[student]
    feedback = (out.parent / "feedback" / f"{student}.txt").read_text()
    points = results[student]
    assert points == {"kernels.double_center": dc_points, "eigenmaps.laplacian": lap_points}, \
        feedback
    assert text in feedback, feedback


def test_links_and_special_files_are_refused(graded):
    results, out, links = graded
    with open(out, newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    for student, reason in links.items():
        assert rows[student]["total"] == "0.0", student
        assert reason in rows[student]["notes"], (student, rows[student]["notes"])


def test_open_submission_never_leaves_the_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "a.ipynb", instructor("spectral"))
    os.close(open_submission(tmp_path, "sub/a.ipynb"))
    for bad in ("../sub/a.ipynb", "sub/../sub/a.ipynb", "/etc/passwd", ""):
        with pytest.raises(NotebookError):
            open_submission(tmp_path / "sub", bad)


def _everything_written(out):
    texts = [p.read_text() for p in (out.parent / "feedback").iterdir()]
    texts += [p.read_text() for p in (out.parent / "results").rglob("results.json")]
    return texts + [out.read_text()]


def test_no_internal_path_reaches_a_student(graded):
    _, out, _ = graded
    internal = {sys.prefix, sys.base_prefix, str(ROOT), "site-packages", "/tmp/mlnotes-grade"}
    for text in _everything_written(out):
        for path in internal:
            assert path not in text, path
    assert public(f"{sys.prefix}/lib/x.py and /usr/lib/python3/dist-packages/numpy/a.py") == \
        "<grader>/lib/x.py and <library file>"


def test_forged_notes_are_bounded_escaped_and_labelled(graded):
    results, out, _ = graded
    feedback = (out.parent / "feedback" / "injects_notes.txt").read_text()
    head, _, rest = feedback.partition("not the grader's notes):")
    assert INJECTED not in head  # never among the grader's own notes
    quoted = [line for line in rest.splitlines() if INJECTED in line]
    assert 0 < len(quoted) <= 6 and all(line.startswith("  | ") for line in quoted)
    assert len(feedback) < 10_000
    with open(out, newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert INJECTED not in rows["injects_notes"]["notes"]
    data = json.loads((out.parent / "results" / "injects_notes" / "results.json").read_text())
    assert len(data["output"]) < 3000 and "not the grader's notes" in data["output"]
    for student in ("exception_lies", "prints_controls"):
        text = (out.parent / "feedback" / f"{student}.txt").read_text()
        assert "\x1b" not in text and "\u202e" not in text and "\r" not in text
        line = next(line for line in text.splitlines() if INJECTED in line)
        assert "\\x1b" in line  # the control is shown escaped, on the same line
    assert rows["exception_lies"]["notes"].count("PASSED") <= 1


def test_a_student_name_is_not_a_formula_nor_a_control(graded):
    _, out, _ = graded
    with open(out, newline="") as f:
        names = [row["student"] for row in csv.DictReader(f)]
    odd = next(n for n in names if "cmd" in n)
    assert odd.startswith("'=") and "\u202e" not in odd


def test_reasons_for_endings_say_what_happened():
    assert "SIGABRT" in exit_reason(-6) and "segmentation" not in exit_reason(-6)
    assert "segmentation fault" in exit_reason(-11)
    assert "SIGSYS" in exit_reason(-31) and "CPU-time" in exit_reason(-24)
    assert "exit code 130" in exit_reason(130) and "sys.exit" not in exit_reason(130)
    assert "os._exit(0)" in exit_reason(0)


def test_escape_keeps_text_on_one_bounded_line():
    text = escape("a\nb\x1b[2J\u202ec\u2028" + "x" * 1000, 50)
    assert "\n" not in text and "\x1b" not in text and "\u202e" not in text
    assert "\u2028" not in text and len(text) <= 54


@pytest.mark.parametrize(("cell", "kept"), [
    ("x = (1\n!= 2)\n", "x = (1\n!= 2)"),
    ("def f():\n    # a\u2028b\n    return 1\n", "def f():\n    # a\u2028b\n    return 1"),
    ("# form\x0cfeed\ndef g():\n    return 2\n", "def g():\n    return 2"),
    ("%%time\ndef h():\n    return 3\n", "def h():\n    return 3"),
    ("!ls\nfiles = !ls\ny = 1\n", "y = 1"),
    ("a = 1; b = 2\n", "a = 1; b = 2"),
    ("@staticmethod\ndef s():\n    pass\n", "@staticmethod\ndef s():\n    pass"),
])
def test_extraction_is_ipythons(cell, kept):
    statements, notes, broken = extract_statements([cell])
    assert "\n".join(st["code"] for st in statements) == kept
    assert not notes and not broken


def test_a_broken_piece_costs_only_itself():
    cell = ("def good():\n    return 1\n\ndef bad(:\n    pass\n\n"
            "def also_good():\n    return 2\n")
    statements, notes, _ = extract_statements([cell])
    assert [st["names"] for st in statements] == [["good"], ["also_good"]]
    assert statements[1]["line"] == 7
    assert len(notes) == 1 and "line 4" in notes[0]
    statements, notes, broken = extract_statements(["def f():\n    break\n", "def g(): pass"])
    assert [st["names"] for st in statements] == [["g"]]
    assert "'break' outside loop" in broken["f"] and "code cell 1, line 2" in broken["f"]


def test_odd_names_are_plain_text_in_the_csv(graded):
    results, out, _ = graded
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(results)
    for row in rows:
        cell = row["student"]
        assert not any(c in cell for c in "\n\r\x07\x1b"), cell
        first = cell.lstrip()[:1]
        assert first not in ("=", "+", "-", "@", "\uff1d"), cell  # quoted: starts with '
    for name in ODD_NAMES:
        assert results[name] == {"kernels.double_center": 1, "eigenmaps.laplacian": 1}, name
    assert results["byte_order_mark"] == {"kernels.double_center": 1, "eigenmaps.laplacian": 1}
    assert all(row["notes"] == "" for row in rows if row["student"] == "honest")
    assert all(not row["notes"].startswith(";") for row in rows)


def test_gradescope_output_is_plain_text(graded):
    _, out, _ = graded
    data = json.loads((out.parent / "results" / "honest" / "results.json").read_text())
    assert data["output_format"] == data["test_output_format"] == "text"


def test_a_linked_submissions_folder_is_followed_once(tmp_path):
    real = tmp_path / "real"
    write(real / "alice.ipynb", submission("spectral"))
    os.symlink(SOLUTIONS, real / "bob.ipynb")
    os.symlink(real, tmp_path / "linked")
    results = grade_folder(tmp_path / "linked", {"kernels.double_center": 1},
                           tmp_path / "out" / "grades.csv", jobs=1, timeout=TIMEOUT, seed=3)
    assert points_of(results) == {"alice": {"kernels.double_center": 1.0},
                                  "bob": {"kernels.double_center": 0.0}}
    feedback = (tmp_path / "out" / "feedback" / "bob.txt").read_text()
    assert "is a link" in feedback and str(tmp_path) not in feedback
    with pytest.raises(ValueError, match="not a folder of submissions"):
        grade_folder(real / "alice.ipynb", {"kernels.double_center": 1},
                     tmp_path / "out2" / "grades.csv")


def test_a_reason_never_names_the_instructors_folders(tmp_path):
    from mlnotes.homework.grader import Grader, SubmissionResult

    grader = Grader({"kernels.double_center": 1}, seed=1, private=[tmp_path / "subs"])
    result = grader._all_failed(SubmissionResult("x", "x"),
                                f"grader error: OSError: {tmp_path}/subs/x.ipynb is odd", "odd")
    assert str(tmp_path) not in result.results[0].feedback
    assert "<submissions>/x.ipynb" in result.results[0].feedback


@pytest.mark.parametrize(("cell", "names"), [
    ("%%capture out --no-stdout\ndef f():\n    return 1\n", [["f"]]),
    ("\n\n%%time\ndef f():\n    return 1\n", [["f"]]),
    ("try:\n    from scipy.linalg import eigh\nexcept ImportError:\n    eigh = None\n",
     [["eigh"]]),
    ("if True:\n    def f():\n        return 1\n", [["f"]]),
    ("for k in range(2):\n    def f():\n        return k\n", [["f"]]),
    ("x = 1\nx *= 2\n", [["x"], ["x"]]),
    ("def f():\n    %time y = 1\n    return 1\n", [["f"]]),  # fails only if called
    # dropped: a computation, a demonstration calling the student's functions, a magic
    ("for k in range(3):\n    y = k\n", []),
    ("try:\n    Z = f()\nexcept Exception:\n    pass\n", []),
    ("if True:\n    %time x = 1\n", []),
    ("@get_ipython\ndef f():\n    pass\n", []),
])
def test_extraction_keeps_what_defines(cell, names):
    statements, notes, broken = extract_statements([cell])
    assert [st["names"] for st in statements] == names
    assert not notes and not broken


def test_top_level_lines_share_one_budget():
    import signal

    from mlnotes.homework._child import _run_statements

    slow = "while True:\n    pass"
    statements = [{"cell": k, "line": 1, "code": f"x{k} = 0\n" + slow, "names": [f"x{k}"],
                   "kind": "statement"} for k in range(1, 5)]
    statements.append({"cell": 5, "line": 1, "code": "def f():\n    return 1",
                       "names": ["f"], "kind": "definition"})
    namespace = {}
    # the CPU shares are what is tested: the wall-clock backstop (here 64 s for 0.2 s of CPU
    # time) must not fire first even when a crowded machine gives this process a few percent
    # of a core (9 s did, at a load of 40)
    limits = {"statement": 0.2, "budget": 0.3, "import": 1.0, "imports": 1.0,
              "import_wall": 1.0, "wall_factor": 20.0, "wall_extra": 60.0, "patience": 1.0}
    previous = signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGPROF)
    try:
        notes, broken, stopped = _run_statements(statements, namespace, limits)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, previous[0])
        signal.signal(signal.SIGPROF, previous[1])
    assert "CPU time" in broken["x1"] and "CPU time" in broken["x2"]
    assert "was skipped" in broken["x3"] and "was skipped" in broken["x4"]
    assert namespace["f"]() == 1 and "f" not in broken
    assert set(stopped) == {"0", "1"}  # a later process skips them at once


def test_every_folder_of_the_checkout_is_hidden():
    from mlnotes.homework.sandbox import _hidden_dirs

    hidden = {folder for folder, _ in _hidden_dirs([])}
    python = os.path.realpath(sys.prefix)
    for entry in ROOT.iterdir():
        if entry.is_dir() and not entry.is_symlink() and not (python + os.sep).startswith(
                os.path.realpath(entry) + os.sep):
            # covered itself, or by a covered folder above it (a checkout under /tmp, say)
            real = pathlib.Path(os.path.realpath(entry))
            assert any(str(p) in hidden for p in (real, *real.parents)), entry


def test_an_answer_the_grader_cannot_judge_costs_one_question(monkeypatch):
    from mlnotes.homework.grader import Grader

    grader = Grader({"kernels.double_center": 1, "eigenmaps.laplacian": 1}, seed=2)

    def broken_judge(k, question, outcome, broken):
        if k == 0:
            raise ValueError("negative dimensions are not allowed")
        return "judged"

    monkeypatch.setattr(grader, "_judge", broken_judge)
    first = grader._judge_safely(0, grader.questions[0], {}, {})
    assert first.points == 0 and "could not judge this answer (ValueError)" in first.status
    assert grader._judge_safely(1, grader.questions[1], {}, {}) == "judged"


def test_a_deeply_nested_notebook_is_named_as_such(tmp_path):
    from mlnotes.homework.notebook import parse_submission

    path = tmp_path / "deep.ipynb"
    path.write_text('{"cells": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    fd = open_submission(tmp_path, "deep.ipynb")
    try:
        with pytest.raises(NotebookError, match="nested too deeply"):
            parse_submission(fd)
    finally:
        os.close(fd)


def test_a_feedback_file_name_never_climbs():
    from mlnotes.homework.grader import _safe_name

    for name in ("..", ".", "../x", "a/b", "/etc/passwd", ".hidden", "\udcff\n"):
        safe = _safe_name(name)
        assert not safe.startswith(".") and "/" not in safe and safe not in (".", ".."), safe
    assert _safe_name("alice") == "alice"
