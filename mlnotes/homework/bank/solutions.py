"""Where the reference answers of the graded homework come from: the instructor's solutions.

The exercises of the chapters are checked against mlnotes' own functions (the chapters hand their
solutions over anyway). The graded homework asks for other work, and its reference answers are
*not* part of the package: they live in a ``reference.py`` beside the instructor notebooks, which
defines

* ``REFERENCES = {question name: function}``: the reference answer of each homework question
  (called with the question's inputs as keyword arguments), and
* ``MISTAKES = {question name: [Mistake, ...]}``: likely mistakes whose wrong answer would show
  the right one (a sign flipped in the right formula), kept private with the answers.

The folder is looked up, in this order, from :func:`use_solutions` (the grader's ``--solutions``),
from the environment variable ``MLNOTES_HOMEWORK_SOLUTIONS``, and from ``book/homework/instructor``
of the source checkout mlnotes is imported from (a course's private repository). A wheel, or a
public copy without that folder, has none: a student's ``check`` then tests every property that
needs no reference, and says that the comparison with the reference happens when the work is
graded.
"""

import importlib.util
import os
import sys
from pathlib import Path

from ..core import ReferenceUnavailable

ENVIRONMENT = "MLNOTES_HOMEWORK_SOLUTIONS"
FILE = "reference.py"
CHECKOUT = Path(__file__).resolve().parents[3] / "book" / "homework" / "instructor"
_MODULE_NAME = "_mlnotes_homework_reference"
_state = {"folder": None, "chosen": False, "module": None}


def use_solutions(folder):
    """Read the reference answers from ``folder`` (its ``reference.py``) from now on.

    ``None`` goes back to the default lookup; ``False`` uses no solutions at all (what a student
    without the instructor's material sees).
    """
    if folder not in (None, False):
        folder = Path(folder)
        if not (folder / FILE).is_file():
            raise FileNotFoundError(
                f"{folder} holds no {FILE}: give the folder of the instructor's solutions (the "
                f"one with {FILE} and the instructor notebooks)")
    _state.update(folder=folder, chosen=folder is not None, module=None)
    sys.modules.pop(_MODULE_NAME, None)


def solutions_folder():
    """The folder the reference answers are read from, or ``None`` where there is none."""
    if _state["chosen"]:
        return _state["folder"] or None
    env = os.environ.get(ENVIRONMENT)
    if env:
        return Path(env)
    return CHECKOUT if (CHECKOUT / FILE).is_file() else None


def _module():
    folder = solutions_folder()
    if folder is None:
        raise ReferenceUnavailable(
            "the reference answers of the graded homework are the instructor's: your answer "
            "is compared with them when your work is graded")
    if _state["module"] is None or _state["module"].__file__ != str(folder / FILE):
        spec = importlib.util.spec_from_file_location(_MODULE_NAME, folder / FILE)
        if spec is None or not (folder / FILE).is_file():
            raise ReferenceUnavailable(f"{folder} holds no {FILE} (set {ENVIRONMENT} to the "
                                       "folder of the instructor's solutions)")
        module = importlib.util.module_from_spec(spec)
        sys.modules[_MODULE_NAME] = module
        spec.loader.exec_module(module)
        _state["module"] = module
    return _state["module"]


def available():
    """Whether the reference answers of the graded homework can be read here."""
    try:
        _module()
    except ReferenceUnavailable:
        return False
    return True


class PrivateReference:
    """The reference answer of homework question ``name``, read from the solutions on use."""

    def __init__(self, name):
        self.name = name

    def __call__(self, **inputs):
        references = getattr(_module(), "REFERENCES", {})
        if self.name not in references:
            raise ReferenceUnavailable(
                f"the solutions in {solutions_folder()} have no reference for {self.name!r}")
        return references[self.name](**inputs)


def private_mistakes(name):
    """``() -> tuple``: the private likely mistakes of question ``name`` (none without them)."""
    def mistakes():
        try:
            return tuple(getattr(_module(), "MISTAKES", {}).get(name, ()))
        except ReferenceUnavailable:
            return ()
    return mistakes
