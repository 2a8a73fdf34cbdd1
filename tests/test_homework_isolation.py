"""The second hostile class (issue 22): each mechanism with attacks of our own.

1. collusion between sandboxes graded at once (record locks, shared file mappings, shared
   futexes); 2. grades readable from an output folder that holds the grader's Python;
3. harm to classmates (signals through the kernel, other pids, one uid, file names that
collide); 4. the instructor's output folder (inside the submissions, links placed there);
5. denial of service (the de-duplication of names, bytes that are not UTF-8, a stalling import
hook repeated in every fresh process); 6. misleading reports (the isolation report, control
characters in names, the submission's words in the grader's voice, paths written backwards).

System calls are made through cffi (C code, which no audit hook sees); a sandboxed function
returns ``[return value, errno]`` pairs so that the test reads what the kernel said.
"""

import csv
import errno
import json
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from homework_fixtures import points_of, short_backstops, submission, write

from mlnotes.homework import sandbox
from mlnotes.homework.grader import _file_names, _safe_name, escape, grade_folder, public, shown_name
from mlnotes.homework.notebook import extract_statements
from mlnotes.homework.sandbox import can_isolate, check_private, run_functions

ROOT_ON_LINUX = can_isolate()
needs_root = pytest.mark.skipif(not ROOT_ON_LINUX, reason="the full sandbox needs root on Linux")
DENIED = (errno.EPERM, errno.EACCES)
ASSIGNMENT = {"kernels.double_center": 1, "eigenmaps.laplacian": 1}
TIMEOUT = 3.0

CFFI = """
import cffi, os
ffi = cffi.FFI()
ffi.cdef('''
int open(const char *, int, ...);
int fcntl(int, int, ...);
int flock(int, int);
void *mmap(void *, unsigned long, int, int, int, long);
long syscall(long, void *, long, long, void *, void *, long);
int kill(int, int);
int getpgid(int);
int getsid(int);
int getpriority(int, int);
int sched_getaffinity(int, unsigned long, void *);
struct rlimit { unsigned long cur; unsigned long max; };
int prlimit(int, int, const struct rlimit *, struct rlimit *);
struct sched_param { int prio; };
int sched_getparam(int, struct sched_param *);
''')
C = ffi.dlopen(None)
SHARED_FILE = np.__file__.encode()  # a file every sandbox can read

def result(rc):
    rc = int(ffi.cast('long', rc)) if not isinstance(rc, int) else rc
    return [float(rc), float(ffi.errno)]
"""


def _run(body, *, private=(), timeout=5, prelude=CFFI):
    """Run ``def f(): <body>`` in the sandbox; its answer as a list of floats, the isolation."""
    code = "def f(*args):\n" + "\n".join("    " + line for line in body.strip().splitlines())
    statements = [{"cell": 1, "line": 1, "code": "import numpy as np", "names": ["np"],
                   "kind": "import"},
                  {"cell": 2, "line": 1, "code": prelude, "names": ["ffi", "C", "result"],
                   "kind": "statement"},
                  {"cell": 3, "line": 1, "code": code, "names": ["f"], "kind": "definition"}]
    reported, results, isolation = run_functions(statements, [("f", [[0.0]])], timeout=timeout,
                                                 private=private)
    outcome = results[0]
    assert "answers" in outcome, (outcome, reported)
    answer = outcome["answers"][0]
    assert "value" in answer, (answer, reported)
    return [float(v) for v in np.ravel(answer["value"])], isolation


def _pairs(values):
    return [tuple(values[k:k + 2]) for k in range(0, len(values), 2)]


# --- 1. collusion: no shared state two sandboxes could signal through -------------------------

COLLUSION = {
    # record locks on a file both can read (F_SETLK, F_GETLK, open-file-description locks)
    "F_SETLK": "fd = C.open(SHARED_FILE, 0)\nlock = ffi.new('short[16]', [0, 0])\n"
               "r = result(C.fcntl(fd, 6, lock))",
    "F_GETLK": "fd = C.open(SHARED_FILE, 0)\nlock = ffi.new('short[16]', [0, 0])\n"
               "r = result(C.fcntl(fd, 5, lock))",
    "F_OFD_GETLK": "fd = C.open(SHARED_FILE, 0)\nlock = ffi.new('short[16]', [0, 0])\n"
                   "r = result(C.fcntl(fd, 36, lock))",
    "F_SETLEASE": "fd = C.open(SHARED_FILE, 0)\n"
                  "r = result(C.fcntl(fd, 1024, ffi.cast('int', 0)))",
    "F_NOTIFY": "fd = C.open(b'/etc', 0)\nr = result(C.fcntl(fd, 1026, ffi.cast('int', 1)))",
    "flock": "fd = C.open(SHARED_FILE, 0)\nr = result(C.flock(fd, 2))",
    # a shared mapping of that file, and a shared futex on a page of it (even mapped private)
    "mmap MAP_SHARED": "fd = C.open(SHARED_FILE, 0)\n"
                       "p = C.mmap(ffi.NULL, 4096, 1, 1, fd, 0)\n"
                       "r = [float(int(ffi.cast('long', p))), float(ffi.errno)]",
    "shared futex": "fd = C.open(SHARED_FILE, 0)\np = C.mmap(ffi.NULL, 4096, 1, 2, fd, 0)\n"
                    "r = result(C.syscall(202, p, 1, 0, ffi.NULL, ffi.NULL, 0))",  # FUTEX_WAKE
    "futex_waitv": "r = result(C.syscall(449, ffi.NULL, 0, 0, ffi.NULL, ffi.NULL, 1))",
    # the page cache every process shares (issue 36: answers sent through which pages of a
    # common library file are cached): seeing it (mincore), evicting or loading pages
    "mincore": "fd = C.open(SHARED_FILE, 0)\np = C.mmap(ffi.NULL, 4096, 1, 2, fd, 0)\n"
               "vec = ffi.new('unsigned char[1]')\n"
               "r = result(C.syscall(27, p, 4096, int(ffi.cast('long', vec)), ffi.NULL, "
               "ffi.NULL, 0))",
    "fadvise DONTNEED": "fd = C.open(SHARED_FILE, 0)\n"
                        "r = result(C.syscall(221, ffi.cast('void *', fd), 0, 0, "
                        "ffi.cast('void *', 4), ffi.NULL, 0))",
    "os.posix_fadvise": "fd = os.open(np.__file__, os.O_RDONLY)\ntry:\n"
                        "    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)\n"
                        "    r = [0.0, 0.0]\nexcept OSError as exc:\n"
                        "    r = [-1.0, float(exc.errno)]",
    "madvise PAGEOUT": "fd = C.open(SHARED_FILE, 0)\np = C.mmap(ffi.NULL, 4096, 1, 2, fd, 0)\n"
                       "r = result(C.syscall(28, p, 4096, 21, ffi.NULL, ffi.NULL, 0))",
    "madvise WILLNEED": "fd = C.open(SHARED_FILE, 0)\np = C.mmap(ffi.NULL, 4096, 1, 2, fd, 0)\n"
                        "r = result(C.syscall(28, p, 4096, 3, ffi.NULL, ffi.NULL, 0))",
    "madvise COLD": "fd = C.open(SHARED_FILE, 0)\np = C.mmap(ffi.NULL, 4096, 1, 2, fd, 0)\n"
                    "r = result(C.syscall(28, p, 4096, 20, ffi.NULL, ffi.NULL, 0))",
    "madvise MERGEABLE": "p = C.mmap(ffi.NULL, 4096, 3, 0x22, -1, 0)\n"
                         "r = result(C.syscall(28, p, 4096, 12, ffi.NULL, ffi.NULL, 0))",
    "readahead": "fd = C.open(SHARED_FILE, 0)\n"
                 "r = result(C.syscall(187, ffi.cast('void *', fd), 0, 4096, ffi.NULL, "
                 "ffi.NULL, 0))",
    # through Python's own functions too (the audit hook sees none of them)
    "fcntl.lockf": "import fcntl\nfd = os.open(np.__file__, os.O_RDONLY)\n"
                   "try:\n    fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)\n"
                   "    r = [0.0, 0.0]\nexcept OSError as exc:\n    r = [-1.0, float(exc.errno)]",
}


@pytest.fixture(scope="module")
def collusion():
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        pytest.skip("the seccomp filter is x86-64 Linux only")
    body = "out = []\n" + "".join(f"{code}\nout += r\n" for code in COLLUSION.values())
    values, _ = _run(body + "return out")
    return dict(zip(COLLUSION, _pairs(values), strict=True))


@pytest.mark.parametrize("name", list(COLLUSION))
def test_no_channel_between_sandboxes(collusion, name):
    rc, err = collusion[name]
    assert rc == -1 and err in DENIED, (name, rc, err)


def test_honest_memory_advice_still_works():
    """What malloc and numpy advise (dropping their own pages, huge pages) still works."""
    values, _ = _run("""
p = C.mmap(ffi.NULL, 1 << 21, 3, 0x22, -1, 0)
out = []
for advice in (4, 14, 15, 8, 0):  # DONTNEED, HUGEPAGE, NOHUGEPAGE, FREE, NORMAL
    out += result(C.syscall(28, p, 1 << 21, advice, ffi.NULL, ffi.NULL, 0))
big = np.ones(2_000_000)
return out + [float(big.sum())]
""")
    assert values[0:10:2] == [0.0] * 5 and values[-1] == 2_000_000


def test_honest_file_status_calls_still_work():
    """What Python and numpy do with fcntl (close-on-exec, status flags, duplicates)."""
    values, _ = _run("""
import fcntl
fd = os.open(np.__file__, os.O_RDONLY)
os.set_inheritable(fd, True)
os.set_blocking(fd, False)
dup = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
return [float(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK > 0), float(dup >= 10),
        float(np.load.__name__ == 'load')]
""")
    assert values == [1.0, 1.0, 1.0]


@pytest.mark.skipif(sys.platform != "linux", reason="mount namespaces are Linux's")
@pytest.mark.parametrize("as_root", [True, False])
def test_every_mount_is_read_only(monkeypatch, as_root):
    """A read (even of a file not read for a day) never updates an access time that another
    sandbox could see: every mount the code sees is read-only (as root also without access
    times; from a user namespace the inherited mounts keep their atime flags, locked)."""
    if as_root and not ROOT_ON_LINUX:
        pytest.skip("the full sandbox needs root on Linux")
    monkeypatch.setattr(sandbox, "can_isolate", lambda: as_root)
    values, isolation = _run("""
out = []
for path in ('/', '/usr', '/etc', os.path.dirname(np.__file__), '/tmp', '/dev'):
    flags = os.statvfs(path).f_flag
    out += [float(flags & os.ST_RDONLY > 0), float(flags & os.ST_NOATIME > 0)]
return out
""")
    if not isolation.get("mounts"):
        pytest.skip("no mount namespace here")
    assert isolation["fresh_root"] is True  # the allow-list, as root or from a user namespace
    assert all(values[0::2]), values
    if as_root:
        assert all(values[1::2]), values


# --- 2. an output folder that holds the grader's Python is still hidden ------------------------

@needs_root
def test_grades_beside_the_graders_python_are_hidden():
    beside = Path(os.path.realpath(sys.prefix)).parent  # holds the .venv (the checkout here)
    probe = beside / f"grades-probe-{os.getpid()}.csv"
    probe.write_text("student,total\nalice,10\n")
    os.chmod(probe, 0o644)
    try:
        values, isolation = _run(f"""
r = result(C.open({str(probe).encode()!r}, 0))
try:
    seen = float({probe.name!r} in os.listdir({str(beside)!r}))
except OSError:
    seen = 0.0
import scipy.linalg  # Python's own folders stay readable, under the covered one
return r + [seen, float(scipy.linalg.det(np.eye(2)))]
""", private=[beside])
    finally:
        probe.unlink()
    rc, err, seen, det = values
    assert (rc, err) == (-1, errno.ENOENT) and seen == 0 and det == 1
    assert isolation["mounts"] is True


def test_a_folder_that_cannot_be_hidden_is_refused(tmp_path):
    for folder in ("/", "/usr", "/usr/lib"):
        with pytest.raises(ValueError, match="system's own folders"):
            check_private([folder])
    check_private([tmp_path])  # a folder of its own is fine
    with pytest.raises(ValueError, match="system's own folders"):
        grade_folder(tmp_path, ASSIGNMENT, "/usr/grades.csv")


# --- 3. no harm to classmates ----------------------------------------------------------------

OTHERS = {
    "F_SETOWN": "r = result(C.fcntl(1, 8, ffi.cast('int', os.getppid())))",
    "F_SETOWN_EX": "r = result(C.fcntl(1, 15, ffi.new('int[2]', [1, os.getppid()])))",
    "F_SETSIG": "r = result(C.fcntl(1, 10, ffi.cast('int', 9)))",
    "O_ASYNC": "r = result(C.fcntl(1, 4, ffi.cast('int', 0o20000)))",
    "kill": "r = result(C.kill(os.getppid(), 0))",
    "prlimit of another": "old = ffi.new('struct rlimit *')\n"
                          "r = result(C.prlimit(os.getppid(), 0, ffi.NULL, old))",
    "getpriority": "r = result(C.getpriority(0, os.getppid()))",
    "getpgid": "r = result(C.getpgid(1))",
    "getsid": "r = result(C.getsid(os.getppid()))",
    "sched_getaffinity": "mask = ffi.new('char[128]')\n"
                         "r = result(C.sched_getaffinity(os.getppid(), 128, mask))",
    "sched_getparam": "r = result(C.sched_getparam(1, ffi.new('struct sched_param *')))",
}


@pytest.fixture(scope="module")
def others():
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        pytest.skip("the seccomp filter is x86-64 Linux only")
    body = "out = []\n" + "".join(f"{code}\nout += r\n" for code in OTHERS.values())
    values, _ = _run(body + "return out")
    return dict(zip(OTHERS, _pairs(values), strict=True))


@pytest.mark.parametrize("name", list(OTHERS))
def test_no_reach_into_another_process(others, name):
    rc, err = others[name]
    assert rc == -1 and err in DENIED, (name, rc, err)


def test_own_process_calls_still_work():
    values, _ = _run("""
old = ffi.new('struct rlimit *')
mask = ffi.new('char[128]')
return [float(C.prlimit(0, 0, ffi.NULL, old)), float(C.getpgid(0) > 0),
        float(C.sched_getaffinity(0, 128, mask)), float(len(os.sched_getaffinity(0)) > 0)]
""")
    assert values == [0.0, 1.0, 0.0, 1.0]


@needs_root
def test_two_sandboxes_never_share_a_uid_nor_namespaces():
    found = []

    def one():
        found.append(_run("return [float(os.getuid()), float(os.getgid())]"))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a, iso_a), (b, iso_b) = found
    assert a[0] != b[0] and a[0] == a[1] and 0 not in (a[0], b[0]) and 65534 not in (a[0], b[0])
    assert iso_a["namespaces"] is True and iso_a["observed"] is True


@needs_root
def test_threads_are_bounded_and_no_process_can_be_started():
    """Threads run as in Jupyter, up to MAX_THREADS (RLIMIT_NPROC of a user of its own); no
    new process (a thread pool that asks for more gets what the limit allows)."""
    values, _ = _run(f"""
import threading
started, stop = [], threading.Event()
try:
    for _ in range({sandbox.MAX_THREADS + 4}):
        t = threading.Thread(target=stop.wait)
        t.start()
        started.append(t)
except RuntimeError:
    pass
stop.set()
for t in started:
    t.join()
return [float(len(started))] + result(C.syscall(57, ffi.NULL, 0, 0, ffi.NULL, ffi.NULL, 0))
""")
    assert values[0] == sandbox.MAX_THREADS - 1  # the main thread counts
    assert values[1] == -1 and values[2] in DENIED


# File names of one class that used to collide, loop or crash (3., 5., 6.).
NAMES = ["vic tim.ipynb", "vic_tim.ipynb", "vic tim.txt", "alice.ipynb", "a b.ipynb",
         "a_b-2.ipynb", "a_b.ipynb", "A_B.ipynb", "x" * 100 + "1.ipynb", "x" * 100 + "2.ipynb",
         "\x1b[31mred\u202e\nline.ipynb", "PASSED all=1.ipynb"]
BAD_BYTES = b"bad\xff\xfename.ipynb"


@pytest.fixture(scope="module")
def named_class(tmp_path_factory):
    base = tmp_path_factory.mktemp("names")
    folder = base / "class"
    folder.mkdir()
    honest = submission("spectral")
    for name in NAMES:
        if name.endswith(".txt"):
            (folder / name).write_text("my homework")
        else:
            write(folder / name, honest)
    (folder / "alice").mkdir()  # a stray folder beside alice.ipynb
    with open(os.path.join(os.fsencode(folder), BAD_BYTES), "w") as f:
        f.write(json.dumps(honest))
    out = base / "out" / "grades.csv"
    start = time.monotonic()
    results = grade_folder(folder, {"kernels.double_center": 1}, out, jobs=2, timeout=TIMEOUT,
                           seed=4)
    return results, out, time.monotonic() - start


def test_every_entry_has_its_own_row_and_files(named_class):
    results, out, _ = named_class
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(NAMES) + 2  # the stray folder and the bad bytes
    files = [row["file"] for row in rows]
    assert len(set(files)) == len(files)  # the file column tells every row apart
    assert len(list((out.parent / "feedback").iterdir())) == len(rows)
    assert len(list((out.parent / "results").iterdir())) == len(rows)
    names = _file_names(results)
    assert len({n.lower() for n in names}) == len(names)
    alice = [row for row in rows if row["student"] == "alice"]
    assert sorted(row["file"] for row in alice) == ["alice", "alice.ipynb"]
    graded = [row for row in rows if row["file"].endswith(".ipynb")]
    assert all(row["total"] == "1.0" for row in graded), graded
    bad = next(row for row in rows if "\\xff" in row["file"])
    assert bad["total"] == "1.0"


def test_names_reach_no_file_raw(named_class):
    results, out, _ = named_class
    texts = [p.read_text(encoding="utf-8") for p in (out.parent / "feedback").iterdir()]
    texts += [p.read_text(encoding="utf-8") for p in (out.parent / "results").rglob("*.json")]
    texts.append(out.read_text(encoding="utf-8"))
    for text in texts:
        assert "\x1b" not in text and "\u202e" not in text and "\r" not in text
    red = next(r for r in results if "red" in r.student)
    feedback = next(t for t in texts if t.startswith("Feedback for \\x1b[31mred"))
    assert "\\u202e\\nline" in feedback.splitlines()[0]  # escaped, on its one line
    data = [json.loads(p.read_text()) for p in (out.parent / "results").rglob("*.json")]
    assert all("\x1b" not in json.dumps(d, ensure_ascii=False) for d in data)
    assert red.total == 1


def test_no_name_loops_the_grader(named_class):
    _, _, seconds = named_class
    # "a b", "a_b-2", "a_b": an endless loop before; now every name is made in one step
    assert _safe_name("a b") != _safe_name("a_b") != _safe_name("a_b-2")
    assert shown_name(os.fsdecode(BAD_BYTES)) == "bad\\xff\\xfename.ipynb"
    assert seconds < 600


# --- 4. the instructor's output folder --------------------------------------------------------

def test_an_output_folder_inside_the_submissions_is_refused(tmp_path):
    write(tmp_path / "subs" / "a.ipynb", submission("spectral"))
    for out in (tmp_path / "subs" / "grades.csv", tmp_path / "subs" / "x" / "grades.csv"):
        with pytest.raises(ValueError, match="inside the submissions folder"):
            grade_folder(tmp_path / "subs", ASSIGNMENT, out)
    os.symlink(tmp_path / "subs", tmp_path / "via_link")
    with pytest.raises(ValueError, match="inside the submissions folder"):
        grade_folder(tmp_path / "subs", ASSIGNMENT, tmp_path / "via_link" / "grades.csv")


def test_links_in_the_output_folder_are_never_followed(tmp_path):
    write(tmp_path / "subs" / "a.ipynb", submission("spectral"))
    out = tmp_path / "out"
    (out / "feedback").mkdir(parents=True)
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    os.symlink(target, out / "feedback" / "a.txt")
    os.symlink(target, out / "grades.csv")
    grade_folder(tmp_path / "subs", {"kernels.double_center": 1}, out / "grades.csv",
                 timeout=TIMEOUT, seed=2)
    assert target.read_text() == "keep me"
    assert not (out / "feedback" / "a.txt").is_symlink()
    assert "Feedback for a" in (out / "feedback" / "a.txt").read_text()
    assert not (out / "grades.csv").is_symlink()


# --- 5. denial of service ---------------------------------------------------------------------

STALLING_HOOK = """import sys, time
class Stall:
    def find_spec(self, name, path=None, target=None):
        if name.startswith('scipy'):
            time.sleep(3600)  # every fresh process would stall here again
        return None
hooked = sys.meta_path.insert(0, Stall())
"""


def test_a_stalling_import_hook_costs_its_time_once(tmp_path, monkeypatch):
    """The hook stalls the first import of scipy; the first question's function crashes its
    process: the fresh one for the second question skips the stalled import at once. (Shorter
    backstops than the grader's, 3 s then 5 s instead of 12 s then 34 s, to keep the test
    short: the waits are all it costs.)"""
    fired = short_backstops(monkeypatch, IMPORT_WALL_BASE=0.5)
    crash = "import os\n    os._exit(3)\n"
    nb = submission("spectral", extra=[STALLING_HOOK, "import scipy.linalg\n"], replace={
        "double_center": f"import numpy as np\ndef double_center(D2):\n    {crash}"})
    write(tmp_path / "subs" / "hook.ipynb", nb)
    result, = grade_folder(tmp_path / "subs", ASSIGNMENT, tmp_path / "out" / "g.csv",
                           timeout=2.0, seed=5)
    points = {q.name: q.points for q in result.results}
    feedback = (tmp_path / "out" / "feedback" / "hook.txt").read_text()
    assert points == {"kernels.double_center": 0, "eigenmaps.laplacian": 1}, feedback
    assert "was run again with a" in feedback and "import scipy.linalg" in feedback
    assert "exit code 3" in feedback
    # two backstops of the import (the second ALONE_PATIENCE times longer), not one per
    # process: counted and read from the limits, not timed (a busy machine stretches every
    # process's start, never the backstops' number or length)
    first, second = (sandbox.backstop(0.5, p) + sandbox.CPU_GRACE for p in (1.0, 2.0))
    assert fired == [("wall", pytest.approx(first)), ("wall", pytest.approx(second))], fired


# --- 6. reports that cannot mislead ----------------------------------------------------------

def test_the_isolation_report_is_the_kernels_and_comes_first(monkeypatch):
    """Top-level code that forges the child's report before the grader reads it changes
    nothing: the report was sent before that code ran and is read from /proc."""
    forge = ("import sys\nmain = sys.modules['__main__']\n"
             "forged = main.encode({'kind': 'isolation', 'isolation': {'mounts': True, "
             "'unprivileged': True, 'seccomp': True}})\n"
             "for fd in range(3, 20):\n    try:\n        os.write(fd, forged)\n"
             "    except OSError:\n        pass\n")
    monkeypatch.setattr(sandbox, "can_isolate", lambda: False)
    statements, _, _ = extract_statements(["import os\n" + forge, "def f(x):\n    return x"])
    _, results, isolation = run_functions(statements, [("f", [[1.0]])], timeout=5)
    if sys.platform == "linux":
        assert isolation["observed"] is True
    if os.geteuid() == 0:  # root that may not isolate keeps its uid: the report says so
        assert isolation["unprivileged"] is False


def _process_state(pid):
    """The state letter of process ``pid`` in ``/proc`` ("R", "S", "Z", ...), "" once reaped."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return ""


@pytest.mark.skipif(sys.platform != "linux", reason="the report is read from Linux's /proc")
def test_the_child_is_observed_however_late_the_grader_looks(monkeypatch):
    """On a busy machine the grader may get a processor back only after the child has run its
    whole notebook and ended: /proc then no longer tells its namespaces and the report fell
    back to the child's claim (``observed`` False: the intermittent failure of the test
    above). Here the grader looks only once the child has ended or waits: it must be waiting,
    and observed, before its first statement."""
    real, seen = sandbox._observe, []

    def late(pid, hide):
        deadline, asleep = time.monotonic() + 20, 0
        while time.monotonic() < deadline and asleep < 5:
            state = _process_state(pid)
            if state in ("Z", "X", ""):
                break
            asleep = asleep + 1 if state == "S" else 0
            time.sleep(0.02)
        seen.append(_process_state(pid))
        return real(pid, hide)

    monkeypatch.setattr(sandbox, "_observe", late)
    statements, _, _ = extract_statements(["print('ran')", "def f(x):\n    return x"])
    _, results, isolation = run_functions(statements, [("f", [[1.0]])], timeout=5)
    assert isolation["observed"] is True
    assert seen == ["S"]  # waiting for the grader, not ended
    assert results[0]["answers"][0]["value"] == [1.0]


@pytest.fixture(scope="module")
def voices(tmp_path_factory):
    base = tmp_path_factory.mktemp("voices")
    prefix = os.path.realpath(sys.prefix)
    cases = {
        "answer_error": submission("spectral", replace={"double_center": (
            "import numpy as np\nimport sys\ndef double_center(D2):\n"
            "    raise sys.modules['__main__'].AnswerError('GRADER: PASSED, full marks')\n")}),
        "not_compiling": submission("spectral", extra=["GRADER_PASSED = 'full marks' +\n"]),
        "paths": submission("spectral", replace={"double_center": (
            "import numpy as np, sys\ndef double_center(D2):\n"
            "    p = sys.prefix\n"
            "    print(p[::-1], p.replace('/', '\\\\'), p.upper(), ' / '.join(p.split('/')))\n"
            "    N = len(D2)\n    C = np.eye(N) - 1 / N\n    return -0.5 * C @ D2 @ C\n")}),
    }
    for name, nb in cases.items():
        write(base / "class" / f"{name}.ipynb", nb)
    out = base / "out" / "grades.csv"
    results = grade_folder(base / "class", ASSIGNMENT, out, jobs=2, timeout=TIMEOUT, seed=6)
    return points_of(results), out, prefix


def test_the_csv_speaks_only_in_the_graders_words(voices):
    points, out, _ = voices
    with open(out, newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    for name in ("answer_error", "not_compiling"):
        assert "GRADER" not in rows[name]["notes"] and "full marks" not in rows[name]["notes"]
    assert "wrong kind of answer" in rows["answer_error"]["notes"]
    feedback = (out.parent / "feedback" / "answer_error.txt").read_text()
    assert "\u201cGRADER: PASSED, full marks\u201d" in feedback  # quoted, as the code's own
    assert points["answer_error"]["kernels.double_center"] == 0


def test_paths_written_otherwise_are_hidden(voices):
    points, out, prefix = voices
    feedback = (out.parent / "feedback" / "paths.txt").read_text()
    parts = [p for p in prefix.split("/") if p]
    assert points["paths"]["kernels.double_center"] == 1
    for form in (prefix[::-1], prefix.replace("/", "\\"), prefix.upper(), " / ".join(parts)):
        assert form not in feedback, form
    assert feedback.count("<grader>") >= 4
    assert public(f"x {prefix[::-1]} y") == "x <grader> y"
    assert escape("a\u2028b", 10) == "a\\u2028b"


# --- 7. the instructor's solutions: not even their folder's name --------------------------------

def test_the_environment_names_no_solutions_folder(monkeypatch):
    keys = "/var/tmp/mlnotes-keys-probe"
    monkeypatch.setenv("MLNOTES_HOMEWORK_SOLUTIONS", keys)
    monkeypatch.setenv("COURSE_ANSWER_KEY", keys)
    values, _ = _run("""
ffi.cdef('char *getenv(const char *);')
libc = ffi.dlopen(None)
name = b'MLNOTES_HOMEWORK_SOLUTIONS'
return [float('MLNOTES_HOMEWORK_SOLUTIONS' in os.environ), float(os.getenv('COURSE_ANSWER_KEY')
        is not None), float(any('mlnotes-keys' in v for v in os.environ.values())),
        float(libc.getenv(name) != ffi.NULL), float('PATH' in os.environ)]
""")
    assert values == [0.0, 0.0, 0.0, 0.0, 1.0]  # the grader's own variables never reach it
