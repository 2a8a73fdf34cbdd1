"""The student side: ``check("kernels.double_center", double_center)`` in a notebook.

The function runs in the student's own process (they can only fool themselves here; the batch
grader runs it in a sandbox). Each call draws fresh random inputs and prints the seed when
something fails, so the failing case can be reproduced with ``seed=...``.
"""

import copy
import secrets

from .core import Report, call_plain, evaluate_case, get_question

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
        outcome = call_plain(func, student_args(inputs))
        cases.append(evaluate_case(question, inputs, outcome))
    return Report(name, cases, seed=seed)


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
