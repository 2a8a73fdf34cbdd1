"""Marks that do not depend on the machine's load (issue 21).

The homework-attack class (``test_homework_grader.ATTACKS``, whose idle-machine marks that
file checks) is graded while 2 x nproc busy loops, started here, keep every core busy: the
marks must be exactly those of an idle machine. The limits are CPU time (what the student's code
computes), and the wall-clock backstop counts only time spent neither computing nor waiting
for a processor, so a busy machine slows the grading down without changing a mark.
"""

import os
import subprocess
import sys
import time

import pytest
from homework_fixtures import points_of, write
from test_homework_grader import ASSIGNMENT, ATTACKS, CAN_HIDE, TIMEOUT

from mlnotes.homework.grader import grade_folder

# The whole class (honest, wrong, crashing, looping: the CPU-bound ones the load could change,
# hostile); without a mount namespace one attack's marks differ on any machine (see that file).
CHOSEN = tuple(s for s in ATTACKS if CAN_HIDE or s != "ffi_reads_mlnotes")
BUSY = "while True:\n    pass\n"


@pytest.mark.slow
def test_marks_on_a_busy_machine_are_those_of_an_idle_one(tmp_path):
    folder, out = tmp_path / "class", tmp_path / "out" / "grades.csv"
    for student in CHOSEN:
        nb = ATTACKS[student][0]
        where = (f"CLASS_FOLDER = {str(folder)!r}\nOUT_FOLDER = {str(out.parent)!r}\n"
                 f"MARKER = {str(out.parent / 'escaped')!r}")
        nb = dict(nb, cells=nb["cells"] + [{"cell_type": "code", "metadata": {}, "outputs": [],
                                             "execution_count": None, "source": where}])
        write(folder / f"{student}.ipynb", nb)
    loops = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(2 * os.cpu_count())]
    try:
        time.sleep(0.5)
        assert all(p.poll() is None for p in loops)
        start = time.monotonic()
        results = grade_folder(folder, ASSIGNMENT, out, jobs=2, timeout=TIMEOUT, seed=1)
        seconds = time.monotonic() - start
        assert all(p.poll() is None for p in loops)  # busy all along
    finally:
        for p in loops:
            p.kill()
            p.wait()
    got = points_of(results)
    expected = {s: {"kernels.double_center": ATTACKS[s][1], "eigenmaps.laplacian": ATTACKS[s][2]}
                for s in CHOSEN}
    assert got == expected
    for student in CHOSEN:  # the same reasons, too
        feedback = (out.parent / "feedback" / f"{student}.txt").read_text()
        assert ATTACKS[student][3] in feedback, (student, feedback)
    print(f"graded {len(CHOSEN)} submissions beside {len(loops)} busy loops in {seconds:.1f} s")


def test_a_sleeping_function_is_stopped_twice_and_the_feedback_says_so(tmp_path, monkeypatch):
    """The backstop fires on a function that sleeps: the notebook is run again with a longer
    backstop before the question is marked; the feedback says which happened. The honest
    function beside it keeps its point. (Shorter backstops than the grader's, 2 s then 4 s
    instead of 5 s then 15 s, to keep the test short: the waits are all it costs.)"""
    from homework_fixtures import short_backstops, submission

    from mlnotes.homework import sandbox

    fired = short_backstops(monkeypatch)
    timeout = 0.5
    nb = submission("spectral", replace={"double_center": (
        "import numpy as np\ndef double_center(D2):\n    import time\n    time.sleep(3600)\n")})
    write(tmp_path / "subs" / "sleeper.ipynb", nb)
    start = time.monotonic()
    result, = grade_folder(tmp_path / "subs", ASSIGNMENT, tmp_path / "out" / "g.csv",
                           timeout=timeout, seed=3)
    seconds = time.monotonic() - start
    points = {q.name: q.points for q in result.results}
    assert points == {"kernels.double_center": 0, "eigenmaps.laplacian": 1}
    feedback = (tmp_path / "out" / "feedback" / "sleeper.txt").read_text()
    assert "was run again with a" in feedback and "the second time with a" in feedback
    assert "slept or blocked" in feedback
    wall = sandbox.backstop(timeout)
    # the second backstop is the longer one (read from the limits: a busy machine stretches
    # each process's start, which the time taken below includes), and both were waited for
    assert fired == [("wall", pytest.approx(wall)),
                     ("wall", pytest.approx(wall * sandbox.ALONE_PATIENCE))], fired
    assert wall * (1 + sandbox.ALONE_PATIENCE) < seconds < 10 * wall * (1 + sandbox.ALONE_PATIENCE)
