"""The student-side ``check`` when the mistake is not in the catalogue (issue 13, class 9), and
the package's shape (class 10)."""

import subprocess
import sys
from pathlib import Path

import numpy as np

from mlnotes.homework import QUESTIONS, run_check

ROOT = Path(__file__).resolve().parents[1]


def _uncentred_mds(D, n_components):
    K = -0.5 * D**2  # no C on either side
    lam, V = np.linalg.eigh(K)
    idx = np.argsort(lam)[::-1][:n_components]
    return V[:, idx] * np.sqrt(np.abs(lam[idx]))


def test_classical_mds_without_centring_gets_a_hint():
    report = run_check("mds.classical_mds", _uncentred_mds, seed=4)
    assert not report.passed
    assert "not centred" in report.diagnosis and "C D^2 C" in report.diagnosis
    assert "likely mistake: the embedding is not centred" in report.text()


def test_a_failure_points_back_to_the_students_own_helper():
    namespace = {"np": np}
    exec(  # noqa: S102 - a student's notebook: a wrong helper and a function that calls it
        "def double_center(D2):\n"
        "    C = np.eye(len(D2)) - 1 / len(D2)\n"
        "    return C @ D2 @ C\n"  # the -1/2 is missing
        "def classical_mds(D, n_components):\n"
        "    lam, V = np.linalg.eigh(double_center(D**2))\n"
        "    idx = np.argsort(lam)[::-1][:n_components]\n"
        "    return V[:, idx] * np.sqrt(np.abs(lam[idx]))\n", namespace)
    report = run_check("mds.classical_mds", namespace["classical_mds"], seed=2)
    assert not report.passed
    text = report.text()
    assert "classical_mds calls your double_center, which fails its own check" in text
    assert "-1/2 is missing" in text  # the helper's own diagnosis comes along
    # a correct helper is not blamed
    namespace["double_center"] = lambda D2: -0.5 * (np.eye(len(D2)) - 1 / len(D2)) @ D2 @ (
        np.eye(len(D2)) - 1 / len(D2))
    assert run_check("mds.classical_mds", namespace["classical_mds"], seed=2).passed


def test_messages_read_as_english():
    for q in QUESTIONS.values():
        for prop in q.properties:
            assert " distances is " not in prop.description, prop.description

    def no_path_at_all(G):
        D = np.array(G, dtype=float)
        D[np.isfinite(D) & (D > 0)] = np.inf
        return D

    report = run_check("graphs.floyd_warshall", no_path_at_all, seed=1)
    text = report.text()
    assert not report.passed and "relative error inf" not in text
    assert "infinite where the reference's are finite" in text


def test_the_core_does_not_import_the_bank():
    code = ("import sys, mlnotes.homework.core, mlnotes.homework.compare, "
            "mlnotes.homework.sandbox, mlnotes.homework.notebook\n"
            "bad = [m for m in sys.modules if m.startswith('mlnotes.homework.bank')]\n"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    assert "bank" not in (ROOT / "mlnotes" / "homework" / "core.py").read_text().split(
        '"""', 2)[2]  # not even in a comment of the code
