"""The LLE chapter's sentences about its explorer, checked on the explorer's own data.

The chapter (book/lle.ipynb, section Explore) calls ``lle_explorer()``: the 500-point S-curve,
``n_neighbors`` and ``reg``. It says that at the default setting the second coordinate is a
function of the position along the S (a harmonic of the first; the height is lost), the effect
the eigenmaps chapter explains. Computed with :func:`mlnotes.widgets.neighbourhood.lle_spectrum`,
the function the explorer draws from.
"""

import numpy as np
from scipy.stats import spearmanr

from mlnotes.widgets._core import draw_defaults
from mlnotes.widgets.neighbourhood import draw_lle, lle_spectrum, manifold_data

R2_FUNCTION = 0.95  # "a function of": a degree-5 polynomial explains this much of the variance
R2_UNRELATED = 0.1


def _r2(y, x, degree=5):
    A = np.vander(x, degree + 1)
    residual = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
    return 1 - residual.var() / y.var()


def _default():
    d = draw_defaults(draw_lle)
    _, u = manifold_data("s_curve", d["n_samples"], d["noise"], d["random_state"])
    _, Z = lle_spectrum(d["n_neighbors"], d["reg"], d["n_samples"], d["noise"], d["random_state"])
    return Z, u


def test_default_first_coordinate_follows_the_s():
    Z, u = _default()
    assert abs(spearmanr(Z[:, 0], u[:, 0])[0]) > 0.95


def test_default_second_coordinate_is_a_harmonic_not_the_height():
    Z, u = _default()
    assert _r2(Z[:, 1], u[:, 0]) > R2_FUNCTION  # a function of the position along the S
    assert abs(spearmanr(Z[:, 1], u[:, 0])[0]) < 0.5  # ... not a monotone one: it folds back
    assert _r2(Z[:, 1], u[:, 1]) < R2_UNRELATED  # the height is lost


def test_larger_k_does_not_remove_the_harmonic():
    d = draw_defaults(draw_lle)
    data = (d["n_samples"], d["noise"], d["random_state"])
    _, u = manifold_data("s_curve", *data)
    for k in (12, 15, 20, 30):
        _, Z = lle_spectrum(k, d["reg"], *data)
        assert _r2(Z[:, 1], u[:, 0]) > R2_FUNCTION and _r2(Z[:, 1], u[:, 1]) < R2_UNRELATED
