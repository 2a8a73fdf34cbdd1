"""What the PCA chapter's Explore section says about its explorer, tested on the explorer's data.

book/pca.ipynb, section "Explore": the captured part b^T S b and the reconstruction error always
add up to tr S; the captured part peaks exactly where the error bottoms out, at the first principal
axis; the slider moves in steps of 5 degrees (online and in the notebook), and any other angle is
one call away: ``pca_explorer(angle=37)``.
"""

import numpy as np
import pytest

from mlnotes.widgets import pca as explorer


@pytest.mark.parametrize("angle", explorer.ANGLES_DEG)
def test_captured_part_and_error_add_up_to_the_trace(angle):
    X, _, S, u, proj, variance, error, *_ = explorer.pca_state(float(angle), 80, 0)
    assert variance + error == pytest.approx(np.trace(S), rel=1e-12)
    assert np.isclose(u @ u, 1.0)


def test_captured_part_peaks_where_the_error_bottoms_out_at_the_first_axis():
    *_, principal, grid, curve = explorer.pca_state(0.0, 80, 0)
    S = explorer.pca_state(0.0, 80, 0)[2]
    errors = np.trace(S) - np.asarray(curve)
    assert grid[np.argmax(curve)] == grid[np.argmin(errors)]
    assert grid[np.argmax(curve)] == pytest.approx(principal, abs=0.5)
    assert principal == pytest.approx(explorer.PCA_ANGLE_DEG, abs=1e-8)
    # the peak is the top eigenvalue of S (Ky Fan with d = 1), not just a grid maximum
    assert np.max(curve) == pytest.approx(np.linalg.eigvalsh(S)[-1], rel=1e-12)


def test_the_online_slider_moves_in_steps_of_5_degrees():
    assert np.all(np.diff(explorer.ANGLES_DEG) == 5)
    assert explorer.PCA_ANGLE_DEG in explorer.ANGLES_DEG  # the answer is on the slider


def test_any_other_angle_is_one_call_away():
    """"in both it moves in steps of 5 degrees. Any other angle is one call away:
    ml.widgets.pca_explorer(angle=37) starts the explorer there"."""
    ex = explorer.pca_explorer(angle=37)
    slider = ex.widget.children[0].children[0]
    assert slider.value == 37 and 37 in [v for _, v in slider.options]
    assert set(np.diff([v for _, v in slider.options if v != 37])) == {5}
    X, _, S, u, *_ = explorer.pca_state(37.0, 80, 0)
    assert np.degrees(np.arctan2(u[1], u[0])) % 180 == pytest.approx(37)
