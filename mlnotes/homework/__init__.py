"""Homework with checked answers, and a sandboxed batch grader.

The chapters' exercises are checked against mlnotes' own functions. The practice set asks for
other work; its key is public (``book/homework/instructor/``, read through :func:`use_solutions`
or ``MLNOTES_HOMEWORK_SOLUTIONS``, :mod:`~.bank.solutions`) and :func:`solution` shows it after
an attempt. The graded set's key is encrypted (:mod:`~.keys`), opened only with the course's
passphrase, and each student has a variant of its constants (:mod:`~.variants`,
:func:`my_variant`); without the key, ``check`` tests what needs none (:mod:`~.bank.graded`).

Student side::

    from mlnotes.homework import check
    check("kernels.double_center", double_center)

prints, per property, pass or fail, and a diagnosis of the likely mistake. Instructor side::

    python -m mlnotes.homework grade SUBMISSIONS_DIR --assignment spectral --out grades.csv

grades a folder of notebooks in sandboxed processes (see :mod:`mlnotes.homework.sandbox`) and
writes a CSV, a feedback file per student and a Gradescope ``results.json`` per submission.

Modules: :mod:`~mlnotes.homework.core` (what a question is, judging, reports; it imports no
question), :mod:`~.compare` (tolerances, eigenvector ambiguity), :mod:`~.bank` (the questions, by
name), :mod:`~.student` (``check``), :mod:`~.sandbox` and ``_child.py`` (running untrusted code),
:mod:`~.notebook` and ``_parse.py`` (reading submissions, student versions), :mod:`~.grader`
(batch grading), :mod:`~.folder` (assignments as data: a course's folder), :mod:`~.assignments`
(the shipped folders), :mod:`~.handmark` (derivations marked by hand),
:mod:`~.gradescope` (the autograder bundle).
"""

import importlib

# Public names and the module that defines each, imported on first use: importing the core (or
# the sandbox) loads no question, and ``from mlnotes.homework import check`` loads the bank.
_EXPORTS = {
    "ASSIGNMENTS": "assignments", "QUESTIONS": "bank", "get_question": "bank",
    "Question": "core", "Report": "core", "Grader": "grader", "grade_folder": "grader",
    "student_version": "notebook", "check": "student", "run_check": "student",
    "my_variant": "student", "solution": "student",
    "use_solutions": "bank.solutions", "UNDERSTANDING": "assignments",
}

__all__ = sorted([*_EXPORTS, "questions"])


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__


def questions():
    """The names of every question in the bank."""
    from .bank import QUESTIONS

    return sorted(QUESTIONS)
