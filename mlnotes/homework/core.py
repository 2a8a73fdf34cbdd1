"""Questions, their evaluation, and the report a student or an instructor reads.

A :class:`Question` bundles what is needed to check one function:

* the stub a student starts from (its signature and docstring);
* ``make_inputs(rng)``: the trusted generator of one test case (a dict of named arguments);
* ``reference(**inputs)``: the reference answer: mlnotes' own implementation for a chapter's
  exercise, the instructor's (read from their solutions, never shipped with the package) for a
  graded homework question (:mod:`mlnotes.homework.bank.solutions`); where it cannot be read, the
  properties are still tested and the report says the comparison happens when the work is graded;
* ``properties``: statements about the answer that must hold whatever the reference says
  (symmetric, rows sum to one, ...);
* ``compare(answer, expected, inputs)``: agreement with the reference, up to the freedom the
  mathematics allows (:mod:`mlnotes.homework.compare`);
* ``mistakes``: a catalogue of plausible wrong answers, each a function computing that wrong
  answer (from the inputs, or from the reference answer) and the diagnosis to print when a
  student's answer matches it. A diagnosis says which property fails and where to look; for a
  question that asks for understanding it never states the answer.

An answer always travels as *plain data* (nested lists of numbers, see :func:`to_plain`) and is
rebuilt here as exact ``float64`` arrays by :func:`from_plain`, whether it came from a sandboxed
process (the grader) or from the student's own notebook (:func:`mlnotes.homework.check`): the
same code judges both.
"""

import copy
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ._child import MAX_ANSWER_SIZE, AnswerError, call_plain, to_plain  # noqa: F401
from .compare import relative_error, scalar_factor

WRONG_KIND = "wrong kind of answer"

NOT_IMPLEMENTED = "not implemented yet"
# An answer this close (relative) to a constant multiple of the expected one is named as such.
FACTOR_RESIDUAL = 1e-6
# The outcome "type" the sandbox reports when the notebook defines no such function (not a
# valid class name, so no exception raised by student code can imitate it).
MISSING = "<missing>"
# ... and when the definition of the function failed (the reason says why and where).
DEFINITION = "<definition>"
# Tuples of outputs nest once; arrays come as (nested) lists, at most this deep in all.
MAX_NESTING = 4
# How closely a wrong answer must match a catalogued mistake to be diagnosed as that mistake.
MISTAKE_TOL = 1e-6
NOT_JUDGED = "no check that can run here fails"
UNVERIFIED = ("the comparison with the reference answer happens when your work is graded (the "
              "reference is your instructor's); the properties above are all that can be "
              "checked here")


class ReferenceUnavailable(LookupError):
    """The reference answer of a graded homework question cannot be read here."""


# --- plain data (to_plain runs beside the student code, see _child.py) ------------------------

def from_plain(plain, *, sparse_fill=0.0, depth=0):
    """Rebuild plain data as ``float64`` ndarrays (a list of them for a tuple answer).

    Only lists, numbers and the sparse marker are accepted; anything else is an
    :class:`AnswerError`. The result holds no object from the student.
    """
    if depth > MAX_NESTING:
        raise AnswerError("the answer is nested too deeply; return arrays or a tuple of arrays")
    if isinstance(plain, dict):
        if set(plain) != {"sparse"}:
            raise AnswerError("the answer is a dict; return an array or a tuple of arrays")
        return _dense_from_sparse(plain["sparse"], sparse_fill)
    if isinstance(plain, np.ndarray):
        if plain.dtype != np.float64 or plain.size > MAX_ANSWER_SIZE:
            raise AnswerError("the answer is not an array of real numbers of a size any "
                              "question needs")
        return np.array(plain, dtype=np.float64)  # an owned, writable copy
    if isinstance(plain, bool) or plain is None:
        raise AnswerError(f"the answer is {plain!r}, not a number or an array")
    if isinstance(plain, (int, float)):
        try:
            return np.array(float(plain))
        except OverflowError:
            raise AnswerError("the answer holds an integer too large for a float") from None
    if not isinstance(plain, list):
        raise AnswerError(f"the answer is a {type(plain).__name__}, not an array")
    if not any(isinstance(v, (dict, np.ndarray)) for v in plain):
        try:
            return np.array(plain, dtype=np.float64)
        except (TypeError, ValueError, OverflowError, RecursionError):
            pass  # a tuple of differently shaped outputs, or not numbers at all
    return [from_plain(v, sparse_fill=sparse_fill, depth=depth + 1) for v in plain]


def _dense_from_sparse(spec, fill):
    try:
        shape, rows, cols, vals = spec
        n, m = (int(s) for s in shape)
        if not all(float(v).is_integer() for v in np.concatenate(
                [np.ravel(rows), np.ravel(cols)]).astype(np.float64)):
            raise ValueError("indices are not whole numbers")
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        vals = np.asarray(vals, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise AnswerError("the sparse answer is malformed") from None
    if not (n >= 0 and m >= 0 and n * m <= MAX_ANSWER_SIZE) or not (
            rows.shape == cols.shape == vals.shape):
        raise AnswerError("the sparse answer is malformed")
    if rows.size and (rows.min() < 0 or rows.max() >= n or cols.min() < 0 or cols.max() >= m):
        raise AnswerError("the sparse answer has indices outside its shape")
    dense = np.full((n, m), float(fill))
    if n == m:
        np.fill_diagonal(dense, 0.0)
    dense[rows, cols] = 0.0
    np.add.at(dense, (rows, cols), vals)  # duplicate COO entries add up, as in scipy
    return dense


# --- questions ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Property:
    """A statement about the answer. ``test(answer, inputs, tol)`` returns ``(ok, detail)``."""

    description: str
    test: Callable
    hint: str = ""  # the likely cause when this property fails and no catalogued mistake matches


@dataclass(frozen=True)
class Mistake:
    """A plausible wrong answer: ``wrong(**inputs)`` computes it (or ``derive(expected,
    inputs)`` from the reference answer, a tuple of arrays, where computing it from the inputs
    would spell out the right answer), returned as the student's function would return it;
    ``diagnosis`` explains it."""

    name: str
    wrong: Callable = None
    diagnosis: str = ""
    derive: Callable = None

    def answer(self, inputs, expected):
        """The wrong answer on ``inputs`` (plain data or arrays)."""
        if self.derive is not None:
            return self.derive(tuple(np.array(e) for e in expected), copy.deepcopy(inputs))
        return self.wrong(**copy.deepcopy(inputs))


@dataclass(frozen=True)
class Question:
    name: str
    function: str
    signature: str
    docstring: str
    make_inputs: Callable
    reference: Callable
    compare: Callable
    tolerance: Callable
    outputs: tuple = ("answer",)
    properties: tuple = ()
    mistakes: tuple = ()
    sparse_fill: float = 0.0
    n_cases: int = 2
    normalise: Callable = None
    nan_hint: str = ""
    # infinite entries are a valid answer (a graph's "no edge", an unreachable pair)
    allow_inf: bool = False
    # questions whose function this one's function usually calls (its own helper functions)
    depends_on: tuple = ()
    # ``rng -> [inputs, ...]``: fixed hard cases added to the random ones (a bandwidth so small
    # that the plain formula underflows)
    extra_cases: Callable = None
    # ``inputs -> (shape, ...)``: the shape of each output, to judge an answer without the
    # reference
    shapes: Callable = None
    # ``() -> (Mistake, ...)``: likely mistakes kept private with the reference answers
    private_mistakes: Callable = None
    # a question that asks for understanding: feedback never says how far the answer is from the
    # reference (a relative error, or "equals 2 x the expected", would give the result away)
    conceal: bool = False
    # ``rng -> {constant: value}``: a graded question's constants, one variant per student
    # (:mod:`mlnotes.homework.variants`); each case carries them under ``_variant``
    variant: Callable = None

    def all_mistakes(self):
        return tuple(self.mistakes) + (tuple(self.private_mistakes())
                                       if self.private_mistakes else ())

    def stub_source(self):
        """The code a student starts from."""
        doc = self.docstring.strip().replace("\n", "\n    ")
        return (f'{self.signature}\n    """{doc}\n    """\n'
                f'    raise NotImplementedError("{NOT_IMPLEMENTED}")\n')

    def stub(self, *args, **kwargs):
        raise NotImplementedError(NOT_IMPLEMENTED)

    def cases(self, seed, constants=None):
        """The inputs of every case, generated from ``seed`` (trusted side only); a graded
        question's cases carry the student's variant ``constants`` under ``_variant`` (never
        passed to the student's function: keys starting with ``_`` stay private)."""
        rng = np.random.default_rng(seed)
        cases = [self.make_inputs(rng) for _ in range(self.n_cases)]
        cases += list(self.extra_cases(rng)) if self.extra_cases else []
        if self.variant is not None:
            if constants is None:
                raise ValueError(f"{self.name} has a variant per student: give the student's "
                                 "constants (mlnotes.homework.variants.variant)")
            cases = [dict(c, _variant=dict(constants)) for c in cases]
        return cases

    def shape_answer(self, value):
        """Plain data -> a tuple of float64 arrays, one per output, or an :class:`AnswerError`."""
        arrays = from_plain(value, sparse_fill=self.sparse_fill)
        if len(self.outputs) == 1:
            if isinstance(arrays, list):
                raise AnswerError(
                    f"returned {len(arrays)} values; return just {self.outputs[0]}")
            arrays = (arrays,)
        else:
            names = ", ".join(self.outputs)
            if not isinstance(arrays, list) and np.ndim(arrays) >= 1:
                arrays = list(arrays)  # a stacked array of outputs: split it
            if not isinstance(arrays, list) or len(arrays) != len(self.outputs):
                raise AnswerError(f"return the tuple ({names})")
            try:
                arrays = tuple(np.asarray(a, dtype=np.float64) for a in arrays)
            except (TypeError, ValueError) as exc:
                raise AnswerError(f"return the tuple ({names}) of arrays: {exc}") from None
        if self.normalise is not None:
            arrays = self.normalise(arrays)
        return tuple(arrays)

    def expected(self, inputs):
        """The reference answer on (a private copy of) ``inputs``, in the same plain form."""
        return self.shape_answer(to_plain(self.reference(**copy.deepcopy(inputs))))


# --- evaluation --------------------------------------------------------------------------------

@dataclass
class CaseReport:
    """The verdict on one case: property lines, the diagnosis, and whether it passed."""

    lines: list = field(default_factory=list)   # (ok, text)
    diagnosis: str = ""
    status: str = ""        # "" for an answer that was judged, else why it could not be judged
    verified: bool = True   # False: no reference answer here, only the properties were tested

    @property
    def passed(self):
        return self.verified and self.holds

    @property
    def holds(self):
        """Every check that could run passed (without a reference: every property; a question
        with no property and no reference here: nothing failed, so it holds, unverified)."""
        if self.status == UNVERIFIED:
            return True
        return not self.status and bool(self.lines) and all(ok for ok, _ in self.lines)


def evaluate_case(question, inputs, outcome, *, expected=None):
    """Judge one case. ``outcome`` is ``{"value": plain}`` or ``{"error": text, "type": name}``."""
    report = CaseReport()
    if not isinstance(outcome, dict) or not ("value" in outcome or "error" in outcome):
        report.status = "the answer was malformed"
        return report
    if "error" in outcome:
        outcome = {"error": str(outcome["error"])[:500], "type": str(outcome.get("type"))}
        if outcome.get("type") == "NotImplementedError":
            report.status = NOT_IMPLEMENTED
        elif outcome.get("type") == "AnswerError":
            report.status = f"{WRONG_KIND}: {outcome['error']}"
        elif outcome.get("type") == MISSING:
            report.status = (f"no function called {question.function!r} was found "
                             "(was its cell deleted or renamed?)")
        elif outcome.get("type") == DEFINITION:
            report.status = f"the definition of {question.function!r} {outcome['error']}"
        else:
            report.status = f"raised {outcome.get('type', 'an error')}: {outcome['error']}"
        return report
    try:
        answer = question.shape_answer(outcome["value"])
    except AnswerError as exc:
        report.status = f"{WRONG_KIND}: {exc}"
        return report
    if expected is None:
        try:
            expected = question.expected(inputs)
        except ReferenceUnavailable:
            report.verified = False
            if not question.properties:
                report.status = UNVERIFIED
                return report
    names = question.outputs
    if report.verified:
        shapes = [e.shape for e in expected]
    elif question.shapes is not None:
        shapes = [tuple(s) for s in question.shapes(inputs)]
    else:
        shapes = [a.shape for a in answer]
    for name, a, shape in zip(names, answer, shapes, strict=False):
        if a.shape == shape:
            continue
        want = f"shape {shape}" if shape else "a single number"
        got = f"shape {a.shape}" if a.ndim else "a single number"
        report.status = f"{WRONG_KIND}: {name} should be {want}, got {got}"
        if a.ndim == 2 and a.shape == shape[::-1]:
            report.diagnosis = f"{name} is transposed: return the {shape} array, not its transpose."
        return report
    for name, a in zip(names, answer, strict=False):
        what = _non_finite(a, question.allow_inf)
        if what:
            report.status = f"{WRONG_KIND}: {name} contains {what}"
            report.diagnosis = question.nan_hint if "NaN" in what else ""
            return report
    tol = question.tolerance(inputs, expected)
    for name, shape in zip(names, shapes, strict=False):
        label = f"{name} has shape {shape}" if shape else f"{name} is a single number"
        report.lines.append((True, label))
    failed_hints = []
    for prop in question.properties:
        try:
            ok, detail = prop.test(answer, inputs, tol)
        except Exception as exc:  # noqa: BLE001 - an odd answer must fail the property, not crash
            ok, detail = False, f"could not be tested: {exc}"
        text = prop.description + (f" ({detail})" if detail and not ok else "")
        report.lines.append((bool(ok), text))
        if not ok and prop.hint:
            failed_hints.append(prop.hint)
    if not report.verified:
        report.diagnosis = failed_hints[0] if failed_hints else ""
        return report
    try:
        ok, detail = question.compare(answer, expected, inputs, tol)
    except Exception as exc:  # noqa: BLE001
        ok, detail = False, f"could not be compared: {exc}"
    if not ok and not report.diagnosis:
        report.diagnosis = diagnose(question, inputs, answer, expected, tol)
        if not report.diagnosis and failed_hints:
            report.diagnosis = failed_hints[0]
    if question.conceal:  # point to the likely mistake only where there is one to read
        detail = "the derivation's result" if ok else (
            "it does not; see the likely mistake" if report.diagnosis else "it does not")
    report.lines.append((ok, f"agrees with the reference on the same inputs ({detail})"))
    return report


def _non_finite(a, allow_inf):
    """What is wrong with the non-finite entries of ``a`` ("" if nothing is)."""
    if np.isnan(a).any():
        return f"NaN (not a number) in {int(np.isnan(a).sum())} of {a.size} entries"
    if not allow_inf and np.isinf(a).any():
        return (f"infinity in {int(np.isinf(a).sum())} of {a.size} entries; every entry must be "
                "a finite number")
    return ""


def diagnose(question, inputs, answer, expected, tol):
    """Name the likely mistake: a catalogued wrong answer it matches, else a constant factor."""
    for mistake in question.all_mistakes():
        try:
            wrong = question.shape_answer(to_plain(mistake.answer(inputs, expected)))
            same_shapes = all(w.shape == a.shape for w, a in zip(wrong, answer, strict=True))
            if same_shapes and question.compare(answer, wrong, inputs, max(tol, MISTAKE_TOL))[0]:
                return mistake.diagnosis
        except Exception:  # noqa: BLE001 - a mistake that cannot apply to this answer
            continue
    if question.conceal:
        return ""
    for name, a, e in zip(question.outputs, answer, expected, strict=False):
        if relative_error(a, e) <= max(tol, MISTAKE_TOL):
            continue
        c, residual = scalar_factor(a, e)
        if c is not None and residual <= FACTOR_RESIDUAL and not math.isclose(c, 1.0, rel_tol=1e-6):
            return f"{name} equals {c:.4g} x the expected."
    return ""


# --- the report --------------------------------------------------------------------------------

@dataclass
class Report:
    """All cases of one question for one function."""

    question: str
    cases: list
    seed: object = None
    notes: list = field(default_factory=list)
    # what it was compared with: a line ``check`` prints on every report (see student.py)
    key: str = ""
    # the student's variant of a graded question (its label and constants), for the feedback
    variant: str = ""
    # the question names inputs where a plain formula gives NaN or infinity (its ``nan_hint``):
    # a non-finite answer there earns nothing for the question, whatever else passes
    strict_nan: bool = False

    @property
    def passed(self):
        return bool(self.cases) and all(c.passed for c in self.cases)

    @property
    def holds(self):
        """Every check that could run passed (the answer is right, or not verified here)."""
        return bool(self.cases) and all(c.holds for c in self.cases)

    @property
    def fraction(self):
        if not self.cases or (self.strict_nan and any(
                c.status.startswith(f"{WRONG_KIND}:") and ("NaN" in c.status or "infinity" in
                                                          c.status) for c in self.cases)):
            return 0.0
        return sum(c.passed for c in self.cases) / len(self.cases)

    @property
    def status(self):
        """One phrase: passed, not implemented yet, or the first reason it failed."""
        if self.passed:
            return "passed"
        for c in self.cases:
            if c.status:
                return c.status
        for c in self.cases:
            if not c.passed:
                return c.diagnosis or next((t for ok, t in c.lines if not ok), UNVERIFIED)
        return "no answer"

    @property
    def diagnosis(self):
        return next((c.diagnosis for c in self.cases if c.diagnosis), "")

    @property
    def verified(self):
        """Whether the answer was compared with the reference (not only its properties)."""
        return all(c.verified for c in self.cases)

    @property
    def feedback(self):
        """One paragraph for the grades CSV: the status, and the likely mistake where it adds to
        it (never the answer of a question that asks for understanding)."""
        status, diagnosis = self.status, self.diagnosis
        return status if not diagnosis or diagnosis in status else f"{status}; likely mistake: " \
            f"{diagnosis}"

    def text(self, *, student=True):
        """The report as printed by ``check`` (``student=False``: for the grader's feedback,
        without the seed and the notebook hint)."""
        head = f"{self.question}: " + ("PASSED" if self.passed else
                                       NOT_JUDGED if self.holds else "FAILED")
        out = [head]
        if self.variant:
            out.append(f"  variant: {self.variant}")
        if self.key and student:
            out.append(f"  key: {self.key}")
        out += [f"  note: {n}" for n in self.notes]
        if not self.verified and self.cases:
            out.append(f"  note: {UNVERIFIED}")
        if self.cases and all(c.status == NOT_IMPLEMENTED for c in self.cases):
            out.append(f"  {NOT_IMPLEMENTED}" + (
                ": replace the `raise NotImplementedError` line with\n  your code, then run "
                "this cell again." if student else ""))
            return "\n".join(out)
        detailed = False
        for k, case in enumerate(self.cases, 1):
            prefix = f"  case {k}: " if len(self.cases) > 1 else "  "
            if case.status == UNVERIFIED:  # said once, in the note above
                out.append(f"{prefix}no property to check here")
                continue
            if case.status:
                out.append(f"{prefix}{case.status}")
                if case.diagnosis:
                    out.append(f"    likely mistake: {case.diagnosis}")
                continue
            if case.holds:
                out.append(f"{prefix}all {len(case.lines)} checks "
                           + ("pass" if case.verified else "that can run here pass"))
                continue
            if detailed:  # one failing case in full is enough; the others in one line
                failed = sum(not ok for ok, _ in case.lines)
                out.append(f"{prefix}{failed} check(s) fail" + (
                    f"; likely mistake: {case.diagnosis}" if case.diagnosis else ""))
                continue
            detailed = True
            out.append(prefix.rstrip())
            out += [f"    [{'pass' if ok else 'FAIL'}] {t}" for ok, t in case.lines]
            if case.diagnosis:
                out.append(f"    likely mistake: {case.diagnosis}")
        if not self.passed and student and self.seed is not None:
            out.append(f"  inputs came from seed={self.seed}; reproduce them with "
                       f"check({self.question!r}, your_function, seed={self.seed})")
        return "\n".join(out)
