"""The student side: ``check("kernels.double_center", double_center)`` in a notebook.

The function runs in the student's own process (they can only fool themselves here; the batch
grader runs it in a sandbox). Each call draws fresh random inputs and prints the seed when
something fails, so the failing case can be reproduced with ``seed=...``.

Every report says what the answer was compared with: the practice set's public key (the
chapters' functions, or the practice reference the repository ships), the graded set's
encrypted key (only where the instructor's passphrase is given), or no key at all (then only
the properties that need no reference are checked, and an answer that passes them all is "not
verified here", never FAILED). A graded question's constants are the student's variant:
:func:`my_variant` sets whose.
"""

import copy
import secrets

from . import variants
from .bank import get_question
from .core import (
    NOT_IMPLEMENTED,
    Question,
    ReferenceUnavailable,
    Report,
    call_plain,
    evaluate_case,
)

PRACTICE_KEY = "compared with the practice set's public key"
GRADED_KEY = "compared with the graded set's key (the instructor's passphrase is set here)"
NO_KEY = ("none here: not compared with a key (the key is your instructor's); only the checks "
          "that need no key ran")
NO_STUDENT = ("{name} has a variant per student: first run my_variant(\"your id\") (from "
              "mlnotes.homework import my_variant), with the id your course grades you by (the "
              "name of your submission), and use the constants it prints")

NO_STUDENT_CHECK = ("{name} has no check in your copy of the assignment (its checks need the "
                    "key, which is your instructor's): your function is checked when your work "
                    "is graded")

SEED_BITS = 31
# The questions checked in this kernel: a practice solution is shown only after an attempt.
_attempted = set()
# The course's assignment folder given to my_variant (or check) in this kernel: its own
# questions are found there.
_folder = {"assignment": None}


def _assignment(assignment):
    """An :class:`~.folder.Assignment` from ``assignment``: one already, a shipped
    assignment's name, or a folder (a released copy, or the instructor's own)."""
    from .assignments import ALL_ASSIGNMENTS, shipped
    from .folder import Assignment, student_assignment

    if isinstance(assignment, Assignment):
        return assignment
    if isinstance(assignment, str) and assignment in ALL_ASSIGNMENTS:
        return shipped(assignment)
    return student_assignment(assignment)


def find_question(name: str, assignment: object = None) -> Question:
    """The question ``name``: of ``assignment`` when given (see :func:`my_variant`), else of
    the package's bank, else of the folder given earlier in this kernel."""
    if assignment is not None:
        folder = _assignment(assignment)
        _folder["assignment"] = folder
        if name in folder.questions:
            return folder.questions[name]
        raise KeyError(f"no question called {name!r} in {folder.name}; its questions are: "
                       f"{', '.join(folder.questions)}")
    folder = _folder["assignment"]
    if folder is not None and name in folder.questions:
        return folder.questions[name]
    try:
        return get_question(name)
    except KeyError as exc:
        raise KeyError(f"{exc.args[0]}. A question of your course's own assignment: give its "
                       "folder, check(name, your_function, assignment=\".\") from the "
                       "released folder (or my_variant(\"your id\", assignment=\".\") once)") \
            from None


def student_args(inputs):
    """The arguments a student's function receives (keys starting with ``_`` stay private)."""
    return [copy.deepcopy(v) for k, v in inputs.items() if not k.startswith("_")]


class Variant(dict):
    """``{question: {constant: value}}`` of one student; printed as the notebook shows it."""

    def __init__(self, student, constants, label=""):
        super().__init__(constants)
        self.student = student
        self.label = label

    def __repr__(self):
        named = f"{self.label}, " if self.label else ""
        lines = [f"Your variant ({named}{self.student}); write these constants into your "
                 "functions:"]
        lines += [f"  {name}: {variants.describe(c)}" for name, c in self.items()]
        return "\n".join(lines)


def my_variant(student_id, assignment=None):
    """Set whose variant ``check`` uses in this kernel, and return the constants of every graded
    question (of ``assignment`` only, when given) for that student.

    The id is the one your course grades you by (the name of your submission); the grader draws
    your constants from it, so use the ones printed here. ``assignment`` is a graded
    assignment's name, or the folder of a course's own assignment (the released folder,
    ``"."`` from its notebook): its questions are then the ones ``check`` finds by name.
    """
    from .assignments import GRADED

    variants.set_student(student_id)
    if assignment is not None and not (isinstance(assignment, str) and assignment in GRADED):
        folder = _assignment(assignment)
        _folder["assignment"] = folder
        questions = folder.questions
    else:
        names = (GRADED[assignment] if assignment is not None else
                 [q for qs in GRADED.values() for q in qs])
        questions = {name: get_question(name) for name in names}
    questions = {n: q for n, q in questions.items() if q.variant is not None}
    who = variants.current_student()
    label = variants.variant_label(list(questions), who) if assignment is not None else ""
    return Variant(who, {name: variants.variant(q, who) for name, q in questions.items()}, label)


def run_check(name, func, *, seed=None, student=None, assignment=None):
    """Check ``func`` against question ``name`` (of ``assignment`` when given, see
    :func:`find_question`) and return the :class:`~.core.Report`."""
    question = find_question(name, assignment)
    if question.make_inputs is None:
        raise ValueError(NO_STUDENT_CHECK.format(name=name))
    if not callable(func):
        raise TypeError(f"check({name!r}, func) needs your function as func, got {func!r}.")
    if seed is None:
        seed = secrets.randbits(SEED_BITS)
    constants, label = None, ""
    if question.variant is not None:
        who = student if student is not None else variants.current_student()
        if who is None:
            raise ValueError(NO_STUDENT.format(name=name))
        constants = variants.variant(question, who)
        label = f"{variants.normalise_student(who)}: {variants.describe(constants)}"
    cases = []
    all_inputs = question.cases(seed, constants)
    for inputs in all_inputs:
        outcome = call_plain(func, student_args(inputs), catch_interrupt=False)
        cases.append(evaluate_case(question, inputs, outcome))
    report = Report(name, cases, seed=seed, variant=label, key=_key_line(question, all_inputs),
                    strict_nan=bool(question.nan_hint))
    if report.status != NOT_IMPLEMENTED:
        _attempted.add(name)
    if not report.passed and report.status != NOT_IMPLEMENTED:
        report.notes += _helper_notes(question, func, seed) + _data_notes(name)
    return report


def _data_notes(name):
    """Where question ``name`` belongs to a course's folder whose data files are not in this
    kernel's working folder: say so (the function may read one by its bare name)."""
    folder = _folder["assignment"]  # find_question keeps the one given
    if folder is None or name not in folder.questions:
        return []
    import os

    missing = [p.name for p in folder.data if not os.path.exists(p.name)]
    if not missing:
        return []
    what = ("a data file of this assignment, is" if len(missing) == 1 else
            "data files of this assignment, are")
    return [f"{', '.join(missing)}, {what} not in this kernel's working folder "
            f"({os.getcwd()}): keep your notebook in the folder your instructor released (the "
            "grader puts the data files beside your notebook)"]


def _key_line(question, cases):
    """What ``check`` compares with here: the practice set's public key, the graded key (where
    the passphrase is given), or none."""
    try:
        question.expected(cases[0])
    except ReferenceUnavailable:
        return NO_KEY
    return GRADED_KEY if question.variant is not None else PRACTICE_KEY


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
        # not verified here is not failed: no pointer to a helper that may well be right
        if not helper_report.passed and not helper_report.holds:
            notes.append(depends_note(question.function, helper_question, helper_report.status))
    return notes


def depends_note(function, helper_question, status):
    """The pointer from a failing function to the failing helper it calls."""
    return (f"{function} calls your {helper_question.function}, which fails its own check "
            f"({helper_question.name}: {status}); fix {helper_question.function} first, then "
            f"check {function} again")


def solution(name):
    """Print the practice set's solution of question ``name``, once you have checked an attempt
    of your own in this kernel (``check(name, your_function)``). The graded set's solutions are
    your instructor's: never shown here."""
    import inspect

    question = get_question(name)
    if question.variant is not None:
        print(f"{name} belongs to the graded set: its solution is your instructor's, and "
              "`check` tests what needs no key")
        return
    if name not in _attempted:
        print(f"try {name} first: write your function and run check({name!r}, your_function) "
              "once (right or wrong), then ask for the solution again")
        return
    reference = question.reference
    if hasattr(reference, "name"):  # the practice set's reference.py, read on use
        from .bank.solutions import _module

        try:
            reference = getattr(_module(), "REFERENCES", {})[reference.name]
        except (ReferenceUnavailable, KeyError):
            print(f"the practice solutions are not in this copy of mlnotes: read "
                  f"book/homework/instructor/ of the repository for {name}")
            return
    print(inspect.getsource(reference))


def check(name, func, *, seed=None, student=None, assignment=None):
    """Print, per property, whether ``func`` answers question ``name`` correctly, and why not.

    Parameters
    ----------
    name : str
        The question, e.g. ``"lle.weights"`` (``mlnotes.homework.QUESTIONS`` lists them).
    func : callable
        Your function, with the signature of the question's stub.
    seed : int, optional
        Reproduce the inputs of an earlier failing check (its seed is printed).
    student : str, optional
        Whose variant of a graded question (default: the id given to :func:`my_variant`).
    assignment : str or path-like, optional
        The folder of a course's own assignment (``"."`` from the released folder's notebook),
        whose questions are checked; remembered for the later calls in this kernel.

    Returns nothing (so that a notebook shows only the printed report); use :func:`run_check`
    for the :class:`~mlnotes.homework.core.Report`.
    """
    print(run_check(name, func, seed=seed, student=student, assignment=assignment).text())
