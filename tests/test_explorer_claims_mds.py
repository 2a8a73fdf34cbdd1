"""What the MDS chapters' Explore sections say about their explorers, tested on the explorers' data.

book/classical_mds.ipynb, "Explore": on Euclidean distances of the S-curve, three positive
eigenvalues, then zeros (the data come back up to a rotation); city-block and geodesic
dissimilarities give negative eigenvalues (drawn in red).

book/metric_mds.ipynb, "Explore": the SMACOF stress curve only goes down; from a random start the
picture untangles over dozens of iterations (the chapter's explorer shows max_iter=50, and the
random runs are still going there); from the classical start the picture changes little (a
tenth of its size or less, after the best rotation) and the run stops sooner, after 20 to 35
iterations, while the stress still falls by a fifth or more.
"""

import numpy as np
import pytest

from mlnotes.metrics import align
from mlnotes.widgets import mds as explorer

N_CLASSICAL, N_SMACOF, SEED = 300, 200, 0
MAX_ITER = 50  # the chapter calls smacof_explorer(max_iter=50)


def _eigenvalues(dissimilarity):
    return np.asarray(explorer.mds_solution(dissimilarity, N_CLASSICAL, SEED)[1])


def test_euclidean_spectrum_is_three_positive_eigenvalues_then_zeros():
    ev = _eigenvalues("euclidean")
    assert np.all(ev[:3] > 1.0)
    assert np.all(np.abs(ev[3:]) < 1e-9 * ev[0])


def test_the_euclidean_data_come_back_up_to_a_rotation():
    from mlnotes.mds import classical_mds

    X, _, Delta = explorer.mds_dissimilarities("euclidean", N_CLASSICAL, SEED)
    Z, _ = classical_mds(np.asarray(Delta), 3)
    Xc = np.asarray(X) - np.mean(X, axis=0)
    assert np.allclose(align(Z, Xc, allow="orthogonal"), Xc, atol=1e-8)


@pytest.mark.parametrize("dissimilarity", ["cityblock", "geodesic"])
def test_non_euclidean_dissimilarities_give_negative_eigenvalues(dissimilarity):
    ev = _eigenvalues(dissimilarity)
    assert ev.min() < -1e-3 * ev.max()


def _run(dissimilarity, init):
    history, stress = explorer.smacof_run(dissimilarity, init, N_SMACOF, MAX_ITER, SEED)
    return np.asarray(history), np.asarray(stress)


def _relative_move(history):
    start, end = (Z - Z.mean(axis=0) for Z in (history[0], history[-1]))
    return np.linalg.norm(align(start, end, allow="orthogonal") - end) / np.linalg.norm(end)


@pytest.mark.parametrize("dissimilarity", explorer.DISSIMILARITIES)
@pytest.mark.parametrize("init", explorer.INITS)
def test_the_stress_curve_only_goes_down(dissimilarity, init):
    _, stress = _run(dissimilarity, init)
    assert np.all(np.diff(stress) <= 1e-9 * stress[0])


@pytest.mark.parametrize("dissimilarity", explorer.DISSIMILARITIES)
def test_random_start_untangles_over_dozens_of_iterations(dissimilarity):
    history, stress = _run(dissimilarity, "random")
    assert len(stress) - 1 == MAX_ITER  # still going when the replay ends
    assert stress[-1] < 0.1 * stress[0]
    assert _relative_move(history) > 0.5  # the picture really changes


@pytest.mark.parametrize("dissimilarity", explorer.DISSIMILARITIES)
def test_classical_start_barely_moves_and_its_curve_is_short(dissimilarity):
    history, stress = _run(dissimilarity, "classical")
    _, stress_random = _run(dissimilarity, "random")
    assert _relative_move(history) < 0.15
    assert 15 <= len(stress) - 1 <= 35 < len(stress_random) - 1
    assert stress[-1] < 0.85 * stress[0]  # still falls: classical is not stress-optimal
