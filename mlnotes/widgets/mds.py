r"""Explorers for MDS: classical MDS's eigenvalue spectrum, and SMACOF replayed step by step.

Both work on the same dissimilarities between points of the S-curve: Euclidean (classical MDS
recovers the data up to rotation: three positive eigenvalues, the rest zero), city-block (not
Euclidean: negative eigenvalues appear) and geodesic (shortest paths in a kNN graph).
"""

import functools
import warnings

import numpy as np
from matplotlib.ticker import NullFormatter
from scipy.spatial.distance import cdist

from .._validation import NEGATIVE_EIGENVALUE_RTOL, check_random_state
from ..datasets import make_s_curve
from ..graphs import geodesic_distances, knn_graph, pairwise_distances
from ..mds import classical_mds
from ..metrics import raw_stress
from ..plotting import scatter
from ..smacof import guttman_transform
from . import _static as st
from ._core import (
    Choice,
    Explorer,
    LiveFigure,
    ReplayExplorer,
    fit_view,
    frozen,
    new_figure,
    report_progress,
    set_points,
    snapshot_index,
    static_panel,
)
from ._stream import TITLE_Y, by_gid, moved, streamed_run

DISSIMILARITIES = ("euclidean", "cityblock", "geodesic")
GEODESIC_NEIGHBOURS = 10
INITS = ("random", "classical")
SMACOF_TOL = 1e-4  # stop when one Guttman step lowers the stress by less than this fraction
VIEW = (12, -72)
ZOOM_3D = 1.35
DATA_PANEL_WIDTH = 3.2  # inches of a 10-inch figure: the first of three panels


@functools.lru_cache(maxsize=8)
def mds_dissimilarities(dissimilarity, n_samples, random_state):
    """``(X, t, Delta)``: S-curve points, ground truth and their dissimilarities (read-only)."""
    X, t = make_s_curve(n_samples, random_state=random_state)
    if dissimilarity == "euclidean":
        Delta = pairwise_distances(X)
    elif dissimilarity == "cityblock":
        Delta = cdist(X, X, metric="cityblock")
    elif dissimilarity == "geodesic":
        Delta = geodesic_distances(knn_graph(X, GEODESIC_NEIGHBOURS))
    else:
        raise ValueError(
            f"dissimilarity must be one of {', '.join(DISSIMILARITIES)}, got {dissimilarity!r}."
        )
    return frozen(X, t, Delta)


@functools.lru_cache(maxsize=8)
def mds_solution(dissimilarity, n_samples, random_state):
    """Classical MDS in 2-D and all eigenvalues of :math:`K` (the non-Euclidean warning is
    shown by the figure instead)."""
    _, _, Delta = mds_dissimilarities(dissimilarity, n_samples, random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        Z, eigenvalues = classical_mds(Delta, 2)
    return frozen(Z, eigenvalues)


def _paint_data(fig, n_samples, random_state):
    X, t, _ = mds_dissimilarities("euclidean", n_samples, random_state)
    ax = fig.add_axes((0.0, 0.02, 1.0, 0.8), projection="3d")
    ax.view_init(*VIEW)
    ax.set_box_aspect(None, zoom=ZOOM_3D)
    scatter(ax, X, t, s=4, title="data (S-curve)")
    ax.set_axis_off()


def draw_mds(*, dissimilarity="euclidean", n_samples=300, random_state=0):
    r"""Classical MDS of S-curve dissimilarities: the embedding and the whole spectrum of
    :math:`K = -\tfrac12 C \Delta^{(2)} C`.

    Parameters
    ----------
    dissimilarity : {"euclidean", "cityblock", "geodesic"}

    Returns
    -------
    matplotlib.figure.Figure
        Panels: the data, the 2-D embedding (gid ``"embedding"``), and the eigenvalues in
        decreasing order divided by the largest: significantly negative ones (below
        :math:`-10^{-5}\lambda_1`) in red (gid ``"negative"``), the others in blue (gid
        ``"nonnegative"``). The spectrum's title counts the negative ones.
    """
    _, t, _ = mds_dissimilarities(dissimilarity, n_samples, random_state)
    Z, lam, rel, negative, index, title = _mds_parts(dissimilarity, n_samples, random_state)

    fig = new_figure(10.0, 3.3)
    static_panel(fig, _paint_data, (n_samples, random_state), width=DATA_PANEL_WIDTH)
    emb = fig.add_subplot(1, 3, 2)
    scatter(emb, Z, t, s=4, gid="embedding", title="classical MDS")
    emb.set_xticks([])
    emb.set_yticks([])
    spec = fig.add_subplot(1, 3, 3)
    spec.vlines(index[~negative], 0, rel[~negative], color="C0", lw=1.5, gid="nonnegative")
    spec.vlines(index[negative], 0, rel[negative], color="C3", lw=1.5, gid="negative")
    spec.axhline(0, color="k", lw=0.5)
    spec.set_title(title, fontsize=10, gid="spectrum-summary", y=TITLE_Y)
    spec.set(xlabel="index (decreasing)", ylabel="λ / λ1", xlim=(0, len(lam) + 1))
    spec.locator_params(axis="y", nbins=4)
    fig.suptitle(f"{dissimilarity} dissimilarities", fontsize=10)
    fig.subplots_adjust(left=0.0, right=0.98, bottom=0.15, top=0.82, wspace=0.25)
    return fig


def _mds_parts(dissimilarity, n_samples, random_state):
    """What :func:`draw_mds` shows of a setting: the embedding, the eigenvalues (all, over the
    first), which are negative, their indices, and the spectrum's title."""
    Z, lam = mds_solution(dissimilarity, n_samples, random_state)
    rel = lam / lam[0]
    negative = rel < -NEGATIVE_EIGENVALUE_RTOL
    share = np.abs(lam[negative]).sum() / np.abs(lam).sum()
    title = f"{int(negative.sum())} negative eigenvalues ({100 * share:.1f}% of Σ|λ|)"
    return Z, lam, rel, negative, np.arange(1, len(lam) + 1), title


class MdsFigure(LiveFigure):
    """:func:`draw_mds`'s figure, kept: a dissimilarity changes the embedding, the titles and
    the spectrum, whose axes (range and ticks too) are drawn whole each time."""

    def build(self, *, dissimilarity, n_samples, random_state):
        self.fig = draw_mds(dissimilarity=dissimilarity, n_samples=n_samples,
                            random_state=random_state)
        self._emb, self._spec = self.fig.axes
        self._stems = {gid: next(c for c in self._spec.collections if c.get_gid() == gid)
                       for gid in ("nonnegative", "negative")}
        self._suptitle = self.changing(next(t for t in self.fig.texts
                                            if t.get_text() == self.fig.get_suptitle()))
        self.changing(self._emb.collections[0])
        self.changing(self._spec)

    def update(self, *, dissimilarity, n_samples, random_state):
        _, t, _ = mds_dissimilarities(dissimilarity, n_samples, random_state)
        Z, _, rel, negative, index, title = _mds_parts(dissimilarity, n_samples, random_state)
        set_points(self._emb.collections[0], Z, t)
        fit_view(self._emb, Z)
        for gid, where in (("nonnegative", ~negative), ("negative", negative)):
            self._stems[gid].set_segments([((i, 0.0), (i, r))
                                           for i, r in zip(index[where], rel[where], strict=True)])
        spec = self._spec
        spec.ignore_existing_data_limits = True
        spec.update_datalim(np.column_stack([np.r_[index, index], np.r_[rel, 0 * rel]]))
        spec.autoscale_view(scalex=False)
        spec.title.set_text(title)
        self._suptitle.set_text(f"{dissimilarity} dissimilarities")
        return True


def data_panel(X, t, title):
    """The 3-D data set as the static book draws it: projected in the figures' fixed view."""
    from .neighbourhood import project

    return st.panel(title, [st.points(project(X, VIEW), t, size=1.6)], equal=True, axes=False)


def scene_mds(*, dissimilarity="euclidean", n_samples=300, random_state=0):
    """:func:`draw_mds`'s panels as data for the static book (:mod:`._static`)."""
    X, t, _ = mds_dissimilarities(dissimilarity, n_samples, random_state)
    Z, lam = mds_solution(dissimilarity, n_samples, random_state)
    rel = lam / lam[0]
    negative = rel < -NEGATIVE_EIGENVALUE_RTOL
    index = np.arange(1, len(lam) + 1)
    share = np.abs(lam[negative]).sum() / np.abs(lam).sum()
    spectrum = st.panel(
        f"{int(negative.sum())} negative eigenvalues ({100 * share:.1f}% of Σ|λ|)",
        [st.rule("y", 0, dash=False, width=0.5),
         st.stems(index[~negative], rel[~negative], color="C0"),
         st.stems(index[negative], rel[negative], color="C3")],
        xlim=(0, len(lam) + 1), ylim=(min(rel.min(), 0) * 1.05 - 0.02, 1.05), xticks="auto",
        yticks="auto", xlabel="index (decreasing)", ylabel="λ / λ1")
    return st.scene(f"{dissimilarity} dissimilarities", [
        data_panel(X, t, "data (S-curve)"),
        st.panel("classical MDS", [st.points(Z, t, size=1.6)], equal=True),
        spectrum])


def mds_explorer(**defaults):
    """Explorer over :func:`draw_mds`: the dissimilarity."""
    return Explorer(draw_mds, [Choice("dissimilarity", DISSIMILARITIES, "dissimilarity")],
                    defaults, scene=scene_mds, live=MdsFigure)


# --- SMACOF -------------------------------------------------------------------------------------
@streamed_run(maxsize=16)
def smacof_run(dissimilarity, init, n_samples, max_iter, random_state):
    """Iterate the Guttman transform from the start, keeping every configuration.

    Returns ``(Z_history, stress)``: arrays of shape (n_iter + 1, N, 2) and (n_iter + 1,), the
    start first. Stops when the stress falls by less than :data:`SMACOF_TOL` (relative).
    ``smacof_run.stream(...)`` steps the run, giving the configurations so far after the start
    and after each iteration (:func:`~mlnotes.widgets._stream.streamed_run`).
    """
    _, _, Delta = mds_dissimilarities(dissimilarity, n_samples, random_state)
    if init == "random":
        Z = check_random_state(random_state).uniform(size=(n_samples, 2))
    elif init == "classical":
        Z = np.array(mds_solution(dissimilarity, n_samples, random_state)[0])
    else:
        raise ValueError(f"init must be one of {', '.join(INITS)}, got {init!r}.")
    history, stress = [Z], [raw_stress(Delta, Z)]
    yield frozen(np.array(history), np.array(stress))
    for it in range(max_iter):
        Z = guttman_transform(Delta, Z)
        history.append(Z)
        stress.append(raw_stress(Delta, Z))
        report_progress(it + 1, max_iter)
        if stress[-2] - stress[-1] < SMACOF_TOL * stress[-2]:
            break
        yield frozen(np.array(history), np.array(stress))
    return frozen(np.array(history), np.array(stress))


def smacof_frames(*, dissimilarity="euclidean", init="random", n_samples=200, max_iter=100,
                  random_state=0, frame=-1):
    """Number of configurations (start + iterations) of the run :func:`draw_smacof` shows."""
    return len(smacof_run(dissimilarity, init, n_samples, max_iter, random_state)[1])


def smacof_stream(*, dissimilarity="euclidean", init="random", n_samples=200, max_iter=100,
                  random_state=0, frame=-1):
    """The run of :func:`draw_smacof` step by step: the start, then one step per iteration
    (:meth:`~mlnotes.widgets._stream.StreamedRun.stream`)."""
    return smacof_run.stream(dissimilarity, init, n_samples, max_iter, random_state)


def draw_smacof(*, dissimilarity="euclidean", init="random", frame=-1, n_samples=200,
                max_iter=100, random_state=0):
    r"""One iterate of SMACOF (metric MDS) and the stress curve of the whole run.

    Parameters
    ----------
    dissimilarity : {"euclidean", "cityblock", "geodesic"}
    init : {"random", "classical"}
        Start from uniform random points or from classical MDS.
    frame : int
        Which configuration: 0 the start, then one per Guttman transform; -1 the last.

    Returns
    -------
    matplotlib.figure.Figure
        Panels: the configuration (gid ``"configuration"``) and the raw stress
        :math:`\sum_{i<j} (\delta_{ij} - d_{ij})^2` per iteration (gid ``"stress-curve"``; log
        scale), the current one marked (gid ``"stress-now"``). The majorisation argument makes
        the curve non-increasing.
    """
    _, t, _ = mds_dissimilarities(dissimilarity, n_samples, random_state)
    history, stress = smacof_run(dissimilarity, init, n_samples, max_iter, random_state)
    n = len(stress)
    frame = snapshot_index(frame, n)
    fig = new_figure(10.0, 3.3)
    static_panel(fig, _paint_data, (n_samples, random_state), width=DATA_PANEL_WIDTH)
    conf = fig.add_subplot(1, 3, 2)
    scatter(conf, history[frame], t, s=5, gid="configuration", title=f"iteration {frame}")
    conf.set_xticks([])
    conf.set_yticks([])
    curve = fig.add_subplot(1, 3, 3)
    curve.plot(np.arange(n), stress, color="C0", gid="stress-curve")
    curve.plot(frame, stress[frame], "o", color="C3", gid="stress-now")
    curve.set(yscale="log", xlabel="iteration", xlim=(0, max(n - 1, 1)))
    curve.yaxis.set_minor_formatter(NullFormatter())
    curve.set_title(f"raw stress {stress[frame]:.4g}", fontsize=10, y=TITLE_Y)
    fig.suptitle(f"SMACOF on {dissimilarity} dissimilarities, {init} start", fontsize=10)
    fig.subplots_adjust(left=0.0, right=0.98, bottom=0.15, top=0.82, wspace=0.2)
    return fig


def redraw_smacof(fig, *, dissimilarity="euclidean", init="random", frame=-1, n_samples=200,
                  max_iter=100, random_state=0):
    """Show configuration ``frame`` in a figure :func:`draw_smacof` drew for a run on the same
    points (this run or another, ended or under way): the configuration, the stress curve, its
    mark and range, and the titles updated (the picture :func:`draw_smacof` draws, without
    building the figure)."""
    history, stress = smacof_run(dissimilarity, init, n_samples, max_iter, random_state)
    n = len(stress)
    frame = snapshot_index(frame, n)
    conf, curve = fig.axes
    moved(conf, "configuration", history[frame])
    conf.set_title(f"iteration {frame}")
    by_gid(curve, "stress-curve").set_data(np.arange(n), stress)
    by_gid(curve, "stress-now").set_data([frame], [stress[frame]])
    curve.relim()
    curve.set_xlim(0, max(n - 1, 1))
    curve.autoscale_view(scalex=False)
    curve.set_title(f"raw stress {stress[frame]:.4g}", fontsize=10, y=TITLE_Y)
    fig.suptitle(f"SMACOF on {dissimilarity} dissimilarities, {init} start", fontsize=10)


def _same_points(*, n_samples=200, random_state=0, **run):
    """Runs whose configurations :func:`redraw_smacof` shows in one another's figure: one set of
    points (every dissimilarity and start)."""
    return n_samples, random_state


class SmacofFigure(LiveFigure):
    """:func:`draw_smacof`'s figure, kept for every run on its points: a snapshot (of this run
    or another, ended or under way) changes the configuration, its title, the stress panel
    (drawn whole: a new run changes its range) and the suptitle (:func:`redraw_smacof`); the
    data and the configuration's frame stay."""

    def build(self, **params):
        self.fig = draw_smacof(**params)
        conf, curve = self.fig.axes
        self.changing(by_gid(conf, "configuration"))
        self.changing(conf.title)
        self.changing(self.hold_labels(curve))
        self.changing(next(t for t in self.fig.texts if t.get_text() == self.fig.get_suptitle()))

    def update(self, **params):
        redraw_smacof(self.fig, **params)
        self.fig.axes[0].apply_aspect()  # (its equal aspect, which drawing it would apply)
        return True


def scene_smacof(*, dissimilarity="euclidean", init="random", frame=-1, n_samples=200,
                 max_iter=100, random_state=0):
    """:func:`draw_smacof`'s panels as data for the static book (:mod:`._static`)."""
    X, t, _ = mds_dissimilarities(dissimilarity, n_samples, random_state)
    history, stress = smacof_run(dissimilarity, init, n_samples, max_iter, random_state)
    n = len(stress)
    frame %= n
    curve = st.panel(f"raw stress {stress[frame]:.4g}", [
        st.line(np.arange(n), stress, log=True), st.dot(frame, stress[frame])],
        xlim=(0, max(n - 1, 1)), xticks="auto", yticks="auto", ylog=True, xlabel="iteration")
    return st.scene(f"SMACOF on {dissimilarity} dissimilarities, {init} start", [
        data_panel(X, t, "data (S-curve)"),
        st.panel(f"iteration {frame}", [st.points(history[frame], t, size=1.8)], equal=True),
        curve])


def smacof_explorer(**defaults):
    """Explorer over :func:`draw_smacof`: dissimilarity, start, and a replay of the iterations."""
    controls = [Choice("dissimilarity", DISSIMILARITIES, "dissimilarity"),
                Choice("init", INITS, "start")]
    return ReplayExplorer(draw_smacof, controls, defaults, n_frames=smacof_frames,
                          stream=smacof_stream, redraw=redraw_smacof, figure_of=_same_points,
                          scene=scene_smacof, live=SmacofFigure)
