"""What the grader needs before it grades anything (issue 37).

Without IPython (the ``homework`` extra) the grader used to parse no notebook, give every
student 0 and exit 0: an autograder image missing the extra posted zeros to the whole class.
:func:`check_needs` runs when a :class:`~mlnotes.homework.grader.Grader` is made, before any
submission is read or any file written: a missing need stops the grader with a message that
says what is missing, why, and the command that installs it (the command line exits with a
non-zero status). A mark is never written for a submission the grader could not read.
"""

import importlib.util

# The packages the grader runs with, and what each does for it.
NEEDED = {
    "IPython": "reads each notebook as Jupyter runs it (IPython's input transformation)",
    "numpy": "draws the hidden inputs and compares the answers",
}
INSTALL = ('pip install "ipython>=8.12" (in a checkout of mlnotes: '
           'pip install -e ".[homework]")')


class GraderUnavailable(LookupError):
    """Something the grader needs is missing: nothing was graded, nothing written."""


def _installed(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing_needs():
    """The names of :data:`NEEDED` that this Python cannot import."""
    return [name for name in NEEDED if not _installed(name)]


def check_needs():
    """Raise :class:`GraderUnavailable` if anything of :data:`NEEDED` is missing."""
    missing = missing_needs()
    if missing:
        why = "; ".join(f"{name} {NEEDED[name]}" for name in missing)
        raise GraderUnavailable(
            f"the grader cannot start: {', '.join(missing)} is not installed in this Python "
            f"({why}). Install it with {INSTALL} and grade again; nothing was graded and no "
            "mark was written")
