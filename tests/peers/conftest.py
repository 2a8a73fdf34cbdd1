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


# --- umap-learn's fixtures (umap/tests/conftest.py of umap-learn 0.5.12, BSD-3-Clause; see
# THIRD_PARTY_NOTICES.md): the same data, each fixture drawing from its own
# RandomState(UMAP_SEED) instead of the global generator seeded once at import (so the data
# does not depend on which tests run first, or on pytest-xdist's split). Only the fixtures
# that need no download; the models are built by the shim's UMAP (mlnotes.UMAP).
UMAP_SEED = 189212  # umap-learn's conftest SEED


@pytest.fixture(scope="session")
def spatial_data():
    rng = np.random.RandomState(UMAP_SEED)
    return np.vstack([rng.randn(10, 20), np.zeros((2, 20))])


@pytest.fixture(scope="session")
def binary_data():
    rng = np.random.RandomState(UMAP_SEED + 1)
    data = rng.choice(a=[False, True], size=(10, 20), p=[0.66, 1 - 0.66])
    return np.vstack([data, np.zeros((2, 20), dtype="bool")])


@pytest.fixture(scope="session")
def sparse_spatial_data(spatial_data, binary_data):
    from scipy import sparse

    return sparse.csr_matrix(spatial_data * binary_data)


@pytest.fixture(scope="session")
def nn_data():
    rng = np.random.RandomState(UMAP_SEED + 2)
    return np.vstack([rng.uniform(0, 1, size=(1000, 5)), np.zeros((2, 5))])


@pytest.fixture(scope="session")
def binary_nn_data():
    rng = np.random.RandomState(UMAP_SEED + 3)
    data = rng.choice(a=[False, True], size=(1000, 5), p=[0.66, 1 - 0.66])
    return np.vstack([data, np.zeros((2, 5), dtype="bool")])


@pytest.fixture(scope="session")
def sparse_test_data(nn_data, binary_nn_data):
    from scipy import sparse

    return sparse.csr_matrix(nn_data * binary_nn_data)


@pytest.fixture(scope="session")
def repetition_dense():
    return np.array([[5, 6, 7, 8]] * 6 + [[1, 1, 1, 1], [1, 2, 3, 4], [1, 1, 2, 1]])


@pytest.fixture(scope="session")
def spatial_repeats(spatial_data):
    return np.vstack([np.repeat(spatial_data[0:2], [2, 0], axis=0), spatial_data,
                      np.zeros((2, 20))])


@pytest.fixture(scope="session")
def iris():
    from sklearn.datasets import load_iris

    return load_iris()


@pytest.fixture(scope="session")
def iris_selection():
    rng = np.random.RandomState(UMAP_SEED + 4)
    return rng.choice([True, False], 150, replace=True, p=[0.75, 0.25])


@pytest.fixture(scope="session")
def iris_model(iris):
    from _shim import UMAP

    return UMAP(n_neighbors=10, min_dist=0.01, random_state=42).fit(iris.data)


@pytest.fixture(scope="session")
def iris_model_large(iris):
    from _shim import UMAP

    return UMAP(n_neighbors=10, min_dist=0.01, random_state=42,
                force_approximation_algorithm=True).fit(iris.data)


@pytest.fixture(scope="session")
def iris_subset_model(iris, iris_selection):
    from _shim import UMAP

    return UMAP(n_neighbors=10, min_dist=0.01, random_state=42).fit(iris.data[iris_selection])


@pytest.fixture(scope="session")
def iris_subset_model_large(iris, iris_selection):
    from _shim import UMAP

    return UMAP(n_neighbors=10, min_dist=0.01, random_state=42,
                force_approximation_algorithm=True).fit(iris.data[iris_selection])


@pytest.fixture(scope="session")
def supervised_iris_model(iris):
    from _shim import UMAP

    return UMAP(n_neighbors=10, min_dist=0.01, n_epochs=200, random_state=42).fit(
        iris.data, iris.target)
