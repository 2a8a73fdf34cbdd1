"""The student side: ``check("kernels.double_center", double_center)`` in a notebook.

The function runs in the student's own process (they can only fool themselves here; the batch
grader runs it in a sandbox). Each call draws fresh random inputs and prints the seed when
something fails, so the failing case can be reproduced with ``seed=...``.
"""

import copy
import secrets

from .bank import get_question
from .core import NOT_IMPLEMENTED, Report, call_plain, evaluate_case

SEED_BITS = 31


def student_args(inputs):
    """The arguments a student's function receives (keys starting with ``_`` stay private)."""
    return [copy.deepcopy(v) for k, v in inputs.items() if not k.startswith("_")]


def run_check(name, func, *, seed=None):
    """Check ``func`` against question ``name`` and return the :class:`~.core.Report`."""
    question = get_question(name)
    if not callable(func):
        raise TypeError(f"check({name!r}, func) needs your function as func, got {func!r}.")
    if seed is None:
        seed = secrets.randbits(SEED_BITS)
    cases = []
    for inputs in question.cases(seed):
        outcome = call_plain(func, student_args(inputs), catch_interrupt=False)
        cases.append(evaluate_case(question, inputs, outcome))
    report = Report(name, cases, seed=seed)
    if not report.passed and report.status != NOT_IMPLEMENTED:
        report.notes += _helper_notes(question, func, seed)
    return report


def _helper_notes(question, func, seed):
    """Where ``func`` calls the student's own function for another question (classical MDS
    calling their ``double_center``) and that function fails its own check, say so: the mistake
    is probably there."""
    notes = []
    names = getattr(getattr(func, "__code__", None), "co_names", ())
    space = getattr(func, "__globals__", {})
    for dep in question.depends_on:
        helper_question = get_question(dep)
        helper = space.get(helper_question.function)
        if helper_question.function not in names or not callable(helper):
            continue
        helper_report = run_check(dep, helper, seed=seed)
        if not helper_report.passed:
            notes.append(depends_note(question.function, helper_question, helper_report.status))
    return notes


def depends_note(function, helper_question, status):
    """The pointer from a failing function to the failing helper it calls."""
    return (f"{function} calls your {helper_question.function}, which fails its own check "
            f"({helper_question.name}: {status}); fix {helper_question.function} first, then "
            f"check {function} again")


def check(name, func, *, seed=None):
    """Print, per property, whether ``func`` answers question ``name`` correctly, and why not.

    Parameters
    ----------
    name : str
        The question, e.g. ``"lle.weights"`` (``mlnotes.homework.QUESTIONS`` lists them).
    func : callable
        Your function, with the signature of the question's stub.
    seed : int, optional
        Reproduce the inputs of an earlier failing check (its seed is printed).

    Returns nothing (so that a notebook shows only the printed report); use :func:`run_check`
    for the :class:`~mlnotes.homework.core.Report`.
    """
    print(run_check(name, func, seed=seed).text())
