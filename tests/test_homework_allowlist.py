"""The third hostile class (issue 36): graded code sees an allow-list, not the machine.

Each probe places what an attack of that class read (the private fork's ``.git`` and
``_build`` beside the answer keys, a compiled ``reference.pyc`` in a ``PYTHONPYCACHEPREFIX``
cache, a Gradescope ``source/solution.ipynb``, the class's download zip beside the submissions
folder, another section's folder, a grading folder closed with mode 700 that is the grader's
working directory) in ``/var/tmp``, outside every folder the grader knew to hide, and asks the
sandbox whether it exists. The sandbox's own frames are searched for the instructor's paths,
and a blocked package's files are read directly (not imported).
"""

import os
import sys
import tempfile
from pathlib import Path

import pytest

from mlnotes.homework import sandbox
from mlnotes.homework.sandbox import can_isolate, run_functions

needs_root = pytest.mark.skipif(not can_isolate(), reason="the fresh root needs root on Linux")


def _answer(code, **kwargs):
    """The numbers ``f()`` returns in the sandbox, and the isolation."""
    statements = [{"cell": 1, "line": 1, "code": "import numpy as np", "names": ["np"],
                   "kind": "import"},
                  {"cell": 2, "line": 1, "code": code, "names": ["f"], "kind": "definition"}]
    reported, results, isolation = run_functions(statements, [("f", [[0.0]])], timeout=5,
                                                 **kwargs)
    answer = results[0]["answers"][0]
    assert "value" in answer, (answer, reported)
    return [float(v) for v in answer["value"].ravel()], isolation


@pytest.fixture(scope="module")
def course():
    """A course laid out as the README says, beside the machine's usual folders."""
    base = Path(tempfile.mkdtemp(dir="/var/tmp" if os.path.isdir("/var/tmp") else None))
    os.chmod(base, 0o755)
    files = {
        "course-private/book/homework/instructor/reference.py": "ANSWER = 42\n",
        "course-private/.git/HEAD": "ref: refs/heads/main\n",
        "course-private/_build/jupyter_execute/instructor/sne.ipynb": "{}",
        "pycache/course-private/reference.cpython-311.pyc": "compiled",
        "autograder/source/solution.ipynb": "{}",
        "submissions/alice.ipynb": "{}",
        "class-download.zip": "zip",
        "section-b/bob.ipynb": "{}",
        "grading/notes.txt": "bob: 8/8",
    }
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o644)
    os.chmod(base / "grading", 0o700)  # the README's advice: a grading folder of mode 700
    yield base, sorted(files)
    import shutil

    shutil.rmtree(base)


@needs_root
def test_nothing_outside_the_allow_list_exists(course, monkeypatch):
    base, files = course
    monkeypatch.chdir(base / "grading")  # the grader's working directory (python -m)
    monkeypatch.syspath_prepend(str(base / "grading"))
    probes = [str(base / f) for f in files] + [str(base), os.path.expanduser("~/.ipython")]
    values, isolation = _answer(
        "import os\ndef f(x):\n"
        f"    return [float(os.path.lexists(p)) for p in {probes!r}]\n",
        private=[base / "submissions", base / "course-private/book/homework/instructor"])
    seen = [p for p, v in zip(probes, values, strict=True) if v]
    assert seen == [], seen
    assert isolation["fresh_root"] is True and isolation["mounts"] is True


@needs_root
def test_only_the_allow_list_is_there():
    from mlnotes.homework.view import fresh_view

    view = fresh_view("/r", "/tmp/s")
    top = {p.split("/")[1] for p, _ in view["links"]} | {b.split("/")[1] for b in view["binds"]}
    values, _ = _answer(
        "import os\ndef f(x):\n"
        "    top = {n for n in os.listdir('/') if not n.startswith('.')}\n"
        "    return [float(len(os.listdir('/tmp'))), float(os.path.exists('/proc')),\n"
        "            float(os.path.exists('/home')), float(os.path.exists('/sys')),\n"
        f"            float(top <= set({sorted(top | {'dev', 'tmp'})!r}))]\n")
    assert values == [1.0, 0.0, 0.0, 0.0, 1.0]  # /tmp: the scratch alone


@needs_root
def test_the_sandboxs_frames_name_no_instructor_folder(course):
    """The attacks found the instructor's folders in the sandbox's own frame locals; nor may
    a module's file name or an editable install's finder name the checkout."""
    base, _ = course
    private = [base / "submissions", base / "course-private/book/homework/instructor"]
    # the paths travel reversed: the submission's own code is one of the frames' locals
    wanted = [str(p)[::-1] for p in (*private, sandbox.MLNOTES_DIR, sandbox.PROJECT_ROOT)]
    code = """import sys
def f(x):
    seen, frame = [], sys._getframe()
    while frame is not None:
        seen += [repr(v) for v in frame.f_locals.values()]
        frame = frame.f_back
    seen += [repr(m.__dict__) for m in list(sys.modules.values())]
    seen += [repr(sys.path), repr(sys.meta_path), repr(sys.argv), repr(sys.path_hooks)]
    # the interpreter's own folder may lie inside the checkout (make's .venv): its paths name
    # Python's files, which graded code may read, not the checkout's
    text = ' '.join(seen).replace(sys.prefix, '<python>')
    return [float(w[::-1] in text) for w in %r]
""" % (wanted,)
    values, _ = _answer(code, private=private)
    assert values == [0.0] * 4


@needs_root
def test_a_blocked_package_is_not_there_at_all():
    """``--block scipy`` by the file system: its files are absent, however they are read."""
    import scipy

    folder = os.path.dirname(scipy.__file__)
    code = ("import os\ndef f(x):\n"
            f"    return [float(os.path.exists({folder!r} + '/__init__.py')),\n"
            f"            float(len(os.listdir({folder!r})))]\n")
    values, _ = _answer(code, block=["scipy"])
    assert values == [0.0, 0.0]
    values, _ = _answer(code)  # not blocked: there as ever
    assert values[0] == 1.0


def test_the_view_never_takes_the_graders_sys_path(monkeypatch, tmp_path):
    from mlnotes.homework.view import fresh_view

    monkeypatch.syspath_prepend(str(tmp_path))
    view = fresh_view("/r", "/s", covers=[sandbox.MLNOTES_DIR])
    assert not any(str(tmp_path).startswith(b) for b in view["binds"])
    assert all(os.path.exists(b) for b in view["binds"])
    assert sys.prefix and any(os.path.realpath(sys.prefix).startswith(b) for b in view["binds"])
