"""The grader's own memory, whatever a class submits (issue 13, class 4).

A class of oversized and forged submissions is graded in a fresh process (so that what is
measured is the grader alone, not pytest), and that process's peak resident memory must stay
under the bound the README documents. The peak is the kernel's high-water mark of the process's
own memory, ``VmHWM`` in ``/proc/self/status`` (``getrusage``'s ``ru_maxrss`` would do elsewhere,
but on Linux it survives ``exec`` and would count pytest's memory at the moment of the fork).
The sandboxed children and the notebook parsers are separate processes with their own limits.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from homework_fixtures import instructor, submission, write

ROOT = Path(__file__).resolve().parents[1]
# The documented bound on the grader process's peak memory (README, "Homework checking").
GRADER_PEAK_MB = 500
ASSIGNMENT = {"kernels.double_center": 1, "eigenmaps.laplacian": 1}


def dc(body):
    lines = "\n".join("    " + line for line in body.strip("\n").split("\n"))
    return submission("spectral", replace={
        "double_center": f"import numpy as np\ndef double_center(D2):\n{lines}\n"})


FORGE_FRAME = """import os
def double_center(D2):
    frame = (200 * 2**10).to_bytes(4, 'big') + (2**31).to_bytes(4, 'big')
    for fd in range(3, 20):
        try:
            os.write(fd, frame + b'[' * 4096)
        except OSError:
            pass
    return D2
"""

FORGE_NESTED = """import os
def double_center(D2):
    header = b'{"message": ' + b'[' * 200_000
    frame = len(header).to_bytes(4, 'big') + (0).to_bytes(4, 'big') + header
    for fd in range(3, 20):
        try:
            os.write(fd, frame)
        except OSError:
            pass
    return D2
"""

CLASS = {
    # answers: 32 MB (refused by the child), 8 MB per case (the largest accepted)
    "answer_32mb": (dc("return np.ones(4_000_000)"), 1),
    "answer_32mb_b": (dc("return np.ones((2000, 2000))"), 1),
    "answer_8mb": (dc("return np.ones((1000, 1000))"), 1),
    "answer_8mb_b": (submission("spectral", replace={
        "double_center": "import numpy as np\ndef double_center(D2):\n"
                         "    return np.ones((1000, 1000))\n",
        "laplacian": "def laplacian(W):\n    return np.ones((1000, 1000))\n"}), 0),
    "answer_sparse_huge": (dc("from scipy.sparse import random\n"
                              "return random(10**6, 10**6, density=2e-6, format='csr')"), 1),
    "forged_frame": (submission("spectral", replace={"double_center": FORGE_FRAME}), 1),
    # notebooks: a 5 MB code cell, 5 MB of code over many cells, a 60 MB file, 30 MB outputs
    "code_cell_5mb": (submission("spectral", append=["x = 1\n" * 850_000]), 2),
    "code_5mb_in_cells": (submission("spectral", append=["y = 1\n" * 15_000] * 60), 0),
    "notebook_60mb": (dict(instructor("spectral"),
                           metadata={"junk": "z" * (60 * 2**20)}), 0),
    "outputs_30mb": (dict(submission("spectral"),
                          metadata={"junk": ["0.123456789"] * (3 * 2**20)}), 2),
    # nesting: a notebook of 10^6 brackets, a frame whose header nests 200 000 deep
    "deep_json": ("[" * 10**6, 0),
    "forged_nested_header": (submission("spectral", replace={"double_center": FORGE_NESTED}), 1),
    "honest": (submission("spectral"), 2),
}

SCRIPT = """
import json, resource, sys, time
from mlnotes.homework.grader import grade_folder

def peak_mb():
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

start = time.perf_counter()
results = grade_folder(sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], jobs=2, timeout=5.0,
                       seed=3)
print(json.dumps({"peak_mb": peak_mb(),
                  "seconds": time.perf_counter() - start,
                  "totals": {r.student: r.total for r in results}}))
"""


@pytest.mark.slow
def test_grader_peak_memory_stays_under_its_bound(tmp_path):
    folder = tmp_path / "class"
    for student, (nb, _) in CLASS.items():
        if isinstance(nb, str):
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{student}.ipynb").write_text(nb)
        else:
            write(folder / f"{student}.ipynb", nb)
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(folder), json.dumps(ASSIGNMENT),
         str(tmp_path / "out" / "grades.csv")],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=True)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"grader peak {report['peak_mb']:.0f} MB, {report['seconds']:.1f} s for "
          f"{len(CLASS)} oversized submissions")
    assert report["totals"] == {s: total for s, (_, total) in CLASS.items()}
    assert 50 < report["peak_mb"] < GRADER_PEAK_MB  # (above 50: the measurement works)
    feedback = (tmp_path / "out" / "feedback" / "answer_32mb.txt").read_text()
    assert "more than any question needs" in feedback
    feedback = (tmp_path / "out" / "feedback" / "answer_8mb_b.txt").read_text()
    assert feedback.count("this question's answer has far fewer") == 4  # 2 questions x 2 cases
    assert "larger than 50 MB" in (tmp_path / "out" / "feedback" / "notebook_60mb.txt").read_text()


# A function that forges one frame per question at once, each with 16 MB of numbers of which
# the answer is one small array (the rest under keys the grader never reads), then exits.
FORGE_VIEWS = """
import json, os
def f(x):
    n = 12 * 2**20 // 8
    for q in range(QUESTIONS):
        message = {"kind": "answer", "q": q, "output": "",
                   "answers": [{"value": {"array": 0}, "junk": {"array": 1}}],
                   "extra": {"array": 1}}
        header = json.dumps({"message": message, "shapes": [[2], [n]]}).encode()
        body = bytes(8 * (2 + n))
        frame = len(header).to_bytes(4, 'big') + len(body).to_bytes(4, 'big') + header + body
        for fd in range(3, 20):
            try:
                os.write(fd, frame)
            except OSError:
                pass
    os._exit(0)
"""

VIEWS_SCRIPT = """
import json, sys, threading
from mlnotes.homework.sandbox import run_functions

QUESTIONS = 12
code = sys.argv[1].replace("QUESTIONS", str(QUESTIONS))
statements = [{"cell": 1, "line": 1, "code": code, "names": ["json", "os", "f"],
               "kind": "statement"}]
kept = []

def grade():
    _, results, _ = run_functions(statements, [("f", [[0.0]])] * QUESTIONS, timeout=5)
    kept.append(results)  # held, as the grader holds every result until it has judged them

threads = [threading.Thread(target=grade) for _ in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
with open("/proc/self/status") as f:
    peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
answers = [a for results in kept for r in results for a in r["answers"]]
print(json.dumps({"peak_mb": peak, "answers": len(answers),
                  "keys": sorted({k for a in answers for k in a}),
                  "owned": all(a["value"].base is None for a in answers)}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM is Linux's")
def test_forged_frames_are_not_kept_whole():
    """Two notebooks of 12 questions, each answered by a forged 12 MB frame: the grader keeps
    a copy of the small answer and drops the rest (a view would keep each frame alive: 288 MB
    more here)."""
    run = subprocess.run([sys.executable, "-c", VIEWS_SCRIPT, FORGE_VIEWS], capture_output=True,
                         text=True, cwd=ROOT, timeout=300, check=True)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"grader peak with forged frames: {report['peak_mb']:.0f} MB")
    assert report["answers"] == 24 and report["keys"] == ["value"] and report["owned"]
    assert report["peak_mb"] < 150  # (each frame, kept whole, would add 12 MB)
