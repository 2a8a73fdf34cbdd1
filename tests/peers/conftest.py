"""The peers' suites: fixtures they expect, the deliberate differences, the per-file table.

Run with ``make peers`` (``pytest -o python_files='peer_*.py' tests/peers``): the files are
named ``peer_*.py`` so that ``make test`` never collects them.

Deliberate differences are listed once, in the table of ``README.md`` beside this file (file,
test, reason); each listed case is marked ``xfail(strict=True)`` with its reason, so a
difference that goes away (the case passes) fails the run until the table is updated.
"""

import os
import re
import sys
from collections import defaultdict

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))  # _shim
HERE = os.path.dirname(__file__)
TABLE_ROW = re.compile(r"^\|\s*`(peer_\w+\.py)`\s*\|\s*`([^`]+)`\s*\|\s*(.+?)\s*\|\s*$")


def _deliberate_differences():
    rows = []
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        for line in f:
            m = TABLE_ROW.match(line)
            if m:
                rows.append(m.groups())
    return rows


@pytest.fixture
def global_random_seed():
    """scikit-learn's fixture, at its default (SKLEARN_TESTS_GLOBAL_RANDOM_SEED unset): 42."""
    return 42


@pytest.fixture(autouse=True)
def _seeded_numpy():
    np.random.seed(0)  # noqa: NPY002 (upstream tests draw from the legacy global generator)


def pytest_collection_modifyitems(config, items):
    rows = _deliberate_differences()
    for item in items:
        name = os.path.basename(str(item.fspath))
        for file, test, reason in rows:
            # a row names a test function, or one parametrised case (name[...])
            if name == file and (item.name == test or item.originalname == test):
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


_outcomes = defaultdict(lambda: defaultdict(int))


def pytest_runtest_logreport(report):
    name = os.path.basename(report.nodeid.split("::")[0])
    if not name.startswith("peer_"):  # (this conftest is also loaded by make test's run)
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "XPASS"
        else:
            outcome = report.outcome
        _outcomes[name][outcome] += 1


def pytest_terminal_summary(terminalreporter):
    if not _outcomes:
        return
    cols = ("passed", "failed", "skipped", "xfailed", "XPASS")
    w = max(len(n) for n in _outcomes) + 2
    tr = terminalreporter
    tr.write_sep("=", "peers: upstream cases per file (xfailed = a documented difference)")
    tr.write_line(f"{'file':<{w}}" + "".join(f"{c:>9}" for c in cols))
    total = defaultdict(int)
    for name in sorted(_outcomes):
        tr.write_line(f"{name:<{w}}" + "".join(f"{_outcomes[name][c]:>9}" for c in cols))
        for c in cols:
            total[c] += _outcomes[name][c]
    tr.write_line(f"{'total':<{w}}" + "".join(f"{total[c]:>9}" for c in cols))


@pytest.fixture
def global_dtype():
    """scikit-learn's fixture at its default (SKLEARN_RUN_FLOAT32_TESTS unset): float64."""
    return np.float64


CASE_CPU_SECONDS = 60  # a case that runs longer fails (make peers must stay well under 10 min)


@pytest.fixture(autouse=True)
def _bounded_case():
    """Fail a case after CASE_CPU_SECONDS of CPU time (SIGXCPU-free: an ITIMER_PROF alarm)."""
    import signal

    def expire(signum, frame):
        raise TimeoutError(f"this case used more than {CASE_CPU_SECONDS} s of CPU")

    old = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, CASE_CPU_SECONDS)
    yield
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.signal(signal.SIGPROF, old)
