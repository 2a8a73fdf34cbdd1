r"""PCA explorer: turn a direction on 2-D data and watch the variance it captures.

For a unit direction :math:`u = (\cos\theta, \sin\theta)` the projected variance is
:math:`u^\top S u` and the mean squared reconstruction error is
:math:`\operatorname{tr} S - u^\top S u` (Pythagoras, point by point): maximising one is
minimising the other, and by the trace (Ky Fan) theorem the maximum is the top eigenvalue of
:math:`S`, reached at its eigenvector.
"""

import functools

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.ticker import MaxNLocator

from .._validation import check_positive, check_random_state
from ..pca import principal_components
from ..plotting import COORD_CMAP
from . import _static as st
from ._core import Explorer, LiveFigure, Slider, frozen, set_points

# The data's covariance, fixed so that the answer is a round angle: axes of standard deviation
# 2 and 0.7, the long one at 30 degrees.
PCA_STD = (2.0, 0.7)
PCA_ANGLE_DEG = 30.0
ANGLES_DEG = tuple(range(0, 180, 5))


@functools.lru_cache(maxsize=8)
def pca_data(n_samples=80, random_state=0):
    r"""2-D Gaussian sample whose *sample* covariance is exactly
    :math:`S = R\,\mathrm{diag}(2^2, 0.7^2)\,R^\top` (R the rotation by 30 degrees): a whitened
    sample, recoloured. Returns the (read-only) data."""
    check_positive(n_samples, "n_samples", integer=True)
    if n_samples < 3:
        raise ValueError(f"n_samples must be at least 3, got {n_samples}.")
    E = check_random_state(random_state).standard_normal((n_samples, 2))
    E -= E.mean(axis=0)
    # whiten: E^T E / (N-1) = I, then scale the axes and rotate
    w, V = np.linalg.eigh(E.T @ E / (n_samples - 1))
    E = E @ V / np.sqrt(w)
    a = np.deg2rad(PCA_ANGLE_DEG)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return frozen(E * PCA_STD @ R.T)


def _direction(angle_deg):
    a = np.deg2rad(angle_deg)
    return np.array([np.cos(a), np.sin(a)])


@functools.lru_cache(maxsize=64)
def pca_state(angle, n_samples, random_state):
    """What the explorer shows at one angle: ``(X, mean, S, u, proj, variance, error,
    principal, grid, curve)`` (projections, the two readouts, the principal angle, and the
    variance over a grid of angles)."""
    check_positive(angle, "angle", allow_zero=True)
    X = pca_data(n_samples, random_state)
    S = np.cov(X, rowvar=False)  # centred data: S = X^T X / (N - 1)
    u = _direction(angle)
    variance = u @ S @ u
    error = np.trace(S) - variance
    components, _, mean = principal_components(X, 1)
    principal = np.rad2deg(np.arctan2(components[0, 1], components[0, 0])) % 180
    proj = mean + np.outer((X - mean) @ u, u)  # u u^T (x - mean) + mean
    grid = np.arange(0, 180.5, 1.0)
    U = np.stack([np.cos(np.deg2rad(grid)), np.sin(np.deg2rad(grid))], axis=1)
    curve = np.einsum("ij,jk,ik->i", U, S, U)  # u^T S u for every angle
    return X, mean, S, u, frozen(proj), variance, error, principal, grid, frozen(curve)


def _readout(variance, error, S):
    return f"variance {variance:.3f} + error {error:.3f} = tr S {np.trace(S):.3f}"


def draw_pca(*, angle=0.0, n_samples=80, random_state=0):
    r"""Project the data on the direction at ``angle`` degrees; plot variance against angle.

    Left: the data, the line spanned by :math:`u`, each point's projection and its residual.
    Right: captured variance :math:`u^\top S u` and reconstruction error
    :math:`\operatorname{tr}S - u^\top S u` for every angle, the current angle marked, the
    principal direction (from :func:`mlnotes.pca.principal_components`) dashed.

    Returns
    -------
    matplotlib.figure.Figure
        The right panel's title (gid ``"readout"``) gives both numbers; the variance curve has gid
        ``"variance-curve"``, the principal angle's line gid ``"principal"``.
    """
    return PcaFigure(angle=angle, n_samples=n_samples, random_state=random_state).fig


class PcaFigure(LiveFigure):
    """:func:`draw_pca`'s figure; the angle changes the left panel's points, residuals, line
    and title, and the right panel's two marks and readout."""

    size = (9.0, 3.6)

    def build(self, *, angle, n_samples, random_state):
        X, mean, S, u, proj, variance, error, principal, grid, curve = pca_state(
            angle, n_samples, random_state)
        fig, changing = self.fig, self.changing
        ax, ax_curve = fig.subplots(1, 2, gridspec_kw={"width_ratios": (1, 1.25)})
        self._residuals = changing(ax.add_collection(
            LineCollection(np.stack([X, proj], axis=1), colors="0.75", lw=0.6, zorder=1)))
        self._points = changing(ax.scatter(*X.T, s=10, c=(X - mean) @ u, cmap=COORD_CMAP,
                                           zorder=2))
        self._proj = changing(ax.scatter(*proj.T, s=6, color="k", zorder=3))
        reach = 3.2 * PCA_STD[0]
        self._line, = ax.plot(*(mean + np.outer([-reach, reach], u)).T, color="C3", lw=1.5)
        changing(self._line)
        ax.set(xlim=(-reach, reach), ylim=(-reach * 0.75, reach * 0.75), aspect="equal")
        ax.set_xticks([])
        ax.set_yticks([])
        self._title = changing(ax.set_title(""))

        ax_curve.plot(grid, curve, color="C0", gid="variance-curve")
        ax_curve.plot(grid, np.trace(S) - curve, color="C1")
        ax_curve.axvline(principal, color="k", ls="--", lw=1, gid="principal")
        # labels on the curves themselves (a legend costs a third of the drawing time)
        top = int(np.argmax(curve))
        ax_curve.text(grid[top] + 3, curve[top], r"variance $u^\top S u$", color="C0",
                      fontsize=8, va="top")
        ax_curve.text(grid[top] + 3, np.trace(S) - curve[top], "reconstruction error",
                      color="C1", fontsize=8, va="bottom")
        ax_curve.text(principal - 2, 0.02 * np.trace(S), "first principal axis", fontsize=8,
                      rotation=90, ha="right", va="bottom")
        # the marks over the curves' labels, which they pass
        self._marks, = ax_curve.plot([angle % 180] * 2, [variance, error], "o", color="C3",
                                     zorder=4)
        changing(self._marks)
        ax_curve.set(xlabel="angle of b (degrees)", xlim=(0, 180), ylim=(0, 1.05 * np.trace(S)),
                     xticks=(0, 45, 90, 135, 180))
        ax_curve.yaxis.set_major_locator(MaxNLocator(4))
        self._readout = changing(ax_curve.set_title("", fontsize=10, gid="readout"))
        for spine in (*ax.spines.values(), *ax_curve.spines.values()):
            changing(spine)  # over the direction's line and the marks, which reach the frames
        fig.subplots_adjust(left=0.02, right=0.98, bottom=0.14, top=0.9, wspace=0.12)
        self.update(angle=angle, n_samples=n_samples, random_state=random_state)

    def update(self, *, angle, n_samples, random_state):
        X, mean, S, u, proj, variance, error, principal, grid, curve = pca_state(
            angle, n_samples, random_state)
        self._residuals.set_segments(np.stack([X, proj], axis=1))
        set_points(self._points, X, (X - mean) @ u)
        set_points(self._proj, proj)
        reach = 3.2 * PCA_STD[0]
        self._line.set_data(*(mean + np.outer([-reach, reach], u)).T)
        self._title.set_text(f"direction b at {angle:g}°")
        self._marks.set_data([angle % 180] * 2, [variance, error])
        self._readout.set_text(_readout(variance, error, S))
        return True


def scene_pca(*, angle=0.0, n_samples=80, random_state=0):
    """:func:`draw_pca`'s panels as data for the static book (:mod:`._static`)."""
    X, mean, S, u, proj, variance, error, principal, grid, curve = pca_state(
        angle, n_samples, random_state)
    n = len(X)
    reach = 3.2 * PCA_STD[0]
    ends = mean + np.outer([-reach, reach], u)
    top, trace = int(np.argmax(curve)), np.trace(S)
    data = st.panel(f"direction b at {angle:g}°", [
        st.segments(np.vstack([X, proj]), np.column_stack([np.arange(n), np.arange(n) + n]),
                    color="muted", width=0.6),
        st.points(X, (X - mean) @ u, size=2.2),
        st.points(proj, size=1.4),
        st.line(ends[:, 0], ends[:, 1], color="C3"),
    ], xlim=(-reach, reach), ylim=(-0.75 * reach, 0.75 * reach), equal=True, axes=True)
    chart = st.panel(_readout(variance, error, S), [
        st.line(grid, curve, color="C0"),
        st.line(grid, trace - curve, color="C1"),
        st.rule("x", principal),
        st.text(grid[top] + 3, curve[top], "variance uᵀSu", color="C0", baseline="top"),
        st.text(grid[top] + 3, trace - curve[top], "reconstruction error", color="C1",
                baseline="bottom"),
        st.dot(angle % 180, variance), st.dot(angle % 180, error),
    ], xlim=(0, 180), ylim=(0, 1.05 * trace), xticks=(0, 45, 90, 135, 180), yticks="auto",
        xlabel="angle of b (degrees)")
    return st.scene("", [data, chart])


def pca_explorer(**defaults):
    """Explorer over :func:`draw_pca`: a slider for the direction's angle (0-175 degrees)."""
    return Explorer(draw_pca, [Slider("angle", ANGLES_DEG, "angle of b (°)")], defaults,
                    scene=scene_pca, live=PcaFigure)
