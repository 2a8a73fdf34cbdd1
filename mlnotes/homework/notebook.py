"""Notebooks: reading a submission safely, extracting its statements, making student versions.

Reading: :func:`open_submission` opens a file inside the submissions folder one path component at
a time, never following a link, and accepts only a regular file (with a single name: no hard link
to a file elsewhere). The notebook's bytes are then parsed in a separate process with memory and
CPU limits (:func:`parse_submission`, the script ``_parse.py``): IPython's own input
transformation, then :mod:`ast`, with every size bounded before parsing.

Student versions: in an instructor notebook, the lines between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (inclusive) are replaced by a stub that raises
``NotImplementedError("not implemented yet")``, indented like the marker; markdown between
``<!-- BEGIN SOLUTION -->`` and ``<!-- END SOLUTION -->`` is removed.
"""

import json
import os
import re
import select
import stat
import subprocess
import sys
import time
from pathlib import Path

from ._parse import MAX_NOTEBOOK_BYTES, NotebookError, code_cells, extract_statements

__all__ = ["MAX_NOTEBOOK_BYTES", "NotebookError", "code_cells", "extract_statements",
           "open_submission", "parse_submission", "read_code_cells", "student_version",
           "write_student_version"]

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
MD_BEGIN, MD_END = "<!-- BEGIN SOLUTION -->", "<!-- END SOLUTION -->"
STUB_LINES = ("# YOUR CODE HERE", 'raise NotImplementedError("not implemented yet")')
PARSER = Path(__file__).with_name("_parse.py")
# Limits of the parsing process (address space, CPU seconds, wall-clock seconds) and the most
# it may answer (bytes of JSON).
PARSE_MEMORY_MB = 1024
PARSE_CPU_SECONDS = 20
PARSE_TIMEOUT = 60.0
MAX_PARSE_OUTPUT = 4 * 2**20
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)


def open_submission(folder, relative):
    """A read-only descriptor of ``folder/relative``, a regular file inside ``folder``.

    Each component is opened relative to the one before with ``O_NOFOLLOW``: a symbolic link
    anywhere on the way (absolute or relative, to the instructor's notebook or to ``/dev/zero``)
    is refused, and so are folders, devices, pipes and sockets, and a file with more than one name
    (a hard link to a file elsewhere). A :class:`NotebookError` says which.
    """
    parts = Path(relative).parts
    if not parts or any(p in ("", ".", "..") or os.sep in p for p in parts):
        raise NotebookError(f"{relative} is not a path inside the submissions folder",
                            "not a path inside the submissions folder")
    fd = os.open(folder, _OPEN_DIR)
    try:
        for part in parts[:-1]:
            try:
                nxt = os.open(part, _OPEN_DIR, dir_fd=fd)
            except OSError:
                raise NotebookError(f"{part} is a link or not a folder; links are not "
                                    "followed", "a folder on the way is a link") from None
            os.close(fd)
            fd = nxt
        try:
            info = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        except OSError as exc:
            raise NotebookError(f"{parts[-1]} could not be read: {exc.strerror}",
                                f"the file could not be read: {exc.strerror}") from None
        if stat.S_ISLNK(info.st_mode):
            raise NotebookError(f"{parts[-1]} is a link, not a regular file; links are not "
                                "followed: submit the notebook itself",
                                "the submission is a link (not followed)")
        if not stat.S_ISREG(info.st_mode):
            raise NotebookError(f"{parts[-1]} is not a regular file",
                                "the submission is not a regular file")
        try:
            file_fd = os.open(parts[-1], _OPEN_FILE, dir_fd=fd)
        except OSError as exc:
            raise NotebookError(f"{parts[-1]} could not be opened: {exc.strerror}",
                                f"the file could not be opened: {exc.strerror}") from None
    finally:
        os.close(fd)
    info = os.fstat(file_fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(file_fd)
        what = "has more than one name (a hard link)" if stat.S_ISREG(info.st_mode) else (
            "is not a regular file")
        raise NotebookError(f"{parts[-1]} {what}; submit the notebook itself",
                            f"the submission {what}")
    os.set_blocking(file_fd, True)
    return file_fd


def read_code_cells(path):
    """The sources of a notebook's code cells, read in this process (the student's own notebook,
    the tests); a :class:`NotebookError` if unreadable. The batch grader uses
    :func:`parse_submission` instead."""
    path = Path(path)
    fd = open_submission(path.parent, path.name)
    with os.fdopen(fd, "rb") as f:
        return code_cells(f.read(MAX_NOTEBOOK_BYTES + 1))


def _limit_parser():
    import resource

    mem = PARSE_MEMORY_MB * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CPU, (PARSE_CPU_SECONDS, PARSE_CPU_SECONDS + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def parse_submission(fd):
    """Parse the notebook open at ``fd`` in a limited process: ``(statements, notes, broken)``.

    The process gets the file as its standard input, at most :data:`PARSE_MEMORY_MB` of memory
    and :data:`PARSE_CPU_SECONDS` of CPU; this process reads at most :data:`MAX_PARSE_OUTPUT`
    bytes of its answer. A :class:`NotebookError` says what went wrong.
    """
    proc = subprocess.Popen(
        [sys.executable, "-I", "-B", str(PARSER)], stdin=fd, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, preexec_fn=_limit_parser, start_new_session=True,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"})
    chunks, size = [], 0
    deadline = time.monotonic() + PARSE_TIMEOUT
    try:
        out = proc.stdout.fileno()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise NotebookError("reading the notebook took too long")
            if not select.select([out], [], [], remaining)[0]:
                continue
            chunk = os.read(out, 2**16)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_PARSE_OUTPUT:
                raise NotebookError("the notebook holds more code than any assignment needs")
            chunks.append(chunk)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    try:
        answer = json.loads(b"".join(chunks))
    except ValueError:
        why = ("it needed more memory or time than a notebook may"
               if proc.returncode else "the reader failed")
        raise NotebookError(f"the notebook could not be read: {why}") from None
    if not isinstance(answer, dict):
        raise NotebookError("the notebook could not be read: the reader failed")
    if "error" in answer:
        raise NotebookError(str(answer["error"])[:500])
    statements, notes, broken = answer["statements"], answer["notes"], answer["broken"]
    if not all(isinstance(st, dict) and isinstance(st.get("code"), str)
               and isinstance(st.get("cell"), int) and isinstance(st.get("line"), int)
               for st in statements):
        raise NotebookError("the notebook could not be read: the reader failed")
    return statements, [str(n) for n in notes], {str(k): str(v) for k, v in broken.items()}


def student_version(nb):
    """A copy of the notebook dict with solutions replaced by stubs and outputs cleared."""
    nb = json.loads(json.dumps(nb))
    for cell in nb["cells"]:
        source = cell["source"]
        text = "".join(source) if isinstance(source, list) else source
        if cell["cell_type"] == "code":
            text = _strip_code(text)
            cell["outputs"], cell["execution_count"] = [], None
        elif cell["cell_type"] == "markdown":
            text = re.sub(re.escape(MD_BEGIN) + r".*?" + re.escape(MD_END) + r"\n?", "", text,
                          flags=re.S)
        cell["source"] = text
    return nb


def _strip_code(text):
    out, inside = [], False
    lines = text.replace("\r\n", "\n").split("\n")  # not splitlines: \f, U+2028 stay
    if lines[-1] == "":
        lines.pop()
    for line in lines:
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise ValueError(f"nested {BEGIN!r}")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out += [indent + s for s in STUB_LINES]
        elif stripped == END:
            if not inside:
                raise ValueError(f"{END!r} without {BEGIN!r}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{BEGIN!r} without {END!r}")
    return "\n".join(out)


def write_student_version(src, dst):
    """Read the instructor notebook ``src`` and write its student version to ``dst``."""
    nb = json.loads(Path(src).read_text(encoding="utf-8"))
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    Path(dst).write_text(json.dumps(student_version(nb), indent=1, ensure_ascii=False) + "\n",
                         encoding="utf-8")
