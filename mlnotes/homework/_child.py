"""The untrusted side of the grader: runs one student's functions and sends back plain numbers.

This file is executed as a script (``python -I -B _child.py CONFIG``) by
:mod:`mlnotes.homework.sandbox` in a fresh process, a new session and a temporary working
directory. It imports nothing from mlnotes (it is loaded by path, and the parent's
:mod:`mlnotes.homework.core` imports :func:`to_plain` from here so that both sides convert answers
the same way). In order, it

1. lowers its own limits: CPU seconds, address space, file size, open files;
2. imports numpy, reads its inputs, covers the folders it must not read (mlnotes, the course's
   solutions and tests, the submissions, the temporary folder, /proc, /dev) with empty file
   systems in a mount namespace of its own (where it may: root with CAP_SYS_ADMIN), and has the
   kernel confine it (a seccomp filter, x86-64 Linux): no new processes (threads remain
   possible), no opening a file for writing, no deleting, renaming, linking or chmod-ing, no
   signals to other processes, no sockets, no raising its limits, no mounts, namespaces, ptrace
   or io_uring. This binds whatever code runs, C code reached through an FFI included. Answers
   go to the result pipe (a file descriptor the parent created); ``sys.stdout`` and
   ``sys.stderr`` become buffers that keep only the first characters;
3. blocks ``mlnotes`` (a meta-path finder that refuses it, every ``mlnotes`` module removed from
   ``sys.modules``, and an audit hook that refuses to import it or open its files), and installs an
   audit hook that refuses, with a readable message, what graded code never needs: reading the
   course's files (solutions, tests, other submissions), writing files, starting processes,
   signalling other processes, sockets, ctypes, walking the garbage collector (the hidden
   folders and the kernel filter are the backstop for what the hook cannot see);
4. executes the submission's definitions, statement by statement (a failing statement is
   reported, not fatal), then for each question calls the function on the inputs the parent
   wrote (``inputs_<i>.npz``, loaded without pickle) and writes one framed JSON message per
   question to the pipe: the values as nested lists of floats, or the error.

Nothing the child says is a verdict: the parent compares the numbers itself, so a forged message
can at most claim an answer, which is then checked like any other. Where no mount namespace is
available, only the audit hook guards reads (C code reached through an FFI could read past it,
though not write, start a process or talk to the network); at class scale, run the grader inside
the container your grading platform provides (Gradescope does) as well.
"""

import json
import os
import sys

# Process limits (the parent passes the budget; these are the fixed ones).
MAX_FILE_BYTES = 16 * 2**20
MAX_OPEN_FILES = 64
# Characters of printed output kept for the feedback; the rest is counted and dropped.
KEPT_OUTPUT = 500
# Numbers in one answer (a 1000 x 1000 matrix and change); no question needs more.
MAX_ANSWER_SIZE = 2_000_000
BLOCKED_PACKAGE = "mlnotes"  # always blocked; an instructor may block more (e.g. sklearn)


def blocked_message(package):
    return (f"importing {package} is blocked while grading: the graded functions must be your "
            "own implementation (use numpy/scipy)")
FORBIDDEN_EVENTS = frozenset({
    "os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
    "os.forkpty", "os.kill", "os.killpg", "signal.pthread_kill", "resource.setrlimit",
    "resource.prlimit", "os.startfile", "pty.spawn", "webbrowser.open", "urllib.Request",
    "http.client.connect", "ftplib.connect", "smtplib.connect", "sys._current_frames",
})
FORBIDDEN_PREFIXES = ("ctypes.", "socket.", "gc.get_", "_posixsubprocess.")
FILE_EVENTS = frozenset({
    "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.link",
    "os.symlink", "os.truncate", "os.utime", "os.chflags", "os.setxattr", "os.removexattr",
    "shutil.rmtree", "shutil.copyfile", "shutil.copymode", "shutil.copystat", "shutil.move",
    "os.mkfifo", "os.mknod",
})


class AnswerError(ValueError):
    """The answer does not have the form the question asks for (the message says what it has)."""


def to_plain(value, depth=0):
    """Convert a function's return value to JSON-able plain data (lists of floats, no objects).

    Runs next to the student's code (it may run their ``__array__``); whatever it produces is
    just numbers, which the trusted side rebuilds with ``core.from_plain``. A sparse matrix
    becomes ``{"sparse": [shape, rows, cols, values]}`` so that "no entry" survives the trip.
    """
    import numpy as np

    if depth > 3:
        raise AnswerError("the answer is nested too deeply; return arrays or a tuple of arrays")
    if isinstance(value, (tuple, list)) and not all(
        isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in value
    ):
        return [to_plain(v, depth + 1) for v in value]
    if hasattr(value, "tocoo") and hasattr(value, "shape"):  # a scipy.sparse matrix or array
        coo = value.tocoo()
        shape = [int(s) for s in coo.shape]
        rows = np.array(coo.row, dtype=np.int64).tolist()
        cols = np.array(coo.col, dtype=np.int64).tolist()
        vals = np.array(coo.data, dtype=np.float64).tolist()
        if len(vals) > MAX_ANSWER_SIZE:
            raise AnswerError("the answer has more numbers than any question needs")
        return {"sparse": [shape, rows, cols, vals]}
    try:
        arr = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError) as exc:
        raise AnswerError(
            f"the answer ({type(value).__name__}) is not a number or an array of numbers: {exc}"
        ) from None
    if arr.size > MAX_ANSWER_SIZE:
        raise AnswerError(f"the answer has {arr.size} numbers, more than any question needs")
    return arr.view(np.ndarray).tolist()


def call_plain(func, args):
    """Call ``func(*args)``; return ``{"value": plain}`` or ``{"error": text, "type": name}``."""
    try:
        return {"value": to_plain(func(*args))}
    except AnswerError as exc:
        return {"error": str(exc), "type": "AnswerError"}
    except MemoryError:
        return {"error": "ran out of memory", "type": "MemoryError"}
    except RecursionError:
        return {"error": "maximum recursion depth exceeded", "type": "RecursionError"}
    except SystemExit as exc:
        return {"error": f"the code called sys.exit({exc.code!r})", "type": "SystemExit"}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - any failure of student code is reported
        return {"error": _short(str(exc)), "type": type(exc).__name__}


def _short(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + " ..."


class _CappedText:
    """A text stream that keeps the first ``KEPT_OUTPUT`` characters and counts the rest."""

    def __init__(self):
        self.kept, self.dropped = [], 0
        self._size = 0

    def write(self, text):
        text = str(text)
        room = KEPT_OUTPUT - self._size
        if room > 0:
            self.kept.append(text[:room])
            self._size += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def take(self):
        text = "".join(self.kept)
        if self.dropped:
            text += f"\n... ({self.dropped} more characters of output dropped)"
        self.kept, self.dropped, self._size = [], 0, 0
        return text


# --- the child's own steps ------------------------------------------------------------------------

def _limit(memory_mb, cpu_seconds):
    import resource

    mem = int(memory_mb) * 2**20
    cpu = int(cpu_seconds)
    for which, soft, hard in (
        (resource.RLIMIT_AS, mem, mem),
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_FSIZE, MAX_FILE_BYTES, MAX_FILE_BYTES),
        (resource.RLIMIT_NOFILE, MAX_OPEN_FILES, MAX_OPEN_FILES),
        (resource.RLIMIT_CORE, 0, 0),
    ):
        resource.setrlimit(which, (soft, hard))


# mount(2) and unshare(2) flags
_CLONE_NEWNS = 0x00020000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REC, _MS_PRIVATE = 0x4000, 1 << 18


def _hide(dirs):
    """Cover ``dirs`` with empty read-only file systems, in a mount namespace of our own.

    What the audit hook cannot stop (C code reading a file through an FFI) finds nothing there:
    mlnotes, the solutions, the other submissions, /proc and /dev. Needs CAP_SYS_ADMIN (root in
    most containers); returns whether it worked (without it, the audit hook alone guards reads).
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNS) != 0:
        return False
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return False
    flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    hidden = [libc.mount(b"tmpfs", os.fsencode(d), b"tmpfs", flags, b"size=4k") == 0
              for d in dirs]
    return all(hidden)


def _confine():
    """From here on the kernel refuses new processes, file changes and escapes; threads work.

    RLIMIT_NPROC = 0 stops fork for ordinary users (not for root). The seccomp filter of
    :func:`_seccomp_filter` binds everyone, whatever the code calls: the audit hook sees only
    Python's own functions, not ``_posixsubprocess.fork_exec`` called directly nor C code reached
    through an FFI such as cffi. Returns whether the filter is in place (x86-64 Linux only;
    elsewhere the audit hook and the limits remain).
    """
    import resource

    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    except (ValueError, OSError):
        pass
    return _seccomp_filter()


# --- the seccomp filter (x86-64 system call numbers) ------------------------------------------------
# Refused with EPERM: new processes, changes to the file system, signals to other processes, raising
# resource limits, sockets, mounts and namespaces, reaching into other processes, io_uring (which
# would open files past this filter), kernel modules.
_DENIED = {
    "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "creat": 85, "truncate": 76,
    "ftruncate": 77, "rename": 82, "renameat": 264, "renameat2": 316, "mkdir": 83, "mkdirat": 258,
    "rmdir": 84, "link": 86, "linkat": 265, "unlink": 87, "unlinkat": 263, "symlink": 88,
    "symlinkat": 266, "chmod": 90, "fchmod": 91, "fchmodat": 268, "chown": 92, "fchown": 93,
    "lchown": 94, "fchownat": 260, "mknod": 133, "mknodat": 259, "utime": 132, "utimes": 235,
    "utimensat": 280, "futimesat": 261, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190,
    "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "kill": 62, "tkill": 200,
    "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297, "pidfd_send_signal": 424,
    "pidfd_getfd": 438, "setrlimit": 160, "prlimit64": 302, "socket": 41, "ptrace": 101,
    "process_vm_writev": 311, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
    "unshare": 272, "setns": 308, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "open_by_handle_at": 304, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "kexec_load": 246, "reboot": 169, "bpf": 321, "swapon": 167,
    "swapoff": 168,
}
_NO_SUCH_CALL = {"clone3": 435, "openat2": 437}  # ENOSYS: libc falls back to clone / openat
_CLONE, _OPEN, _OPENAT = 56, 2, 257
_X32_BIT = 0x40000000
_CLONE_THREAD = 0x00010000
# O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND: an open that could change a file
_WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000
_AUDIT_ARCH_X86_64 = 0xC000003E
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_EPERM, _EACCES, _ENOSYS = 1, 13, 38
# BPF opcodes: load a word of seccomp_data, jumps on ==, >=, & (with a constant), return
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
# seccomp_data offsets: system call number, architecture, the low words of args[0..2]
_AT_NR, _AT_ARCH, _AT_ARG = 0, 4, (16, 24, 32)


def _bpf_program():
    """The filter as rows ``(label, opcode, constant, jump-if-true, jump-if-false)``."""
    def row(code, k, yes=None, no=None, label=None):
        return (label, code, k, yes, no)

    return [
        row(_LD, _AT_ARCH), row(_JEQ, _AUDIT_ARCH_X86_64, no="allow"),  # another ABI: no filter
        row(_LD, _AT_NR), row(_JGE, _X32_BIT, yes="deny"),
        row(_JEQ, _CLONE, yes="clone"), row(_JEQ, _OPEN, yes="open"),
        row(_JEQ, _OPENAT, yes="openat"),
        *(row(_JEQ, nr, yes="nosys") for nr in _NO_SUCH_CALL.values()),
        *(row(_JEQ, nr, yes="deny") for nr in _DENIED.values()),
        row(_RET, _RET_ALLOW),  # any other call
        # BPF jumps only forward: the argument checks, then the verdicts
        row(_LD, _AT_ARG[0], label="clone"), row(_JSET, _CLONE_THREAD, "allow", "deny"),
        row(_LD, _AT_ARG[1], label="open"), row(_JSET, _WRITE_FLAGS, "eacces", "allow"),
        row(_LD, _AT_ARG[2], label="openat"), row(_JSET, _WRITE_FLAGS, "eacces", "allow"),
        row(_RET, _RET_ALLOW, label="allow"),
        row(_RET, _RET_ERRNO | _EPERM, label="deny"),
        row(_RET, _RET_ERRNO | _ENOSYS, label="nosys"),
        row(_RET, _RET_ERRNO | _EACCES, label="eacces"),
    ]


def _assemble(rows):
    """Resolve the labels into relative jumps and pack them as ``struct sock_filter``."""
    import struct

    where = {label: i for i, (label, *_) in enumerate(rows) if label}
    packed = b"".join(
        struct.pack("HBBI", code, *(0 if j is None else where[j] - (i + 1) for j in (yes, no)), k)
        for i, (_, code, k, yes, no) in enumerate(rows))
    return packed, len(rows)


def _seccomp_filter():
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return False
    code, length = _assemble(_bpf_program())
    buffer = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(length, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                           ctypes.c_ulong]
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0


def _blocked_package(name, packages):
    """The blocked package that module ``name`` belongs to, or None."""
    return next((p for p in packages if name == p or name.startswith(p + ".")), None)


class _RefuseBlocked:
    """A meta-path finder that refuses the blocked packages and their submodules."""

    def __init__(self, packages, record):
        self._packages, self._record = packages, record

    def find_spec(self, name, path=None, target=None):
        package = _blocked_package(name, self._packages)
        if package:
            self._record.append(package)
            raise ImportError(blocked_message(package))
        return None


def _install_guard(tmp, packages, blocked_dirs, private, record):
    """Block ``packages`` and install the audit hook (it cannot be removed once added).

    ``blocked_dirs`` hold mlnotes (an attempt is recorded for the feedback, as an import of a
    blocked package is); ``private`` are path prefixes that graded code may not even read: the
    course's solutions and tests, the other submissions, the other sandboxes' directories.
    """
    packages = tuple(packages)
    for name in [m for m in sys.modules if _blocked_package(m, packages)]:
        del sys.modules[name]
    sys.meta_path.insert(0, _RefuseBlocked(packages, record))

    realpath, fsdecode, sep = os.path.realpath, os.fsdecode, os.sep
    tmp_root = realpath(tmp) + sep
    blocked = tuple(realpath(d) + sep for d in blocked_dirs)
    private = tuple(private)
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def resolve(path):
        if isinstance(path, int):
            return None
        try:
            return realpath(fsdecode(path))
        except (TypeError, ValueError):
            return ""

    def in_tmp(p):
        return p is None or (p + sep).startswith(tmp_root)

    def hook(event, args):
        if event == "import":
            package = _blocked_package(str(args[0]), packages)
            if package:
                record.append(package)
                raise ImportError(blocked_message(package))
        elif event == "open":
            p = resolve(args[0])
            if p is None:
                return
            if in_tmp(p):
                return
            if (p + sep).startswith(blocked):
                record.append(BLOCKED_PACKAGE)
                raise PermissionError(blocked_message(BLOCKED_PACKAGE))
            if (p + sep).startswith(private):
                raise PermissionError("reading the course's files (solutions, tests, other "
                                      "submissions) is not allowed while grading")
            mode, flags = args[1], args[2] if len(args) > 2 else 0
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & write_flags)
            if writing:
                raise PermissionError("writing files outside the grader's temporary directory "
                                      "is not allowed")
            if p.startswith("/proc/") and not p.startswith("/proc/self/"):
                raise PermissionError("reading other processes' /proc entries is not allowed")
            if os.path.isdir(p):  # a folder's descriptor would open files past this hook (dir_fd)
                raise PermissionError("opening folders outside the grader's temporary directory "
                                      "is not allowed")
        elif event in FILE_EVENTS:
            for a in args:
                if isinstance(a, (str, bytes, os.PathLike)) and not in_tmp(resolve(a)):
                    raise PermissionError(f"{event} outside the grader's temporary directory "
                                          "is not allowed")
        elif event in FORBIDDEN_EVENTS or event.startswith(FORBIDDEN_PREFIXES):
            raise PermissionError(f"{event} is not allowed while grading")

    sys.addaudithook(hook)


def _send(out, message):
    data = json.dumps(message, allow_nan=True).encode()
    out.write(len(data).to_bytes(4, "big") + data)
    out.flush()


def _run_statements(source, namespace):
    """Execute each top-level statement on its own; return notes on those that failed."""
    import ast

    notes = []
    for node in ast.parse(source).body:
        code = compile(ast.Module(body=[node], type_ignores=[]), "<submission>", "exec")
        outcome = call_plain(lambda c=code: exec(c, namespace), [])  # noqa: S102
        if "error" in outcome:
            first = ast.unparse(node).splitlines()[0]
            notes.append(f"`{_short(first, 80)}` failed: {outcome['type']}: {outcome['error']}")
    return notes


def main(config_path):
    with open(config_path) as f:
        config = json.load(f)
    _limit(config["memory_mb"], config["cpu_seconds"])
    import numpy as np

    out = os.fdopen(config["fd"], "wb")
    tmp = config["tmp"]
    with open(os.path.join(tmp, config["source"])) as f:
        source = f.read()
    inputs = []
    for i in range(config["start"], len(config["functions"])):
        with np.load(os.path.join(tmp, f"inputs_{i}.npz"), allow_pickle=False) as data:
            inputs.append((i, _cases_from_npz(data)))
    _hide(config["hide"])
    _confine()
    captured = _CappedText()
    sys.stdout = sys.stderr = captured
    record = []
    _install_guard(tmp, [BLOCKED_PACKAGE, *config["block"]], config["blocked_dirs"],
                   config["private"], record)

    namespace = {"__name__": "submission", "__builtins__": __builtins__}
    notes = _run_statements(source, namespace)
    _send(out, {"kind": "ready", "notes": notes, "blocked": sorted(set(record)),
                "output": captured.take()})
    for i, cases in inputs:
        seen = len(record)
        func = namespace.get(config["functions"][i])
        if not callable(func):
            answers = [{"error": "missing", "type": "<missing>"}] * len(cases)
        else:
            answers = [call_plain(func, args) for args in cases]
        _send(out, {"kind": "answer", "q": i, "answers": answers,
                    "blocked": sorted(set(record[seen:])),
                    "output": captured.take()})
    out.close()
    os._exit(0)


def _cases_from_npz(data):
    """``c<case>_a<arg>`` arrays -> a list of argument lists (0-d arrays become Python scalars)."""
    cases = {}
    for key in data.files:
        c, a = key[1:].split("_a")
        arr = data[key]
        cases.setdefault(int(c), {})[int(a)] = arr.item() if arr.ndim == 0 else arr
    return [[args[k] for k in sorted(args)] for _, args in sorted(cases.items())]


if __name__ == "__main__":
    main(sys.argv[1])
