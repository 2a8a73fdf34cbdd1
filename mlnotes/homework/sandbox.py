"""The trusted side of the grader's sandbox: run a submission's functions in a child process.

:func:`run_functions` starts ``_child.py`` in a fresh Python process (isolated mode, a new session,
a temporary directory as its working directory and home), hands it the inputs as ``.npz`` files
(written by this process, read by the child without pickle) and reads the answers from a pipe that
this process created: one length-prefixed JSON message per question. Each question has a
wall-clock deadline; the child also has CPU-time, address-space, file-size and process limits and
a seccomp filter (set by the child on itself before any student code runs, see ``_child.py``).

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
# In a source checkout (not an installed package) the book, the tests and the git history sit
# beside the package: they hold the solutions, so graded code may not read them.
PROJECT_ROOT = MLNOTES_DIR.parent
COURSE_PATHS = ("book", "tests", ".git") if (PROJECT_ROOT / "pyproject.toml").exists() else ()
TMP_PREFIX = "mlnotes-grade-"
# Largest message accepted from the child (bytes of JSON); larger means "answer too large".
MAX_MESSAGE = 32 * 2**20
READ_CHUNK = 2**16
# The child's imports (numpy, the student's scipy) and top-level definitions get this much
# wall-clock time on top of the per-question timeout.
SETUP_GRACE = 5.0
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


class _Child:
    def __init__(self, tmp, functions, start, timeout, memory_mb, private, block):
        read_fd, write_fd = os.pipe()
        n_left = len(functions) - start
        config = {
            "fd": write_fd, "tmp": str(tmp), "source": "submission.py",
            "functions": functions, "start": start, "memory_mb": memory_mb,
            "cpu_seconds": int(SETUP_GRACE + timeout * (n_left + 1)) + 1,
            "blocked_dirs": [str(MLNOTES_DIR)], "block": list(block),
            "private": _private_prefixes(private),
            "hide": _hidden_dirs(private),
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
        self.buffer = b""
        self.eof = False

    def read(self, deadline):
        """The next message as a dict, or :class:`_Failure` saying why there is none."""
        while True:
            if len(self.buffer) >= 4:
                size = int.from_bytes(self.buffer[:4], "big")
                if size > MAX_MESSAGE:
                    raise _Failure(f"the answer was larger than {MAX_MESSAGE // 2**20} MB")
                if len(self.buffer) >= 4 + size:
                    data, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
                    try:
                        message = json.loads(data)
                    except (ValueError, RecursionError):
                        raise _Failure("the process sent a malformed answer") from None
                    if not isinstance(message, dict):
                        raise _Failure("the process sent a malformed answer")
                    return message
            if self.eof:
                raise _Failure(self._exit_reason())
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Failure("timed out")
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                chunk = os.read(self.fd, READ_CHUNK)
                if chunk:
                    self.buffer += chunk
                else:
                    self.eof = True

    def _exit_reason(self):
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the process closed its output and stopped answering"
        if code < 0:
            sig = signal.Signals(-code).name
            why = {"SIGXCPU": "used up its CPU-time limit", "SIGKILL": "was killed",
                   "SIGSEGV": "crashed (segmentation fault)", "SIGXFSZ": "wrote too large a file"}
            return f"the process {why.get(sig, 'was stopped by ' + sig)}"
        return f"the process exited with code {code} before answering (sys.exit or os._exit?)"

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the child and anything it started
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.kill()  # in case it left its process group
        self.proc.wait()
        os.close(self.fd)


def _matplotlib_cache():
    """This user's matplotlib cache folder (created if absent), for a notebook that imports
    pyplot: the child can read its font list there (it cannot write anywhere)."""
    folder = os.environ.get("MPLCONFIGDIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "matplotlib")
    os.makedirs(folder, exist_ok=True)
    return folder


def _private_dirs(extra):
    """Folders graded code may not read: the course's, ``extra``, never Python's or numpy's."""
    dirs = [PROJECT_ROOT / name for name in COURSE_PATHS] + [Path(p) for p in extra]
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


def run_functions(source, calls, *, timeout=10.0, memory_mb=1024, private=(), block=()):
    """Run ``source`` (a submission's definitions) in a sandboxed child and call its functions.

    Parameters
    ----------
    source : str
        Python code defining the functions (imports, defs, assignments).
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

    Returns
    -------
    notes : list of str
        What went wrong while executing the definitions (a failed import, a blocked mlnotes).
    results : list of dict
        Per question: ``{"answers": [outcome per case]}`` (each outcome as in
        :func:`mlnotes.homework.core.evaluate_case`) or ``{"reason": text}``; plus ``"output"``,
        the first characters the code printed, and ``"blocked"``, the blocked packages it tried
        to use.
    """
    functions = [name for name, _ in calls]
    results = [None] * len(calls)
    notes = []
    tmp = tempfile.mkdtemp(prefix=TMP_PREFIX)
    try:
        Path(tmp, "submission.py").write_text(source)
        for i, (_, cases) in enumerate(calls):
            _write_inputs(Path(tmp) / f"inputs_{i}.npz", cases)
        start = 0
        while start < len(calls):
            start = _run_child(tmp, functions, start, timeout, memory_mb, private, block,
                               results, notes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return notes, results


def _names(value):
    """A list of package names from the child's message (anything else is dropped)."""
    return [v for v in value if isinstance(v, str)][:10] if isinstance(value, list) else []


def _run_child(tmp, functions, start, timeout, memory_mb, private, block, results, notes):
    """One child from question ``start`` on; returns where the next child must start."""
    child = _Child(tmp, functions, start, timeout, memory_mb, private, block)
    try:
        try:
            ready = child.read(time.monotonic() + timeout + SETUP_GRACE)
        except _Failure as exc:
            reason = f"the notebook's definitions could not be executed: {exc}"
            for i in range(start, len(functions)):
                results[i] = {"reason": reason}
            return len(functions)
        if start == 0:
            notes.extend(str(n) for n in ready.get("notes", []) if isinstance(n, str))
            notes.extend(f"the notebook imports {name}, which is blocked while grading"
                         for name in _names(ready.get("blocked")))
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
            results[i] = {"answers": answers, "output": str(message.get("output", ""))[:4000],
                          "blocked": _names(message.get("blocked"))}
        return len(functions)
    finally:
        child.kill()
