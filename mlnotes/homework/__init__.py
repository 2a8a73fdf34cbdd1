"""Homework with checked answers, and a sandboxed batch grader.

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
(batch grading), :mod:`~.assignments`.
"""

from .assignments import ASSIGNMENTS
from .bank import QUESTIONS, get_question
from .core import Question, Report
from .grader import Grader, grade_folder
from .notebook import student_version
from .student import check, run_check

__all__ = ["ASSIGNMENTS", "QUESTIONS", "Grader", "Question", "Report", "check", "get_question",
           "grade_folder", "questions", "run_check", "student_version"]


def questions():
    """The names of every question in the bank."""
    return sorted(QUESTIONS)
