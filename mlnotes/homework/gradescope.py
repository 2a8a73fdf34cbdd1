"""Gradescope's autograder bundle: ``python -m mlnotes.homework autograder ASSIGNMENT --out
autograder.zip``.

Gradescope unpacks the bundle into ``/autograder/source``, runs ``setup.sh`` once to build the
image, then, for each submission (in ``/autograder/submission``, the student in
``/autograder/submission_metadata.json``), runs ``run_autograder``, which must write
``/autograder/results/results.json``. The bundle holds:

* ``setup.sh``: installs the pinned packages the grader needs (``requirements.txt``);
* ``run_autograder``: grades the submitted notebook with ``grade-one`` for the student's id (the
  email of the submitting Gradescope account: the id a student gives ``my_variant``);
* ``mlnotes/``: the package, with the graded set's key **encrypted**;
* for a practice assignment, ``solutions/reference.py`` (the practice set's public key);
* ``key/passphrase`` only when the instructor asks for it (``--include-passphrase``); otherwise
  Gradescope must provide ``MLNOTES_HOMEWORK_PASSPHRASE`` in the autograder's environment.
  Either way graded code never reads it: the grader hides the key's folder from the sandbox.
* for a course's own assignment (``--assignment-dir``), ``assignment/``: its folder's
  specification, checks and public modules, encrypted key and data files (not the notebook);
* ``config.json``: the assignment, the limits and the course's seed of the variants.

``AUTOGRADER_ROOT`` (default ``/autograder``) moves the whole layout (the tests run the bundle
in a temporary folder laid out like Gradescope's).
"""

import io
import json
import stat
import zipfile
from pathlib import Path

from . import keys, variants
from .assignments import ALL_ASSIGNMENTS, GRADED, OWN, shipped
from .bank import solutions

PACKAGE = Path(__file__).resolve().parents[1]
# What the grader imports, pinned as the book's lock file pins them (cffi: cryptography's).
NEEDED = ("numpy", "scipy", "ipython", "cryptography", "cffi", "pycparser")

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, to build the autograder's image.
set -euo pipefail
apt-get update -q
apt-get install -y -q python3 python3-pip python3-venv
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q -r /autograder/source/requirements.txt
"""

RUN = '''#!/usr/bin/env python3
"""Gradescope runs this for each submission: grade it, write results/results.json."""
import json
import os
import sys
from pathlib import Path

ROOT = Path(os.environ.get("AUTOGRADER_ROOT", "/autograder"))
SOURCE = ROOT / "source"
sys.path.insert(0, str(SOURCE))
VENV = ROOT / "venv" / "bin" / "python"
if VENV.exists() and Path(sys.executable) != VENV:
    os.execv(str(VENV), [str(VENV), __file__])

from mlnotes.homework.__main__ import main  # noqa: E402

config = json.loads((SOURCE / "config.json").read_text())
results = ROOT / "results" / "results.json"
notebooks = sorted((ROOT / "submission").glob("*.ipynb"))
if len(notebooks) != 1:
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps({"score": 0, "output": "submit exactly one notebook (.ipynb); "
                                   f"found {len(notebooks)}", "tests": []}))
    sys.exit(0)
try:
    meta = json.loads((ROOT / "submission_metadata.json").read_text())
    student = str(meta["users"][0]["email"])
except (OSError, ValueError, KeyError, IndexError, TypeError):
    student = notebooks[0].stem
which = (["--assignment-dir", str(SOURCE / config["assignment_dir"])]
         if config.get("assignment_dir") else ["--assignment", config["assignment"]])
argv = ["grade-one", str(notebooks[0]), *which,
        "--results", str(results), "--student", student,
        "--timeout", str(config["timeout"]), "--memory", str(config["memory"])]
if config.get("course_seed") is not None:
    argv += ["--course-seed", config["course_seed"]]
if (SOURCE / "key" / "passphrase").is_file():
    argv += ["--key-file", str(SOURCE / "key" / "passphrase")]
if (SOURCE / "solutions" / "reference.py").is_file():
    argv += ["--solutions", str(SOURCE / "solutions")]
sys.exit(main(argv))
'''


def _requirements():
    """Exact pins of :data:`NEEDED`, from the installed versions."""
    from importlib.metadata import version

    return "".join(f"{name}=={version(name)}\n" for name in NEEDED)


def _package_files():
    for path in sorted((PACKAGE).rglob("*")):
        rel = path.relative_to(PACKAGE.parent)
        if path.is_file() and "__pycache__" not in rel.parts and path.suffix in (
                ".py", ".enc", ".csv", ".json", ".txt", ".npz", ".md", ".toml"):
            yield path, rel.as_posix()


def _own_files(assignment):
    """The files of a course's assignment folder the grader reads (never its notebook)."""
    from .folder import SPEC

    paths = [assignment.folder / SPEC, assignment.checks, assignment.public, assignment.key,
             *assignment.data]
    for path in paths:
        if path is not None:
            if not _inside(path, assignment.folder):
                raise ValueError(f"{path} lies outside {assignment.folder}: a bundle carries "
                                 "only the folder; move the file into it")
            yield path, "assignment/" + path.relative_to(assignment.folder).as_posix()


def _inside(path, folder):
    return Path(folder) in Path(path).parents


def bundle_files(assignment, *, include_passphrase=False, timeout=10.0, memory_mb=1024):
    """``{name in the zip: (bytes, executable)}`` of the bundle for ``assignment`` (a shipped
    assignment's name, or an :class:`~.folder.Assignment`)."""
    from .folder import Assignment

    own = isinstance(assignment, Assignment) and not assignment.shipped
    if isinstance(assignment, Assignment) and assignment.shipped:
        assignment = assignment.folder.name
    if not own and assignment not in ALL_ASSIGNMENTS:
        raise ValueError(f"no assignment called {assignment!r}; the assignments are: "
                         f"{', '.join(sorted(ALL_ASSIGNMENTS))}")
    graded = own or assignment in GRADED or assignment in OWN
    files = {"setup.sh": (SETUP.encode(), True), "run_autograder": (RUN.encode(), True),
             "requirements.txt": (_requirements().encode(), False)}
    config = {"assignment": assignment.name if own else assignment, "timeout": float(timeout),
              "memory": int(memory_mb),
              "course_seed": variants.course_seed() if graded else None}
    if own:
        config["assignment_dir"] = "assignment"
        for path, name in _own_files(assignment):
            files[name] = (path.read_bytes(), False)
    files["config.json"] = (json.dumps(config, indent=1).encode(), False)
    for path, name in _package_files():
        files[name] = (path.read_bytes(), False)
    if own:
        if include_passphrase:
            files["key/passphrase"] = ((keys.passphrase() + "\n").encode(), False)
    elif assignment in GRADED or assignment in OWN:  # the key is in the package's files
        if include_passphrase:
            files["key/passphrase"] = ((keys.passphrase() + "\n").encode(), False)
        elif assignment in GRADED and not keys.ENCRYPTED.is_file():
            raise ValueError("the graded key is missing from the package")
    else:
        folder = solutions.solutions_folder()
        if folder is None:
            raise LookupError("the practice set's reference.py is not found: give --solutions "
                              "DIR (book/homework/instructor/ of the repository)")
        files["solutions/reference.py"] = ((Path(folder) / solutions.FILE).read_bytes(), False)
    return files


def build_bundle(assignment, out, **options):
    """Write ``autograder.zip`` for ``assignment`` to ``out`` (mode 0600: it may hold the
    passphrase)."""
    from .folder import Assignment

    if isinstance(assignment, Assignment) and assignment.shipped:
        assignment = assignment.folder.name
    if options.get("include_passphrase"):  # the passphrase must open the key before it ships
        if isinstance(assignment, Assignment):
            if assignment.key is not None:
                keys._module(assignment.key)
        elif assignment in GRADED:
            keys._module()
        elif assignment in OWN:
            keys._module(shipped(assignment).key)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, (data, executable) in sorted(bundle_files(assignment, **options).items()):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.touch(mode=0o600, exist_ok=True)
    out.chmod(0o600)
    out.write_bytes(buffer.getvalue())
    return out
