"""What the kernel PCA chapter's Explore section says about its explorer, tested on its data.

book/kernel_pca.ipynb, "Explore": moving the RBF width gamma from small to large takes the two
components drawn over the input plane from nearly linear functions to a patchwork of bumps
around groups of points, flat away from the data.
"""

import numpy as np
import pytest
from scipy.ndimage import maximum_filter, minimum_filter
from scipy.spatial.distance import cdist

from mlnotes.widgets import kernel_pca as explorer

N, NOISE, SEED = 300, 0.05, 0


def _components(dataset, gamma):
    _, _, gx, gy, values = explorer.kpca_fit(dataset, "rbf", gamma, 2, N, NOISE, SEED)
    GX, GY = np.meshgrid(gx, gy)
    return np.column_stack([GX.ravel(), GY.ravel()]), np.asarray(values)


def _linear_r2(points, v):
    A = np.column_stack([np.ones(len(points)), points])
    coef, *_ = np.linalg.lstsq(A, v.ravel(), rcond=None)
    resid = v.ravel() - A @ coef
    return 1 - resid @ resid / np.sum((v - v.mean()) ** 2)


def _interior_extrema(v):
    peaks = (v == maximum_filter(v, size=3)) | (v == minimum_filter(v, size=3))
    return int(peaks[1:-1, 1:-1].sum())


@pytest.mark.parametrize("dataset", ["circles", "moons"])
def test_small_gamma_gives_nearly_linear_components(dataset):
    gamma = min(explorer.GAMMAS)
    points, values = _components(dataset, gamma)
    for v in values:
        assert _linear_r2(points, v) > 0.98
        assert _interior_extrema(v) == 0


@pytest.mark.parametrize("dataset", ["circles", "moons"])
def test_large_gamma_gives_bumps_around_the_points(dataset):
    gamma = max(explorer.GAMMAS)
    points, values = _components(dataset, gamma)
    X, _ = explorer.kpca_data(dataset, N, NOISE, SEED)
    far = cdist(points, np.asarray(X)).min(axis=1) > 3 / np.sqrt(2 * gamma)
    assert far.any()
    for v in values:
        assert _linear_r2(points, v) < 0.2
        assert _interior_extrema(v) >= 5
        assert np.abs(v.ravel()[far]).max() < 0.1 * np.abs(v).max()  # flat away from the data


@pytest.mark.parametrize("dataset", ["circles", "moons"])
def test_the_first_component_grows_less_linear_as_gamma_grows(dataset):
    r2 = [_linear_r2(*(lambda p, v: (p, v[0]))(*_components(dataset, g))) for g in explorer.GAMMAS]
    assert r2[0] > r2[-1] and r2[0] > 0.98 and r2[-1] < 0.2
