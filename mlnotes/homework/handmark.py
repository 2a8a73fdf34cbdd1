"""Derivations marked by hand (nbgrader's "manually graded answer").

A graded question's number is checked by the grader; the short written derivation behind it is
marked by the instructor. :func:`derivations_of` reads a submission's derivation cells (markdown
cells starting with ``**Your derivation``) in a limited process, never in the grader's own
(``_derivations.py``: JSON only, no code run); :func:`write_derivations` puts every student's
cells into one Markdown document, ``derivations.md`` beside the grades CSV, whose ``hand mark``
column the instructor fills in.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from ._derivations import MARKER, MAX_CELL, MAX_CELLS
from .notebook import NotebookError, _limit_parser, open_submission

READER = Path(__file__).with_name("_derivations.py")
FILE = "derivations.md"
READ_TIMEOUT = 30.0
MAX_OUTPUT = (MAX_CELL + 64) * MAX_CELLS * 6  # JSON escapes at most 6 bytes per character


def derivations_of(folder, relative):
    """The derivation cells of the notebook ``folder/relative`` (a list of str); a
    :class:`NotebookError` if it cannot be read."""
    fd = open_submission(folder, relative)
    try:
        run = subprocess.run(
            [sys.executable, "-I", "-B", str(READER)], stdin=fd, capture_output=True,
            preexec_fn=_limit_parser, start_new_session=True, timeout=READ_TIMEOUT,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"})
    except subprocess.TimeoutExpired:
        raise NotebookError("reading the derivations took too long") from None
    finally:
        os.close(fd)
    try:
        answer = json.loads(run.stdout[:MAX_OUTPUT])
    except ValueError:
        raise NotebookError("the derivations could not be read") from None
    if not isinstance(answer, dict) or "cells" not in answer:
        raise NotebookError(str(answer.get("error", "the derivations could not be read"))[:300]
                            if isinstance(answer, dict) else "the derivations could not be read")
    return [str(c)[:MAX_CELL] for c in answer["cells"][:MAX_CELLS]]


def _fenced(text):
    """``text`` in a fence longer than any run of backticks in it (shown, never rendered)."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(4, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def document(results, assignment):
    """The Markdown document of every student's derivations (``results``: the grader's)."""
    from .grader import escape

    lines = [f"# Derivations to mark by hand: {assignment}", "",
             "Each student's cells that start with " + f"`{MARKER}`" + ", as submitted (shown "
             "as text). Put the mark in the grades CSV's `hand mark` column.", ""]
    for r in results:
        lines += [f"## `{escape(r.student, 300).replace('`', '')}`"
                  + (f" ({r.variant})" if r.variant else ""), ""]
        if not r.derivations:
            lines += ["(no derivation cell found)", ""]
        for k, text in enumerate(r.derivations, 1):
            lines += [f"### derivation {k}", "", _fenced(text), ""]
    return "\n".join(lines)


def write_derivations(results, out_dir, assignment, write_new):
    """Write ``derivations.md`` into ``out_dir`` with the grader's ``write_new`` (mode 0600)."""
    write_new(Path(out_dir) / FILE, document(results, assignment), 0o600)
