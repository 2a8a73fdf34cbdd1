"""Batch grading: a folder of submitted notebooks -> a CSV, feedback files, Gradescope JSON.

A submission is a ``.ipynb`` file directly in the folder (the student is its file name) or a
sub-folder holding exactly one notebook (the student is the folder's name). Anything else in the
folder still gets a row, with the reason it could not be graded. For each submission,

1. the notebook is located and opened without following links (a link, a device, a hard link
   is refused with a reason), and parsed in a separate process with memory and CPU limits
   (:mod:`mlnotes.homework.notebook`): the grader itself never parses a submission;
2. the functions run in a sandboxed child process on inputs generated here from a seed the
   students never see (:mod:`mlnotes.homework.sandbox`);
3. the answers are judged here, against the reference, exactly as the student-side ``check``
   judges them (:func:`mlnotes.homework.core.evaluate_case`).

Whatever happens to one submission (a notebook that does not parse, a crash, a timeout, an error
in the grader itself), it is recorded in that submission's row and the grader carries on.
Everything that comes from a submission or its process (printed output, exception messages,
notes on failed statements) is untrusted text: bounded, escaped (:func:`escape`), shown under
a heading that says it is the submission's own, and stripped of the grader's paths
(:func:`public`).
"""

import csv
import hashlib
import io
import json
import os
import re
import secrets
import stat
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import keys, variants
from .assignments import shipped
from .bank import get_question, solutions
from .core import DEFINITION, MISSING, WRONG_KIND, ReferenceUnavailable, Report, evaluate_case
from .folder import Assignment
from .names import lookalikes
from .needs import check_needs
from .notebook import NotebookError, open_submission, parse_submission
from .sandbox import (
    MLNOTES_DIR,
    PROJECT_ROOT,
    TMP_PREFIX,
    StageError,
    can_isolate,
    check_private,
    run_functions,
)
from .student import depends_note, student_args

SEED_BITS = 63
SPARSE_FACTOR, SLACK_NUMBERS = 3, 16
# Feedback quotes at most this much of what a function printed, and of what the code's run
# reported (notes on statements that failed).
QUOTED_OUTPUT = 1000
QUOTED_NOTES = 5
# A submitted folder is searched this deep, through at most this many entries.
MAX_DEPTH, MAX_ENTRIES = 8, 2000
# A message from the code (an exception's text) is quoted, at most this long.
QUOTED_MESSAGE = 300
# The CSV's notes (the grader's notes and every failed question's feedback) are cut here.
CSV_NOTES = 4000
# The CSV column an instructor fills in after marking the exported derivations.
HAND_MARK = "hand mark"
UNTRUSTED_HEADING = ("What your code itself reported while it ran (its own output, shown as "
                     "text; not the grader's notes):")


@dataclass
class QuestionResult:
    name: str
    points: float
    max_points: float
    status: str
    feedback: str
    summary: str = ""  # the feedback in the grader's own words only (for the CSV)


@dataclass
class SubmissionResult:
    student: str
    path: str
    results: list = field(default_factory=list)
    notes: list = field(default_factory=list)      # the grader's own notes
    reported: list = field(default_factory=list)   # what the submission's run said (untrusted)
    file: str = ""                                  # the entry of the submissions folder
    summary: list = field(default_factory=list)    # notes with no submitted text (for the CSV)
    variant: str = ""                               # the student's variant of the graded set
    derivations: list = field(default_factory=list)  # (heading, text) to be marked by hand

    @property
    def total(self):
        return sum(r.points for r in self.results)

    @property
    def max_total(self):
        return sum(r.max_points for r in self.results)


# --- text that reaches a student ---------------------------------------------------------------

def _internal_prefixes():
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(MLNOTES_DIR), str(PROJECT_ROOT),
             os.path.join(tempfile.gettempdir(), TMP_PREFIX), os.path.expanduser("~")}
    real = {os.path.realpath(p) for p in paths}
    return sorted((p for p in paths | real if len(p) > 1), key=len, reverse=True)


# Between two components of a path written otherwise (reversed, with back-slashes, spaced out,
# URL-style): up to three characters that are not letters or digits.
_ANY_SEP = r"[^0-9A-Za-z]{1,3}"


def _path_pattern(prefix):
    """A pattern for ``prefix`` written forwards or backwards, in any case, with any short run
    of non-alphanumeric characters for each separator (one component: a slash before it)."""
    parts = [p for p in prefix.split(os.sep) if p]
    lead = _ANY_SEP if len(parts) > 1 else r"[/\\]"
    forward = lead + _ANY_SEP.join(re.escape(p) for p in parts)
    backward = _ANY_SEP.join(re.escape(p[::-1]) for p in reversed(parts)) + lead
    edge = "(?<![0-9A-Za-z])", "(?![0-9A-Za-z])"
    return f"{edge[0]}(?:{forward}|{backward}){edge[1]}"


_INTERNAL = _internal_prefixes()
_INTERNAL_PATTERN = re.compile("|".join(_path_pattern(p) for p in _INTERNAL), re.IGNORECASE)
_LIBRARY_FILE = re.compile(r"/[^\s'\"]*/(?:site|dist)-packages/[^\s'\":]*")


def public(text):
    """``text`` with every path of the grader's machine replaced (never shown to a student):
    as written, reversed, in another case or with other separators."""
    text = str(text)
    for prefix in _INTERNAL:
        text = text.replace(prefix, "<grader>")
    text = _INTERNAL_PATTERN.sub("<grader>", text)
    return _LIBRARY_FILE.sub("<library file>", text)


def escape(text, limit):
    """Untrusted text as one line: control, format and separator characters escaped (no new
    lines, no terminal or bidirectional controls), at most ``limit`` characters."""
    text = str(text)[: limit * 2]
    out = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                  for c in text)
    return out if len(out) <= limit else out[:limit] + " ..."


# --- finding the submissions -------------------------------------------------------------------

def shown_name(name):
    """A file name as text that can always be written (an invalid UTF-8 byte becomes ``\\xff``);
    control characters are escaped where it is written (:func:`escape`)."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def find_submissions(folder):
    """``[(student, name)]`` for every entry of ``folder`` (hidden files skipped), sorted.

    Nothing is followed or opened here; :func:`locate_notebook` decides what each entry is.
    ``name`` is the entry as the file system has it; ``student`` is shown text (:func:`shown_name`).
    """
    with os.scandir(folder) as entries:
        names = sorted((e.name for e in entries if not e.name.startswith(".")), key=os.fsencode)
    out = []
    for name in names:
        is_dir = stat.S_ISDIR(os.lstat(os.path.join(folder, name)).st_mode)
        shown = shown_name(name)
        out.append((shown if is_dir else Path(shown).stem, name))
    return out


def locate_notebook(folder, name):
    """The path (relative to ``folder``) of the notebook of submission ``name``.

    A submission is a regular ``.ipynb`` file, or a folder holding exactly one (searched without
    following links). Links, devices and the like are refused: a :class:`NotebookError` says so.
    """
    info = os.lstat(os.path.join(folder, name))
    if stat.S_ISLNK(info.st_mode):
        raise NotebookError(f"{shown_name(name)} is a link; links are not followed: submit the "
                            "notebook itself", "the submission is a link (not followed)")
    if not stat.S_ISDIR(info.st_mode):
        if not name.endswith(".ipynb"):
            raise NotebookError(f"{shown_name(name)} is not a notebook (.ipynb)",
                                "not a notebook (.ipynb)")
        return name
    found, seen = [], 0
    for root, dirs, files in os.walk(os.path.join(folder, name), followlinks=False):
        rel = os.path.relpath(root, folder)
        dirs[:] = [d for d in dirs if d != ".ipynb_checkpoints"] if (
            rel.count(os.sep) < MAX_DEPTH) else []
        seen += len(dirs) + len(files)
        if seen > MAX_ENTRIES:
            raise NotebookError(f"the folder holds more than {MAX_ENTRIES} files")
        found += [os.path.join(rel, f) for f in files if f.endswith(".ipynb")]
    if len(found) != 1:
        raise NotebookError(f"the folder holds {len(found)} notebooks; exactly one is expected")
    return found[0]


# The status of a case that ended in an error, in the grader's words (the error's own text
# comes from the submission's process and stays in the feedback, quoted).
ERROR_SUMMARIES = {"NotImplementedError": "not implemented yet", "AnswerError": WRONG_KIND,
                   MISSING: "no function of that name was found",
                   DEFINITION: "its definition does not compile or failed"}


def _summary(question, report, answers):
    """The teaching feedback on a question (``report.feedback``: the status and the catalogued
    likely mistake) with no text from the submission: for a case that ended in an error, the
    kind of failure only."""
    for case, answer in zip(report.cases, answers, strict=False):
        if case.status:
            if isinstance(answer, dict) and "error" in answer:
                return ERROR_SUMMARIES.get(answer.get("type"), "raised an exception")
            break
    return report.feedback


def no_references(exc):
    """Why grading cannot start without the instructor's reference answers, and what to do."""
    if isinstance(exc, keys.KeyUnavailable):  # the graded set: the passphrase, not a folder
        return keys.FOR_INSTRUCTORS if str(exc) == keys.NO_PASSPHRASE else str(exc)
    where = solutions.solutions_folder()
    found = f"not found ({exc})" if where is not None else "not found"
    return (f"the reference answers of the graded questions are the instructor's: {found}. "
            f"Give --solutions DIR, the folder holding {solutions.FILE} (in a course's private "
            f"checkout: book/homework/instructor/), or set {solutions.ENVIRONMENT} to it")


class Grader:
    """Grades submissions against one assignment; the inputs are drawn once per grader.

    The instructor's reference answers are read from :func:`~.bank.solutions.solutions_folder`
    (a :class:`~.core.ReferenceUnavailable` says how to give them where there are none); that
    folder is one of the folders graded code may not read.
    """

    def __init__(self, assignment, *, timeout=10.0, memory_mb=1024, seed=None, private=(),
                 block=(), course_seed=None):
        # before anything is read or written: never a mark it cannot compute
        check_needs(assignment)
        self.private = [str(p) for p in private]  # folders graded code may not read
        if isinstance(assignment, str):  # a shipped assignment: its folder, read like any other
            assignment = shipped(assignment)
        if isinstance(assignment, Assignment):  # its key and checks: never readable by students
            self.name = assignment.name
            self.points = dict(assignment.points)
            self.questions = list(assignment.questions.values())
            self.private += [str(p) for p in assignment.private()]
            # copied beside each submission's notebook (sandbox.stage): graded code reads the
            # copies, never the folder
            self.data = list(assignment.data)
        else:  # {question name: points} of the package's questions
            self.name = "assignment"
            self.points = dict(assignment)
            self.questions = [get_question(name) for name in self.points]
            self.data = []
        self.timeout = float(timeout)
        self.memory_mb = int(memory_mb)
        self.block = [str(b) for b in block]  # packages it may not import, besides mlnotes
        # the instructor's reference answers: graded code may never read their folder
        folder = solutions.solutions_folder()
        if folder is not None:
            self.private.append(str(folder))
        if keys.key_file() is not None:  # the graded key's passphrase: never readable by students
            self.private.append(str(Path(keys.key_file()).resolve().parent))
        check_private(self.private)
        seed = secrets.randbits(SEED_BITS) if seed is None else seed
        self.seed = seed
        self.course_seed = variants.course_seed(course_seed)
        self.graded = any(q.variant is not None for q in self.questions)
        # The references run here, before any student code: everything they need is loaded
        # (for the graded set, a probe variant proves the key opens; each student's expected
        # answers are computed from the key for their variant when they are graded).
        try:
            self.cases, self.expected, self.max_numbers, _ = self.plan(None)
        except ReferenceUnavailable as exc:
            raise ReferenceUnavailable(no_references(exc)) from None
        self.isolation = {}  # what the sandbox achieved (the first child's report)

    def plan(self, student):
        """``(cases, expected, max_numbers, variant label)`` for ``student`` (``None``: the
        probe variant): the practice questions' cases are the same for everyone, a graded
        question's constants are the student's variant."""
        cases, expected = [], []
        for k, q in enumerate(self.questions):
            constants = (variants.variant(q, "\0probe" if student is None else student,
                                          self.course_seed) if q.variant is not None else None)
            cases.append(q.cases([self.seed, k], constants))
            expected.append([q.expected(inputs) for inputs in cases[-1]])
        # the most numbers a right answer can hold, per question (a sparse answer: three
        # arrays as long as the dense one): anything larger is refused as soon as it arrives
        max_numbers = [SPARSE_FACTOR * max(sum(e.size for e in exp) for exp in exps)
                       + SLACK_NUMBERS for exps in expected]
        label = ""
        if self.graded and student is not None:
            names = [q.name for q in self.questions if q.variant is not None]
            label = variants.variant_label(names, student, self.course_seed)
        return cases, expected, max_numbers, label

    def grade_notebook(self, student, path, *, folder=None):
        """Grade the notebook ``path`` (relative to ``folder`` when given; else any path, whose
        last component only is opened without following links)."""
        result = SubmissionResult(student, str(path))
        folder, path = (Path(path).parent, Path(path).name) if folder is None else (folder, path)
        try:
            fd = open_submission(folder, path)
            try:
                statements, notes, broken = parse_submission(fd)
            finally:
                os.close(fd)
            result.notes += [escape(n, 400) for n in notes]
        except NotebookError as exc:
            return self._all_failed(result, f"not graded: {exc}", f"not graded: {exc.summary}")
        if notes:
            result.summary.append(f"{len(notes)} note(s) on parts of the notebook that could not "
                                  "be read or compiled (see the feedback)")
        try:
            plan = self.plan(student) if self.graded else (
                self.cases, self.expected, self.max_numbers, "")
        except ValueError as exc:  # an id no variant can be drawn from (empty)
            return self._all_failed(result, f"not graded: {exc}", "not graded: no student id")
        result.variant = plan[3]
        calls = [(q.function, [student_args(inputs) for inputs in cases])
                 for q, cases in zip(self.questions, plan[0], strict=True)]
        events = []
        try:
            reported, outcomes, isolation = run_functions(
                statements, calls, timeout=self.timeout, memory_mb=self.memory_mb,
                private=self.private, block=self.block, max_numbers=plan[2],
                events=events, submission=(folder, path), data=self.data)
        except StageError as exc:
            return self._all_failed(result, f"not graded: {exc}; submit the notebook and the "
                                    "files it reads only", "not graded: the folder is too large")
        except OSError as exc:
            return self._all_failed(result, f"not graded: the sandbox could not start ({exc})",
                                    "not graded: the sandbox could not start")
        if isolation and not self.isolation:
            self.isolation = isolation
        result.notes += [self._redact(e) for e in events]  # how it was run (the sandbox's words)
        result.summary += ["run again with more patience (the wall-clock backstop fired)"
                           for _ in events]
        result.reported += [self._redact(r) for r in reported]
        for k, (question, outcome) in enumerate(zip(self.questions, outcomes, strict=True)):
            result.results.append(self._judge_safely(k, question, outcome, broken, plan))
        self._point_to_helpers(result, statements)
        return result

    def _judge_safely(self, k, question, outcome, broken, plan=None):
        """:meth:`_judge`; an answer the grader fails to judge costs that question alone."""
        try:
            return self._judge(k, question, outcome, broken,
                               *(() if plan is None else (plan,)))
        except Exception as exc:  # noqa: BLE001 - one odd answer must not cost the others
            reason = (f"{WRONG_KIND}: the grader could not judge this answer "
                      f"({type(exc).__name__}); return the array the docstring describes")
            return QuestionResult(question.name, 0.0, self.points[question.name], reason,
                                  f"{question.name}: FAILED\n  {reason}")

    def _judge(self, k, question, outcome, broken, plan=None):
        all_cases, all_expected = (self.cases, self.expected) if plan is None else plan[:2]
        max_points = self.points[question.name]
        if "reason" in outcome:  # the sandbox's own words
            reason = self._redact(outcome["reason"])
            return QuestionResult(question.name, 0.0, max_points, reason,
                                  f"{question.name}: FAILED\n  {reason}", reason)
        answers = outcome["answers"][: len(all_cases[k])]
        answers += [{"error": "no answer", "type": MISSING}] * (len(all_cases[k]) - len(answers))
        answers = [self._trusted(question, a, broken) for a in answers]
        cases = [evaluate_case(question, inputs, answer, expected=expected)
                 for inputs, answer, expected in zip(all_cases[k], answers, all_expected[k],
                                                     strict=True)]
        report = Report(question.name, cases, strict_nan=bool(question.nan_hint))
        if question.variant is not None:
            report.variant = variants.describe(all_cases[k][0]["_variant"])
        for name in outcome.get("blocked", []):
            report.notes.append(f"your code tried to use {escape(name, 60)}, which is blocked "
                                "while grading: the graded functions must be your own "
                                "implementation")
        text = report.text(student=False)
        printed = outcome.get("output", "")
        if printed:
            text += ("\n  your function printed (its own output, shown as text):\n    "
                     + escape(self._redact(printed), QUOTED_OUTPUT))
        return QuestionResult(question.name, round(max_points * report.fraction, 3), max_points,
                              self._redact(report.status), self._redact(text),
                              self._redact(_summary(question, report, answers)))

    @staticmethod
    def _trusted(question, answer, broken):
        """An outcome from the child with its text made safe: the reason for a definition
        that does not compile comes from the grader's own parse; an error's message is
        quoted and escaped (it is the submission's text)."""
        if not isinstance(answer, dict) or "error" not in answer:
            return answer
        kind = answer.get("type")
        if kind in (MISSING, DEFINITION) and question.function in broken:
            return {"error": broken[question.function], "type": DEFINITION}
        message = escape(answer.get("error"), QUOTED_MESSAGE)
        kind = escape(kind, 60)
        if kind == MISSING:  # the grader's words stand for it (the child's are not shown)
            return {"error": "missing", "type": MISSING}
        if kind == "NotImplementedError":
            return {"error": f"\u201c{message}\u201d", "type": kind}
        if kind == DEFINITION:  # the child's account of a statement that failed: its text
            return {"error": f"failed when its cell ran: \u201c{message}\u201d",
                    "type": DEFINITION}
        # the rest is text from the submission's process (an AnswerError too: the code can
        # raise one with any message): quoted, never in the grader's voice
        return {"error": f"\u201c{message}\u201d", "type": kind}

    def _point_to_helpers(self, result, statements):
        """A failing function that calls the student's own function for another question of
        this assignment, which failed too, gets a pointer to it."""
        by_name = {r.name: r for r in result.results}
        code = {n: st["code"] for st in statements for n in st.get("names", [])}
        for q, r in zip(self.questions, result.results, strict=True):
            if r.points == r.max_points:
                continue
            for dep in q.depends_on:
                helper = by_name.get(dep)
                if helper is None or helper.points == helper.max_points:
                    continue
                fn = get_question(dep).function
                if re.search(rf"\b{re.escape(fn)}\b", code.get(q.function, "")):
                    r.feedback += "\n  note: " + depends_note(q.function, get_question(dep),
                                                              helper.status)

    def _redact(self, text):
        """``text`` without the grader's paths nor the instructor's folders (the submissions,
        the output), as they may appear in an error's message."""
        text = str(text)
        for folder in sorted(self.private, key=len, reverse=True):
            for form in dict.fromkeys((folder, os.path.realpath(folder))):
                if len(form) > 1:
                    text = text.replace(form, "<submissions>")
        return public(text)

    def _all_failed(self, result, reason, summary):
        """Every question failed for ``reason`` (it may name the submission's files: escaped);
        ``summary`` says the same in the grader's words only (for the CSV)."""
        reason = escape(self._redact(reason), 600)
        result.notes.append(reason)
        result.summary.append(summary)
        for q in self.questions:
            result.results.append(QuestionResult(q.name, 0.0, self.points[q.name], reason,
                                                 f"{q.name}: FAILED\n  {reason}", summary))
        return result

    def grade_safely(self, student, path, *, folder=None):
        """:meth:`grade_notebook`, with any failure of the grader itself recorded, not raised."""
        try:
            return self.grade_notebook(student, path, folder=folder)
        except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
            return self._all_failed(SubmissionResult(student, str(path)),
                                    f"grader error: {type(exc).__name__}: {exc}",
                                    f"grader error ({type(exc).__name__})")


def grade_folder(folder, assignment, out_csv, *, jobs=2, timeout=10.0, memory_mb=1024,
                 seed=None, block=(), course_seed=None):
    """Grade every submission in ``folder``; write the CSV, feedback and results.json files,
    and ``grading.json`` (the settings, the seed of the hidden inputs to grade again alike, and
    what the sandbox achieved on this machine).

    Returns the list of :class:`SubmissionResult` (one per submission, in CSV order). A
    ``ValueError`` if the output folder lies inside the submissions folder (a student could
    have placed links there) or could not be hidden from graded code.
    """
    check_needs(assignment)  # before the output folder is made
    folder = submissions_folder(folder)
    out_dir = output_folder(out_csv, folder)
    grader = Grader(assignment, timeout=timeout, memory_mb=memory_mb, seed=seed,
                    private=[folder, out_dir], block=block, course_seed=course_seed)

    def grade(entry):
        student, name = entry
        try:
            relative = locate_notebook(folder, name)
        except (NotebookError, OSError) as exc:
            if isinstance(exc, NotebookError):
                result = grader._all_failed(SubmissionResult(student, name),
                                            f"not graded: {exc}", f"not graded: {exc.summary}")
            else:
                result = grader._all_failed(SubmissionResult(student, name),
                                            "not graded: it could not be read",
                                            "not graded: it could not be read")
        else:
            result = grader.grade_safely(student, relative, folder=folder)
            if grader.graded:  # the written derivations, for marking by hand
                result.derivations = _derivations(folder, relative)
        result.file = shown_name(name)
        return result

    with ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
        results = list(pool.map(grade, find_submissions(folder)))
    flag_lookalikes(results)
    write_outputs(results, grader, out_dir / Path(out_csv).name)
    if grader.graded:
        from .handmark import write_derivations

        write_derivations(results, out_dir, grader.name, write_new)
    return results


def flag_lookalikes(results):
    """A note on each row whose student name a reader could take for another's (a homoglyph
    twin such as a Cyrillic "\u0430lice" beside "alice", or letters of several scripts)."""
    notes = lookalikes(r.student for r in results)
    for r in results:
        if r.student in notes:
            r.notes.append(notes[r.student])
            r.summary.insert(0, notes[r.student])


def _derivations(folder, relative):
    from .handmark import derivations_of

    try:
        return derivations_of(folder, relative)
    except (NotebookError, OSError):
        return []


def submissions_folder(folder):
    """The submissions folder as the instructor named it, resolved once: the folder itself may
    be reached through a link (the instructor chose it); inside it nothing is followed. A
    ``ValueError`` if it is not a folder."""
    resolved = Path(os.path.realpath(folder))
    if not resolved.is_dir():
        raise ValueError(f"{folder} is not a folder of submissions: pass the folder that holds "
                         "the submitted notebooks")
    return resolved


def _inside(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def output_folder(out_csv, submissions):
    """The folder of the grades CSV, resolved once (created if needed); a ``ValueError`` if it is
    inside the submissions folder, where a student could have placed links or files, or if
    graded code could not be kept from reading it (:func:`sandbox.check_private`)."""
    out_dir = Path(os.path.realpath(Path(out_csv).parent))
    if _inside(out_dir, submissions):
        raise ValueError(f"the output folder {out_dir} is inside the submissions folder "
                         f"{submissions}: write the grades to a folder of their own")
    check_private([submissions, out_dir])
    out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    return out_dir


def isolation_warning(isolation):
    """A sentence for the instructor when the sandbox is weaker than it is as root on Linux."""
    missing = [what for key, what in (
        ("mounts", "hiding the course's files in a mount namespace"),
        ("unprivileged", "running student code as an unprivileged user"),
        ("seccomp", "the seccomp system-call allow-list")) if not isolation.get(key)]
    if not isolation or not missing:
        return ""
    why = "" if can_isolate() else " (the grader is not root on Linux)"
    return ("warning: the sandbox ran without " + ", ".join(missing) + why + "; run the grader "
            "as root inside a throwaway container (see the README, 'Homework checking')")


# Feedback file names: the characters kept as they are, and how long a name may be (a digest of
# the exact name is appended when anything was changed or cut, so that two names never share
# a file: "vic tim" and "vic_tim", names equal in their first characters).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.-]+")
NAME_CHARS = 80


def _safe_name(student):
    """A file name for the student's feedback: never hidden, never ``.`` or ``..``, the same
    for no two different names (up to a collision of SHA-256 prefixes)."""
    plain = re.sub(r"[^A-Za-z0-9_.-]", "_", student)[:NAME_CHARS].lstrip(".") or "_"
    if plain == student and _PLAIN_NAME.fullmatch(student) and not student.startswith("."):
        return plain
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{plain}-{digest}"


def _file_names(results):
    """One feedback name per result, all different, also on a file system that ignores case."""
    names, used = [], set()
    count = {}
    for r in results:
        count[r.student] = count.get(r.student, 0) + 1
    for r in results:
        # a student with two entries (a notebook and a stray file): named by each entry
        base = _safe_name(r.student if count[r.student] == 1 or not r.file else r.file)
        name, k = base, 1
        while name.lower() in used:  # ends: each turn tries a name not tried before
            k += 1
            name = f"{base}~{k}"
        used.add(name.lower())
        names.append(name)
    return names


# What a spreadsheet may take for the start of a formula, once it has trimmed the cell (its
# full-width forms included: some spreadsheets read them as the ASCII ones).
FORMULA_STARTS = "=+-@\uff1d\uff0b\uff0d\uff20\ufe62\ufe63\u2212"


def _cell(text):
    """A CSV cell that a spreadsheet will not run as a formula (whatever blanks precede it)."""
    text = str(text)
    first = text.lstrip()[:1]
    return "'" + text if (first and first in FORMULA_STARTS) or text[:1] in ("\t", "\r") else text


# --- writing the outputs: never through a link, never over something a student placed ----------

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_folder(name, dir_fd):
    """The sub-folder ``name`` of ``dir_fd`` (made if absent), opened without following a link:
    a link there raises ``OSError``."""
    try:
        os.mkdir(name, 0o700, dir_fd=dir_fd)
    except FileExistsError:
        pass
    fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    try:
        os.fchmod(fd, 0o700)  # the instructor's alone, also when an earlier run made it
    except OSError:
        os.close(fd)
        raise
    return fd


def _write_new(dir_fd, name, text, mode=0o600):
    """Write ``name`` in ``dir_fd`` as a new file (``O_EXCL | O_NOFOLLOW``): an old file or a
    link of that name is removed first (the link itself, never what it points to)."""
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    fd = os.open(name, _NEW_FILE, mode, dir_fd=dir_fd)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def write_new(path, text, mode=0o600):
    """Write ``path`` anew (its folder made if needed), never through a link at its place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(os.path.realpath(path.parent), _DIR_FLAGS)
    try:
        _write_new(folder, path.name, text, mode)
    finally:
        os.close(folder)


def _csv_row(r, names):
    """One submission's row; its notes: the grader's notes on the notebook, then each failed
    question's feedback in the grader's words (questions with the same feedback named together)."""
    points = {q.name: q.points for q in r.results}
    parts = list(dict.fromkeys(r.summary[:3]))
    failed = {}
    for q in r.results:
        if q.status != "passed":
            failed.setdefault(q.summary or q.status, []).append(q.name)
    parts += [f"{', '.join(questions)}: {text}" for text, questions in failed.items()
              if text not in parts]
    if r.reported:
        parts.append(f"{len(r.reported)} message(s) from the submission's own run: see its "
                     "feedback")
    notes = "; ".join(parts)
    return [_cell(escape(r.student, 1000)), _cell(escape(r.file, 1000)), r.variant,
            *(points.get(n, 0.0) for n in names), round(r.total, 3), r.max_total, "",
            _cell(escape(public(notes), CSV_NOTES))]


def write_outputs(results, grader, out_csv):
    """The CSV, ``grading.json``, ``feedback/`` and ``results/``: each file written anew
    without following links; one that cannot be written is named in ``grading.json`` and
    costs only itself."""
    out_csv = Path(out_csv)
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    root = os.open(os.path.realpath(out_csv.parent), _DIR_FLAGS)
    failed = []
    try:
        names = list(grader.points)
        table = io.StringIO()
        writer = csv.writer(table)
        # "hand mark" is the instructor's, for the derivations exported beside the CSV
        writer.writerow(["student", "file", "variant", *names, "total", "max", HAND_MARK,
                         "notes"])
        for r in results:
            writer.writerow(_csv_row(r, names))
        _write_new(root, out_csv.name, table.getvalue(), 0o600)
        feedback, results_dir = _open_folder("feedback", root), _open_folder("results", root)
        try:
            for r, safe in zip(results, _file_names(results), strict=True):
                try:
                    _write_new(feedback, f"{safe}.txt", feedback_text(r))
                    folder = _open_folder(safe, results_dir)
                    try:
                        _write_new(folder, "results.json",
                                   json.dumps(gradescope_json(r), indent=1))
                    finally:
                        os.close(folder)
                except (OSError, ValueError) as exc:
                    failed.append(f"{safe}: {type(exc).__name__}")
        finally:
            os.close(feedback)
            os.close(results_dir)
        # what it takes to grade again on the same hidden inputs (the students never see it)
        settings = {"assignment": grader.points, "seed": grader.seed,
                    "course_seed": grader.course_seed if grader.graded else None,
                    "timeout": grader.timeout,
                    "memory_mb": grader.memory_mb, "block": grader.block,
                    "isolation": grader.isolation, "not_written": failed}
        _write_new(root, "grading.json", json.dumps(settings, indent=1), 0o600)
    finally:
        os.close(root)


def _reported_lines(result):
    shown = [f"  | {escape(public(n), 300)}" for n in result.reported[:QUOTED_NOTES]]
    if len(result.reported) > QUOTED_NOTES:
        shown.append(f"  | ... and {len(result.reported) - QUOTED_NOTES} more")
    return [UNTRUSTED_HEADING, *shown] if shown else []


def _note_lines(result):
    return [f"  - {escape(public(n), 600)}" for n in result.notes]


def feedback_text(result):
    lines = [f"Feedback for {escape(result.student, 300)}: {result.total:g} / "
             f"{result.max_total:g} points", ""]
    if result.variant:
        lines[1:1] = [f"Your variant: {result.variant} (the constants of each graded question "
                      "are under its name)"]
    if result.notes:
        lines += ["Notes on your notebook:", *_note_lines(result), ""]
    if result.reported:
        lines += _reported_lines(result) + [""]
    for q in result.results:
        lines += [f"[{q.points:g} / {q.max_points:g}] " + q.feedback, ""]
    return "\n".join(lines)


def gradescope_json(result):
    """The Gradescope autograder ``results.json`` for one submission."""
    return {
        "score": round(result.total, 3),
        "output": "\n".join([line[4:] for line in _note_lines(result)]
                            + _reported_lines(result)),
        # plain text: a submission's output quoted here is never rendered as HTML or Markdown
        "output_format": "text", "test_output_format": "text", "test_name_format": "text",
        "visibility": "visible",
        "tests": [{"name": q.name, "score": q.points, "max_score": q.max_points,
                   "status": "passed" if q.points == q.max_points else "failed",
                   "output": q.feedback} for q in result.results],
    }
