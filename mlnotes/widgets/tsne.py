r"""t-SNE explorer: the cases of "How to Use t-SNE Effectively", replayed from a recorded run.

One run of :class:`mlnotes.TSNE` per (case, perplexity, learning rate, exaggeration) records the
map every ``record_every`` iterations; the explorer replays the snapshots beside the curve of
:math:`\mathrm{KL}(P\,\|\,Q)` (always with the true :math:`P`, so the early-exaggeration phase
shows as the stretch where the map is not yet fitting it).
"""

import contextlib
import functools
import warnings

import numpy as np

from ..datasets import DISTILL_CASES, make_distill_case
from ..graphs import squared_distances
from ..plotting import scatter
from ..sne import (
    TSNE,
    conditional_affinities,
    initial_embedding,
    joint_affinities,
    tsne_objective_gradient,
)
from . import _static as st
from ._core import (
    Choice,
    LiveFigure,
    ReplayExplorer,
    Slider,
    draw_defaults,
    frozen,
    new_figure,
    report_progress,
    snapshot_index,
    static_panel,
)
from ._stream import TITLE_Y, by_gid, callback_steps, is_partial, moved, streamed_run

PERPLEXITIES = (2.0, 5.0, 10.0, 30.0, 50.0, 100.0)
LEARNING_RATES = (1.0, 10.0, 50.0, 200.0, 1000.0)
EXAGGERATIONS = (1.0, 4.0, 12.0)
RECORD_EVERY = 10
DATA_PANEL_WIDTH = 3.3  # inches of the 10-inch figure: the first of three panels
DEFAULT_VIEW_3D = (30, -60)  # matplotlib's default 3-D view, which the data panel uses


@functools.lru_cache(maxsize=16)
def distill_data(case, n_samples, random_state):
    """The data of a distill case and its joint affinities' ingredients (read-only)."""
    X, t = make_distill_case(case, n_samples, random_state=random_state)
    return frozen(X, t)


@streamed_run(maxsize=32)
def tsne_run(case, perplexity, learning_rate, exaggeration, n_samples, max_iter, random_state):
    """Run t-SNE once and keep the snapshots, each with its KL under the true P.

    Returns ``(iterations, embeddings, kl, exaggeration)`` as read-only arrays of length
    ``n_frames``; progress goes to :func:`~mlnotes.widgets._core.report_progress`.
    ``tsne_run.stream(...)`` steps the run, giving the snapshots so far: the start, then one
    step per snapshot (:func:`~mlnotes.widgets._stream.streamed_run`).
    """
    X, _ = distill_data(case, n_samples, random_state)
    P = joint_affinities(conditional_affinities(squared_distances(X), perplexity)[0])

    def fit(callback):
        model = TSNE(
            perplexity=perplexity, learning_rate=learning_rate, early_exaggeration=exaggeration,
            max_iter=max_iter, random_state=random_state, record_every=RECORD_EVERY,
            callback=lambda it, Z, kl: it % RECORD_EVERY == 0 and callback(it, Z.copy()),
        )
        model.fit(X)
        return model.history_

    # the start, as the optimiser's first snapshot (the same map: the same function and seed)
    Z0 = initial_embedding(X, 2, init=TSNE().init, random_state=random_state)
    n_explore = min(TSNE().exaggeration_iter, max_iter) if exaggeration != 1 else 0
    so_far = [(0, Z0, tsne_objective_gradient(Z0, P)[0], exaggeration if n_explore else 1.0)]
    yield _snapshots(so_far)
    with contextlib.closing(callback_steps(fit)) as steps:
        while True:
            with warnings.catch_warnings():  # a run that does not move shows so in its KL curve
                warnings.simplefilter("ignore", RuntimeWarning)
                try:
                    it, Z = next(steps)
                except StopIteration as stop:
                    h = stop.value
                    break
            report_progress(it, max_iter)
            so_far.append((it, Z, tsne_objective_gradient(Z, P)[0],
                           exaggeration if it < n_explore else 1.0))
            yield _snapshots(so_far)
    kl = np.array([tsne_objective_gradient(Z, P)[0] for Z in h.embeddings])
    return frozen(np.array(h.iterations), np.array(h.embeddings), kl, np.array(h.exaggeration))


def _snapshots(so_far):
    """``(iterations, embeddings, kl, exaggeration)`` of a run's snapshots so far."""
    return frozen(*(np.array(column) for column in zip(*so_far, strict=True)))


def _paint_case(fig, case, n_samples, random_state):
    """The data of a case (first two or three coordinates), filling ``fig``."""
    X, t = distill_data(case, n_samples, random_state)
    ax = fig.add_axes((0.03, 0.04, 0.94, 0.74), **({"projection": "3d"} if X.shape[1] >= 3 else {}))
    scatter(ax, X[:, :3], t, s=6, title=f"data ({X.shape[1]}-D)")
    ax.set_xticks([])
    ax.set_yticks([])
    if ax.name == "3d":
        ax.set_axis_off()


def _check_case(case):
    if case not in DISTILL_CASES:
        raise ValueError(f"unknown case {case!r}; choose one of {', '.join(DISTILL_CASES)}.")


def tsne_frames(*, case="two_clusters", perplexity=30.0, learning_rate=200.0, exaggeration=12.0,
                n_samples=200, max_iter=500, random_state=0, frame=-1):
    """Number of snapshots recorded by the run of :func:`draw_tsne` with these parameters."""
    _check_case(case)
    return len(tsne_run(case, float(perplexity), float(learning_rate), float(exaggeration),
                        n_samples, max_iter, random_state)[0])


def tsne_stream(*, case="two_clusters", perplexity=30.0, learning_rate=200.0, exaggeration=12.0,
                n_samples=200, max_iter=500, random_state=0, frame=-1):
    """The run of :func:`draw_tsne` step by step: the start, then one step per snapshot
    (:meth:`~mlnotes.widgets._stream.StreamedRun.stream`)."""
    _check_case(case)
    return tsne_run.stream(case, float(perplexity), float(learning_rate), float(exaggeration),
                           n_samples, max_iter, random_state)


def draw_tsne(*, case="two_clusters", perplexity=30.0, learning_rate=200.0, exaggeration=12.0,
              frame=-1, n_samples=200, max_iter=500, random_state=0):
    r"""One snapshot of a t-SNE run on a distill case, with the KL curve.

    Parameters
    ----------
    case : str
        A key of :data:`mlnotes.datasets.DISTILL_CASES`.
    perplexity, learning_rate, exaggeration : float
        t-SNE's :math:`Perp`, step size :math:`\eta` and early-exaggeration factor
        :math:`\alpha` (for the first 250 iterations).
    frame : int
        Index of the snapshot (every 10 iterations, then the last); -1 for the final map.

    Returns
    -------
    matplotlib.figure.Figure
        Panels: the data (first two or three coordinates), the map at the snapshot (gid
        ``"map"``), and the KL divergence of every snapshot (gid ``"kl-curve"``) with the current
        one marked (gid ``"kl-now"``).
    """
    _check_case(case)
    _, t = distill_data(case, n_samples, random_state)
    iterations, embeddings, kl, alpha = tsne_run(
        case, float(perplexity), float(learning_rate), float(exaggeration), n_samples, max_iter,
        random_state)
    n = len(iterations)
    frame = snapshot_index(frame, n)

    fig = new_figure(10.0, 3.3)
    static_panel(fig, _paint_case, (case, n_samples, random_state), width=DATA_PANEL_WIDTH)
    map_ax, kl_ax = fig.add_subplot(1, 3, 2), fig.add_subplot(1, 3, 3)
    scatter(map_ax, embeddings[frame], t, s=6, gid="map",
            title=_map_title(iterations[frame], embeddings[frame], alpha[frame]))
    map_ax.set_xticks([])
    map_ax.set_yticks([])
    kl_ax.plot(iterations, kl, color="C0", gid="kl-curve")
    kl_ax.plot(iterations[frame], kl[frame], "o", color="C3", gid="kl-now")
    _exaggerated(kl_ax, iterations, alpha, exaggeration)
    kl_ax.set(xlabel="iteration", xlim=_kl_xlim(iterations, max_iter))
    kl_ax.set_title(f"KL(P || Q) = {kl[frame]:.3f}", fontsize=10, y=TITLE_Y)
    kl_ax.locator_params(nbins=4)
    fig.suptitle(_suptitle(case, perplexity, learning_rate, exaggeration), fontsize=10)
    fig.subplots_adjust(left=0.01, right=0.97, bottom=0.15, top=0.82, wspace=0.2)
    return fig


def _exaggerated(kl_ax, iterations, alpha, exaggeration):
    """Shade the iterations of early exaggeration (if any) on the KL panel."""
    if exaggeration > 1:
        kl_ax.axvspan(0, iterations[alpha > 1].max(initial=0), color="0.9", lw=0,
                      gid="exaggerated")


def _kl_xlim(iterations, max_iter):
    """The KL panel's iterations: a run under way (the explorer's live pictures) has its axis
    set for the whole run."""
    return (0, max_iter if is_partial() else iterations[-1])


def redraw_tsne(fig, *, case="two_clusters", perplexity=30.0, learning_rate=200.0,
                exaggeration=12.0, frame=-1, n_samples=200, max_iter=500, random_state=0):
    """Show snapshot ``frame`` in a figure :func:`draw_tsne` drew for a run on the same case
    (this run or another, ended or under way): the map, the KL curve, its mark, its shading
    and range, and the titles updated (the picture :func:`draw_tsne` draws, without building
    the figure)."""
    iterations, embeddings, kl, alpha = tsne_run(
        case, float(perplexity), float(learning_rate), float(exaggeration), n_samples, max_iter,
        random_state)
    n = len(iterations)
    frame = snapshot_index(frame, n)
    map_ax, kl_ax = fig.axes
    moved(map_ax, "map", embeddings[frame])
    map_ax.set_title(_map_title(iterations[frame], embeddings[frame], alpha[frame]))
    by_gid(kl_ax, "kl-curve").set_data(iterations, kl)
    by_gid(kl_ax, "kl-now").set_data([iterations[frame]], [kl[frame]])
    for span in [p for p in kl_ax.patches if p.get_gid() == "exaggerated"]:
        span.remove()
    _exaggerated(kl_ax, iterations, alpha, exaggeration)
    kl_ax.relim()
    kl_ax.set_xlim(_kl_xlim(iterations, max_iter))
    kl_ax.autoscale_view(scalex=False)
    kl_ax.set_title(f"KL(P || Q) = {kl[frame]:.3f}", fontsize=10, y=TITLE_Y)
    fig.suptitle(_suptitle(case, perplexity, learning_rate, exaggeration), fontsize=10)


class TsneFigure(LiveFigure):
    """:func:`draw_tsne`'s figure, kept per case: a snapshot (of any run on the case, ended or
    under way) changes the map, its title, the KL panel (drawn whole: a run changes its range
    and shading) and the suptitle (:func:`redraw_tsne`); the data and the map's frame stay."""

    kept_per = ("case",)

    def build(self, **params):
        self.fig = draw_tsne(**params)
        map_ax, kl_ax = self.fig.axes
        for artist in (by_gid(map_ax, "map"), map_ax.title, self.hold_labels(kl_ax),
                       next(t for t in self.fig.texts if t.get_text() == self.fig.get_suptitle())):
            self.changing(artist)

    def update(self, **params):
        redraw_tsne(self.fig, **params)
        self.fig.axes[0].apply_aspect()  # (its equal aspect, which drawing it would apply)
        return True


def _same_case(*, case="two_clusters", n_samples=200, max_iter=500, random_state=0,
               **run):
    """Runs whose snapshots :func:`redraw_tsne` shows in one another's figure: one case."""
    return case, n_samples, max_iter, random_state


def map_width(Z):
    """The larger side of the map's bounding box: the panel rescales to the map, so the title
    says how large it is (a map that barely left its tiny start looks as large as any other)."""
    return float(np.ptp(Z, axis=0).max())


def _map_title(iteration, Z, alpha):
    return (f"iteration {iteration}" + (" (exaggerated)" if alpha > 1 else "")
            + f", width {map_width(Z):.2g}")


def _suptitle(case, perplexity, learning_rate, exaggeration):
    return (f"{case}: perplexity {perplexity:g}, learning rate {learning_rate:g}, "
            f"exaggeration {exaggeration:g}")


def scene_tsne(*, case="two_clusters", perplexity=30.0, learning_rate=200.0, exaggeration=12.0,
               frame=-1, n_samples=200, max_iter=500, random_state=0):
    """:func:`draw_tsne`'s panels as data for the static book (:mod:`._static`)."""
    from .neighbourhood import project

    _check_case(case)
    X, t = distill_data(case, n_samples, random_state)
    iterations, embeddings, kl, alpha = tsne_run(
        case, float(perplexity), float(learning_rate), float(exaggeration), n_samples, max_iter,
        random_state)
    frame %= len(iterations)
    shown = project(X[:, :3], DEFAULT_VIEW_3D) if X.shape[1] >= 3 else X
    curve = [st.line(iterations, kl), st.dot(iterations[frame], kl[frame])]
    if exaggeration > 1:
        curve.insert(0, st.span(0, iterations[alpha > 1].max(initial=0)))
    title = _map_title(iterations[frame], embeddings[frame], alpha[frame])
    return st.scene(_suptitle(case, perplexity, learning_rate, exaggeration), [
        st.panel(f"data ({X.shape[1]}-D)", [st.points(shown, t, size=2)], equal=True,
                 axes=X.shape[1] < 3),
        st.panel(title, [st.points(embeddings[frame], t, size=2)], equal=True),
        st.panel(f"KL(P || Q) = {kl[frame]:.3f}", curve, xlim=(0, iterations[-1]),
                 xticks="auto", yticks="auto", xlabel="iteration"),
    ])


def tsne_explorer(**defaults):
    """Explorer over :func:`draw_tsne`: case, perplexity, learning rate, exaggeration, and a
    play / pause replay of the recorded run. The static book holds the explorer's case, and
    each of the other three controls moved alone."""
    case = defaults.get("case", draw_defaults(draw_tsne)["case"])
    controls = [
        Choice("case", tuple(DISTILL_CASES), "case", held=(case,)),
        Slider("perplexity", PERPLEXITIES, "perplexity"),
        Slider("learning_rate", LEARNING_RATES, "learning rate"),
        Slider("exaggeration", EXAGGERATIONS, "exaggeration"),
    ]
    return ReplayExplorer(draw_tsne, controls, defaults, n_frames=tsne_frames, stream=tsne_stream,
                          redraw=redraw_tsne, figure_of=_same_case, scene=scene_tsne,
                          grid="star", live=TsneFigure)
