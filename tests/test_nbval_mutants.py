"""The mutant plugin of the nbval pass (``tests/nbval_mutants.py``) can fail.

A three-cell notebook runs through pytest with the plugin: one check cell whose only mutant is
killed (it also prints and assigns, which must reach neither nbval's compared output nor the
next cells), one whose mutants survive (a weaker claim) and break (a ``NameError``), and one
whose mutant changes its last statement only: its fork is made there, in the state the cell's
first statements left (they write a line to a file: once, not once more for the mutant), and
one that is not plain Python (a magic), whose mutant runs whole in a fork before it. The
first, third and fourth cells' items pass, the second's fails naming both mutants, and the
summary counts them.
"""

import os
import re
import subprocess
import sys

import nbformat

from browser_support import ROOT


def _cell(source, count, outputs=(), mutants=None):
    cell = nbformat.v4.new_code_cell(source, execution_count=count, outputs=list(outputs))
    if mutants:
        cell.metadata["mutants"] = [dict(zip(("find", "replace", "why"), m, strict=True)) for m in mutants]
    return cell


def test_plugin_kills_reports_and_hides_mutants(tmp_path):
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}})
    nb.cells = [
        _cell("x = 2", 1),
        _cell('# NBVAL_CHECK_OUTPUT\nprint("real", x)\nassert x == 2', 2,
              [nbformat.v4.new_output("stream", name="stdout", text="real 2\n")],
              [('print("real", x)', 'x = 99\nprint("mutant", x)', "killed: x is not 99")]),
        _cell("assert x == 2", 3,
              mutants=[("x == 2", "x > 0", "SURVIVES: a weaker claim"),
                       ("x == 2", "y == 2", "BROKEN: a name the notebook lacks")]),
        _cell('with open("runs.txt", "a") as f:\n    f.write("ran\\n")\nruns = 10 * len('
              'open("runs.txt").readlines())\nx = 3\nassert runs == 10 and x == 3', 4,
              mutants=[("x = 3", "x = 4\nruns = 20", "killed: late, with the prefix's state")]),
        _cell('# NBVAL_CHECK_OUTPUT\nprint(runs, x)', 5,
              [nbformat.v4.new_output("stream", name="stdout", text="10 3\n")]),
        _cell("%time y = x\nassert y == 3", 6,
              mutants=[("y == 3", "y == 5", "killed: run whole, the cell has a magic")]),
    ]
    path = tmp_path / "tiny.ipynb"
    nbformat.write(nb, path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.nbval_mutants", "-p", "no:xdist",
         "-p", "no:cacheprovider", "-v", "--nbval-lax", str(path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    assert "Cell 0 PASSED" in out, out
    assert "Cell 1 PASSED" in out, out  # killed; its output "real 2" is compared and matches
    assert "Cell 2 FAILED" in out and "exception" not in out, out  # the real x is still 2
    # the mutant forked before "x = 4" ran in the fork only, after the file's one line
    assert "Cell 3 PASSED" in out and "Cell 4 PASSED" in out and "Cell 5 PASSED" in out, out
    assert (tmp_path / "runs.txt").read_text() == "ran\n"
    assert "code cell 2" in out and "the mutant passes: SURVIVES: a weaker claim" in out, out
    assert ("the mutant fails with NameError: name 'y' is not defined, not an AssertionError: "
            "BROKEN") in out, out
    assert "killed: x is not 99" not in out and "mutant 99" not in out, out
    assert "4 check cells run, 4 with mutants, 5 mutants, 3 killed" in out, out
    cpu = re.search(r"kernel CPU \(tests/nbval_mutants.py\): (\d+) s in 1 notebooks, their "
                    r"mutants' forks (\d+) s; most: \S*tiny.ipynb (\d+) s \+ (\d+) s", out)
    assert cpu and cpu[1] == cpu[3] and cpu[2] == cpu[4], out
