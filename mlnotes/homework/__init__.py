"""Homework with checked answers, and a sandboxed batch grader.

Student side::

    from mlnotes.homework import check
    check("kernels.double_center", double_center)

prints, per property, pass or fail, and a diagnosis of the likely mistake. Instructor side::

    python -m mlnotes.homework grade SUBMISSIONS_DIR --assignment spectral --out grades.csv

grades a folder of notebooks in sandboxed processes (see :mod:`mlnotes.homework.sandbox`) and
writes a CSV, a feedback file per student and a Gradescope ``results.json`` per submission.

Modules: :mod:`~mlnotes.homework.core` (questions, judging, reports), :mod:`~.compare`
(tolerances, eigenvector ambiguity), :mod:`~.bank` (the questions), :mod:`~.student` (``check``),
:mod:`~.sandbox` and ``_child.py`` (running untrusted code), :mod:`~.notebook` (extraction,
student versions), :mod:`~.grader` (batch grading), :mod:`~.assignments`.
"""

from .assignments import ASSIGNMENTS
from .core import QUESTIONS, Question, Report, get_question
from .grader import Grader, grade_folder
from .notebook import student_version
from .student import check, run_check

__all__ = ["ASSIGNMENTS", "QUESTIONS", "Grader", "Question", "Report", "check", "get_question",
           "grade_folder", "questions", "run_check", "student_version"]


def questions():
    """The names of every question in the bank."""
    from . import bank  # noqa: F401

    return sorted(QUESTIONS)
