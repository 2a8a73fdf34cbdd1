"""The trusted side of the grader's sandbox: run a submission's functions in a child process.

:func:`run_functions` starts ``_child.py`` in a fresh Python process (isolated mode, a new session,
a temporary directory as its working directory and home), hands it the inputs as ``.npz`` files
(written by this process, read by the child without pickle) and reads the answers from a pipe that
this process created: one frame per question, a bounded JSON header and the numbers as raw
float64 (sizes checked before anything is read or parsed). Each question has a wall-clock
deadline; the child also has CPU-time, address-space, file-size and process limits, runs as an
unprivileged user without capabilities where the grader is root, and has a seccomp allow-list
(set by the child on itself before any student code runs, see ``_child.py``).

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
import subprocess
import sys
import tempfile
import time
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
# The child's imports (numpy, the student's scipy) and top-level definitions get this much
# wall-clock time on top of the per-question timeout.
SETUP_GRACE = 5.0
# Each top-level statement of the notebook but an import may run this long (half the
# per-question timeout, within these bounds) before it is stopped and reported; the others
# still run.
STATEMENT_FLOOR, STATEMENT_CAP = 1.0, 5.0
# ... and all of them together this share of the set-up deadline (timeout + SETUP_GRACE): the
# rest is for starting Python, the notebook's imports and its definitions, so that many slow
# lines cost only themselves, never the whole notebook.
SETUP_SHARE = 0.5
# A top-level statement that ends the child (a crash, os._exit, a hang no timer stops) is skipped
# and the notebook run again, for at most this many such statements.
MAX_SKIPPED = 2
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


class _Failure(Exception):
    """The child did not deliver a message; the text says why (it goes into the feedback)."""


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


class _Child:
    def __init__(self, tmp, functions, start, timeout, memory_mb, private, block, skip):
        read_fd, write_fd = os.pipe()
        n_left = len(functions) - start
        config = {
            "fd": write_fd, "tmp": str(tmp), "source": "statements.json",
            "functions": functions, "start": start, "memory_mb": memory_mb,
            "cpu_seconds": int(SETUP_GRACE + timeout * (n_left + 1)) + 1,
            "statement_seconds": max(STATEMENT_FLOOR, min(STATEMENT_CAP, timeout / 2)),
            "setup_seconds": (timeout + SETUP_GRACE) * SETUP_SHARE,
            "blocked_dirs": [str(MLNOTES_DIR)], "block": list(block),
            "private": _private_prefixes(private),
            "hide": _hidden_dirs(private),
            "isolate": can_isolate(), "expose": _exposed_dirs(),
            "user_namespace": sys.platform == "linux",
            "matplotlib": _matplotlib_cache(),
            "skip": skip,
        }
        config_path = Path(tmp) / f"config_{start}.json"
        config_path.write_text(json.dumps(config))
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "TMPDIR": str(tmp),
               "MPLCONFIGDIR": _matplotlib_cache(), "MPLBACKEND": "Agg", "LANG": "C.UTF-8"}
        env.update({name: "1" for name in THREAD_ENV})
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-B", str(CHILD), str(config_path)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=tmp, env=env, pass_fds=(write_fd,), start_new_session=True,
            )
        finally:
            os.close(write_fd)
        self.fd = read_fd
        self.eof = False

    def _read_exactly(self, size, deadline):
        """``size`` bytes from the pipe into a buffer of exactly that size (no growth)."""
        buffer = bytearray(size)
        view, got = memoryview(buffer), 0
        while got < size:
            if self.eof:
                raise _Failure(self._exit_reason())
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Failure("timed out")
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                n = os.readv(self.fd, [view[got:]])
                if n:
                    got += n
                else:
                    self.eof = True
        return bytes(buffer) if size <= MAX_HEADER else buffer

    def read(self, deadline):
        """The next message as a dict (arrays rebuilt), or :class:`_Failure` saying why not."""
        prefix = self._read_exactly(8, deadline)
        header_size, body_size = int.from_bytes(prefix[:4], "big"), int.from_bytes(prefix[4:], "big")
        if header_size > MAX_HEADER:
            raise _Failure(f"the process sent {header_size} bytes of text in one message, more "
                           f"than {MAX_HEADER // 2**10} kB")
        if body_size > MAX_BODY:
            raise _Failure(f"the answer was larger than {MAX_BODY // 2**20} MB")
        header = self._read_exactly(header_size, deadline)
        body = self._read_exactly(body_size, deadline)
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
        self.proc.kill()  # in case it left its process group
        self.proc.wait()
        os.close(self.fd)


def decode(header, body):
    """One frame's header (JSON bytes) and body (float64 bytes) -> the message, arrays rebuilt
    as read-only float64 views of ``body``; a :class:`_Failure` for anything malformed."""
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

    def rebuild(x, depth):
        if depth > MAX_HEADER_DEPTH:
            raise _Failure("the process sent a malformed answer")
        if isinstance(x, dict):
            if set(x) == {"array"}:
                k = x["array"]
                if not (isinstance(k, int) and 0 <= k < len(arrays)):
                    raise _Failure("the process sent a malformed answer")
                return arrays[k]
            return {k: rebuild(v, depth + 1) for k, v in x.items()}
        if isinstance(x, list):
            return [rebuild(v, depth + 1) for v in x]
        return x

    return rebuild(message, 0)


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


def _private_dirs(extra):
    """Folders graded code may not read: the course's, ``extra``, never Python's or numpy's."""
    dirs = [PROJECT_ROOT / name for name in course_paths()] + [Path(p) for p in extra]
    dirs = [os.path.realpath(d) + os.sep for d in dirs]
    # never a folder that holds Python itself or numpy (e.g. an output folder that is the cwd)
    needed = [os.path.realpath(p) + os.sep for p in (sys.prefix, sys.base_prefix,
                                                     os.path.dirname(np.__file__))]
    return [d for d in dirs if not any(n.startswith(d) for n in needed)]


def _private_prefixes(extra):
    """Path prefixes the child may not read (its own temporary directory stays readable)."""
    prefixes = _private_dirs(extra)
    prefixes.append(os.path.join(os.path.realpath(tempfile.gettempdir()), TMP_PREFIX))
    return prefixes


def _hidden_dirs(extra):
    """Folders the child covers with an empty file system once it has read its inputs.

    mlnotes, the course's and the caller's private folders, the temporary folder (other
    sandboxes, the class's submissions in tests), and ``/proc`` and ``/dev`` (another process's
    view of the file system, raw disks).
    """
    candidates = [str(MLNOTES_DIR) + os.sep, *_private_dirs(extra),
                  os.path.realpath(tempfile.gettempdir()) + os.sep, "/proc/", "/dev/"]
    needed = [os.path.realpath(p) + os.sep for p in (sys.prefix, sys.base_prefix,
                                                     os.path.dirname(np.__file__))]
    return [d.rstrip(os.sep) for d in dict.fromkeys(candidates)
            if os.path.isdir(d) and not any(n.startswith(d) for n in needed)]


def run_functions(statements, calls, *, timeout=10.0, memory_mb=1024, private=(), block=(),
                  max_numbers=None):
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
        Wall-clock seconds per question.
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
        What held in the first child: ``mounts``, ``unprivileged``, ``seccomp`` (booleans).
    """
    functions = [name for name, _ in calls]
    results = [None] * len(calls)
    state = {"reported": [], "isolation": {}, "skip": {},
             "max_numbers": list(max_numbers) if max_numbers is not None else None}
    tmp = tempfile.mkdtemp(prefix=TMP_PREFIX)
    try:
        Path(tmp, "statements.json").write_text(json.dumps(statements))
        for i, (_, cases) in enumerate(calls):
            _write_inputs(Path(tmp) / f"inputs_{i}.npz", cases)
        start = 0
        while start < len(calls):
            start = _run_child(tmp, functions, start, timeout, memory_mb, private, block,
                               results, state)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
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
    keys = ("mounts", "unprivileged", "seccomp")
    return {k: value.get(k) is True for k in keys} if isinstance(value, dict) else {}


def _run_child(tmp, functions, start, timeout, memory_mb, private, block, results, state):
    """One child from question ``start`` on; returns where the next child must start."""
    child = _Child(tmp, functions, start, timeout, memory_mb, private, block, state["skip"])
    try:
        deadline, at = time.monotonic() + timeout + SETUP_GRACE, None
        try:
            ready = child.read(deadline)
            while ready.get("kind") == "progress":  # the top-level statement about to run
                at = ready.get("at")
                ready = child.read(deadline)
        except _Failure as exc:
            culprit = isinstance(at, int) and not isinstance(at, bool) and at >= 0
            if culprit and len(state["skip"]) < MAX_SKIPPED and str(at) not in state["skip"]:
                # that statement ended the process: run the notebook again without it
                why = str(exc)
                state["skip"][str(at)] = ("it ran past every time limit" if why == "timed out"
                                          else why)
                return start
            reason = f"the notebook's definitions could not be executed: {exc}"
            for i in range(start, len(functions)):
                results[i] = {"reason": reason}
            return len(functions)
        if start == 0:
            notes = ready.get("notes")
            notes = notes if isinstance(notes, list) else []
            state["reported"].extend(_text(n, NOTE_CHARS) for n in notes[:MAX_NOTES])
            if isinstance(notes, list) and len(notes) > MAX_NOTES:
                state["reported"].append(f"... and {len(notes) - MAX_NOTES} more")
            state["reported"].extend(f"the notebook imports {name}, which is blocked while "
                                     "grading" for name in _names(ready.get("blocked")))
            state["isolation"] = _isolation(ready.get("isolation"))
        for i in range(start, len(functions)):
            try:
                message = child.read(time.monotonic() + timeout)
            except _Failure as exc:
                reason = str(exc)
                if reason == "timed out":
                    reason = f"timed out after {timeout:g} s (an endless loop?)"
                results[i] = {"reason": reason}
                return i + 1
            answers = message.get("answers")
            if message.get("q") != i or not isinstance(answers, list):
                results[i] = {"reason": "the process sent a malformed answer"}
                return i + 1
            if state["max_numbers"] is not None:
                answers = [_bounded(a, state["max_numbers"][i]) for a in answers]
            results[i] = {"answers": answers, "output": _text(message.get("output"),
                                                              OUTPUT_CHARS),
                          "blocked": _names(message.get("blocked"))}
        return len(functions)
    finally:
        child.kill()
