"""The untrusted side of the grader: runs one student's functions and sends back plain numbers.

This file is executed as a script (``python -I -B _child.py CONFIG``) by
:mod:`mlnotes.homework.sandbox` in a fresh process, a new session and a temporary working
directory. It imports nothing from mlnotes (it is loaded by path, and the parent's
:mod:`mlnotes.homework.core` imports :func:`to_plain` from here so that both sides convert answers
the same way). In order, it

1. lowers its own limits: CPU seconds, address space, file size, open files;
2. imports numpy and reads its inputs, then, while still root (the grader runs as root in a
   container): enters namespaces of its own (mounts, IPC, network, host name) and moves into a
   fresh root built from bind mounts that holds only the allow-list of
   :mod:`mlnotes.homework.view` (the system's folders, Python and its packages, the
   submission's own folder, all read-only without access times; a private writable scratch and
   ``/dev/shm``): :func:`_fresh_root`. Where that cannot be done, the folders it must not read
   are covered by empty file systems instead (:func:`_cover`). It then empties its capability
   bounding set and becomes a user of its own (uid/gid :data:`SANDBOX_UID_BASE` + its pid, no
   supplementary groups, no capabilities, a bounded number of threads); sets ``no_new_privs``
   and a seccomp ALLOW-list (x86-64 Linux): memory, reading files (writing them only in the
   fresh root, where the scratch alone is writable), time, signals to itself, a few ``fcntl``,
   ``ioctl`` and ``madvise`` requests, calls that name a process on itself only, and nothing
   else (no new processes, no sockets, no record locks, no shared mappings of files, no shared
   futexes, no view of the page cache, no other processes, no clock, host name, accounting,
   priorities or affinity). This binds whatever code runs, C code
   reached through an FFI included. The parent started it in a session and process group of its
   own. It then says what holds (``isolation``, the first message, before any of the
   submission runs; the parent checks it in ``/proc``, and this process waits until the parent
   says it has, on a second pipe it then closes). Answers go to the result pipe (a file
   descriptor the parent created); ``sys.stdout`` and ``sys.stderr`` become buffers that keep
   only the first characters, and warnings are printed without file paths;
3. blocks ``mlnotes`` (a meta-path finder that refuses it, every ``mlnotes`` module removed from
   ``sys.modules``, and an audit hook that refuses to import it or open its files), and installs an
   audit hook that refuses, with a readable message, what graded code never needs (the hook is a
   courtesy that explains; the kernel's limits above are the defence);
4. executes the submission's statements one by one, each compiled on its own (one that does not
   compile or fails costs only the functions it defines) with a share of CPU time and a
   wall-clock backstop (:class:`_Timers`), then for each question calls the
   function on the inputs the parent wrote (``inputs_<i>.npz``, loaded without pickle) and sends
   one frame per question (:func:`encode`: a small JSON header and the numbers as raw float64).

Nothing the child says is a verdict: the parent compares the numbers itself, so a forged message
can at most claim an answer, which is then checked like any other. What holds where (root or
not, Linux x86-64 or not) is reported to the parent (``isolation``) and written down in the
README's "Homework checking" section.
"""

import json
import os
import signal
import sys

# Process limits (the parent passes the budget; these are the fixed ones).
MAX_FILE_BYTES = 16 * 2**20
MAX_OPEN_FILES = 64
# Characters of printed output kept for the feedback; the rest is counted and dropped.
KEPT_OUTPUT = 500
# Numbers in one answer (a 1000 x 1000 matrix); no question needs more.
MAX_ANSWER_SIZE = 1_000_000
# A tuple answer has at most this many outputs; arrays at most this many dimensions.
MAX_OUTPUTS = 8
MAX_DIMS = 4
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


class _Ragged(AnswerError):
    """A sequence whose items have different shapes: a tuple of several outputs, perhaps."""


# numpy dtype kinds that are numbers a question can take: float, signed and unsigned integers
_REAL_KINDS = "fiu"
_KIND_NAMES = {
    "c": "complex numbers; return real numbers (take .real only once you know the imaginary "
         "part is rounding noise)",
    "b": "booleans (True/False), not numbers",
    "O": "Python objects (dtype object), not an array of numbers",
    "U": "text, not numbers", "S": "bytes, not numbers", "V": "structured records, not numbers",
    "M": "dates, not numbers", "m": "time spans, not numbers",
}


def _real_array(value):
    """``value`` as an owned, plain float64 ndarray, or an :class:`AnswerError` saying what it is.

    Complex, boolean, object and text answers are refused outright (converting them would drop
    an imaginary part or turn True into 1.0 silently, with a warning naming numpy's files).
    """
    import warnings

    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        raise AnswerError(f"the answer is {bool(value)!r}, a boolean, not a number")
    if isinstance(value, complex):
        raise AnswerError("the answer is a complex number; return a real number")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            arr = np.array(value, copy=True)
        except ValueError as exc:
            if isinstance(value, (list, tuple)) and "inhomogeneous" in str(exc):
                raise _Ragged("the answer's items have different shapes") from None
            raise AnswerError(f"the answer ({type(value).__name__}) is not a number or an array "
                              f"of numbers: {_short(exc, 120)}") from None
        except Exception as exc:  # noqa: BLE001 - whatever the object raises, it is not numbers
            raise AnswerError(f"the answer ({type(value).__name__}) is not a number or an array "
                              f"of numbers: {_short(exc, 120)}") from None
    if not isinstance(arr, np.ndarray):
        raise AnswerError(f"the answer ({type(value).__name__}) is not an array of numbers")
    if arr.dtype.kind not in _REAL_KINDS:
        raise AnswerError(
            f"the answer holds {_KIND_NAMES.get(arr.dtype.kind, arr.dtype.name)}")
    if arr.size > MAX_ANSWER_SIZE:
        raise AnswerError(f"the answer has {arr.size} numbers, more than any question needs "
                          f"(at most {MAX_ANSWER_SIZE})")
    if arr.ndim > MAX_DIMS:
        raise AnswerError(f"the answer has {arr.ndim} dimensions; no question needs more than "
                          f"{MAX_DIMS}")
    return np.array(arr, dtype=np.float64, order="C").view(np.ndarray)  # 0-d stays 0-d


def to_plain(value, depth=0):
    """Convert a function's return value to plain data: lists, float64 ndarrays, sparse dicts.

    Runs next to the student's code (it may run their ``__array__``); what it produces holds only
    numbers: owned ``float64`` arrays of the base ndarray class, in lists for a tuple answer. A
    sparse matrix becomes ``{"sparse": [shape, rows, cols, values]}`` so that "no entry" survives
    the trip. Crossing the sandbox's pipe, the arrays travel as raw bytes (:func:`encode`).
    """
    import numpy as np

    if depth > 3:
        raise AnswerError("the answer is nested too deeply; return arrays or a tuple of arrays")
    numbers = (int, float, np.number)
    if isinstance(value, (tuple, list)) and not all(
            isinstance(v, numbers) and not isinstance(v, (bool, np.bool_)) for v in value):
        # rows of one array, or a tuple of several outputs (of different shapes)
        if isinstance(value, list) or not any(_is_output(v) for v in value):
            try:
                return _real_array(value)
            except _Ragged:
                pass
        if len(value) > MAX_OUTPUTS:
            raise AnswerError(f"the answer is a sequence of {len(value)} things of different "
                              "shapes; return an array or a tuple of a few arrays")
        return [to_plain(v, depth + 1) for v in value]
    if hasattr(value, "tocoo") and hasattr(value, "shape"):  # a scipy.sparse matrix or array
        try:
            coo = value.tocoo()
            shape = [int(s) for s in coo.shape]
            parts = [np.array(coo.row, dtype=np.int64), np.array(coo.col, dtype=np.int64),
                     _real_array(coo.data)]
        except AnswerError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise AnswerError(f"the sparse answer could not be read: {_short(exc, 120)}") from None
        if len(shape) != 2 or parts[2].size > MAX_ANSWER_SIZE:
            raise AnswerError("the sparse answer is not a matrix of a size any question needs")
        rows, cols, vals = (np.array(a, dtype=np.float64).ravel() for a in parts)
        return {"sparse": [shape, rows, cols, vals]}
    return _real_array(value)


def _is_output(value):
    """Whether ``value`` is an output of its own in a tuple (an array, a matrix), not a row."""
    return hasattr(value, "shape") or hasattr(value, "tocoo")


def call_plain(func, args, *, catch_interrupt=True):
    """Call ``func(*args)``; return ``{"value": plain}`` or ``{"error": text, "type": name}``.

    ``catch_interrupt=False`` (the student's own notebook) lets a real Ctrl-C through; in the
    sandbox a ``KeyboardInterrupt`` can only come from the code itself and is its answer.
    """
    try:
        return {"value": to_plain(func(*args))}
    except AnswerError as exc:
        return {"error": str(exc), "type": "AnswerError"}
    except MemoryError:
        return {"error": "ran out of memory", "type": "MemoryError"}
    except RecursionError:
        return {"error": "maximum recursion depth exceeded", "type": "RecursionError"}
    except SystemExit as exc:
        return {"error": f"the code called sys.exit({_short(repr(exc.code), 80)})",
                "type": "SystemExit"}
    except KeyboardInterrupt:
        if not catch_interrupt:
            raise
        return {"error": "the code raised KeyboardInterrupt itself (nobody pressed Ctrl-C)",
                "type": "KeyboardInterrupt"}
    except BaseException as exc:  # noqa: BLE001 - any failure of student code is reported
        return {"error": _short(_safe_str(exc)), "type": _short(_type_name(exc), 60)}


def _safe_str(exc):
    try:
        return str(exc)
    except BaseException:  # noqa: BLE001 - an exception whose __str__ fails
        return "(the error's message could not be shown)"


def _type_name(exc):
    name = type(exc).__name__
    return name if isinstance(name, str) else "an exception"


# --- the wire format: one frame per message --------------------------------------------------------
# A frame is a 4-byte header length, a 4-byte body length, a JSON header (text, structure, shapes)
# and a body of raw float64 numbers. The parent bounds both lengths before reading either, and
# rebuilds arrays with numpy.frombuffer: nothing is parsed number by number.

def encode(message):
    """``message`` (dicts, lists, str, float64 arrays) -> bytes of one frame."""
    import numpy as np

    shapes, chunks = [], []

    def walk(x):
        if isinstance(x, np.ndarray):
            shapes.append(list(x.shape))
            chunks.append(np.ascontiguousarray(x, dtype="<f8").tobytes())
            return {"array": len(shapes) - 1}
        if isinstance(x, dict):
            return {str(k): walk(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [walk(v) for v in x]
        return x

    header = json.dumps({"message": walk(message), "shapes": shapes},
                        allow_nan=False).encode()
    body = b"".join(chunks)
    return len(header).to_bytes(4, "big") + len(body).to_bytes(4, "big") + header + body


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


# mount(2), unshare(2), prctl(2) constants
_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 0x4000, 1 << 18
_PR_CAPBSET_DROP, _PR_SET_KEEPCAPS = 24, 8
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
# Graded code runs as a user and group of its own, one per sandbox (this number plus the
# process's pid, far above any account's): no two sandboxes share a uid, so that the kernel's
# own checks (signals, limits, ptrace) already keep them apart.
SANDBOX_UID_BASE = 1_500_000_000
# Namespaces of its own besides the mount one: System V IPC and POSIX message queues, the
# network (no interface but a loopback that is down), the host name.
_CLONE_NEWIPC, _CLONE_NEWNET, _CLONE_NEWUTS = 0x08000000, 0x40000000, 0x04000000
_OTHER_NAMESPACES = _CLONE_NEWIPC | _CLONE_NEWNET | _CLONE_NEWUTS
# mount_setattr(2): every mount of the namespace read-only and without access times (a read
# that updates a file's access time is a signal another sandbox could see).
_SYS_MOUNT_SETATTR, _AT_FDCWD, _AT_RECURSIVE = 442, -100, 0x8000
_MOUNT_ATTR_RDONLY, _MOUNT_ATTR_NOATIME, _MOUNT_ATTR__ATIME = 0x1, 0x10, 0x70


def sandbox_uid():
    return SANDBOX_UID_BASE + os.getpid()


def _libc():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                           ctypes.c_char_p]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                           ctypes.c_ulong]
    return libc


def _read_only_everywhere(libc):
    """Every mount of this namespace read-only, without access times (Linux 5.12+)."""
    import ctypes

    class MountAttr(ctypes.Structure):
        _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                    ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]

    # read-only is enough (a read-only mount never updates access times); no access times as
    # well where the mount's flags may be changed (not those a user namespace inherits, locked)
    for attr in (MountAttr(_MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOATIME, _MOUNT_ATTR__ATIME, 0, 0),
                 MountAttr(_MOUNT_ATTR_RDONLY, 0, 0, 0)):
        if libc.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, b"/", _AT_RECURSIVE,
                        ctypes.byref(attr), ctypes.sizeof(attr)) == 0:
            return True
    return False


def _proc_last(entry):
    """``/proc`` is covered last: binding a folder back goes through ``/proc/self/fd``."""
    return entry[0] == "/proc"


def _cover(libc, folder, keep=(), size="4k"):
    """Cover ``folder`` with an empty read-only file system; each folder of ``keep`` (inside
    it: Python's own, when the instructor's output folder holds the grader's ``.venv``) is
    bound back read-only at its place. Returns whether all of it worked."""
    sealed = _MS_NOSUID | _MS_NODEV
    handles, ok = {}, True
    for path in keep:
        try:
            handles[path] = os.open(path, os.O_PATH | os.O_DIRECTORY)
        except OSError:
            ok = False
    options = f"size={'1m' if handles else size},mode=755".encode()
    if libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", sealed | _MS_NOEXEC, options) != 0:
        for fd in handles.values():
            os.close(fd)
        return False
    for path, fd in handles.items():
        try:
            os.makedirs(path, mode=0o755, exist_ok=True)
            target = os.fsencode(path)
            ok &= libc.mount(f"/proc/self/fd/{fd}".encode(), target, None, _MS_BIND | _MS_REC,
                             None) == 0
            ok &= libc.mount(b"none", target, None,
                             _MS_REMOUNT | _MS_BIND | _MS_RDONLY | sealed, None) == 0
        except OSError:
            ok = False
        finally:
            os.close(fd)
    ok &= libc.mount(b"none", os.fsencode(folder), None,
                     _MS_REMOUNT | _MS_RDONLY | sealed | _MS_NOEXEC, options) == 0
    return bool(ok)


# Mount flags a bind keeps from its source (statvfs reports them with the same values):
# read-only, nosuid, nodev, noexec, noatime, nodiratime, relatime.
_KEPT_FLAGS = 1 | 2 | 4 | 8 | 1024 | 2048 | 4096
# pivot_root(2), umount2(2)
_SYS_PIVOT_ROOT, _MNT_DETACH = 155, 2
# The fresh root, the writable scratch and /dev/shm: small file systems in memory.
ROOT_SIZE, SCRATCH_SIZE, SHM_SIZE = "1m", "64m", "16m"


def _bind_read_only(libc, source, target, devices=False):
    """Bind ``source`` (a folder or a file, with what is mounted below it) at ``target``,
    read-only, no set-uid; no device files either unless ``devices``."""
    # the source's own flags are kept (in a user namespace they are locked: dropping one fails)
    flags = _MS_NOSUID | (0 if devices else _MS_NODEV) | os.statvfs(source).f_flag & _KEPT_FLAGS
    if libc.mount(os.fsencode(source), os.fsencode(target), None, _MS_BIND | _MS_REC,
                  None) != 0:
        return False
    return libc.mount(b"none", os.fsencode(target), None,
                      _MS_REMOUNT | _MS_BIND | _MS_RDONLY | flags, None) == 0


def _place(root, path, is_dir):
    """Make ``path`` (absolute) inside the new ``root``: a folder, or an empty file."""
    target = root + path
    if is_dir:
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        if not os.path.lexists(target):
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    return target


def _fresh_root(libc, view):
    """Build, in this mount namespace, a root that holds ONLY what ``view`` lists, and move
    into it (``pivot_root``): the allow-list graded code sees.

    ``view``: ``root`` (an empty folder to build it in), ``links`` (``[path, target]``:
    symbolic links such as ``/lib -> usr/lib``), ``binds`` (folders and files bound read-only
    at their own paths: the system's programs and libraries, Python and its packages, a few
    files of ``/etc``), ``devices`` (``/dev/null`` and the like), ``covers`` (folders inside
    a bound one that stay empty: a blocked package), ``submission`` (``[folder, where]``: the
    submitted folder, bound read-only at ``where``), ``scratch`` (a private writable folder,
    mounted once the rest is read-only). Nothing else of the machine exists there: not the
    course, the instructor's folders, the other submissions, home folders, histories, caches,
    ``/proc`` or ``/sys``. Returns whether all of it worked.
    """
    root = view["root"]
    sealed = _MS_NOSUID | _MS_NODEV
    os.umask(0o022)  # the folders on the way must be open to the user the child becomes
    if libc.mount(b"tmpfs", os.fsencode(root), b"tmpfs", sealed,
                  f"size={ROOT_SIZE},mode=755".encode()) != 0:
        return False
    try:
        for path, target in view["links"]:
            _place(root, os.path.dirname(path), True)
            os.symlink(target, root + path)
        for path in view["binds"]:
            is_dir = os.path.isdir(path)
            if not _bind_read_only(libc, path, _place(root, path, is_dir)):
                return False
        for path in view["devices"]:
            if not _bind_read_only(libc, path, _place(root, path, False), devices=True):
                return False
        empty = _place(root, "/.empty", False)
        for path in view["covers"]:
            if os.path.isdir(root + path):
                ok = libc.mount(b"tmpfs", os.fsencode(root + path), b"tmpfs",
                                sealed | _MS_RDONLY | _MS_NOEXEC, b"size=4k,mode=755") == 0
            else:
                ok = _bind_read_only(libc, empty, root + path)
            if not ok:
                return False
        if view["submission"]:
            folder, where = view["submission"]
            if not _bind_read_only(libc, folder, _place(root, where, True)):
                return False
        for path in (view["scratch"], "/dev/shm", "/.old"):
            _place(root, path, True)
        if libc.syscall(_SYS_PIVOT_ROOT, os.fsencode(root), os.fsencode(root + "/.old")) != 0:
            return False
        os.chdir("/")
        if libc.umount2(b"/.old", _MNT_DETACH) != 0:
            return False
        os.rmdir("/.old")
    except OSError:
        return False
    ok = libc.mount(b"none", b"/", None, _MS_REMOUNT | _MS_RDONLY | sealed, None) == 0
    ok &= _read_only_everywhere(libc)
    # written by graded code only: in memory, bounded, seen by no other process
    for path, size in ((view["scratch"], SCRATCH_SIZE), ("/dev/shm", SHM_SIZE)):
        ok &= libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", sealed | _MS_NOEXEC,
                         f"size={size},mode=1777".encode()) == 0
    return bool(ok)


def _isolate(hide, expose, matplotlib_dir, view=None):
    """Set up, as root, the file system graded code sees: namespaces of its own (mounts, IPC,
    network, host name) where

    * each folder of ``expose`` (Python, its packages, under a folder only root may enter, such
      as ``/root``) is reachable read-only by the unprivileged user: the closed ancestor is
      covered by an empty file system and the folder bound back into it;
    * each folder of ``hide`` (``[folder, [kept folders inside it]]``) is covered by an empty
      read-only file system: mlnotes, the solutions, the submissions, the output folder, the
      temporary folder, ``/proc`` and ``/dev``; what the audit hook cannot stop (C code
      reading a file through an FFI) finds nothing there. A folder that holds Python's own
      (an output folder beside the grader's ``.venv``) is covered all the same, and only
      Python's folders are bound back;
    * every mount is read-only, without access times;
    * matplotlib's cache folder is a small file system of its own holding a copy of the font
      list: matplotlib insists on a folder it may write to (and then writes nothing, or fails
      quietly against the seccomp filter), and the copy spares it rebuilding the list.

    With ``view`` (see :func:`_fresh_root`), the root itself is replaced by one built from
    bind mounts that holds only what graded code needs (an allow-list); the covering above is
    the fallback where that cannot be done.

    Needs CAP_SYS_ADMIN (root); returns ``(whether it worked, whether the root is the fresh
    one, matplotlib's configuration folder)``.
    """
    libc = _libc()
    if libc.unshare(_CLONE_NEWNS | _OTHER_NAMESPACES) != 0:
        return False, False, matplotlib_dir
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return False, False, matplotlib_dir
    ok = True
    fonts = _font_lists(matplotlib_dir)
    if view and _fresh_root(libc, view):
        where = _scratch_matplotlib(view, fonts)
        return where is not None, True, where
    by_closed = {}
    for folder, closed in expose:
        by_closed.setdefault(closed, []).append(folder)
    for closed, folders in by_closed.items():
        inside = matplotlib_dir and (matplotlib_dir + os.sep).startswith(closed + os.sep)
        ok &= _cover(libc, closed, folders + ([matplotlib_dir] if inside else []), "64k")
    for d, keep in sorted(hide, key=_proc_last):
        ok &= _cover(libc, d, keep)
    ok &= _read_only_everywhere(libc)
    if matplotlib_dir:
        try:
            ok &= libc.mount(b"tmpfs", os.fsencode(matplotlib_dir), b"tmpfs",
                             _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, b"size=8m,mode=1777") == 0
            for name, data in fonts.items():
                with open(os.path.join(matplotlib_dir, name), "wb") as f:
                    f.write(data)
        except OSError:
            ok = False
    return bool(ok), False, matplotlib_dir


def _scratch_matplotlib(view, fonts):
    """matplotlib's folder in the scratch, with a copy of the font lists; None if it failed."""
    where = os.path.join(view["scratch"], "matplotlib")
    try:
        os.mkdir(where, 0o1777)
        for name, data in fonts.items():
            with open(os.path.join(where, name), "wb") as f:
                f.write(data)
    except OSError:
        return None
    return where


def _font_lists(folder, limit=4 * 2**20):
    """matplotlib's cached font lists (``fontlist-*.json``) in ``folder``, read as bytes."""
    out = {}
    try:
        names = [n for n in os.listdir(folder) if n.startswith("fontlist") and n.endswith(".json")]
    except (OSError, TypeError):
        return out
    for name in names[:4]:
        try:
            with open(os.path.join(folder, name), "rb") as f:
                out[name] = f.read(limit)
        except OSError:
            pass
    return out


def _isolate_as_user(hide, view=None):
    """Without root: the fresh root of ``view`` (else cover ``hide``) as :func:`_isolate` does,
    from a user namespace of our own (the user keeps its uid inside; the namespace's
    capabilities, needed for the mounts, are dropped right after), with IPC, network and
    host-name namespaces of its own too. Needs unprivileged user namespaces (most Linux
    distributions); returns ``(whether it worked, whether the root is the fresh one)``."""
    libc = _libc()
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _OTHER_NAMESPACES) != 0:
        return False, False
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    except OSError:
        return False, False
    ok = libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) == 0
    fresh = bool(ok and view and _fresh_root(libc, view))
    if not fresh:
        for d, keep in sorted(hide, key=_proc_last):
            ok &= _cover(libc, d, keep)
        ok &= _read_only_everywhere(libc)
    _drop_capabilities()
    return bool(ok) and _no_capabilities(), fresh


def _drop_capabilities():
    """Empty the bounding set and the effective, permitted and inheritable sets (capset)."""
    import ctypes

    libc = _libc()
    cap = 0
    while libc.prctl(_PR_CAPBSET_DROP, cap, None, 0, 0) == 0:
        cap += 1
    header, data = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    libc.capset(ctypes.byref(header), data)


def _drop_privileges(uid, gid):
    """Become ``uid``/``gid`` with no supplementary groups and no capabilities at all.

    Only root can (and needs to); returns whether the process is now unprivileged. The
    capability bounding set is emptied first, so that nothing (no set-uid program, no file
    capability) can give a capability back.
    """
    if os.geteuid() != 0:
        return False
    libc = _libc()
    cap = 0
    while libc.prctl(_PR_CAPBSET_DROP, cap, None, 0, 0) == 0:
        cap += 1
    libc.prctl(_PR_SET_KEEPCAPS, 0, None, 0, 0)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)  # from root to another user: every capability is cleared
    return os.geteuid() == uid and os.getegid() == gid and _no_capabilities()


def _no_capabilities():
    """Whether the effective, permitted and inheritable capability sets are empty (Linux
    ``capget``; ``/proc`` may already be hidden)."""
    import ctypes

    header, data = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if _libc().capget(ctypes.byref(header), data) != 0:
        return False
    return all(d.effective == d.permitted == d.inheritable == 0 for d in data)


def _cap_structs():
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    return Header, Data


_CapHeader, _CapData = _cap_structs()


def _confine(threads=0, scratch=False):
    """From here on the kernel allows only the system calls a numerical function needs.

    The seccomp filter of :func:`_bpf_program` binds everyone, whatever the code calls: the
    audit hook sees only Python's own functions, not ``_posixsubprocess.fork_exec`` called
    directly nor C code reached through an FFI such as cffi. RLIMIT_NPROC bounds the threads
    of a user of its own (``threads``, the main one included; 0: none, and no fork for any
    unprivileged user). ``scratch``: the fresh root is in place (every mount but the scratch
    read-only), so files may be written there. Returns whether the filter is in place (x86-64
    Linux only).
    """
    import resource

    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (threads, threads))
    except (ValueError, OSError):
        pass
    return _seccomp_filter(scratch)


# --- the seccomp filter (x86-64 system call numbers) -----------------------------------------------
# An ALLOW-list: memory, reading files, time, threads, futexes, signals to itself. Anything else
# (new processes, writing or changing files, sockets, other processes, mounts, namespaces, user
# and group changes, the clock, the host name, accounting, priorities and CPU affinity, kernel
# keys, io_uring, BPF, ...) fails with EPERM. Another ABI (32-bit calls) kills the process.
_ALLOWED = {
    "read": 0, "write": 1, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "poll": 7,
    "lseek": 8, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13,
    "rt_sigprocmask": 14, "rt_sigreturn": 15, "pread64": 17, "readv": 19,
    "access": 21, "pipe": 22, "select": 23, "sched_yield": 24, "mremap": 25, "msync": 26,
    "dup": 32, "dup2": 33, "pause": 34, "nanosleep": 35,
    "getitimer": 36, "alarm": 37, "setitimer": 38, "getpid": 39, "exit": 60, "uname": 63,
    "getcwd": 79, "chdir": 80, "fchdir": 81, "readlink": 89, "umask": 95,
    "gettimeofday": 96, "getrlimit": 97, "getrusage": 98, "sysinfo": 99, "times": 100,
    "getuid": 102, "getgid": 104, "geteuid": 107, "getegid": 108, "getppid": 110,
    "getpgrp": 111, "getgroups": 115, "getresuid": 118, "getresgid": 120,
    "rt_sigpending": 127, "rt_sigtimedwait": 128, "rt_sigsuspend": 130,
    "sigaltstack": 131, "statfs": 137, "fstatfs": 138,
    "sched_get_priority_max": 146,
    "sched_get_priority_min": 147, "arch_prctl": 158,
    "gettid": 186, "getxattr": 191, "lgetxattr": 192, "fgetxattr": 193, "listxattr": 194,
    "llistxattr": 195, "flistxattr": 196, "time": 201,
    "getdents64": 217, "set_tid_address": 218, "restart_syscall": 219,
    "clock_gettime": 228, "clock_getres": 229, "clock_nanosleep": 230, "exit_group": 231,
    "epoll_wait": 232, "epoll_ctl": 233, "mbind": 237, "set_mempolicy": 238,
    "get_mempolicy": 239, "newfstatat": 262, "readlinkat": 267, "faccessat": 269,
    "pselect6": 270, "ppoll": 271, "set_robust_list": 273,
    "epoll_pwait": 281, "eventfd": 284, "eventfd2": 290, "epoll_create1": 291, "dup3": 292,
    "pipe2": 293, "preadv": 295, "getcpu": 309, "getrandom": 318, "membarrier": 324,
    "statx": 332, "rseq": 334, "close_range": 436, "faccessat2": 439, "epoll_pwait2": 441,

}
# Refused, so that no cheap channel runs between sandboxes through the page cache that every
# process shares (which pages of a common library file are cached): ``mincore`` (which pages
# are in memory), ``fadvise64`` (evict or load a file's pages), ``readahead``, ``cachestat``;
# ``madvise`` is allowed only with the advice malloc and numpy give (see _MADVISE).
# Writing files (with the fresh root: only the scratch is writable), else refused.
_SCRATCH_CALLS = {"pwrite64": 18, "writev": 20, "pwritev": 296, "fsync": 74, "fdatasync": 75,
                  "ftruncate": 77, "rename": 82, "mkdir": 83, "rmdir": 84, "link": 86,
                  "unlink": 87, "symlink": 88, "fchmod": 91, "mkdirat": 258, "unlinkat": 263,
                  "renameat": 264, "linkat": 265, "renameat2": 316}
_NO_SUCH_CALL = {"clone3": 435, "openat2": 437}  # ENOSYS: libc falls back to clone / openat
_CLONE, _OPEN, _OPENAT, _KILL, _TGKILL, _PRLIMIT, _PRCTL = 56, 2, 257, 62, 234, 302, 157
# Calls that name a process in their first argument: allowed on this process only (0 or its own
# pid), so that no sandbox learns whether another process exists, let alone its state.
_OWN_PROCESS = {"getpgid": 121, "getsid": 124, "sched_getparam": 143,
                "sched_getscheduler": 145, "sched_rr_get_interval": 148,
                "sched_getaffinity": 204, "get_robust_list": 274}
_GETPRIORITY = 140  # (which, who): who must be 0 or this process
_FCNTL, _MMAP, _FUTEX, _MADVISE_CALL = 72, 9, 202, 28
# madvise: the advice glibc's malloc, numpy and threads give (access pattern, dropping this
# process's own pages, huge pages, fork and core-dump flags). Refused: MADV_WILLNEED,
# MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_* (load or evict shared pages: a signal another
# sandbox reads in its page faults), MADV_MERGEABLE (KSM: a timing channel), MADV_REMOVE.
_MADVISE = {"MADV_NORMAL": 0, "MADV_RANDOM": 1, "MADV_SEQUENTIAL": 2, "MADV_DONTNEED": 4,
            "MADV_FREE": 8, "MADV_DONTFORK": 10, "MADV_DOFORK": 11, "MADV_HUGEPAGE": 14,
            "MADV_NOHUGEPAGE": 15, "MADV_DONTDUMP": 16, "MADV_DODUMP": 17,
            "MADV_WIPEONFORK": 18, "MADV_KEEPONFORK": 19}
# fcntl commands a numerical program makes: duplicate, close-on-exec, status flags (F_SETFL
# without O_ASYNC). Refused: record locks (F_GETLK/F_SETLK/F_OFD_*: a channel between two
# sandboxes through a file both can read), F_SETOWN/F_SETSIG (a signal sent by the kernel to
# another process), leases, notifications, pipe sizes, seals.
_FCNTL_ALLOWED = {"F_DUPFD": 0, "F_GETFD": 1, "F_SETFD": 2, "F_GETFL": 3,
                  "F_DUPFD_CLOEXEC": 1030}
_F_SETFL, _O_ASYNC = 4, 0o20000
# mmap: no shared mapping of a file (two sandboxes mapping one file could signal each other
# through it); futex: private operations only (a shared futex on a file page is such a
# signal, even in a private mapping).
_MAP_SHARED, _MAP_ANONYMOUS = 0x01, 0x20
_FUTEX_PRIVATE_FLAG = 128
_IOCTL = 16
# The ioctl requests Python and numpy make (is it a terminal, its size, close-on-exec, bytes
# waiting, non-blocking); any other (file attributes, terminals' input, devices) fails with
# ENOTTY, as on a descriptor that does not support it.
_IOCTLS = {"TCGETS": 0x5401, "TIOCGWINSZ": 0x5413, "FIONREAD": 0x541B, "FIONBIO": 0x5421,
           "FIONCLEX": 0x5450, "FIOCLEX": 0x5451}
_ENOTTY = 25
_X32_BIT = 0x40000000
_CLONE_THREAD = 0x00010000
# O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND: an open that could change a file
_WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000
_PR_SET_NAME, _PR_GET_NAME = 15, 16
_AUDIT_ARCH_X86_64 = 0xC000003E
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_RET_ALLOW, _RET_ERRNO, _RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_EPERM, _EACCES, _ENOSYS = 1, 13, 38
# BPF opcodes: load a word of seccomp_data, jumps on ==, >=, & (with a constant), always, return
_LD, _JEQ, _JGE, _JSET, _JA, _RET = 0x20, 0x15, 0x35, 0x45, 0x05, 0x06
# seccomp_data offsets: system call number, architecture, the low/high words of args[0..2]
_AT_NR, _AT_ARCH = 0, 4
_AT_ARG = (16, 24, 32, 40)
_AT_ARG_HIGH = (20, 28, 36, 44)


def _bpf_program(pid, scratch=False):
    """The filter as rows ``(label, opcode, constant, jump-if-true, jump-if-false)``.

    ``pid``: this process, the only one ``kill``/``tgkill`` may signal (``os.abort()`` and
    ``raise(3)`` signal the process itself; the grader and the other sandboxes are out of reach).
    ``scratch``: every mount but a private scratch is read-only (the fresh root): opening a
    file for writing and the calls that change files are allowed (the mounts refuse them
    elsewhere); else they fail.
    """
    allowed = {**_ALLOWED, **(_SCRATCH_CALLS if scratch else {})}
    opened = "allow" if scratch else "eacces"
    def row(code, k, yes=None, no=None, label=None):
        return (label, code, k, yes, no)

    def check_allowed(nr):  # a conditional jump reaches 255 rows: test, then return at once
        return [row(_JEQ, nr, no="+1"), row(_RET, _RET_ALLOW)]

    special = [(_CLONE, "clone"), (_OPEN, "open"), (_OPENAT, "openat"), (_KILL, "self"),
               (_TGKILL, "self"), (_PRLIMIT, "prlimit"), (_PRCTL, "prctl"), (_IOCTL, "ioctl"),
               (_FCNTL, "fcntl"), (_MMAP, "mmap"), (_FUTEX, "futex"),
               (_GETPRIORITY, "getpriority"), (_MADVISE_CALL, "madvise"),
               *((nr, "own") for nr in _OWN_PROCESS.values())]
    return [
        row(_LD, _AT_ARCH), row(_JEQ, _AUDIT_ARCH_X86_64, yes="+1"), row(_RET, _RET_KILL_PROCESS),
        row(_LD, _AT_NR), row(_JGE, _X32_BIT, no="+1"), row(_RET, _RET_KILL_PROCESS),
        *(r for nr in allowed.values() for r in check_allowed(nr)),
        *(r for nr in _NO_SUCH_CALL.values()
          for r in (row(_JEQ, nr, no="+1"), row(_RET, _RET_ERRNO | _ENOSYS))),
        *(r for nr, label in special for r in (row(_JEQ, nr, no="+1"), row(_JA, label))),
        row(_RET, _RET_ERRNO | _EPERM),  # any other call
        # the argument checks
        row(_LD, _AT_ARG[0], label="clone"), row(_JSET, _CLONE_THREAD, "allow", "deny"),
        row(_LD, _AT_ARG[1], label="open"), row(_JSET, _WRITE_FLAGS, opened, "allow"),
        row(_LD, _AT_ARG[2], label="openat"), row(_JSET, _WRITE_FLAGS, opened, "allow"),
        # madvise: the advice (an int) is the third argument
        row(_LD, _AT_ARG[2], label="madvise"),
        *(row(_JEQ, advice, yes="allow") for advice in _MADVISE.values()),
        row(_JA, "deny"),
        row(_LD, _AT_ARG[0], label="self"), row(_JEQ, pid, no="deny"),
        row(_LD, _AT_ARG_HIGH[0]), row(_JEQ, 0, "allow", "deny"),
        row(_LD, _AT_ARG[2], label="prlimit"), row(_JEQ, 0, no="deny"),  # read, never set
        row(_LD, _AT_ARG_HIGH[2]), row(_JEQ, 0, "own", "deny"),  # ... and only its own
        # a pid in the first argument: 0 (this process) or this process's pid
        row(_LD, _AT_ARG_HIGH[0], label="own"), row(_JEQ, 0, no="deny"),
        row(_LD, _AT_ARG[0]), row(_JEQ, 0, yes="allow"), row(_JEQ, pid, "allow", "deny"),
        row(_LD, _AT_ARG_HIGH[1], label="getpriority"), row(_JEQ, 0, no="deny"),
        row(_LD, _AT_ARG[1]), row(_JEQ, 0, yes="allow"), row(_JEQ, pid, "allow", "deny"),
        # fcntl: the command is an int (the low word decides)
        row(_LD, _AT_ARG[1], label="fcntl"),
        *(row(_JEQ, command, yes="allow") for command in _FCNTL_ALLOWED.values()),
        row(_JEQ, _F_SETFL, no="deny"),
        row(_LD, _AT_ARG[2]), row(_JSET, _O_ASYNC, "deny", "allow"),
        row(_LD, _AT_ARG[3], label="mmap"), row(_JSET, _MAP_SHARED, no="allow"),
        row(_JSET, _MAP_ANONYMOUS, "allow", "deny"),
        row(_LD, _AT_ARG[1], label="futex"), row(_JSET, _FUTEX_PRIVATE_FLAG, "allow", "deny"),
        row(_LD, _AT_ARG[0], label="prctl"), row(_JEQ, _PR_SET_NAME, yes="allow"),
        row(_JEQ, _PR_GET_NAME, "allow", "deny"),
        # the kernel reads an ioctl request as 32 bits: the low word decides
        row(_LD, _AT_ARG[1], label="ioctl"),
        *(row(_JEQ, request, yes="allow") for request in _IOCTLS.values()),
        row(_RET, _RET_ERRNO | _ENOTTY),
        row(_RET, _RET_ALLOW, label="allow"),
        row(_RET, _RET_ERRNO | _EPERM, label="deny"),
        row(_RET, _RET_ERRNO | _EACCES, label="eacces"),
    ]


def _assemble(rows):
    """Resolve the labels into relative jumps and pack them as ``struct sock_filter``.

    A jump target is a label or ``"+n"`` (skip n rows); ``JA`` takes its target in ``k``.
    """
    import struct

    where = {label: i for i, (label, *_) in enumerate(rows) if label}

    def offset(i, target):
        if target is None:
            return 0
        if isinstance(target, str) and target.startswith("+"):
            return int(target[1:])
        return where[target] - (i + 1)

    packed = []
    for i, (_, code, k, yes, no) in enumerate(rows):
        if code == _JA:
            k, yes, no = offset(i, k), None, None
        jt, jf = offset(i, yes), offset(i, no)
        if not (0 <= jt <= 255 and 0 <= jf <= 255):
            raise ValueError(f"BPF row {i}: a conditional jump of more than 255 rows")
        packed.append(struct.pack("HBBI", code, jt, jf, k))
    return b"".join(packed), len(rows)


def _seccomp_filter(scratch=False):
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return False
    code, length = _assemble(_bpf_program(os.getpid(), scratch))
    buffer = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(length, ctypes.cast(buffer, ctypes.c_void_p))
    libc = _libc()
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


def _install_guard(tmp, packages, blocked_dirs, private, allowed, record, ffi=False):
    """Block ``packages`` and install the audit hook (it cannot be removed once added).

    ``ffi``: ctypes may load libraries and call them (threadpoolctl's ``dlopen`` of the BLAS,
    numba's LLVM), as cffi always could: in the fresh root the kernel's limits (the mounts,
    seccomp, the user of its own) bind C code whatever loads it.

    ``blocked_dirs`` hold mlnotes (an attempt is recorded for the feedback, as an import of a
    blocked package is); ``private`` are path prefixes that graded code may not even read: the
    course's solutions and tests, the other submissions, the other sandboxes' directories.
    """
    packages = tuple(packages)
    for name in [m for m in sys.modules if _blocked_package(m, packages)]:
        del sys.modules[name]
    sys.meta_path.insert(0, _RefuseBlocked(packages, record))

    forbidden_prefixes = tuple(p for p in FORBIDDEN_PREFIXES if not (ffi and p == "ctypes."))
    realpath, fsdecode, sep = os.path.realpath, os.fsdecode, os.sep
    tmp_root = realpath(tmp) + sep
    blocked = tuple(realpath(d) + sep for d in blocked_dirs)
    private = tuple(private)
    allowed = tuple(allowed)  # Python's own folders inside a private one (bound back there)
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
            if (p + sep).startswith(private) and not (p + sep).startswith(allowed):
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
        elif event in FORBIDDEN_EVENTS or event.startswith(forbidden_prefixes):
            raise PermissionError(f"{event} is not allowed while grading")

    sys.addaudithook(hook)


def _send(out, message):
    out.write(encode(message))
    out.flush()


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Print a warning without the file it came from (never a path of the grader's machine),
    only the line of the submission when it came from the submission."""
    where = f" (line {lineno} of {filename[1:-1]})" if str(filename).startswith("<cell") else ""
    name = getattr(category, "__name__", "Warning")
    sys.stderr.write(f"{name}: {_short(_safe_str(message), 200)}{where}\n")


def _future_flags():
    import __future__

    flags = 0
    for name in __future__.all_feature_names:
        flags |= getattr(__future__, name).compiler_flag
    return flags


# The compiler flags of ``from __future__`` imports (they carry over to later statements).
FUTURE_FLAGS = _future_flags()
# Once the top-level computations have used up their budget, a definition still gets this long;
# a computation left less than SHARE_FLOOR is skipped.
DEFINITION_FLOOR, SHARE_FLOOR = 0.25, 0.05


class StatementTimeout(BaseException):
    """A top-level statement ran past its share (not an ``Exception``: an ``except Exception``
    in the student's loop does not swallow it; the timer fires again after another share if
    something does). ``kind``: "cpu" (its CPU time) or "wall" (the wall-clock backstop)."""

    def __init__(self, kind, text):
        super().__init__(text)
        self.kind = kind


class _Timers:
    """Per statement: a CPU-time share (ITIMER_PROF: what the statement itself computes, the
    same on a busy machine as on an idle one) and a wall-clock backstop (ITIMER_REAL: for code
    that sleeps or blocks; ``patience`` times longer when the notebook is run again after a
    backstop fired)."""

    def __init__(self, wall_factor, wall_extra, patience):
        self.wall_factor, self.wall_extra, self.patience = wall_factor, wall_extra, patience
        self.cpu = self.wall = 0.0
        signal.signal(signal.SIGPROF, self._fired)
        signal.signal(signal.SIGALRM, self._fired)

    def _fired(self, signum, frame):
        if signum == signal.SIGPROF:
            raise StatementTimeout("cpu", f"it used more than its {self.cpu:g} s of CPU time "
                                   "while the notebook's definitions were executed (an endless "
                                   "loop or a heavy computation at the top level?)")
        raise StatementTimeout("wall", f"it ran too long: {self.wall:g} s of wall-clock time "
                               "while the notebook's definitions were executed, most of it "
                               "not computing (time.sleep, input(), waiting on something?)")

    def backstop(self, base):
        return self.patience * (self.wall_factor * base + self.wall_extra)

    def start(self, cpu, wall_base):
        self.cpu, self.wall = cpu, self.backstop(wall_base)
        signal.setitimer(signal.ITIMER_PROF, cpu, cpu)
        signal.setitimer(signal.ITIMER_REAL, self.wall, self.wall)

    @staticmethod
    def stop():
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)


def _run_statements(statements, namespace, limits=None, skip=None, progress=None):
    """Execute each top-level statement on its own; return notes, for each function whose
    definition failed (it does not compile, or raised) why, and ``{index: why}`` for the
    statements stopped by a time limit (a later process skips them: the notebook's set-up
    costs its time once).

    ``skip`` maps the index of a statement to leave out (it ended an earlier process: a crash,
    an exit, a hang past every timer; or a time limit stopped it there) to why.
    ``progress(k)`` is called before the statement of index ``k`` runs, so that the parent
    knows which one is running.

    ``limits`` (all CPU seconds): ``statement`` (each computation's share), ``budget`` (all
    computations together: once spent, a computation is skipped and a definition, ``def`` or
    ``class``, still gets :data:`DEFINITION_FLOOR`), ``import`` (each import's share, generous
    for real packages) and ``imports`` (all imports together); ``wall_factor``,
    ``wall_extra`` and ``patience`` make each share's wall-clock backstop (the parent's own
    measurement, which counts only the time neither computing nor waiting for a processor,
    fires first where the kernel tells it; the parent then runs the notebook again with more
    patience before it blames any statement).

    A statement is ``{"cell": k, "line": n, "code": text, "names": [defined names]}``; it is
    compiled with its own file name ``<cell k>`` and its line numbers in the cell, so an error
    names the line the student sees.
    """
    import time

    notes, broken, stopped = [], {}, {}
    skip = skip or {}
    timers = _Timers(limits["wall_factor"], limits["wall_extra"], limits["patience"]) if (
        limits) else None
    spent = {"statement": 0.0, "import": 0.0}
    future = 0
    for index, st in enumerate(statements):
        where = f"code cell {st['cell']}, line {st['line']}"
        first = st["code"].lstrip().split("\n", 1)[0]
        if str(index) in skip:
            why = f"was skipped: the first time it ran, {skip[str(index)]} ({where})"
            notes.append(f"`{_short(first, 80)}` {why}")
            for name in st.get("names", []):
                broken[name] = why
            continue
        if progress is not None:
            progress(index)
        kind = st.get("kind")
        share = wall_base = None
        if timers is not None:
            if kind == "import":
                share = min(limits["import"], limits["imports"] - spent["import"])
                wall_base = limits["import_wall"]
                total = limits["imports"]
            else:
                left = limits["budget"] - spent["statement"]
                floor = DEFINITION_FLOOR if kind == "definition" else 0.0
                share = min(limits["statement"], max(left, floor))
                wall_base, total = share, limits["budget"]
        try:
            code = compile("\n" * (st["line"] - 1) + st["code"], f"<cell {st['cell']}>", "exec",
                           flags=future, dont_inherit=True)
            future |= code.co_flags & FUTURE_FLAGS  # as IPython, a __future__ import lasts
        except SyntaxError as exc:
            line = exc.lineno or st["line"]
            why = (f"does not compile: {type(exc).__name__}: {_short(exc.msg, 160)} "
                   f"(code cell {st['cell']}, line {line})")
        except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
            why = (f"does not compile: {type(exc).__name__}: {_short(_safe_str(exc), 160)} "
                   f"({where})")
        else:
            if share is not None and share < SHARE_FLOOR:
                what = "imports" if kind == "import" else "top-level computations"
                why = (f"was skipped: the notebook's {what} had used up their {total:g} s of "
                       f"CPU time ({where}); heavy work belongs inside the functions")
                notes.append(f"`{_short(first, 80)}` {why}")
                for name in st.get("names", []):
                    broken[name] = why
                continue
            # each statement gets its own share of CPU time: one slow line costs only itself
            used = time.process_time()
            if share:
                timers.start(share, wall_base)
            try:
                outcome = call_plain(lambda c=code: exec(c, namespace) or 0, [])  # noqa: S102
            finally:
                if share:
                    timers.stop()
            if timers is not None:
                spent["import" if kind == "import" else "statement"] += (
                    time.process_time() - used)
            if "error" not in outcome:
                continue
            why = f"failed: {outcome['type']}: {outcome['error']} ({where})"
            if outcome["type"] == "StatementTimeout":
                wall = "wall-clock" in outcome["error"]
                stopped[str(index)] = ("it was stopped by the wall-clock backstop" if wall
                                       else "it used up its CPU time")
        notes.append(f"`{_short(first, 80)}` {why}")
        for name in st.get("names", []):
            broken[name] = why
    if progress is not None:
        progress(None)  # past the last statement: what fails now is no statement's doing
    return notes, broken, stopped


def main(config_path):
    with open(config_path) as f:
        config = json.load(f)
    _limit(config["memory_mb"], config["cpu_seconds"])
    import warnings

    import numpy as np

    out = os.fdopen(config["fd"], "wb")
    tmp = config["tmp"]
    with open(os.path.join(tmp, config["source"])) as f:
        statements = json.load(f)
    inputs = []
    for i in range(config["start"], len(config["functions"])):
        with np.load(os.path.join(tmp, f"inputs_{i}.npz"), allow_pickle=False) as data:
            inputs.append((i, _cases_from_npz(data)))
    # as root: the file system view; then a user of its own, with no capabilities; then the
    # kernel filter. Not root (on Linux): the same view from a user namespace of our own,
    # then no capabilities.
    view = config.get("view")
    fresh = False
    mpl = config["matplotlib"]
    if config["isolate"]:
        mounts, fresh, mpl = _isolate(config["hide"], config["expose"], mpl, view)
        isolation = {"mounts": mounts, "fresh_root": fresh}
        # without the mounts, an interpreter under a folder closed to others (/root) would be
        # out of reach for another user: then stay as we are, and say so
        can_drop = isolation["mounts"] or not config["expose"]
        isolation["unprivileged"] = (_drop_privileges(sandbox_uid(), sandbox_uid()) if can_drop
                                     else False)
    else:
        mounts, fresh = _isolate_as_user(config["hide"], view) if config["user_namespace"] else (
            False, False)
        isolation = {"mounts": mounts, "fresh_root": fresh}
        if fresh:
            mpl = _scratch_matplotlib(view, _font_lists(mpl))
        isolation["unprivileged"] = os.geteuid() != 0 and _no_capabilities()
    os.environ["MPLCONFIGDIR"] = mpl
    where = view["cwd"] if fresh and view.get("cwd") else config.get("work") or tmp
    try:
        os.chdir(where)
    except OSError:
        where = tmp
    if where != tmp:
        sys.path.insert(0, where)  # as a Jupyter kernel: the notebook's folder comes first
    isolation["seccomp"] = _confine(threads=config.get("threads", 0), scratch=fresh)
    frame = encode  # bound now: the code may replace the module's encode, not this one
    # what holds, said before any line of the submission runs (the parent reads it first,
    # and checks it against the kernel's own account where it can)
    out.write(frame({"kind": "isolation", "isolation": isolation}))
    out.flush()
    # ... and wait until the parent has read it in /proc: this process is observed alive,
    # whatever the machine's load, before any of the submission runs (end if the parent has
    # gone without a word)
    go = config["go"]
    if os.read(go, 2) != b"go":
        os._exit(1)
    os.close(go)
    captured = _CappedText()
    sys.stdout = sys.stderr = captured
    warnings.showwarning = _show_warning
    record = []
    # in the fresh root the machine's folders do not exist: the hook needs none of their names
    # (graded code can read this frame's variables: no path of the instructor's stays here)
    _install_guard(tmp, [BLOCKED_PACKAGE, *config["block"]],
                   [] if fresh else config["blocked_dirs"], [] if fresh else config["private"],
                   [] if fresh else config.get("allowed", []), record, ffi=fresh)
    functions, skip, limits = config["functions"], config.get("skip"), config.get("limits")
    threads = config.get("threads", 0)
    config.clear()
    del view, mpl, config_path
    _forget_the_machine()

    # ``check`` (the student's own checker, whose import is not run here) does nothing: a block
    # kept for its definitions may also call it. ``__name__`` is "__main__", as in a Jupyter
    # kernel (an import under ``if __name__ == "__main__":`` runs).
    namespace = {"__name__": "__main__", "__builtins__": __builtins__, "check": _no_check}
    if threads > 1:
        _processes_as_threads(threads // 2)

    def progress(index):
        out.write(frame({"kind": "progress", "at": index}))
        out.flush()

    # no message of this process decides anything of the grader's (a backstop that fires is
    # the parent's own measurement): a statement stopped here is only reported
    notes, broken, stopped = _run_statements(statements, namespace, limits, skip, progress)
    # from here on a timer is the code's own (signal.alarm): it ends the process, and the
    # parent names it, rather than being mistaken for a slow top-level line
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    _send(out, {"kind": "ready", "notes": notes, "blocked": sorted(set(record)),
                "output": captured.take(), "stopped": stopped})
    for i, cases in inputs:
        seen = len(record)
        name = functions[i]
        func = namespace.get(name)
        if name in broken and not callable(func):
            answers = [{"error": broken[name], "type": "<definition>"}] * len(cases)
        elif not callable(func):
            answers = [{"error": "missing", "type": "<missing>"}] * len(cases)
        else:
            answers = [call_plain(func, args) for args in cases]
        _send(out, {"kind": "answer", "q": i, "answers": answers,
                    "blocked": sorted(set(record[seen:])),
                    "output": captured.take()})
    out.close()
    os._exit(0)


def _processes_as_threads(most):
    """``multiprocessing`` and ``ProcessPoolExecutor`` on threads (at most ``most`` workers).

    No process can start in the sandbox (seccomp, RLIMIT_NPROC), and a process pool's
    semaphores would need futexes shared through files every sandbox can read (a channel
    between them). A pool's ``map`` of a function computes the same numbers on threads, as the
    honest code that uses one expects; its queues, locks and values become the thread ones of
    ``multiprocessing.dummy``.
    """
    import concurrent.futures
    import multiprocessing
    import multiprocessing.dummy as dummy
    from multiprocessing import context, pool

    def workers(n):
        return max(1, min(int(n or os.cpu_count() or 1), most))

    def thread_pool(self, processes=None, initializer=None, initargs=(), maxtasksperchild=None):
        return pool.ThreadPool(workers(processes), initializer, initargs)

    stand_ins = {
        "Pool": thread_pool,
        "Queue": lambda self, maxsize=0: dummy.Queue(maxsize),
        "JoinableQueue": lambda self, maxsize=0: dummy.JoinableQueue(maxsize),
        "Lock": lambda self: dummy.Lock(), "RLock": lambda self: dummy.RLock(),
        "Semaphore": lambda self, value=1: dummy.Semaphore(value),
        "BoundedSemaphore": lambda self, value=1: dummy.BoundedSemaphore(value),
        "Condition": lambda self, lock=None: dummy.Condition(lock),
        "Event": lambda self: dummy.Event(),
        "Barrier": lambda self, parties, action=None, timeout=None: dummy.Barrier(
            parties, action, timeout),
        "Value": lambda self, typecode, *args, lock=True: dummy.Value(typecode, *args),
        "Array": lambda self, typecode, sequence, lock=True: dummy.Array(typecode, sequence),
        "Manager": lambda self: dummy.Manager(),
        "Pipe": lambda self, duplex=True: dummy.Pipe(duplex),
    }
    for name, method in stand_ins.items():
        setattr(context.BaseContext, name, method)
    for ctx in (context.BaseContext, *(type(c) for c in context._concrete_contexts.values())):
        ctx.Process = dummy.DummyProcess
    multiprocessing.Process = dummy.DummyProcess
    default = context._default_context
    for name in stand_ins:
        setattr(multiprocessing, name, getattr(default, name))

    class ProcessPoolExecutor(concurrent.futures.ThreadPoolExecutor):
        def __init__(self, max_workers=None, mp_context=None, initializer=None, initargs=(),
                     **kwargs):
            super().__init__(workers(max_workers), initializer=initializer, initargs=initargs)

    concurrent.futures.ProcessPoolExecutor = ProcessPoolExecutor
    import concurrent.futures.process as process

    process.ProcessPoolExecutor = ProcessPoolExecutor


def _forget_the_machine():
    """Drop what names the grader's layout from what graded code can read: this file's own
    path, and an editable install's finder (its map names the checkout that holds mlnotes)."""
    editable = "__editable__"
    globals()["__file__"] = os.path.basename(__file__)
    sys.argv = [globals()["__file__"]]
    sys.orig_argv = [sys.executable, "-I", "-B", sys.argv[0]]
    for name in [m for m in sys.modules if m.startswith(editable)]:
        del sys.modules[name]
    sys.meta_path[:] = [f for f in sys.meta_path
                        if not str(getattr(f, "__module__", "")).startswith(editable)]
    sys.path_hooks[:] = [h for h in sys.path_hooks
                         if not str(getattr(h, "__module__", "")).startswith(editable)]
    sys.path[:] = [p for p in sys.path if editable not in p]
    sys.path_importer_cache.clear()


def _no_check(*args, **kwargs):
    """Stands in for :func:`mlnotes.homework.check` while grading: the grader judges."""


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
