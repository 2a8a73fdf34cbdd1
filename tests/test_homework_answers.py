"""No graded homework question is answered by code the book or the package hands over (issue 22).

Every function defined in a code cell of the book's chapter notebooks (exercise solutions,
hints, helpers: the cells a reader can unfold) and every public function of the ``mlnotes``
package is run, on the inputs of every graded homework question, exactly as the grader would
run a student's function; none may pass a single question. A function that cannot be called
with the question's arguments (another signature) cannot pass it either, and is counted apart.

The graded set (encrypted key, a variant per student) is tried the same way on one student's
variant, where the passphrase is here; so are the dense computations its checker makes on small
cases (public, so a student could adapt them): none reaches the sizes the questions ask for.

The chapters' own exercise questions (``check("sne.kl_divergence", ...)`` in a chapter) are not
homework: their solutions are in the book on purpose. An assignment lists a chapter exercise
only as an ungraded warm-up (0 points).
"""

import ast
import functools
import importlib
import inspect
import json
import pkgutil
import re
import signal
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

import mlnotes
from mlnotes.homework import ASSIGNMENTS, get_question, keys, variants
from mlnotes.homework.assignments import GRADED as GRADED_SET_ASSIGNMENTS
from mlnotes.homework.bank import graded as graded_bank
from mlnotes.homework.bank import solutions
from mlnotes.homework.core import call_plain, evaluate_case
from mlnotes.homework.student import student_args

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
SEEDS = (0, 1)
# A call that takes longer than this (an optimiser run on the question's inputs) is stopped; a
# function whose call takes more than SLOW_SECONDS is not run again (it fails: a student's
# answer this slow would time out in the grader too). CPU seconds, as the grader counts them
# (a busy machine changes no verdict); wall-clock time only backs them up, WALL_FACTOR times.
CALL_SECONDS = 3
SLOW_SECONDS = 1.0
DEFINITION_SECONDS = 60
WALL_FACTOR = 10
# Package modules that only draw, fit estimators or load data: their functions answer nothing.
SKIP_MODULES = ("mlnotes.homework", "mlnotes.widgets", "mlnotes.plotting", "mlnotes.datasets")

GRADED = sorted({q for points in ASSIGNMENTS.values() for q, p in points.items() if p > 0})
GRADED_SET = sorted(q for points in GRADED_SET_ASSIGNMENTS.values() for q in points)
WARM_UPS = sorted({q for points in ASSIGNMENTS.values() for q, p in points.items() if p == 0})
CHAPTER_EXERCISES = sorted({
    name for nb in BOOK.glob("*.ipynb") for cell in json.loads(nb.read_text())["cells"]
    if cell["cell_type"] == "code"
    for name in re.findall(r'check\("([^"]+)"', "".join(cell["source"]))})


@contextmanager
def time_limit(seconds):
    """Stop the block after ``seconds`` of this process's CPU time (or WALL_FACTOR times that
    of wall-clock time, for code that sleeps or blocks)."""
    def stop(signum, frame):
        raise TimeoutError(f"took longer than {seconds} s")
    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, WALL_FACTOR * seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _code(cell):
    lines = "".join(cell["source"]).splitlines()
    # IPython magics and shell lines are not Python; the rest of the cell is
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)


FENCE = re.compile(r"^```+ *(?:python|py|ipython3?|\{code-cell\}[^\n]*)\n(.*?)^```+", re.M | re.S)


def _sources(nb_path):
    """The code of every code cell, and of every Python block shown in a markdown cell (a hint
    or a solution written out in the text)."""
    for cell in json.loads(nb_path.read_text())["cells"]:
        if cell["cell_type"] == "code":
            yield _code(cell)
        else:
            yield from FENCE.findall("".join(cell["source"]))


def _definitions(tree):
    """The statements of a cell that define things without running a computation: imports,
    functions, classes, and names bound to constants (``EPS = 1e-12``, ``K = 2 * N``)."""
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and not any(
                isinstance(n, (ast.Call, ast.Lambda)) for n in ast.walk(node.value)):
            yield node


@functools.lru_cache(maxsize=1)
def book_functions():
    """``[(notebook:function, function)]``: every function defined at the top level of a code
    cell of a chapter notebook (solutions and hints included), defined in one namespace per
    notebook with the notebook's imports and constants, so that helpers calling each other
    work as in the chapter."""
    found = []
    for nb_path in sorted(BOOK.glob("*.ipynb")):
        namespace = {"__name__": f"book_{nb_path.stem}"}
        names = []
        for source in _sources(nb_path):
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            for node in _definitions(tree):
                module = ast.Module(body=[node], type_ignores=[])
                try:
                    with time_limit(DEFINITION_SECONDS):  # an import may take a while
                        exec(compile(module, str(nb_path), "exec"), namespace)  # noqa: S102
                except Exception:  # noqa: BLE001, S112 - a statement that needs the chapter's state
                    continue
                if isinstance(node, ast.FunctionDef):
                    names.append(node.name)
        found += [(f"{nb_path.stem}:{n}", namespace[n]) for n in dict.fromkeys(names)
                  if callable(namespace.get(n))]
    return found


@functools.lru_cache(maxsize=1)
def package_functions():
    """``[(module.function, function)]``: every public function of the mlnotes package."""
    found = {}
    for info in pkgutil.walk_packages(mlnotes.__path__, "mlnotes."):
        if info.name.startswith(SKIP_MODULES) or info.name.split(".")[-1].startswith("_"):
            continue
        try:
            module = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001, S112 - a module being written right now, or an extra
            continue
        for name, fn in vars(module).items():
            if (inspect.isfunction(fn) and not name.startswith("_")
                    and fn.__module__ == module.__name__):
                found[f"{info.name}.{name}"] = fn
    return sorted(found.items())


def _callable_with(fn, n_args):
    try:
        inspect.signature(fn).bind(*range(n_args))
    except (TypeError, ValueError):
        return False
    return True


_TOO_SLOW = set()  # functions stopped once: an optimiser, not an answer; not run again


def attempt(fn, question, cases):
    """``"cannot be called"``, ``"failed"`` or ``"PASSED"``: ``fn`` judged like a student's."""
    if not _callable_with(fn, len(student_args(cases[0][0]))):
        return "cannot be called"
    if fn in _TOO_SLOW:
        return "failed"
    for inputs, expected in cases:
        for _ in range(2):  # a slow first call may be a compilation (numba): once more
            start = time.process_time()
            with np.errstate(all="ignore"):
                try:
                    with time_limit(CALL_SECONDS):
                        outcome = call_plain(fn, student_args(inputs))
                except TimeoutError:
                    outcome = {"error": "too slow", "type": "TimeoutError"}
            if time.process_time() - start <= SLOW_SECONDS:
                break
        else:
            _TOO_SLOW.add(fn)
            return "failed"
        if not evaluate_case(question, inputs, outcome, expected=expected).passed:
            return "failed"
    return "PASSED"


@pytest.fixture(scope="module")
def hard_cases():
    """Each graded question's cases and reference answers (from the instructor's solutions)."""
    assert solutions.available(), "the instructor's reference answers are needed here"
    out = {}
    for name in GRADED:
        question = get_question(name)
        cases = [inputs for seed in SEEDS for inputs in question.cases(seed)]
        out[name] = [(inputs, question.expected(inputs)) for inputs in cases]
    return out


@pytest.fixture(scope="module")
def graded_set_cases():
    """Each graded-set question's cases for one student's variant, and its expected answers
    (from the encrypted key: skipped without the passphrase)."""
    from test_homework_graded import NO_PASSPHRASE, passphrase_file

    path = passphrase_file()
    if path is None:
        pytest.skip(NO_PASSPHRASE)
    keys.use_key_file(path)
    try:
        out = {}
        for name in GRADED_SET:
            question = get_question(name)
            cases = question.cases(0, variants.variant(question, "alice"))
            out[name] = [(inputs, question.expected(inputs)) for inputs in cases]
    finally:
        keys.use_key_file(None)
    return out


def _tally(functions, hard_cases, names=GRADED):
    passed, tried, called = [], 0, 0
    for label, fn in functions:
        for name in names:
            tried += 1
            verdict = attempt(fn, get_question(name), hard_cases[name])
            called += verdict != "cannot be called"
            if verdict == "PASSED":
                passed.append(f"{label} answers {name}")
    return passed, tried, called


def test_no_function_of_the_book_answers_a_homework_question(hard_cases):
    functions = book_functions()
    assert len(functions) >= 100, len(functions)  # the extraction found the chapters' code
    names = {label.split(":")[1] for label, _ in functions}
    # the solutions of the chapters' exercises are among them, and still pass their exercises
    assert {"conditional_affinities", "find_bandwidths", "kl_divergence", "tsne_gradient",
            "lle_weights", "laplacian_eigenmaps", "double_center"} <= names
    passed, tried, called = _tally(functions, hard_cases)
    print(f"\n{len(functions)} book functions x {len(GRADED)} graded questions: {tried} pairs, "
          f"{called} called with the question's arguments, {len(passed)} passed")
    assert not passed, passed
    assert called >= 100  # many functions do take the same arguments, and fail


def test_no_function_of_the_package_answers_a_homework_question(hard_cases):
    functions = package_functions()
    assert len(functions) >= 60, len(functions)
    passed, tried, called = _tally(functions, hard_cases)
    print(f"\n{len(functions)} package functions x {len(GRADED)} graded questions: {tried} "
          f"pairs, {called} called with the question's arguments, {len(passed)} passed")
    assert not passed, passed


def test_no_function_of_the_book_or_the_package_answers_a_graded_set_question(
        graded_set_cases):
    functions = book_functions() + package_functions()
    passed, tried, called = _tally(functions, graded_set_cases, GRADED_SET)
    print(f"\n{len(functions)} book and package functions x {len(GRADED_SET)} graded-set "
          f"questions: {tried} pairs, {called} called with the question's arguments, "
          f"{len(passed)} passed")
    assert not passed, passed
    assert called >= 50


# The checker's dense computations of the object each question describes (public: a student
# could adapt them), by question.
DENSE = {
    "graded.circulant_spectrum": graded_bank._circulant_dense,
    "graded.grid_spectrum": graded_bank._grid_dense,
    "graded.path_eigenvector": graded_bank._path_vector_dense,
    "graded.cycle_resistance": graded_bank._resistance_dense,
    "graded.star_spectrum": graded_bank._star_dense,
    "graded.equicorrelated_spectrum": graded_bank._equi_dense,
    "graded.poly_feature_dim": graded_bank._poly_dense,
    "graded.simplex_mds_spectrum": graded_bank._simplex_dense,
    "graded.ring_gram_spectrum": graded_bank._ring_dense,
    "graded.grid_pca_spectrum": graded_bank._grid_pca_dense,
    "graded.two_level_perplexity": graded_bank._two_level_dense,
    "graded.two_cluster_q": graded_bank._two_cluster_dense,
    "graded.geometric_entropy": graded_bank._geometric_dense,
}


def _adapted(build, question, constants, cap=None):
    """``build`` as a student's function: the question's arguments in, the dense result out;
    with ``cap``, every size above it cut down to it (a brute force that runs at any N)."""
    names = [k for k in question.cases(0, constants)[0] if not k.startswith("_")]

    def answer(*args):
        inputs = dict(zip(names, args, strict=True), _variant=constants)
        if cap is not None:
            inputs = {k: (min(v, cap) if k in ("N", "M", "p", "n", "n1", "n2")
                          and np.ndim(v) == 0 else v) for k, v in inputs.items()}
        return build(inputs)
    return answer


@pytest.mark.parametrize("name", sorted(DENSE))
def test_the_checkers_dense_computations_do_not_answer_the_graded_set(name, graded_set_cases):
    """Generic numerics (an eigensolver on the graph built as described, a sum over the row)
    hold only where an array does: as is, or run at a size cut to what fits, they fail."""
    question = get_question(name)
    constants = variants.variant(question, "alice")
    for cap in (None, graded_bank.DENSE_MAX):
        fn = _adapted(DENSE[name], question, constants, cap)
        assert attempt(fn, question, graded_set_cases[name]) == "failed", (name, cap)


def chapter_checks():
    """``[(notebook:function, question)]`` for every ``check("<question>", function)`` of a
    chapter."""
    pairs = []
    for nb_path in sorted(BOOK.glob("*.ipynb")):
        for cell in json.loads(nb_path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                pairs += [(f"{nb_path.stem}:{fn}", name) for name, fn in re.findall(
                    r'check\("([^"]+)",\s*(\w+)', "".join(cell["source"]))]
    return pairs


def test_the_chapters_solutions_pass_their_own_exercises():
    """The harness sees a pass where there is one: every chapter's exercise solution, run the
    same way, passes its exercise (hard cases included)."""
    functions = dict(book_functions())
    pairs = chapter_checks()
    assert len(pairs) >= 15
    for label, name in pairs:
        question = get_question(name)
        cases = [(inputs, question.expected(inputs)) for seed in SEEDS
                 for inputs in question.cases(seed)]
        assert attempt(functions[label], question, cases) == "PASSED", (label, name)


def test_chapter_exercises_stay_in_the_bank_and_out_of_the_graded_homework():
    assert CHAPTER_EXERCISES, "no check(...) found in the chapters"
    for name in CHAPTER_EXERCISES:
        get_question(name)  # KeyError if a chapter's exercise lost its question
    assert not set(CHAPTER_EXERCISES) & set(GRADED)
    assert set(WARM_UPS) <= set(CHAPTER_EXERCISES)


def test_graded_references_are_not_in_the_package():
    """A graded question's reference answer is read from the instructor's solutions."""
    for name in GRADED:
        assert isinstance(get_question(name).reference, solutions.PrivateReference), name


def test_the_package_defines_no_function_a_graded_question_asks_for():
    """No file of the package (the wheel) defines a graded question's function or holds the
    instructor's references."""
    package = Path(mlnotes.__file__).parent
    defined = {node.name for path in package.rglob("*.py")
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    asked = {get_question(name).function for name in GRADED + GRADED_SET}
    assert not asked & defined, asked & defined
    assert not list(package.rglob("reference.py"))
    assert solutions.CHECKOUT == ROOT / "book" / "homework" / "instructor"
