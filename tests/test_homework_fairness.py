"""One student never changes another's marks or wait (issue 36).

A forged "backstop" message (written by the submission on the result pipe) used to make the
grader run the notebook again *alone*, stopping every other worker; a genuine sleep did the
same for about 16 minutes. Now only the grader's own measurement fires a backstop, and the
notebook run again with more patience runs beside the others, which never wait for it. Timed
with every core kept busy: what is measured is the order in which two students finish, not a
duration of the machine's.
"""

import os
import subprocess
import sys
import threading
import time

from mlnotes.homework import sandbox
from mlnotes.homework.sandbox import run_functions

FORGE = """
import json, os, stat
header = json.dumps({"message": {"kind": "backstop", "at": 2}, "shapes": []}).encode()
frame = len(header).to_bytes(4, "big") + (0).to_bytes(4, "big") + header
forged = 0
for fd in range(3, 64):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            forged += os.write(fd, frame) > 0
    except OSError:
        pass
"""


def _statements(*codes):
    return [{"cell": k + 1, "line": 1, "code": code, "names": names, "kind": kind}
            for k, (code, names, kind) in enumerate(codes)]


def test_a_forged_backstop_message_sets_no_policy():
    statements = _statements(("import numpy as np", ["np"], "import"),
                             (FORGE, ["forged"], "statement"),
                             ("def f(x):\n    return 2.0 * x\n", ["f"], "definition"))
    events = []
    reported, results, _ = run_functions(statements, [("f", [[1.5]])], timeout=2,
                                         events=events)
    assert events == []  # never "run again" on the code's word
    assert float(results[0]["answers"][0]["value"]) == 3.0  # the forger's own answer stands
    assert any("malformed" in note for note in reported), reported


def test_a_sleeper_never_makes_a_classmate_wait(monkeypatch):
    fired = threading.Event()
    go_alone = sandbox._go_alone

    def watched(state, why):
        fired.set()
        return go_alone(state, why)

    monkeypatch.setattr(sandbox, "_go_alone", watched)
    # shorter backstops than the grader's (2 s, then 4 s), to keep the test short
    monkeypatch.setattr(sandbox, "WALL_EXTRA", 0.5)
    monkeypatch.setattr(sandbox, "ALONE_PATIENCE", 2.0)
    sleeper = _statements(("import time\ndef f(x):\n    time.sleep(3600)\n", ["time", "f"],
                           "definition"))
    honest = _statements(("def f(x):\n    return 2.0 * x\n", ["f"], "definition"))
    finished, out = [], {}

    def grade(name, statements):
        out[name] = run_functions(statements, [("f", [[1.0]])], timeout=0.5,
                                  events=out.setdefault(name + " events", []))
        finished.append(name)

    loops = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass\n"])
             for _ in range(os.cpu_count() or 1)]
    try:
        a = threading.Thread(target=grade, args=("sleeper", sleeper))
        a.start()
        assert fired.wait(120)  # the sleeper's first backstop: it is run again ...
        time.sleep(0.5)
        b = threading.Thread(target=grade, args=("honest", honest))
        b.start()
        b.join(300)
        a.join(300)
        assert all(p.poll() is None for p in loops)  # busy all along
    finally:
        for p in loops:
            p.kill()
            p.wait()
    assert finished == ["honest", "sleeper"]  # ... and the classmate never waits for it
    assert float(out["honest"][1][0]["answers"][0]["value"]) == 2.0
    assert out["honest events"] == [] and len(out["sleeper events"]) == 1
    assert "slept or blocked" in out["sleeper"][1][0]["reason"]
