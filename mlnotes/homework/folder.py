"""Assignments as data: a folder a course owns, read and checked here.

An assignment folder holds

* ``assignment.toml``, the question specification: the student notebook's file name, and one
  ``[[questions]]`` table per question with its points. A question is either one of the
  package's bank (``name`` only, e.g. ``"kernels.double_center"``) or defined by the folder:
  its stub (``function``, ``signature``, ``docstring``), the generator of its hidden inputs and
  the properties every right answer has (names of functions of the checks module, or of
  :data:`BUILTIN_PROPERTIES`), the tolerance of the comparison with the key, and optional
  likely mistakes with their diagnoses; optionally a variant per student (``variant = {c =
  [0.5, 2.0]}``: each constant drawn from its list by :mod:`~.variants`, passed to the key,
  the mistakes and the properties as ``_variant``) and a student-side check (``check = [...]``:
  the properties a student's :func:`~.student.check` tests without the key);
* ``checks.py`` (the instructor's, only when a question needs code: its inputs, properties and
  mistakes); it runs in the grader, never beside graded code;
* ``public.py`` (what students receive for their check: the inputs and properties of the
  questions with a ``check``); :func:`release` copies it with ``check.json``, which
  :func:`student_assignment` reads in the student's kernel;
* the key: a Python source defining ``REFERENCES = {question name: function}``, stored only
  encrypted (:mod:`~.keys`: Fernet, scrypt; ``python -m mlnotes.homework encrypt-key``), opened
  with the course's passphrase (``--key-file`` or the environment, as for the graded set);
* the student notebook, with a stub of every question's function, and any data files.

The grader reads it with ``--assignment-dir DIR``; the shipped assignments are folders of the
same kind inside the package (:data:`SHIPPED`), and ``--assignment NAME`` names one of them.
Every problem found in a folder is an :class:`AssignmentError` that says what is wrong and
what to do. The instructor's guide (``book/homework/instructors.md``) walks through writing,
checking (:func:`self_test`), releasing (:func:`release`) and grading an assignment.
"""

import ast
import copy
import importlib.util
import json
import math
import os
import re
import shutil
import sys
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, cast

import numpy as np

from .core import Mistake, Property, Question, ReferenceUnavailable, evaluate_case, to_plain

SPEC = "assignment.toml"
SHIPPED = Path(__file__).resolve().parent / "shipped"
GUIDE = "the instructor's guide (book/homework/instructors.md)"
TOP_FIELDS = {"name", "title", "notebook", "checks", "public", "key", "data", "questions"}
BANK_FIELDS = {"name", "points"}
QUESTION_FIELDS = {"name", "points", "function", "signature", "docstring", "inputs", "outputs",
                   "properties", "rtol", "cases", "mistakes", "conceal", "variant", "check"}
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
DEFAULT_RTOL = 1e-8
# What a student's released copy says of each question (check.json: never the key, the checks
# module's names of properties and mistakes, nor the grader's settings).
STUDENT_FIELDS = ("name", "points", "function", "signature", "docstring", "inputs", "outputs",
                  "rtol", "cases", "conceal", "variant", "check")
RELEASED = "check.json"
RELEASED_FORMAT = "mlnotes-student-check/1"


class AssignmentError(ValueError):
    """Something is wrong with an assignment folder; the message says what, and what to do."""


# --- the properties a specification can name without code ---------------------------------------

def _nonnegative():
    def test(answer, inputs, tol):
        low = float(np.min(answer[0], initial=0.0))
        return low >= -tol * max(float(np.max(np.abs(answer[0]), initial=0.0)), 1e-300), \
            f"smallest entry {low:.3g}"
    return Property("every entry is nonnegative", test)


def _builtins():
    from .bank._common import psd, sums_to, symmetric, zero_diagonal

    return {"symmetric": symmetric, "zero_diagonal": zero_diagonal, "psd": psd,
            "nonnegative": _nonnegative, "rows_sum_to_one": lambda: sums_to(1.0, 1)}


BUILTIN_PROPERTIES = ("symmetric", "zero_diagonal", "psd", "nonnegative", "rows_sum_to_one")


# --- the assignment ----------------------------------------------------------------------------

@dataclass
class Assignment:
    """An assignment read from its folder: ``points`` is ``{question name: points}``."""

    name: str
    folder: Path
    title: str
    notebook: Path
    questions: dict
    points: dict
    key: Path | None = None
    checks: Path | None = None
    data: list = field(default_factory=list)
    # the stub's parameters of each question the folder defines (checked against its inputs)
    arguments: dict = field(default_factory=dict)
    # the module released to students (their ``check``: inputs, properties without the key)
    public: Path | None = None
    # what a student's copy says of each question (:func:`release` writes it as check.json)
    released: list = field(default_factory=list)

    @property
    def graded(self) -> bool:
        """Whether its key is encrypted (the graded set, or a course's own folder)."""
        return self.key is not None

    @property
    def shipped(self) -> bool:
        return _inside(self.folder, SHIPPED)

    def private(self) -> list[Path]:
        """The folders graded code may never read: the folder (its key, its checks) and the
        key's folder; the package's own shipped folders hold no secret (their key is
        encrypted) and are hidden with the package."""
        if self.shipped:
            return []
        return list(dict.fromkeys([self.folder] + ([self.key.parent] if self.key else [])))


def _inside(path, folder):
    path, folder = Path(path).resolve(), Path(folder).resolve()
    return path == folder or folder in path.parents


def shipped_names() -> list[str]:
    """The names of the assignments shipped with the package (their folders' names)."""
    if not SHIPPED.is_dir():
        return []
    return sorted(p.name for p in SHIPPED.iterdir() if (p / SPEC).is_file())


def shipped_folder(name: str) -> Path:
    """The folder of shipped assignment ``name``; an :class:`AssignmentError` listing them."""
    if name not in shipped_names():
        raise AssignmentError(f"no assignment called {name!r}; the assignments are: "
                              f"{', '.join(shipped_names())} (a course's own assignment: "
                              "--assignment-dir DIR)")
    return SHIPPED / name


def read_spec(folder: str | os.PathLike) -> dict:
    """The parsed ``assignment.toml`` of ``folder`` (a dict), or an :class:`AssignmentError`."""
    folder = Path(folder)
    if not folder.is_dir():
        raise AssignmentError(f"{folder} is not a folder: give --assignment-dir the folder "
                              f"that holds {SPEC} (see {GUIDE})")
    path = folder / SPEC
    if not path.is_file():
        raise AssignmentError(f"{folder} holds no {SPEC}: an assignment folder needs its "
                              f"question specification; write {path} (see {GUIDE})")
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise AssignmentError(f"{path} is not valid TOML ({exc}): fix that line") from None
    unknown = sorted(set(spec) - TOP_FIELDS)
    if unknown:
        raise AssignmentError(f"{path}: unknown field(s) {', '.join(unknown)}; the fields are "
                              f"{', '.join(sorted(TOP_FIELDS))}")
    return spec


def _file(folder, spec, what, how):
    value = spec.get(what)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise AssignmentError(f"{folder / SPEC}: {what} = {value!r} is not a file name: {how}")
    path = (folder / value).resolve()
    if not path.is_file():
        raise AssignmentError(f"{folder / SPEC} names {what} = {value!r}, but {path} is not a "
                              f"file: {how}")
    return path


def load_assignment(folder: str | os.PathLike, *, need_notebook: bool = False) -> Assignment:
    """Read and check the assignment folder ``folder``: an :class:`Assignment`.

    Everything that can be checked without the passphrase is: the specification, each
    question (bank or defined here), its points, the checks module, the key file's format,
    the data files and, when the notebook is there (always, with ``need_notebook``), a stub of
    every question's function in it. :func:`self_test` opens the key and grades its answers.
    """
    folder = Path(folder).resolve()
    spec = read_spec(folder)
    where = folder / SPEC
    name = spec.get("name", folder.name)
    if not isinstance(name, str) or not name.strip():
        raise AssignmentError(f"{where}: name = {name!r} is not a name: give a short text")
    notebook = spec.get("notebook")
    if not isinstance(notebook, str) or not notebook.endswith(".ipynb"):
        raise AssignmentError(f"{where}: notebook = {notebook!r}: name the student notebook "
                              "(a .ipynb file in the folder), e.g. notebook = \"hw1.ipynb\"")
    notebook = (folder / notebook).resolve()
    checks_path = _file(folder, spec, "checks", "put the checks module in the folder, or "
                        "drop the field if no question needs code")
    key = _file(folder, spec, "key", "encrypt the key there with python -m mlnotes.homework "
                "encrypt-key KEY.py --key-file PASSPHRASE --out FOLDER/key.enc")
    if key is not None:
        _check_record(key)
    data = spec.get("data", [])
    if not isinstance(data, list) or not all(isinstance(d, str) for d in data):
        raise AssignmentError(f"{where}: data = {data!r}: give a list of file names, e.g. "
                              "data = [\"points.csv\"]")
    data = [_file(folder, {"data": d}, "data", "put the data file in the folder, or drop it "
                  "from the list") for d in data]
    public_path = _file(folder, spec, "public", "put the public module (released to students "
                        "for their check) in the folder, or drop the field")
    checks = _load_checks(checks_path) if checks_path else None
    public = _load_checks(public_path, "the public module") if public_path else None
    tables = spec.get("questions")
    if not isinstance(tables, list) or not tables:
        raise AssignmentError(f"{where} lists no question: add a [[questions]] table per "
                              "question, with its name and points (see the guide)")
    questions: dict[str, Question] = {}
    points: dict[str, float] = {}
    arguments: dict[str, list[str]] = {}
    released = []
    for k, table in enumerate(tables, 1):
        question, value, params = _question(table, k, where, checks, key, public)
        if question.name in questions:
            raise AssignmentError(f"{where}: question {question.name!r} is listed twice: "
                                  "list each question once")
        clash = [q.name for q in questions.values() if q.function == question.function]
        if clash:
            raise AssignmentError(f"{where}: questions {clash[0]!r} and {question.name!r} both "
                                  f"ask for def {question.function}(...): give each its own "
                                  "function name")
        questions[question.name], points[question.name] = question, value
        released.append({f: table[f] for f in STUDENT_FIELDS if f in table})
        if params is not None:
            arguments[question.name] = params
    assignment = Assignment(name, folder, str(spec.get("title", name)), notebook, questions,
                            points, key, checks_path, data, arguments, public_path, released)
    if need_notebook or notebook.exists():
        check_notebook(assignment)
    return assignment


def _json_record(path, fmt, encoding="utf-8"):
    """The JSON object in ``path`` if it is one whose ``format`` is ``fmt``, else None."""
    try:
        record = json.loads(path.read_text(encoding=encoding))
    except (OSError, ValueError):                 # UnicodeDecodeError is a ValueError
        return None
    return record if isinstance(record, dict) and record.get("format") == fmt else None


def _check_record(key):
    from .keys import FORMAT

    if _json_record(key, FORMAT, encoding="ascii") is None:
        raise AssignmentError(f"{key} is not an encrypted key (a plain source?): encrypt the key "
                              "with python -m mlnotes.homework encrypt-key KEY.py --key-file "
                              f"PASSPHRASE --out {key}, and keep KEY.py out of the folder")


# the role of each module loaded from a folder, by its module name (for the messages)
_ROLES: dict[str, str] = {}


def _load_checks(path, role="the checks module"):
    module_name = f"_mlnotes_checks_{abs(hash(str(path))):x}"
    _ROLES[module_name] = role
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the instructor's module: say where it failed
        sys.modules.pop(module_name, None)
        line = getattr(exc, "lineno", None)
        raise AssignmentError(f"{role} {path} failed to load ({type(exc).__name__}: "
                              f"{exc}{f', line {line}' if line else ''}): fix it and check "
                              "the folder again") from None
    return module


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _question(table, k, where, checks, key, public=None):
    """``(Question, points, the stub's parameters or None)`` from the ``k``-th
    ``[[questions]]`` table."""
    from .bank import QUESTIONS

    if not isinstance(table, dict):
        raise AssignmentError(f"{where}: questions entry {k} is not a table: write [[questions]]")
    name = table.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise AssignmentError(f"{where}: question {k} has name = {name!r}: give each question a "
                              "name of letters, digits, _ and dots, e.g. name = \"hw1.distances\"")
    if "points" not in table:
        raise AssignmentError(f"{where}: question {name!r} has no points: add points = 2 (a "
                              "number; 0 for an ungraded warm-up)")
    value = table["points"]
    if not _number(value) or value < 0:
        raise AssignmentError(f"{where}: question {name!r} has points = {value!r} "
                              f"({type(value).__name__}): points must be a number >= 0, e.g. "
                              "points = 2")
    if "function" not in table:  # one of the package's questions
        if name not in QUESTIONS:
            raise AssignmentError(
                f"{where}: unknown question {name!r}: it is not one of the package's questions "
                "(python -m mlnotes.homework list shows them) and the table does not define "
                "it; to write your own, give its function, signature, docstring, inputs and "
                f"properties (see {GUIDE})")
        extra = sorted(set(table) - BANK_FIELDS)
        if extra:
            raise AssignmentError(f"{where}: question {name!r} is one of the package's, so it "
                                  f"takes only name and points, not {', '.join(extra)}; to "
                                  "define your own question give it another name and a function")
        question = QUESTIONS[name]
        from .keys import GradedReference

        if key is not None and isinstance(question.reference, GradedReference):
            question = replace(question, reference=GradedReference(name, key))
        return question, value, None
    question, params = _own_question(table, name, where, checks, key, public)
    return question, value, params


def _own_question(table, name, where, checks, key, public=None):
    """``(Question, the stub's parameters)`` of a question the folder defines."""
    from .bank import QUESTIONS
    from .bank._common import compare_close, fixed_tolerance
    from .keys import GradedReference

    what = f"{where}: question {name!r}"
    unknown = sorted(set(table) - QUESTION_FIELDS)
    if unknown:
        raise AssignmentError(f"{what}: unknown field(s) {', '.join(unknown)}; a question's "
                              f"fields are {', '.join(sorted(QUESTION_FIELDS))}")
    if name in QUESTIONS:
        raise AssignmentError(f"{what} defines a function, but {name!r} is one of the package's "
                              "questions: give your question another name")
    if key is None:
        raise AssignmentError(f"{what} is defined in the folder, so its reference answer comes "
                              "from the key: add key = \"key.enc\" and encrypt the key there "
                              "(python -m mlnotes.homework encrypt-key)")
    missing = [f for f in ("signature", "docstring", "inputs") if f not in table]
    if missing:
        raise AssignmentError(f"{what} lacks {', '.join(missing)}: a question defined in the "
                              "folder needs its function, signature, docstring and inputs")
    function, signature = table["function"], table["signature"]
    if not isinstance(function, str) or not function.isidentifier():
        raise AssignmentError(f"{what}: function = {function!r} is not a Python name")
    params = _signature(signature, function, what)
    if checks is None and public is None:
        raise AssignmentError(f"{what} names its inputs {table['inputs']!r}, a function of the "
                              "checks module, but the folder has none: add checks = "
                              "\"checks.py\" and write it")
    modules = [m for m in (checks, public) if m is not None]

    def code(label, fname, within=modules):
        return _function(what, label, fname, within)

    inputs = code("inputs", table["inputs"])
    names = table.get("properties", [])
    if not isinstance(names, list):
        raise AssignmentError(f"{what}: properties = {names!r}: give a list of names")
    properties = _properties(names, what, modules, code)
    student = table.get("check", [])
    if not isinstance(student, list) or not all(isinstance(c, str) for c in student):
        raise AssignmentError(f"{what}: check = {student!r}: give the list of the properties the "
                              "student's check verifies without the key, e.g. check = "
                              "[\"symmetric\"]")
    if student:
        inputs = _student_side(table, what, public, code)
        properties += [p for p in _properties(student, what, [public], code, "check property")
                       if p.description not in {q.description for q in properties}]
    variant = _variant_drawer(table.get("variant"), what, params)
    outputs = table.get("outputs", ["answer"])
    if not isinstance(outputs, list) or not outputs or not all(
            isinstance(o, str) for o in outputs):
        raise AssignmentError(f"{what}: outputs = {outputs!r}: give the list of the names of "
                              "what the function returns, e.g. outputs = [\"D\"]")
    rtol = table.get("rtol", DEFAULT_RTOL)
    if not _number(rtol) or not 0 < rtol < 1:
        raise AssignmentError(f"{what}: rtol = {rtol!r}: give the relative tolerance of the "
                              "comparison with the key, a number in (0, 1), e.g. rtol = 1e-8")
    cases = table.get("cases", 2)
    if isinstance(cases, bool) or not isinstance(cases, int) or not 1 <= cases <= 50:
        raise AssignmentError(f"{what}: cases = {cases!r}: give a whole number of hidden "
                              "cases from 1 to 50")
    mistakes = []
    for m in table.get("mistakes", []):
        if not (isinstance(m, dict) and set(m) == {"answer", "diagnosis"}
                and isinstance(m["diagnosis"], str)):
            raise AssignmentError(f"{what}: each mistake is a table {{answer = \"FUNCTION\", "
                                  f"diagnosis = \"TEXT\"}}, not {m!r}")
        fn = code("mistake", m["answer"])
        mistakes.append(Mistake(m["answer"], derive=fn, diagnosis=m["diagnosis"])
                        if _from_expected(fn) else
                        Mistake(m["answer"], wrong=fn, diagnosis=m["diagnosis"]))
    conceal = table.get("conceal", False)
    if not isinstance(conceal, bool):
        raise AssignmentError(f"{what}: conceal = {conceal!r}: give true or false")
    question = Question(
        name=name, function=function, signature=signature.strip(),
        docstring=str(table["docstring"]), make_inputs=inputs,
        reference=GradedReference(name, key), compare=compare_close,
        tolerance=fixed_tolerance(float(rtol)), outputs=tuple(outputs),
        properties=tuple(properties), mistakes=tuple(mistakes), n_cases=cases, conceal=conceal,
        variant=variant)
    return question, params


def _from_expected(fn):
    """Whether the mistake function ``fn`` takes ``(expected, inputs)`` (the key's answer, a
    tuple of arrays, and the case) rather than the case's arguments: a wrong answer that,
    computed from the inputs, would spell out the right one."""
    import inspect

    try:
        return list(inspect.signature(fn).parameters)[:2] == ["expected", "inputs"]
    except (TypeError, ValueError):
        return False


def _function(what, label, fname, modules):
    """The function ``fname`` of the first of ``modules`` that has it, or an
    :class:`AssignmentError` naming where it was looked for."""
    fn = next((getattr(m, fname) for m in modules if isinstance(fname, str)
               and hasattr(m, fname)), None)
    if fn is None or not (callable(fn) or isinstance(fn, Property)):
        where = " nor of ".join(f"{_ROLES.get(m.__name__, 'the module')} "
                                f"{Path(m.__file__).name}" for m in modules)
        raise AssignmentError(f"{what}: {label} {fname!r} is not a function of {where}: "
                              "define it there, or fix the name")
    return fn


def _properties(names, what, modules, code=None, label="property"):
    """The :class:`Property` of each name: a built-in one, or a function of ``modules``."""
    code = code or (lambda label, fname, within: _function(what, label, fname, within))
    builtins, out = _builtins(), []
    for pname in names:
        if pname in builtins:
            out.append(builtins[pname]())
            continue
        if not isinstance(pname, str) or not any(hasattr(m, pname) for m in modules):
            files = " or of ".join(Path(m.__file__).name for m in modules)
            raise AssignmentError(
                f"{what}: unknown {label} {pname!r}: name one of {', '.join(BUILTIN_PROPERTIES)}"
                f" or a function of {files} (answer, inputs, tol) -> (ok, detail)")
        fn = code(label, pname, modules)
        out.append(fn if isinstance(fn, Property) else _property(fn, pname))
    return out


def _student_side(table, what, public, code):
    """The inputs of a question with a student-side ``check``: a function of the public
    module (students receive it; never the checks module)."""
    if public is None:
        raise AssignmentError(f"{what}: check = {table['check']!r} runs in the student's "
                              "notebook, from the module students receive: add public = "
                              "\"public.py\" to the specification and define the question's "
                              "inputs and these properties there")
    name = table["inputs"]
    if not callable(getattr(public, name, None)):
        raise AssignmentError(f"{what}: the student's check draws its cases with inputs "
                              f"{name!r}, which is not a function of "
                              f"{Path(public.__file__).name}: students never receive the "
                              "checks module; move it into the public module")
    return code("inputs", name, [public])


def _variant_drawer(declared, what, params):
    """``rng -> {constant: value}`` of ``variant = {c = [0.5, 2.0], ...}`` (each constant drawn
    uniformly from its list, per student: :mod:`~.variants`), or ``None``."""
    if declared is None:
        return None
    example = "e.g. variant = {c = [0.5, 2.0, 3.0]}"
    if not isinstance(declared, dict) or not declared:
        raise AssignmentError(f"{what}: variant = {declared!r}: give a table of constants, each "
                              f"with the list of values a student's is drawn from, {example}")
    for name, values in declared.items():
        if not name.isidentifier() or name.startswith("_"):
            raise AssignmentError(f"{what}: variant constant {name!r} is not a Python name: use "
                                  "letters, digits and _ (not first), e.g. c")
        if name in params:
            raise AssignmentError(f"{what}: variant constant {name!r} is also an argument of the "
                                  "stub: a constant is written into the student's function, an "
                                  "argument is an input; rename one of them")
        if not isinstance(values, list) or not all(_number(v) for v in values):
            raise AssignmentError(f"{what}: variant constant {name!r} = {values!r}: give the list "
                                  f"of numbers it is drawn from, e.g. {name} = [0.5, 2.0, 3.0]")
        if len(set(values)) < 2:
            raise AssignmentError(f"{what}: variant constant {name!r} = {values!r} is the same "
                                  "for every student: give at least two different values")
    table = {name: list(declared[name]) for name in sorted(declared)}

    def draw(rng):
        return {name: values[int(rng.integers(len(values)))] for name, values in table.items()}
    return draw


def _signature(signature, function, what):
    """The parameter names of ``signature`` (``def function(...):``)."""
    try:
        tree = ast.parse(f"{signature.strip()}\n    pass\n") if isinstance(signature, str) else None
    except SyntaxError:
        tree = None
    node = tree.body[0] if tree is not None and len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef) or node.name != function:
        raise AssignmentError(f"{what}: signature = {signature!r} is not the line "
                              f"\"def {function}(...):\" of the function asked for")
    return [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]


def _property(fn, name):
    doc = (fn.__doc__ or name.replace("_", " ")).strip().split("\n\n")
    return Property(doc[0].replace("\n", " "), fn, " ".join(doc[1].split()) if len(doc) > 1
                    else "")


# --- the notebook ------------------------------------------------------------------------------

def notebook_code(path: str | os.PathLike) -> list[str]:
    """The sources of the code cells of the notebook ``path``, or an :class:`AssignmentError`."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
        cells = [c for c in nb["cells"] if c.get("cell_type") == "code"]
        return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                for c in cells]
    except FileNotFoundError:
        raise AssignmentError(f"the student notebook {path} is missing: write it (python -m "
                              "mlnotes.homework new-notebook --assignment-dir FOLDER starts "
                              "one) or fix notebook = in the specification") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise AssignmentError(f"the student notebook {path} cannot be read as a notebook "
                              f"({type(exc).__name__}): save it again from Jupyter") from None


def check_notebook(assignment: Assignment) -> None:
    """Every question's function has a stub (a ``def`` line) in the student notebook."""
    code = "\n".join(notebook_code(assignment.notebook))
    for q in assignment.questions.values():
        if not re.search(rf"^\s*def\s+{re.escape(q.function)}\s*\(", code, re.M):
            stub = q.stub_source().replace("\n", "\n    ")
            raise AssignmentError(
                f"the student notebook {assignment.notebook.name} has no stub of question "
                f"{q.name!r} (def {q.function}(...)): add a code cell holding\n    {stub}")


def new_notebook(assignment: Assignment, out: str | os.PathLike | None = None) -> Path:
    """Write a starting student notebook: the title, then per question its text and stub."""
    out = Path(out) if out is not None else assignment.notebook
    if out.exists():
        raise AssignmentError(f"{out} exists: new-notebook never overwrites a notebook; give "
                              "--out another path")

    def cell(kind, text):
        c = {"cell_type": kind, "metadata": {}, "source": text}
        return c | ({"outputs": [], "execution_count": None} if kind == "code" else {})

    cells = [cell("markdown", f"# {assignment.title}\n\nWrite each function below; the "
                  "grader runs them on inputs you do not see.")]
    own = {t["name"]: t for t in assignment.released if "function" in t}
    if any("variant" in t or "check" in t for t in own.values()):  # the student's check
        cells.append(cell("code", "from mlnotes.homework import check, my_variant\n\n# your "
                          "id, as your course spells it (the name of your submission)\n"
                          "my_variant(\"your-id\", assignment=\".\")  # \".\": this folder"))
    for q in assignment.questions.values():
        cells.append(cell("markdown", f"## {q.name} ({assignment.points[q.name]:g} points)"))
        cells.append(cell("code", re.sub(r"[ \t]+\n", "\n", q.stub_source())))
        if own.get(q.name, {}).get("check"):
            cells.append(cell("code", f'check("{q.name}", {q.function})'))
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name":
                                                      "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    out.write_text(json.dumps(nb, indent=1) + "\n", encoding="utf-8")
    return out


def release(assignment: Assignment, out: str | os.PathLike) -> list[str]:
    """Copy what students get into the new folder ``out``: the student notebook (solutions
    stripped, outputs cleared), the data files and, where the folder defines questions, the
    public module (if any) and ``check.json`` (what their ``check`` and ``my_variant`` need:
    each question's stub, inputs' name, variant and student-side properties); never the key,
    the checks module or the specification."""
    from .notebook import student_version

    check_notebook(assignment)
    out = Path(out)
    if _inside(out, assignment.folder) or _inside(assignment.folder, out):
        raise AssignmentError(f"{out} overlaps the assignment folder: release into a folder of "
                              "its own (what students get must not hold the key)")
    if out.exists() and any(out.iterdir()):
        raise AssignmentError(f"{out} is not empty: release into a new folder")
    out.mkdir(parents=True, exist_ok=True)
    nb = json.loads(assignment.notebook.read_text(encoding="utf-8"))
    (out / assignment.notebook.name).write_text(
        json.dumps(student_version(nb), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for path in assignment.data:
        shutil.copyfile(path, out / path.name)
    if any("function" in q for q in assignment.released):  # questions of the folder's own
        if assignment.public is not None:
            shutil.copyfile(assignment.public, out / assignment.public.name)
        record = {"format": RELEASED_FORMAT, "name": assignment.name,
                  "title": assignment.title, "notebook": assignment.notebook.name,
                  "public": assignment.public.name if assignment.public else None,
                  "data": [path.name for path in assignment.data],
                  "questions": assignment.released}
        (out / RELEASED).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return sorted(p.name for p in out.iterdir())


class _KeyIsTheInstructors:
    """The reference of a question in a student's copy: the key stays with the instructor."""

    def __init__(self, name):
        self.name = name

    def __call__(self, **inputs):
        from .keys import NO_PASSPHRASE

        raise ReferenceUnavailable(NO_PASSPHRASE)


def student_assignment(folder: str | os.PathLike) -> Assignment:
    """The assignment as a student's ``check`` sees it: a released folder (``check.json`` and
    the public module, from :func:`release`), or the instructor's own folder (its
    ``assignment.toml``; the key opens only with the passphrase). An
    :class:`AssignmentError` says what is missing."""
    from .bank import QUESTIONS
    from .bank._common import compare_close, fixed_tolerance

    folder = Path(folder).resolve()
    if (folder / SPEC).is_file():
        return load_assignment(folder)
    path = folder / RELEASED
    record = _json_record(path, RELEASED_FORMAT)
    if record is None:
        raise AssignmentError(f"{folder} holds no {RELEASED} (nor {SPEC}): give the folder your "
                              "instructor released (the one holding the notebook and "
                              f"{RELEASED}), e.g. my_variant(\"your id\", assignment=\".\")")
    public = None
    if record.get("public"):
        public = _load_checks(_file(folder, record, "public", "copy the released folder again"),
                              "the public module")
    questions, points = {}, {}
    for table in record["questions"]:
        name = table["name"]
        points[name] = table["points"]
        if "function" not in table:
            questions[name] = QUESTIONS[name]
            continue
        student = table.get("check", [])
        make_inputs = getattr(public, table["inputs"]) if student else None
        properties = _properties(student, name, [public] if public else [], None) if (
            student) else []
        questions[name] = Question(
            name=name, function=table["function"], signature=table["signature"].strip(),
            docstring=str(table["docstring"]), make_inputs=cast(Callable, make_inputs),
            reference=_KeyIsTheInstructors(name), compare=compare_close,
            tolerance=fixed_tolerance(float(table.get("rtol", DEFAULT_RTOL))),
            outputs=tuple(table.get("outputs", ["answer"])), properties=tuple(properties),
            n_cases=int(table.get("cases", 2)), conceal=bool(table.get("conceal", False)),
            variant=_variant_drawer(table.get("variant"), name, []))
    return Assignment(record.get("name", folder.name), folder, record.get("title", ""),
                      folder / record.get("notebook", ""), questions, points,
                      data=[folder / name for name in record.get("data", [])],
                      public=public and Path(public.__file__))


# --- the self-test -----------------------------------------------------------------------------

def self_test(assignment: Assignment, *, seed: int = 0) -> list[str]:
    """Open the key and grade its own answers: every question has a reference, its inputs are
    the stub's arguments, the key's answer holds every property and is accepted, and each
    likely mistake is rejected. Returns one line per question; an :class:`AssignmentError` on
    the first problem."""
    from . import variants

    lines = []
    for k, q in enumerate(assignment.questions.values()):
        constants = variants.variant(q, "\0probe") if q.variant is not None else None
        try:
            cases = q.cases([seed, k], constants)
        except Exception as exc:  # noqa: BLE001 - the instructor's generator
            raise AssignmentError(f"the inputs of {q.name!r} failed ({type(exc).__name__}: "
                                  f"{exc}): fix that function of the checks module") from None
        params = assignment.arguments.get(q.name)
        for inputs in cases:
            given = [a for a in inputs if not a.startswith("_")]
            if params is not None and sorted(given) != sorted(params):
                raise AssignmentError(
                    f"the inputs of {q.name!r} give the arguments {', '.join(sorted(given))}, but "
                    f"its signature takes {', '.join(params)}: make them the same names")
        accepted, caught = 0, {m.name: 0 for m in q.all_mistakes()}
        for inputs in cases:
            expected, answer = _key_answer(q, inputs)
            report = evaluate_case(q, inputs, {"value": to_plain(answer)}, expected=expected)
            if not report.passed:
                failed = [t for ok, t in report.lines if not ok] or [report.status]
                raise AssignmentError(f"the key's own answer to {q.name!r} is not accepted: "
                                      f"{failed[0]}; the property or the key is wrong")
            accepted += 1
            for m in q.all_mistakes():
                try:
                    wrong = {"value": to_plain(m.answer(inputs, expected))}
                except Exception as exc:  # noqa: BLE001
                    raise AssignmentError(f"mistake {m.name!r} of {q.name!r} failed "
                                          f"({type(exc).__name__}: {exc})") from None
                caught[m.name] += not evaluate_case(q, inputs, wrong, expected=expected).passed
        for mistake, n in caught.items():  # a mistake may coincide with the key on some case
            if not n:
                raise AssignmentError(f"mistake {mistake!r} of {q.name!r} is accepted as right "
                                      "on every case: it is not a mistake on these inputs, or "
                                      "rtol is too loose")
        lines.append(f"{q.name}: the key's answers pass on {accepted} case(s); "
                     f"{len(caught)} likely mistake(s) rejected")
    return lines


def _key_answer(q, inputs):
    """``(expected, raw answer)`` of the key on ``inputs``, or an :class:`AssignmentError`."""
    from . import keys

    try:
        answer = q.reference(**copy.deepcopy(inputs))  # the key may not change them
        return q.shape_answer(to_plain(answer)), answer
    except keys.KeyUnavailable as exc:
        why = keys.FOR_INSTRUCTORS if str(exc) == keys.NO_PASSPHRASE else str(exc)
        raise AssignmentError(f"the key cannot be opened: {why}") from None
    except ReferenceUnavailable as exc:
        raise AssignmentError(f"the key cannot be used: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the instructor's key
        raise AssignmentError(f"the key's answer to {q.name!r} failed ({type(exc).__name__}: "
                              f"{exc}): fix the key's function and encrypt it again") from None
