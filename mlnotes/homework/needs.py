"""What the grader needs before it grades anything (issue 37).

Without IPython (the ``homework`` extra) the grader used to parse no notebook, give every
student 0 and exit 0: an autograder image missing the extra posted zeros to the whole class.
:func:`check_needs` runs when a :class:`~mlnotes.homework.grader.Grader` is made, before any
submission is read or any file written: a missing need stops the grader with a message that
says what is missing, why, and the command that installs it (the command line exits with a
non-zero status). A mark is never written for a submission the grader could not read.
"""

import importlib.util

from .._optional import install_hint

# The packages the grader runs with, and what each does for it.
NEEDED = {
    "IPython": "reads each notebook as Jupyter runs it (IPython's input transformation)",
    "numpy": "draws the hidden inputs and compares the answers",
}
# ... and, for an assignment whose key is encrypted (the graded set, a course's own folder).
NEEDED_FOR_A_KEY = {"cryptography": "opens the encrypted key (Fernet, scrypt)"}
# The homework extra's packages from the package index (the distribution itself is not there),
# and the extra from a clone: commands that work today.
INSTALL = install_hint("IPython")[2]


class GraderUnavailable(LookupError):
    """Something the grader needs is missing: nothing was graded, nothing written."""


def _installed(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _has_key(assignment):
    """Whether ``assignment`` (a shipped name, an assignment folder, or ``{question: points}``)
    has an encrypted key."""
    if isinstance(assignment, str):
        from .assignments import ALL_ASSIGNMENTS, shipped

        return assignment in ALL_ASSIGNMENTS and shipped(assignment).graded
    if isinstance(assignment, dict):  # the package's questions: any of the graded set's
        from .bank import QUESTIONS
        from .keys import GradedReference

        return any(isinstance(getattr(QUESTIONS.get(name), "reference", None), GradedReference)
                   for name in assignment)
    return bool(getattr(assignment, "graded", False))


def missing_needs(assignment: object = None) -> list[str]:
    """The names of :data:`NEEDED` (and :data:`NEEDED_FOR_A_KEY` when ``assignment`` has an
    encrypted key) that this Python cannot import."""
    needed = {**NEEDED, **(NEEDED_FOR_A_KEY if _has_key(assignment) else {})}
    return [name for name in needed if not _installed(name)]


def check_needs(assignment: object = None) -> None:
    """Raise :class:`GraderUnavailable` if anything the grader needs for ``assignment`` is
    missing."""
    missing = missing_needs(assignment)
    if missing:
        needed = {**NEEDED, **NEEDED_FOR_A_KEY}
        why = "; ".join(f"{name} {needed[name]}" for name in missing)
        raise GraderUnavailable(
            f"the grader cannot start: {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed in this Python "
            f"({why}). Install it with {INSTALL} and grade again; nothing was graded and no "
            "mark was written")
