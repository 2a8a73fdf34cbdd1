"""A variant per student (PrairieLearn's idea): the constants of a graded question drawn from
the student's id and the course's seed.

``variant(question, student)`` is a dict of constants (a kernel's exponent, a graph's weight,
...) that the question's text refers to; the student writes them into their functions, and the
grader computes that student's expected answers from the key for the same constants. Copying a
classmate's numbers or outputs earns nothing: the classmate's constants are other numbers.

The draw is ``SHA-256(course seed, question, student id)``: deterministic (the student, the
checker and the grader agree without talking), and a course that keeps its seed private
(``--course-seed`` or ``MLNOTES_COURSE_SEED``) makes the variants unpredictable from outside.
The student id is compared after Unicode NFKC folding, case folding and stripping blanks.
"""

import hashlib
import os
import unicodedata

import numpy as np

COURSE_SEED_ENV = "MLNOTES_COURSE_SEED"
DEFAULT_COURSE_SEED = "mlnotes"
_state = {"student": None, "course_seed": None}


def normalise_student(student):
    """The id the variant is drawn from: NFKC-folded, case-folded, without outer blanks."""
    text = unicodedata.normalize("NFKC", str(student)).casefold().strip()
    if not text:
        raise ValueError("the student id is empty: give the id your course knows you by (the "
                         "name of your submission, e.g. your login)")
    return text


def course_seed(seed=None):
    """The course's seed: ``seed``, else :func:`use_course_seed`'s, else ``MLNOTES_COURSE_SEED``,
    else the public default."""
    if seed is not None:
        return str(seed)
    if _state["course_seed"] is not None:
        return _state["course_seed"]
    return os.environ.get(COURSE_SEED_ENV) or DEFAULT_COURSE_SEED


def use_course_seed(seed):
    """Draw variants from ``seed`` from now on (``None``: back to the default lookup)."""
    _state["course_seed"] = None if seed is None else str(seed)


def _digest(question_name, student, seed):
    text = "\0".join([course_seed(seed), question_name, normalise_student(student)])
    return hashlib.sha256(text.encode("utf-8")).digest()


def variant(question, student, seed=None):
    """The constants of ``question`` (a :class:`~.core.Question` with a ``variant`` drawer) for
    ``student``; ``{}`` for a question without variants."""
    if question.variant is None:
        return {}
    rng = np.random.default_rng(int.from_bytes(_digest(question.name, student, seed)[:8], "big"))
    return dict(question.variant(rng))


def variant_label(names, student, seed=None):
    """A short name of a student's variant of the questions ``names`` (feedback, CSV)."""
    h = hashlib.sha256()
    for name in sorted(names):
        h.update(_digest(name, student, seed))
    return "v-" + h.hexdigest()[:8]


def set_student(student):
    """Remember the student id for ``check`` in this kernel (see :func:`~.student.student`)."""
    _state["student"] = None if student is None else normalise_student(student)


def current_student():
    return _state["student"]


def describe(constants):
    """``s = 3, c = 0.75``: a variant's constants as the notebook shows them."""
    return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                     for k, v in constants.items())
