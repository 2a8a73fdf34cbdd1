"""What graded code may do to the machine: the sandboxed child runs as an unprivileged user with
no capabilities, in a session of its own, under a seccomp allow-list.

Each attack is a function run by :func:`mlnotes.homework.sandbox.run_functions` (what the grader
runs for every submission); it makes the system call through cffi (C code, which no audit hook
sees) and returns ``[return value, errno]``, so the test reads what the kernel said.
"""

import errno
import os
import shutil
import sys
import tempfile

import numpy as np
import pytest

from mlnotes.homework import sandbox
from mlnotes.homework.grader import isolation_warning
from mlnotes.homework.notebook import extract_statements
from mlnotes.homework.sandbox import can_isolate, run_functions

ROOT_ON_LINUX = can_isolate()
needs_root = pytest.mark.skipif(not ROOT_ON_LINUX, reason="the full sandbox needs root on Linux")
DENIED = (errno.EPERM, errno.EACCES)

CFFI = """
import cffi, os
ffi = cffi.FFI()
ffi.cdef('''
int open(const char *, int, int);
long read(int, void *, unsigned long);
int sethostname(const char *, unsigned long);
struct timeval { long tv_sec; long tv_usec; };
int settimeofday(const struct timeval *, const void *);
struct iovec { void *iov_base; unsigned long iov_len; };
long process_vm_readv(int, const struct iovec *, unsigned long, const struct iovec *,
                      unsigned long, unsigned long);
int acct(const char *);
int setpriority(int, int, int);
int sched_setaffinity(int, unsigned long, const void *);
int kill(int, int);
int socket(int, int, int);
int fork(void);
int setuid(int);
int getpgid(int);
int unshare(int);
int chroot(const char *);
''')
C = ffi.dlopen(None)

def result(rc):
    return [float(rc), float(ffi.errno)]
"""


def _run(body, args=(0.0,)):
    """Run ``def f(): <body>`` in the sandbox; the answer of its one case and the isolation."""
    code = "def f(*args):\n" + "\n".join("    " + line for line in body.strip().splitlines())
    statements = [{"cell": 1, "line": 1, "code": CFFI, "names": ["ffi", "C", "result"]},
                  {"cell": 2, "line": 1, "code": code, "names": ["f"]}]
    _, results, isolation = run_functions(statements, [("f", [list(args)])], timeout=5)
    outcome = results[0]
    assert "answers" in outcome, outcome
    answer = outcome["answers"][0]
    assert "value" in answer, answer
    return [float(v) for v in np.ravel(answer["value"])], isolation


@pytest.fixture(scope="module")
def secret():
    """A root-only file in a folder the sandbox shows (Python's own: the rest of the machine
    is not there at all)."""
    folder = tempfile.mkdtemp(dir=sys.prefix, prefix="mlnotes-test-")
    os.chmod(folder, 0o755)
    path = os.path.join(folder, "secret.txt")
    with open(path, "w") as f:
        f.write("the answers are 42")
    os.chmod(path, 0o600)
    yield path
    shutil.rmtree(folder)


@needs_root
def test_the_child_is_a_user_of_its_own_without_capabilities_in_its_own_session():
    (uid, gid, groups, sid, pgrp, pid), isolation = _run(
        "return [os.getuid(), os.getgid(), len(os.getgroups()), os.getsid(0), os.getpgrp(), "
        "os.getpid()]")
    assert uid == gid and uid > 2**30 and groups == 0  # a user of its own, no groups
    assert sid == pid and pgrp == pid  # its own session and process group
    assert isolation == {"mounts": True, "unprivileged": True, "seccomp": True,
                         "namespaces": True, "uid": uid, "observed": True, "fresh_root": True}


@needs_root
def test_a_root_only_file_cannot_be_read(secret):
    (rc, err), _ = _run(f"return result(C.open({secret!r}.encode(), 0, 0))")
    assert rc == -1 and err == errno.EACCES
    (rc, err), _ = _run(f"""
try:
    open({secret!r}).read()
    return [0.0, 0.0]
except PermissionError as exc:
    return [-1.0, float(exc.errno or 13)]
""")
    assert rc == -1 and err == errno.EACCES


CALLS = {
    "sethostname": "C.sethostname(b'owned', 5)",
    "settimeofday": "C.settimeofday(ffi.new('struct timeval *', [0, 0]), ffi.NULL)",
    "acct": "C.acct(b'/var/tmp/mlnotes-acct')",
    "setuid root": "C.setuid(0)",
    "unshare": "C.unshare(0x10000000)",  # CLONE_NEWUSER: a user namespace of its own
    "chroot": "C.chroot(b'/')",
    "socket": "C.socket(2, 1, 0)",
    "fork": "C.fork()",
    "kill the grader": "C.kill(os.getppid(), 0)",
}


@pytest.fixture(scope="module")
def escapes():
    """Every call of CALLS made by one sandboxed function: ``{name: (rc, errno)}``."""
    if not ROOT_ON_LINUX:
        pytest.skip("the full sandbox needs root on Linux")
    body = "return " + " + ".join(f"result({call})" for call in CALLS.values())
    values, _ = _run(body)
    return {name: tuple(values[2 * k:2 * k + 2]) for k, name in enumerate(CALLS)}


@pytest.mark.parametrize("name", list(CALLS))
def test_privileged_and_escaping_calls_fail(escapes, name):
    rc, err = escapes[name]
    assert rc == -1 and err in DENIED, (name, rc, err)
    assert not os.path.exists("/var/tmp/mlnotes-acct")


@needs_root
def test_the_grader_memory_cannot_be_read():
    secret = np.frombuffer(b"expected answers" * 4, dtype=np.uint8).copy()
    address = secret.ctypes.data
    (rc, err), _ = _run(f"""
buf = ffi.new('char[64]')
local = ffi.new('struct iovec *', [buf, 64])
remote = ffi.new('struct iovec *', [ffi.cast('void *', {address}), 64])
return result(C.process_vm_readv(os.getppid(), local, 1, remote, 1, 0))
""")
    assert rc == -1 and err in DENIED + (errno.ESRCH,)


@needs_root
def test_the_grader_priority_and_affinity_cannot_be_changed():
    me = os.getpid()
    nice, cpus = os.getpriority(os.PRIO_PROCESS, me), os.sched_getaffinity(me)
    (rc1, err1, rc2, err2, rc3, err3), _ = _run("""
mask = ffi.new('unsigned long *', 1)
return (result(C.setpriority(0, os.getppid(), 19))            # PRIO_PROCESS
        + result(C.setpriority(1, C.getpgid(os.getppid()), 19))  # PRIO_PGRP
        + result(C.sched_setaffinity(os.getppid(), 8, mask)))
""")
    assert (rc1, rc2, rc3) == (-1, -1, -1)
    assert {err1, err2, err3} <= set(DENIED) | {errno.ESRCH}
    assert os.getpriority(os.PRIO_PROCESS, me) == nice
    assert os.sched_getaffinity(me) == cpus


def test_without_root_the_grader_says_what_is_missing(monkeypatch):
    """Not root: the course's files are still hidden from a user namespace (where the kernel
    allows one), the seccomp filter still holds, and the warning says what is missing."""
    monkeypatch.setattr(sandbox, "can_isolate", lambda: False)
    kernels = os.path.join(os.path.dirname(sandbox.MLNOTES_DIR), "mlnotes", "kernels.py")
    (uid, rc, err), isolation = _run(
        f"return [os.getuid()] + result(C.open({kernels!r}.encode(), 0, 0))")
    assert isolation["seccomp"] is (sys.platform == "linux" and os.uname().machine == "x86_64")
    if isolation["mounts"]:  # hidden by an empty file system
        assert rc == -1 and err == errno.ENOENT
    if os.geteuid() == 0:  # root that may not isolate keeps its uid: the warning must say so
        assert isolation["unprivileged"] is False and uid == 0
        assert "unprivileged user" in isolation_warning(isolation)
    assert "throwaway container" in isolation_warning({"mounts": False, "unprivileged": True,
                                                       "seccomp": True})
    assert isolation_warning({"mounts": True, "unprivileged": True, "seccomp": True}) == ""


@pytest.mark.skipif(sys.platform != "linux", reason="seccomp is Linux only")
def test_the_seccomp_filter_assembles_and_allows_only_its_list():
    from mlnotes.homework import _child

    code, length = _child._assemble(_child._bpf_program(1234))
    assert length == len(code) // 8 and length < 4096  # the kernel's limit on a filter
    for denied in ("setuid", "sethostname", "settimeofday", "acct", "setpriority",
                   "sched_setaffinity", "process_vm_readv", "ptrace", "socket", "fork",
                   "execve", "mount", "unshare", "kill"):
        assert denied not in _child._ALLOWED


def test_honest_code_still_imports_and_plots_as_nobody():
    """The sandbox must not cost an honest notebook its usual imports: scipy, scikit-learn,
    matplotlib (whose cache folder it insists on writing) and the standard library."""
    code = """
import statistics
import matplotlib
import matplotlib.pyplot as plt
import scipy.linalg
import sklearn.decomposition
def f(x):
    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4])
    fig.canvas.draw()
    w = scipy.linalg.eigh(np.diag([1.0, 2.0]))[0]
    Z = sklearn.decomposition.PCA(1).fit_transform(np.eye(4))
    return [float(w.sum()), float(Z.shape[0]), float(statistics.mean([1, 3]))]
"""
    statements, _, _ = extract_statements(["import numpy as np", code])
    reported, results, _ = run_functions(statements, [("f", [[0.0]])], timeout=10)
    assert not reported, reported
    assert results[0]["answers"][0]["value"].tolist() == [3.0, 4.0, 2.0]
