"""Batch grading: a folder of submitted notebooks -> a CSV, feedback files, Gradescope JSON.

A submission is a ``.ipynb`` file directly in the folder (the student is its file name) or a
sub-folder holding exactly one notebook (the student is the folder's name). Anything else in the
folder still gets a row, with the reason it could not be graded. For each submission,

1. the notebook is read and its definitions extracted (:mod:`mlnotes.homework.notebook`);
2. the functions run in a sandboxed child process on inputs generated here from a seed the
   students never see (:mod:`mlnotes.homework.sandbox`);
3. the answers are judged here, against the reference, exactly as the student-side ``check``
   judges them (:func:`mlnotes.homework.core.evaluate_case`).

Whatever happens to one submission (a notebook that does not parse, a crash, a timeout, an error
in the grader itself), it is recorded in that submission's row and the grader carries on.
"""

import csv
import json
import re
import secrets
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .assignments import get_assignment
from .core import MISSING, Report, evaluate_case, get_question
from .notebook import NotebookError, extract_definitions, read_code_cells
from .sandbox import run_functions
from .student import student_args

SEED_BITS = 63
# Feedback quotes at most this much of what a function printed.
QUOTED_OUTPUT = 1000


@dataclass
class QuestionResult:
    name: str
    points: float
    max_points: float
    status: str
    feedback: str


@dataclass
class SubmissionResult:
    student: str
    path: str
    results: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def total(self):
        return sum(r.points for r in self.results)

    @property
    def max_total(self):
        return sum(r.max_points for r in self.results)


def find_submissions(folder):
    """``[(student, path)]`` for every entry of ``folder`` (hidden files skipped), sorted."""
    entries = []
    for path in sorted(Path(folder).iterdir()):
        if path.name.startswith("."):
            continue
        student = path.name if path.is_dir() else path.stem
        entries.append((student, path))
    return entries


def _notebook_of(path):
    if path.is_dir():
        notebooks = sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        if len(notebooks) != 1:
            raise NotebookError(f"the folder holds {len(notebooks)} notebooks; exactly one is "
                                "expected")
        return notebooks[0]
    if path.suffix != ".ipynb":
        raise NotebookError(f"{path.name} is not a notebook (.ipynb)")
    return path


class Grader:
    """Grades submissions against one assignment; the inputs are drawn once per grader."""

    def __init__(self, assignment, *, timeout=10.0, memory_mb=1024, seed=None, private=(),
                 block=()):
        self.points = get_assignment(assignment) if isinstance(assignment, str) else dict(
            assignment)
        self.questions = [get_question(name) for name in self.points]
        self.timeout = float(timeout)
        self.memory_mb = int(memory_mb)
        self.private = [str(p) for p in private]  # folders graded code may not read
        self.block = [str(b) for b in block]  # packages it may not import, besides mlnotes
        seed = secrets.randbits(SEED_BITS) if seed is None else seed
        self.seed = seed
        self.cases = [q.cases([seed, k]) for k, q in enumerate(self.questions)]
        # The references run here, before any student code: everything they need is loaded.
        self.expected = [[q.expected(inputs) for inputs in cases]
                         for q, cases in zip(self.questions, self.cases, strict=True)]

    def grade_notebook(self, student, path):
        result = SubmissionResult(student, str(path))
        try:
            source, notes = extract_definitions(read_code_cells(_notebook_of(Path(path))))
            result.notes += notes
        except NotebookError as exc:
            return self._all_failed(result, f"not graded: {exc}")
        calls = [(q.function, [student_args(inputs) for inputs in cases])
                 for q, cases in zip(self.questions, self.cases, strict=True)]
        try:
            notes, outcomes = run_functions(source, calls, timeout=self.timeout,
                                            memory_mb=self.memory_mb, private=self.private,
                                            block=self.block)
        except OSError as exc:
            return self._all_failed(result, f"not graded: the sandbox could not start ({exc})")
        result.notes += notes
        for k, (question, outcome) in enumerate(zip(self.questions, outcomes, strict=True)):
            result.results.append(self._judge(k, question, outcome))
        return result

    def _judge(self, k, question, outcome):
        max_points = self.points[question.name]
        if "reason" in outcome:
            return QuestionResult(question.name, 0.0, max_points, outcome["reason"],
                                  f"{question.name}: FAILED\n  {outcome['reason']}")
        answers = outcome["answers"][: len(self.cases[k])]
        answers += [{"error": "no answer", "type": MISSING}] * (len(self.cases[k]) - len(answers))
        cases = [evaluate_case(question, inputs, answer, expected=expected)
                 for inputs, answer, expected in zip(self.cases[k], answers, self.expected[k],
                                                     strict=True)]
        report = Report(question.name, cases)
        for name in outcome.get("blocked", []):
            report.notes.append(f"your code tried to use {name}, which is blocked while grading: "
                                "the graded functions must be your own implementation")
        text = report.text(student=False)
        printed = outcome.get("output", "")
        if printed:
            text += f"\n  your function printed:\n    {printed[:QUOTED_OUTPUT]!r}"
        return QuestionResult(question.name, round(max_points * report.fraction, 3), max_points,
                              report.status, text)

    def _all_failed(self, result, reason):
        result.notes.append(reason)
        for q in self.questions:
            result.results.append(QuestionResult(q.name, 0.0, self.points[q.name], reason,
                                                 f"{q.name}: FAILED\n  {reason}"))
        return result

    def grade_safely(self, student, path):
        """:meth:`grade_notebook`, with any failure of the grader itself recorded, not raised."""
        try:
            return self.grade_notebook(student, path)
        except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
            return self._all_failed(SubmissionResult(student, str(path)),
                                    f"grader error: {type(exc).__name__}: {exc}")


def grade_folder(folder, assignment, out_csv, *, jobs=2, timeout=10.0, memory_mb=1024,
                 seed=None, block=()):
    """Grade every submission in ``folder``; write the CSV, feedback and results.json files,
    and ``grading.json`` (the settings and the seed of the hidden inputs, to grade again alike).

    Returns the list of :class:`SubmissionResult` (one per submission, in CSV order).
    """
    grader = Grader(assignment, timeout=timeout, memory_mb=memory_mb, seed=seed,
                    private=[folder, Path(out_csv).parent], block=block)
    submissions = find_submissions(folder)
    with ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
        results = list(pool.map(lambda s: grader.grade_safely(*s), submissions))
    write_outputs(results, grader, out_csv)
    return results


def _safe_name(student):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", student)[:100] or "_"


def _cell(text):
    """A CSV cell that a spreadsheet will not run as a formula."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def write_outputs(results, grader, out_csv):
    out_csv = Path(out_csv)
    out_dir = out_csv.parent
    out_dir.mkdir(parents=True, exist_ok=True)
    names = list(grader.points)
    with open(out_csv, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", *names, "total", "max", "notes"])
        for r in results:
            points = {q.name: q.points for q in r.results}
            reasons = sorted({q.status for q in r.results if q.status != "passed"})
            notes = "; ".join(dict.fromkeys(r.notes[:3] + reasons[:3]))
            writer.writerow([_cell(r.student), *(points.get(n, 0.0) for n in names),
                             round(r.total, 3), r.max_total, _cell(notes[:500])])
    # what it takes to grade again on the same hidden inputs (the students never see this file)
    settings = {"assignment": grader.points, "seed": grader.seed, "timeout": grader.timeout,
                "memory_mb": grader.memory_mb, "block": grader.block}
    (out_dir / "grading.json").write_text(json.dumps(settings, indent=1), encoding="utf-8")
    used = set()
    for r in results:
        safe = base = _safe_name(r.student)
        while safe in used:  # two students whose names differ only in odd characters
            safe = f"{base}-{len(used)}"
        used.add(safe)
        (out_dir / "feedback").mkdir(exist_ok=True)
        (out_dir / "feedback" / f"{safe}.txt").write_text(feedback_text(r), encoding="utf-8")
        (out_dir / "results" / safe).mkdir(parents=True, exist_ok=True)
        (out_dir / "results" / safe / "results.json").write_text(
            json.dumps(gradescope_json(r), indent=1), encoding="utf-8")


def feedback_text(result):
    lines = [f"Feedback for {result.student}: {result.total:g} / {result.max_total:g} points", ""]
    if result.notes:
        lines += ["Notes on your notebook:"] + [f"  - {n}" for n in result.notes] + [""]
    for q in result.results:
        lines += [f"[{q.points:g} / {q.max_points:g}] " + q.feedback, ""]
    return "\n".join(lines)


def gradescope_json(result):
    """The Gradescope autograder ``results.json`` for one submission."""
    return {
        "score": round(result.total, 3),
        "output": "\n".join(result.notes),
        "visibility": "visible",
        "tests": [{"name": q.name, "score": q.points, "max_score": q.max_points,
                   "status": "passed" if q.points == q.max_points else "failed",
                   "output": q.feedback} for q in result.results],
    }
