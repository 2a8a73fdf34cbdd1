"""The trusted side of the grader's sandbox: run a submission's functions in a child process.

:func:`run_functions` starts ``_child.py`` in a fresh Python process (isolated mode, a new session,
a temporary directory as its working directory and home), hands it the inputs as ``.npz`` files
(written by this process, read by the child without pickle) and reads the answers from a pipe that
this process created: one frame per question, a bounded JSON header and the numbers as raw
float64 (sizes checked before anything is read or parsed).

Time is measured as the student's work, not the machine's load: each question may use
``timeout`` seconds of **CPU time**, the notebook's set-up (its imports and top-level statements)
a budget of its own, each top-level statement a share of it; this process reads the child's CPU
time from the kernel (``/proc/<pid>/stat``) and stops it past its limit, and the kernel's
RLIMIT_CPU bounds the whole notebook. Wall-clock time is only a generous backstop for code that
sleeps or blocks; when a backstop fires (this side's own measurement: no message of the
child's sets any policy), the notebook is run again with a longer backstop before any statement
is skipped or any question zeroed, beside the other submissions (none of them waits for it),
and the feedback says so (:func:`run_functions`'s ``events``).

The child also has address-space, file-size and process limits, runs as a user of its own
without capabilities where the grader is root, in namespaces of its own (mounts, IPC, network,
host name) and a fresh root that holds only an allow-list (:mod:`mlnotes.homework.view`: its
submission, Python and its packages, a private scratch), and has a seccomp allow-list (set by
the child on itself before any student code runs, see ``_child.py``). What holds is read from
the kernel's account of the child (``/proc/<pid>/status``, ``mountinfo``, ``ns/``) once its
first message arrives, before any line of the submission has run: the child waits on a pipe of
this side's until that is done, so that however late a busy machine lets this side look, the
child is still there to be observed. The child's own claim is used only where ``/proc`` is
missing.

When the child times out, crashes, exits (``sys.exit``/``os._exit``), or sends something that is not
a well-formed message, this side records why for that question, kills the child's whole process
group, and starts a fresh child for the remaining questions. Nothing the child sends is trusted
beyond "these are the numbers it returned": :mod:`mlnotes.homework.core` rebuilds them as float64
arrays and compares them with the reference itself.
"""

import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

CHILD = Path(__file__).with_name("_child.py")
# The mlnotes package directory: the child may not import or read it.
MLNOTES_DIR = Path(__file__).resolve().parent.parent
# In a source checkout (not an installed package) the book, the tests, the git history and
# whatever a build left beside the package (``_build``, ``.jupyter_cache``: executed copies of the
# instructor notebooks) hold the solutions: graded code may read none of the checkout's folders
# (but the one holding Python, a ``.venv``).
PROJECT_ROOT = MLNOTES_DIR.parent
IS_CHECKOUT = (PROJECT_ROOT / "pyproject.toml").exists()


def course_paths():
    """The checkout's top-level folders (none for an installed package), as they are now."""
    if not IS_CHECKOUT:
        return ()
    with os.scandir(PROJECT_ROOT) as entries:
        return tuple(sorted(e.name for e in entries if e.is_dir(follow_symlinks=False)))


TMP_PREFIX = "mlnotes-grade-"
# Largest frame accepted from the child: its JSON header, and its numbers (float64 bytes: every
# case of one question at the largest answer size). Larger means "answer too large".
MAX_HEADER = 256 * 2**10
MAX_BODY = 16 * 2**20
# What is kept of the child's text: notes (count, characters each), printed output, names.
MAX_NOTES, NOTE_CHARS, OUTPUT_CHARS, MAX_NAMES = 8, 300, 2000, 10
# Nesting of a header (a message, its answers, a tuple of outputs, a sparse triple).
MAX_HEADER_DEPTH = 10

# --- time: CPU seconds measure the work; wall-clock seconds only back them up ---------------------
# The set-up (starting Python, numpy, the definitions) gets this much CPU time on top of the
# per-question timeout, and the imports a budget of their own: IMPORT_SECONDS each (generous for
# real packages; an import hook that spins is stopped there), IMPORTS_BUDGET in all.
SETUP_GRACE = 5.0
IMPORT_SECONDS, IMPORTS_BUDGET = 20.0, 30.0
# Each top-level statement but an import may use this much CPU time (half the per-question
# timeout, within these bounds) before it is stopped and reported; the others still run ...
STATEMENT_FLOOR, STATEMENT_CAP = 1.0, 5.0
# ... and all of them together this share of (timeout + SETUP_GRACE), so that many slow lines
# cost only themselves, never the whole notebook.
SETUP_SHARE = 0.5
# This side stops a child whose CPU time passes its limit by more than this (the child's own
# timer should have stopped the statement first), polling every POLL_SECONDS.
CPU_GRACE, POLL_SECONDS = 1.0, 0.1
# The wall-clock backstop of a limit of c CPU seconds: WALL_FACTOR * c + WALL_EXTRA (an
# import's: from IMPORT_WALL_BASE, not its generous CPU share); when the notebook is run again
# after a backstop fired, ALONE_PATIENCE times that. On Linux the backstop counts only the
# time the child was neither computing nor waiting for a processor (``/proc/<pid>/schedstat``): sleeping or
# blocked, whatever the load; the plain wall-clock time may then run FAR_FACTOR times longer.
WALL_FACTOR, WALL_EXTRA, IMPORT_WALL_BASE, ALONE_PATIENCE = 3.0, 2.0, 3.0, 3.0
FAR_FACTOR = 10.0
# A top-level statement that ends the child (a crash, os._exit) is skipped and the notebook run
# again, for at most MAX_SKIPPED such statements; one stopped here past its time (C code no
# timer interrupts) for at most MAX_STOPPED, its time counted against the set-up's budgets.
MAX_SKIPPED, MAX_STOPPED = 2, 10
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def backstop(cpu_seconds, patience=1.0):
    """The wall-clock backstop of a limit of ``cpu_seconds`` of CPU time."""
    return patience * (WALL_FACTOR * cpu_seconds + WALL_EXTRA)


def setup_cpu(timeout):
    """CPU seconds for a child's set-up: Python, numpy, the imports, the definitions."""
    return timeout + SETUP_GRACE + IMPORTS_BUDGET


def notebook_budget(timeout, n_questions):
    """``(CPU seconds, wall-clock seconds)`` one notebook may cost in all, whatever happens to
    it (fresh processes after crashes repeat only the set-up that succeeded): the set-up twice
    and every question once; the wall-clock bound is twice the backstop of that."""
    cpu = 2 * setup_cpu(timeout) + n_questions * timeout
    return cpu, 2 * backstop(cpu)


class _Failure(Exception):
    """The child did not deliver a message; the text says why (it goes into the feedback).
    ``kind``: "cpu" (past its CPU time), "wall" (past the wall-clock backstop), "budget" (the
    notebook's total), or "" (it ended, or sent something malformed)."""

    def __init__(self, text, kind=""):
        super().__init__(text)
        self.kind = kind


def _write_inputs(path, cases):
    arrays = {}
    for c, args in enumerate(cases):
        for a, value in enumerate(args):
            arrays[f"c{c}_a{a}"] = np.asarray(value)
    np.savez(path, **arrays)


# What a signal that ended the child means, in words a student can act on.
SIGNAL_REASONS = {
    "SIGXCPU": "used up its CPU-time limit (SIGXCPU)",
    "SIGKILL": "was killed (SIGKILL)",
    "SIGSEGV": "crashed with a segmentation fault (SIGSEGV: C code read or wrote memory it "
               "does not own, or a recursion ran past the stack)",
    "SIGABRT": "aborted (SIGABRT: os.abort(), or a C library stopped on a failed check)",
    "SIGBUS": "crashed with a bus error (SIGBUS)",
    "SIGFPE": "crashed with an arithmetic error in C code (SIGFPE)",
    "SIGILL": "crashed on an illegal instruction (SIGILL)",
    "SIGSYS": "made a kind of system call the sandbox never allows (SIGSYS)",
    "SIGXFSZ": "wrote too large a file (SIGXFSZ)",
    "SIGALRM": "was stopped by an alarm it set itself (SIGALRM: signal.alarm or setitimer)",
    "SIGINT": "was interrupted (SIGINT)",
    "SIGTERM": "was terminated (SIGTERM)",
}


def exit_reason(code):
    """Why a child that ended with return code ``code`` (as :mod:`subprocess` reports it)
    sent no answer."""
    if code is None:
        return "the process closed its output and stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return "the process " + SIGNAL_REASONS.get(name, f"was stopped by {name}")
    if code == 0:
        return "the process ended (exit code 0) before answering (os._exit(0)?)"
    return (f"the process ended with exit code {code} before answering (os._exit({code}), or "
            "Python itself failed)")


def _run_queue_seconds(pid):
    """The time process ``pid`` has spent runnable but waiting for a processor (the machine's
    load, not its own doing); None where the kernel does not say."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def _cpu_seconds(pid):
    """The CPU time (user + system, all threads) the process ``pid`` has used, from the
    kernel; None where ``/proc`` cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


class _Child:
    def __init__(self, tmp, functions, start, config):
        read_fd, write_fd = os.pipe()
        # the child waits on this pipe after its first message (what holds) until this side
        # has read the kernel's account of it (:meth:`release`): whatever the load, it is
        # observed alive and before any of the submission runs, never as a finished process
        go_read, go_write = os.pipe()
        config = dict(config, fd=write_fd, go=go_read, tmp=str(tmp), source="statements.json",
                      functions=functions, start=start)
        config_path = Path(tmp) / f"config_{start}.json"
        config_path.write_text(json.dumps(config))
        # built from nothing: no variable of the grader's (MLNOTES_HOMEWORK_SOLUTIONS, or any
        # other naming the instructor's folders) reaches graded code
        # (matplotlib's folder is set by the child: the scratch in the fresh root)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "TMPDIR": str(tmp),
               "MPLBACKEND": "Agg", "LANG": "C.UTF-8"}
        env.update({name: "1" for name in THREAD_ENV})
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-B", str(CHILD), str(config_path)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=tmp, env=env, pass_fds=(write_fd, go_read), start_new_session=True,
            )
        except BaseException:
            os.close(go_write)
            raise
        finally:
            os.close(write_fd)
            os.close(go_read)
        self.go = go_write
        self.started = time.monotonic()
        self.fd = read_fd
        self.eof = False
        self.cpu_used = 0.0  # measured when it ends

    def release(self):
        """Let the child go on past its first message (it waits for this, see ``_child.py``)."""
        if self.go is not None:
            try:
                os.write(self.go, b"go")
            except OSError:  # it has ended already: the next read says why
                pass
            os.close(self.go)
            self.go = None

    def cpu(self):
        """CPU seconds used so far (the wall-clock time since it started where /proc is
        missing: never less than the truth)."""
        used = _cpu_seconds(self.proc.pid)
        return time.monotonic() - self.started if used is None else used

    def clock(self):
        """``(wall-clock time, CPU seconds, seconds waiting for a processor or None)``."""
        return time.monotonic(), self.cpu(), _run_queue_seconds(self.proc.pid)

    def _read_exactly(self, size, limits):
        """``size`` bytes from the pipe into a buffer of exactly that size (no growth)."""
        buffer = bytearray(size)
        view, got = memoryview(buffer), 0
        while got < size:
            if self.eof:
                raise _Failure(self._exit_reason())
            limits.check(self)
            ready, _, _ = select.select([self.fd], [], [], POLL_SECONDS)
            if ready:
                n = os.readv(self.fd, [view[got:]])
                if n:
                    got += n
                else:
                    self.eof = True
        return bytes(buffer) if size <= MAX_HEADER else buffer

    def read(self, limits):
        """The next message as a dict (arrays rebuilt), or :class:`_Failure` saying why not.
        ``limits`` (a :class:`_Limits`) is checked while waiting."""
        prefix = self._read_exactly(8, limits)
        header_size, body_size = int.from_bytes(prefix[:4], "big"), int.from_bytes(prefix[4:], "big")
        if header_size > MAX_HEADER:
            raise _Failure(f"the process sent {header_size} bytes of text in one message, more "
                           f"than {MAX_HEADER // 2**10} kB")
        if body_size > MAX_BODY:
            raise _Failure(f"the answer was larger than {MAX_BODY // 2**20} MB")
        header = self._read_exactly(header_size, limits)
        body = self._read_exactly(body_size, limits)
        return decode(header, body)

    def _exit_reason(self):
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        return exit_reason(code)

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the child and anything it started
        except (ProcessLookupError, PermissionError):
            pass
        if self.proc.returncode is None:
            self.proc.kill()  # in case it left its process group
            try:
                _, status, usage = os.wait4(self.proc.pid, 0)
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.cpu_used = usage.ru_utime + usage.ru_stime
            except ChildProcessError:
                self.proc.wait()
        else:
            self.cpu_used = max(self.cpu_used, time.monotonic() - self.started)
        if self.go is not None:
            os.close(self.go)
            self.go = None
        os.close(self.fd)


class _Limits:
    """What a child may use, from ``mark`` (:meth:`_Child.clock`) on, while this side waits for
    its next message: CPU seconds up to ``cpu`` (its total), ``wall`` seconds of backstop (time
    neither computing nor waiting for a processor where the kernel tells, else plain
    wall-clock time), and the notebook's overall deadline ``end``."""

    def __init__(self, mark, cpu, wall, end, cpu_reason, wall_reason):
        self.mark, self.cpu, self.wall, self.end = mark, cpu, wall, end
        self.cpu_reason, self.wall_reason = cpu_reason, wall_reason

    def check(self, child):
        now, cpu, waiting = child.clock()
        if now > self.end:
            raise _Failure("the notebook used up its time in all", "budget")
        if self.cpu is not None and cpu > self.cpu:
            raise _Failure(self.cpu_reason, "cpu")
        elapsed = now - self.mark[0]
        if waiting is not None and self.mark[2] is not None:
            idle = elapsed - (cpu - self.mark[1]) - (waiting - self.mark[2])
            if idle > self.wall or elapsed > FAR_FACTOR * self.wall:
                raise _Failure(self.wall_reason, "wall")
        elif elapsed > self.wall:
            raise _Failure(self.wall_reason, "wall")


def decode(header, body):
    """One frame's header (JSON bytes) and body (float64 bytes) -> the message, arrays rebuilt
    as read-only float64 views of ``body`` (what is kept is copied: :func:`_answer`); a
    :class:`_Failure` for anything malformed."""
    try:
        data = json.loads(bytes(header).decode("utf-8"))
        message, shapes = data["message"], data["shapes"]
    except (ValueError, RecursionError, TypeError, KeyError, UnicodeDecodeError):
        raise _Failure("the process sent a malformed answer") from None
    if not isinstance(message, dict) or not isinstance(shapes, list):
        raise _Failure("the process sent a malformed answer")
    arrays, offset = [], 0
    body = memoryview(body)
    for shape in shapes:
        if not (isinstance(shape, list) and len(shape) <= 4 and all(
                isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_BODY
                for n in shape)):
            raise _Failure("the process sent a malformed answer")
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if offset + 8 * count > len(body):
            raise _Failure("the process sent a malformed answer")
        arrays.append(np.frombuffer(body[offset:offset + 8 * count], dtype="<f8").reshape(shape))
        offset += 8 * count
    if offset != len(body):
        raise _Failure("the process sent a malformed answer")
    return _rebuild(message, arrays, 0)


def _rebuild(x, arrays, depth):
    """The message with each ``{"array": k}`` replaced by ``arrays[k]`` (a plain recursive
    function: a nested one would make a reference cycle that keeps every frame alive until the
    garbage collector runs)."""
    if depth > MAX_HEADER_DEPTH:
        raise _Failure("the process sent a malformed answer")
    if isinstance(x, dict):
        if set(x) == {"array"}:
            k = x["array"]
            if not (isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(arrays)):
                raise _Failure("the process sent a malformed answer")
            return arrays[k]
        return {k: _rebuild(v, arrays, depth + 1) for k, v in x.items()}
    if isinstance(x, list):
        return [_rebuild(v, arrays, depth + 1) for v in x]
    return x


def can_isolate():
    """Whether the child may set up its own mounts and drop to ``nobody``: root on Linux."""
    return sys.platform == "linux" and os.geteuid() == 0


def _closed_ancestor(path):
    """The top-most folder on the way to ``path`` that other users may not enter, or None."""
    parts = Path(path).parts
    for k in range(2, len(parts) + 1):
        folder = os.path.join(*parts[:k])
        try:
            if not os.stat(folder).st_mode & 0o001:
                return folder
        except OSError:
            return None
    return None


def _exposed_dirs():
    """``[(folder, closed ancestor)]``: Python's and the packages' folders that ``nobody`` could
    not reach (e.g. an interpreter under ``/root``), to be bound back read-only in the child's
    mount namespace. A folder that is itself closed to others cannot be helped and is left out."""
    import sysconfig

    wanted = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(np.__file__)}
    for scheme in {sysconfig.get_default_scheme()}:
        wanted.update(v for k, v in sysconfig.get_paths(scheme).items()
                      if k in ("stdlib", "platstdlib", "purelib", "platlib"))
    wanted.update(p for p in sys.path if p)
    out = []
    for folder in sorted(os.path.realpath(p) for p in wanted if p and os.path.isdir(p)):
        closed = _closed_ancestor(folder)
        if closed and closed != folder and os.stat(folder).st_mode & 0o005 == 0o005:
            out.append((folder, closed))
    # a folder inside another exposed one comes with it
    return [(f, c) for f, c in out
            if not any(f != g and f.startswith(g + os.sep) for g, _ in out)]


def _matplotlib_cache():
    """This user's matplotlib cache folder (created if absent), for a notebook that imports
    pyplot: the child can read its font list there (it cannot write anywhere)."""
    folder = os.environ.get("MPLCONFIGDIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "matplotlib")
    os.makedirs(folder, exist_ok=True)
    return folder


def _needed_dirs():
    """The folders the child needs to read (Python, its packages, numpy, matplotlib's cache),
    resolved."""
    import sysconfig

    wanted = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(np.__file__), os.path.dirname(os.path.realpath(sys.executable)),
              _matplotlib_cache()}
    wanted.update(v for k, v in sysconfig.get_paths().items()
                  if k in ("stdlib", "platstdlib", "purelib", "platlib"))
    return sorted({os.path.realpath(p) for p in wanted if p and os.path.isdir(p)})


def _within(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


# Folders graded code cannot work without (the system's programs and libraries): a private
# folder holding one of them, or inside one, is refused.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc")


def check_private(folders):
    """Refuse (``ValueError``) a private folder the sandbox could not hide: the root, or one
    holding the system's programs or libraries, or inside them. A folder holding Python's own (an output
    folder beside the grader's ``.venv``, the checkout itself) is hidden with those bound back."""
    for folder in folders:
        real = os.path.realpath(folder)
        system = [d for d in SYSTEM_DIRS if _within(d, real) or _within(real, d)]
        if real == os.sep or system:
            raise ValueError(f"{folder} holds the system's own folders ({', '.join(system)}): "
                             "graded code could not be kept from reading it; choose a folder of "
                             "its own for the submissions and for the grades")


def _private_dirs(extra):
    """Folders graded code may not read: the course's (but the one holding Python itself)
    and ``extra``, resolved (see :func:`check_private`)."""
    check_private(extra)
    needed = _needed_dirs()
    dirs = [os.path.realpath(PROJECT_ROOT / name) for name in course_paths()]
    dirs += [os.path.realpath(p) for p in extra]
    return [d for d in dict.fromkeys(dirs) if d not in needed]


def _private_prefixes(extra):
    """Path prefixes the child may not read (its own temporary directory stays readable)."""
    prefixes = [d.rstrip(os.sep) + os.sep for d in _private_dirs(extra)]
    prefixes.append(os.path.join(os.path.realpath(tempfile.gettempdir()), TMP_PREFIX))
    return prefixes


def _allowed_prefixes(extra):
    """Python's own folders inside a private one: readable there (they are bound back)."""
    private = _private_dirs(extra)
    return [n.rstrip(os.sep) + os.sep for n in _needed_dirs()
            if any(_within(n, d) and n != d for d in private)]


def _hidden_dirs(extra):
    """``[(folder, [kept folders])]``: the folders the child covers with an empty file system
    once it has read its inputs, each with the folders of Python's own inside it (bound back).

    mlnotes, the course's and the caller's private folders, the temporary folder (other
    sandboxes, the class's submissions in tests), and ``/proc`` and ``/dev`` (another process's
    view of the file system, raw disks). A folder inside one already covered comes with it.
    """
    needed = _needed_dirs()
    candidates = [str(MLNOTES_DIR), *_private_dirs(extra),
                  os.path.realpath(tempfile.gettempdir()), "/proc", "/dev"]
    out = []
    for d in sorted(dict.fromkeys(d.rstrip(os.sep) or os.sep for d in candidates), key=len):
        if not os.path.isdir(d) or d in needed:
            continue
        outer = [keep for f, keep in out if _within(d, f)]
        if outer and not any(_within(d, k) for keep in outer for k in keep):
            continue  # covered with its outer folder
        keep = [n for n in needed if _within(n, d)]
        keep = [n for n in keep if not any(n != m and _within(n, m) for m in keep)]
        out.append((d, keep))
    return out


def _statement_share(timeout):
    return max(STATEMENT_FLOOR, min(STATEMENT_CAP, timeout / 2))


def _limits_config(timeout, patience, spent):
    """The child's own per-statement limits (CPU seconds; see ``_child._run_statements``);
    ``spent``: what statements stopped in earlier processes of this notebook used."""
    far = FAR_FACTOR if _run_queue_seconds(os.getpid()) is not None else 1.0
    return {"statement": _statement_share(timeout),
            "budget": (timeout + SETUP_GRACE) * SETUP_SHARE - spent["statement"],
            "import": IMPORT_SECONDS, "imports": IMPORTS_BUDGET - spent["import"],
            "import_wall": IMPORT_WALL_BASE,
            # the child's own wall-clock timer: the plain backstop (this side watches the time
            # it neither computes nor waits for a processor, where the kernel tells)
            "wall_factor": far * WALL_FACTOR, "wall_extra": far * WALL_EXTRA,
            "patience": patience}


# Threads graded code may run (the main one included), as a user of its own: RLIMIT_NPROC
# counts that user's tasks, and no other process has that user.
MAX_THREADS = 16


def _submission_folder(submission):
    """``(folder, notebook's folder inside it)`` of a folder submission (``(submissions
    folder, relative path of the notebook)``), or ``(None, None)`` for a lone notebook. The
    folder is the student's entry itself, never a link (refused before it is bound)."""
    if not submission:
        return None, None
    folder, relative = submission
    parts = Path(relative).parts
    if len(parts) < 2:
        return None, None
    top = os.path.join(os.path.realpath(folder), parts[0])
    info = os.lstat(top)
    if not stat.S_ISDIR(info.st_mode) or os.path.realpath(top) != top:
        return None, None
    return top, os.path.join(*parts[1:-1]) if len(parts) > 2 else "."


# A submitted folder copied into the private working folder holds at most this much.
STAGE_ENTRIES, STAGE_BYTES = 2000, 200 * 2**20


class StageError(OSError):
    """The submitted folder cannot be copied into its working folder (too large)."""


def _copy_submitted(folder, work):
    """Copy the submitted ``folder`` into ``work``: its folders, regular files and links (a
    link is copied as a link, never followed; a hard-linked file, a device or a pipe is left
    out). Read by this trusted process without following anything the submission made."""
    entries, size = 0, 0
    for root, dirs, files in os.walk(folder, followlinks=False):
        here = Path(work) / os.path.relpath(root, folder)
        dirs[:] = [d for d in dirs if d != ".ipynb_checkpoints"]
        for name in dirs + files:
            entries += 1
            if entries > STAGE_ENTRIES:
                raise StageError(f"the submitted folder holds more than {STAGE_ENTRIES} files")
            source, target = os.path.join(root, name), here / name
            info = os.lstat(source)
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(source), target)
            elif stat.S_ISDIR(info.st_mode):
                target.mkdir(mode=0o755)
            elif stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
                size += info.st_size
                if size > STAGE_BYTES:
                    raise StageError(f"the submitted folder holds more than "
                                     f"{STAGE_BYTES // 2**20} MB")
                fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                with os.fdopen(fd, "rb") as src:
                    opened = os.fstat(src.fileno())  # still the file that was looked at
                    if (opened.st_ino, opened.st_dev) != (info.st_ino, info.st_dev):
                        continue
                    with open(target, "xb") as dst:
                        shutil.copyfileobj(src, dst)
                os.chmod(target, 0o644)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]


def stage(tmp: str | os.PathLike, data: Sequence[str | os.PathLike],
          submission: tuple[str | os.PathLike, str] | None) -> tuple[str | None, str | None]:
    """``(folder, notebook's folder inside it)``: what graded code sees as its working folder.

    Without data files, the submitted folder itself (``(None, None)`` for a lone notebook).
    With the assignment's ``data`` files, a private working folder made for this submission
    in ``tmp``: a copy of the submitted folder (none for a lone notebook) with every data file
    the notebook's folder lacks copied beside the notebook. A submitted folder's own file of
    the same name wins: the notebook runs as its author ran it. Only copies are made here;
    graded code never reads the assignment's folder (its key, its checks).
    """
    folder, cwd = _submission_folder(submission)
    if not data:
        return folder, cwd
    work = Path(tmp) / "work"
    work.mkdir(mode=0o755)
    if folder is not None:
        _copy_submitted(folder, work)
    here = work / (cwd or ".")
    for path in data:
        target = here / Path(path).name
        if not os.path.lexists(target):
            shutil.copyfile(path, target)
            os.chmod(target, 0o644)
    return str(work), cwd or "."


def _view(tmp, private, block, submission):
    """The allow-list the child builds its root from (:mod:`mlnotes.homework.view`);
    ``submission`` is :func:`stage`'s ``(folder, cwd)``."""
    from .view import fresh_view, package_paths

    root = Path(tmp) / "root"
    root.mkdir()
    folder, cwd = submission
    covers = [str(MLNOTES_DIR), *package_paths(block), *_private_dirs(private)]
    return fresh_view(str(root), str(tmp), covers=covers, submission=folder, cwd=cwd)


def run_functions(statements, calls, *, timeout=10.0, memory_mb=1024, private=(), block=(),
                  max_numbers=None, events=None, submission=None, data=()):
    """Run a submission's statements in a sandboxed child and call its functions.

    Parameters
    ----------
    statements : list of dict
        The submission's top-level statements, each ``{"cell", "line", "code", "names"}``
        (see :func:`mlnotes.homework.notebook.extract_statements`).
    calls : list of (str, list of list)
        For each question, the function's name and the arguments of each case (arrays, numbers
        and strings).
    timeout : float
        CPU seconds per question (wall-clock time is only a backstop, see the module's text).
    memory_mb : int
        Address-space limit of the child.
    private : sequence of path-like
        Folders the child may not read (e.g. the other submissions and the grader's output).
    block : sequence of str
        Packages the code may not import, besides mlnotes (e.g. ``"sklearn"``).
    max_numbers : sequence of int, optional
        Per question, the most numbers one case's answer can hold and still be right (the
        grader knows the expected shapes). A larger answer is replaced at once by the reason,
        so that this process never keeps more than it will judge.
    events : list, optional
        Receives the sandbox's own notes on how the notebook was run (a backstop that fired,
        the notebook run again with more patience): the grader's words, for the feedback.
    submission : (path-like, str), optional
        The submissions folder and the notebook's path inside it: a notebook in a folder of
        its own sees that folder (read-only, its working directory) with the files and modules
        shipped beside it.
    data : sequence of path-like
        The assignment's data files: copied beside the notebook in a private working folder
        made for this run (:func:`stage`), never read by the child where they are.

    Returns
    -------
    reported : list of str
        What the child said went wrong while executing the statements. It comes from the
        untrusted process: bounded here, and to be shown as the submission's output.
    results : list of dict
        Per question: ``{"answers": [outcome per case]}`` (each outcome as in
        :func:`mlnotes.homework.core.evaluate_case`) or ``{"reason": text}``; plus ``"output"``,
        the first characters the code printed, and ``"blocked"``, the blocked packages it tried
        to use.
    isolation : dict
        What held in the first child, read from the kernel before any of the submission's code
        ran (``observed``: True) or, without ``/proc``, as the child said: ``mounts``,
        ``unprivileged``, ``seccomp``, ``namespaces`` (booleans), ``uid``.
    """
    functions = [name for name, _ in calls]
    results = [None] * len(calls)
    cpu_budget, wall_budget = notebook_budget(timeout, len(calls))
    hide = _hidden_dirs(private)
    state = {"reported": [], "isolation": {}, "skip": {}, "events": [],
             "max_numbers": list(max_numbers) if max_numbers is not None else None,
             "alone": False, "patience": 1.0, "cpu_left": cpu_budget,
             "end": time.monotonic() + wall_budget, "timeout": timeout, "hide": hide,
             "statements": statements, "skipped": 0, "stopped": 0,
             "spent": {"statement": 0.0, "import": 0.0}}
    config = {
        "memory_mb": memory_mb, "blocked_dirs": [str(MLNOTES_DIR)], "block": list(block),
        "private": _private_prefixes(private), "allowed": _allowed_prefixes(private),
        "hide": hide, "isolate": can_isolate(), "expose": _exposed_dirs(),
        "user_namespace": sys.platform == "linux", "matplotlib": _matplotlib_cache(),
    }
    tmp = tempfile.mkdtemp(prefix=TMP_PREFIX)
    try:
        staged = stage(tmp, data, submission)
        if data:  # without a fresh root, the private working folder is read in place
            config["work"] = os.path.normpath(os.path.join(staged[0], staged[1]))
        if config["isolate"] or config["user_namespace"]:
            config["view"] = _view(tmp, private, block, staged)
        if config["isolate"]:
            config["threads"] = MAX_THREADS
        Path(tmp, "statements.json").write_text(json.dumps(statements))
        for i, (_, cases) in enumerate(calls):
            _write_inputs(Path(tmp) / f"inputs_{i}.npz", cases)
        start = 0
        while start < len(calls):
            if time.monotonic() > state["end"] or state["cpu_left"] <= 0:
                reason = ("not run: the notebook used up the time one notebook may take in all "
                          f"({cpu_budget:g} s of CPU time, {wall_budget:g} s of wall-clock "
                          "time)")
                for k in range(start, len(calls)):
                    results[k] = {"reason": reason}
                break
            # no turn is taken from anyone: a notebook run again with more patience runs
            # beside the others, which never wait for it
            start = _run_child(tmp, functions, start, config, results, state)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if events is not None:
        events.extend(state["events"])
    return state["reported"], results, state["isolation"]


def _names(value):
    """A list of package names from the child's message (anything else is dropped)."""
    if not isinstance(value, list):
        return []
    return [v[:60] for v in value if isinstance(v, str)][:MAX_NAMES]


def _text(value, limit):
    return value[:limit] if isinstance(value, str) else ""


def _count_numbers(value, depth=0):
    if depth > MAX_HEADER_DEPTH:
        return 0
    if isinstance(value, np.ndarray):
        return value.size
    if isinstance(value, dict):
        return sum(_count_numbers(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return sum(_count_numbers(v, depth + 1) for v in value)
    return 1


def _bounded(answer, most):
    """``answer``, or in its place the reason when it holds more numbers than can be right."""
    if isinstance(answer, dict) and "value" in answer:
        n = _count_numbers(answer["value"])
        if n > most:
            return {"error": f"the answer has {n} numbers; this question's answer has far "
                             "fewer (return the array the docstring describes)",
                    "type": "AnswerError"}
    return answer


def _isolation(value):
    keys = ("mounts", "unprivileged", "seccomp", "fresh_root")
    out = {k: value.get(k) is True for k in keys} if isinstance(value, dict) else {}
    return dict(out, observed=False) if out else {}


def _unescape_mount(path):
    """A mount point as ``mountinfo`` writes it (blanks and back-slashes as octal escapes)."""
    import re

    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def _observe(pid, hide):
    """What holds for process ``pid``, from the kernel's own account (``/proc``): its uid and
    capabilities, ``no_new_privs`` and seccomp, its namespaces, and every folder of ``hide``
    covered by an empty file system in its mount namespace. None where ``/proc`` cannot tell.
    Read once the child has said it is confined, before it runs any of the submission: none of
    it can be undone by the child (no capability, no system call that would)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        with open(f"/proc/{pid}/mountinfo") as f:
            mounts = {}
            for line in f:
                fields, _, rest = line.partition(" - ")
                mounts[_unescape_mount(fields.split()[4])] = rest.split()[0]
        spaces = {name: os.readlink(f"/proc/{pid}/ns/{name}") != os.readlink(
            f"/proc/self/ns/{name}") for name in ("mnt", "ipc", "net", "uts")}
    except (OSError, ValueError, IndexError):
        return None
    fresh = spaces["mnt"] and _fresh_root_seen(pid, [d for d, _ in hide])
    uids = [int(u) for u in status.get("Uid", "").split()]
    caps = [int(status.get(k, "0").strip(), 16) for k in ("CapInh", "CapPrm", "CapEff")]
    return {
        "mounts": spaces["mnt"] and (fresh or all(mounts.get(d) == "tmpfs" for d, _ in hide)),
        "fresh_root": fresh,
        "unprivileged": bool(uids) and not any(caps) and (
            os.geteuid() != 0 or all(u != 0 for u in uids)),
        "seccomp": status.get("Seccomp", "").strip() == "2"
        and status.get("NoNewPrivs", "").strip() == "1",
        "namespaces": all(spaces[n] for n in ("ipc", "net", "uts")),
        "uid": uids[0] if uids else None,
        "observed": True,
    }


def _fresh_root_seen(pid, hidden):
    """Whether process ``pid`` lives in a root of its own (not this process's) where none of
    the ``hidden`` folders holds anything: each is absent, or a bare folder on the way to what
    was bound (its entries all lead to Python's folders or the scratch, never a file)."""
    root = f"/proc/{pid}/root"
    try:
        if os.stat(root + "/").st_ino == os.stat("/").st_ino and os.stat(
                root + "/").st_dev == os.stat("/").st_dev:
            return False
        for folder in hidden:
            if folder in ("/proc", "/dev"):
                continue
            path = root + folder
            if os.path.lexists(path) and not _only_skeleton(path):
                return False
    except OSError:
        return False
    return True


def _only_skeleton(path, depth=0):
    """Whether ``path`` (in the child's root, through ``/proc/<pid>/root``) holds only
    folders on the way to mount points (a bound folder: Python's, or the scratch)."""
    try:
        here = os.lstat(path).st_dev
        with os.scandir(path) as entries:
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False):
                    return False
                mounted = os.lstat(entry.path).st_dev != here  # (os.path.ismount would
                # resolve /proc/<pid>/root to this process's root)
                if depth > 64 or not mounted and not _only_skeleton(entry.path, depth + 1):
                    return False
    except OSError:
        return False
    return True


def _is_index(value, n):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n


def _go_alone(state, why):
    """This side's own measurement of the wall-clock backstop fired (never a message of the
    child's): run the notebook again, with more patience (once per notebook), beside the other
    submissions, which never wait for it; False if that was done already (the backstop's
    verdict then stands)."""
    if state["alone"]:
        return False
    state["alone"], state["patience"] = True, ALONE_PATIENCE
    state["events"].append(
        f"{why}: the machine may only have been busy, so the notebook was run again with a "
        f"{ALONE_PATIENCE:g} times longer wall-clock limit before anything was skipped or "
        "marked")
    return True


def _setup_limits(child, state, at):
    """The limits while statement ``at`` of the set-up runs (None: starting Python)."""
    timeout, patience = state["timeout"], state["patience"]
    total = setup_cpu(timeout)
    if _is_index(at, len(state["statements"])):
        if state["statements"][at].get("kind") == "import":
            share, wall = IMPORT_SECONDS, IMPORT_WALL_BASE
        else:
            share = wall = _statement_share(timeout)
        mark = child.clock()
        cpu = min(mark[1] + share + CPU_GRACE, total)
        wall = backstop(wall, patience) + CPU_GRACE
    else:
        mark = (child.started, 0.0, 0.0)
        cpu, wall = total, backstop(total, patience)
    return _Limits(mark, cpu, wall, state["end"], "it used up its CPU time",
                   "it slept or blocked past the wall-clock backstop")


def _run_setup(child, state):
    """Read the child's messages up to "ready"; the message, or :class:`_Failure` with ``at``
    (the statement that was running) set."""
    at = None
    limits = _setup_limits(child, state, None)
    try:
        first = child.read(limits)
        if first.get("kind") != "isolation":
            raise _Failure("the process sent a malformed answer")
        if not state["isolation"]:
            claimed = _isolation(first.get("isolation"))
            observed = _observe(child.proc.pid, state["hide"])
            if observed:  # the mounts also need the child's word that Python was bound back
                observed["mounts"] = observed["mounts"] and claimed.get("mounts", False)
            state["isolation"] = observed or claimed
        child.release()  # only now may it run the submission
        message = child.read(limits)
        while message.get("kind") == "progress":  # the top-level statement about to run
            at = message.get("at")
            limits = _setup_limits(child, state, at)
            message = child.read(limits)
        if message.get("kind") != "ready":  # (a "backstop" the code wrote itself, say)
            raise _Failure("the process sent a malformed message")
    except _Failure as exc:
        exc.at = at
        raise
    return message


def _blame(state, at, why, kind):
    """Skip statement ``at`` in the next runs, because of ``why``; False if it cannot be.
    Stopped past its time (``kind`` "cpu" or "wall"), its share is counted as spent."""
    if not _is_index(at, len(state["statements"])) or str(at) in state["skip"]:
        return False
    timed = kind in ("cpu", "wall")
    if state["stopped" if timed else "skipped"] >= (MAX_STOPPED if timed else MAX_SKIPPED):
        return False
    state["stopped" if timed else "skipped"] += 1
    if timed:
        is_import = state["statements"][at].get("kind") == "import"
        state["spent"]["import" if is_import else "statement"] += (
            IMPORT_SECONDS if is_import else _statement_share(state["timeout"])) + CPU_GRACE
    state["skip"][str(at)] = why
    return True


def _run_child(tmp, functions, start, config, results, state):
    """One child from question ``start`` on; returns where the next child must start."""
    timeout = state["timeout"]
    config = dict(config, skip=state["skip"],
                  limits=_limits_config(timeout, state["patience"], state["spent"]),
                  cpu_seconds=int(min(state["cpu_left"], setup_cpu(timeout)
                                      + timeout * (len(functions) - start))) + 1)
    child = _Child(tmp, functions, start, config)
    try:
        try:
            ready = _run_setup(child, state)
        except _Failure as exc:
            at = getattr(exc, "at", None)
            if exc.kind == "wall" and _go_alone(state, "the wall-clock backstop fired while the "
                                                "notebook's definitions were executed"):
                return start
            why = {"cpu": "it used up its CPU time past every timer",
                   "wall": "it slept or blocked past the wall-clock backstop, the second time "
                           "with a longer backstop"}.get(
                exc.kind, str(exc))
            if exc.kind != "budget" and _blame(state, at, why, exc.kind):
                return start  # that statement ended the process: run again without it
            reason = f"the notebook's definitions could not be executed: {exc}"
            for i in range(start, len(functions)):
                results[i] = {"reason": reason}
            return len(functions)
        stopped = ready.get("stopped")
        if isinstance(stopped, dict):  # stopped by a limit: a later process skips it at once
            for k, why in list(stopped.items())[:len(state["statements"])]:
                if isinstance(why, str) and k.isdigit() and k not in state["skip"]:
                    state["skip"][k] = why[:200]
        if start == 0:
            notes = ready.get("notes")
            notes = notes if isinstance(notes, list) else []
            state["reported"].extend(_text(n, NOTE_CHARS) for n in notes[:MAX_NOTES])
            if len(notes) > MAX_NOTES:
                state["reported"].append(f"... and {len(notes) - MAX_NOTES} more")
            state["reported"].extend(f"the notebook imports {name}, which is blocked while "
                                     "grading" for name in _names(ready.get("blocked")))
        for i in range(start, len(functions)):
            mark = child.clock()
            wall = backstop(timeout, state["patience"])
            limits = _Limits(mark, mark[1] + timeout, wall, state["end"],
                             f"timed out after {timeout:g} s of CPU time (an endless loop?)",
                             f"timed out: it slept or blocked for {wall:g} s (time.sleep, "
                             "input(), waiting on something?)")
            try:
                message = child.read(limits)
            except _Failure as exc:
                if exc.kind == "wall" and _go_alone(
                        state, f"the wall-clock backstop fired while {functions[i]} ran"):
                    return i
                reason = str(exc)
                if exc.kind == "wall" and state["alone"]:
                    reason += f" (twice, the second time with a {ALONE_PATIENCE:g} times longer limit)"
                results[i] = {"reason": reason}
                state["patience"] = 1.0
                return i + 1
            answers = message.get("answers")
            if message.get("q") != i or not isinstance(answers, list):
                results[i] = {"reason": "the process sent a malformed answer"}
                return i + 1
            answers = [_answer(a) for a in answers[:MAX_CASES]]
            if state["max_numbers"] is not None:
                answers = [_bounded(a, state["max_numbers"][i]) for a in answers]
            results[i] = {"answers": answers, "output": _text(message.get("output"),
                                                              OUTPUT_CHARS),
                          "blocked": _names(message.get("blocked"))}
            state["patience"] = 1.0  # the longer backstop was for the part that was run again
        return len(functions)
    finally:
        child.kill()
        state["cpu_left"] -= child.cpu_used


# The most cases of one question (more in a message are dropped).
MAX_CASES = 64


def _owned(value, depth=0):
    """``value`` with every array copied out of the frame it was read from (a view would keep
    the whole frame, up to MAX_BODY bytes, alive for as long as the answer is kept)."""
    if depth > MAX_HEADER_DEPTH:
        return None
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {k: _owned(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_owned(v, depth + 1) for v in value]
    return value


def _answer(value):
    """One case's outcome with only the keys the grader reads, its arrays copied (anything
    else the child sent, arrays included, is dropped with the frame)."""
    if not isinstance(value, dict):
        return {"error": "the process sent a malformed answer", "type": "AnswerError"}
    if "value" in value:
        return {"value": _owned(value["value"])}
    return {"error": _text(value.get("error"), NOTE_CHARS * 2),
            "type": _text(value.get("type"), 60)}
