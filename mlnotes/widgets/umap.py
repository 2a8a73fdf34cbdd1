r"""UMAP explorer: the neighbourhood size against ``min_dist``, on digits of five classes.

Each setting runs :class:`mlnotes.UMAP` once (same seed, same spectral start for a given
``n_neighbors``) and shows the map coloured by the digit, beside the similarity curve
:math:`q(d) = 1 / (1 + a d^{2b})` fitted to ``min_dist`` (the target curve dashed), and the
share of each point's 10 nearest neighbours the map keeps.
"""

import contextlib
import functools
import threading
import time
import warnings

import numpy as np

from ..datasets import load_digits
from ..graphs import DisconnectedGraphWarning, nearest_neighbors
from ..metrics import _neighbourhoods_kept
from ..plotting import scatter
from ..umap import UMAP, low_dimensional_similarity, target_curve
from . import _static as st
from ._core import STALE_OPACITY, Explorer, LiveFigure, Slider, fit_view, frozen, report_progress, set_points
from ._stream import Streaming, callback_steps, streamed_run

N_NEIGHBORS = (5, 15, 50)
MIN_DISTS = (0.0, 0.1, 0.5, 0.99)
N_CLASSES = 5
CURVE_X = np.linspace(0.0, 3.0, 121)  # map distances of the curve panel (spread 1)
K_KEPT = 10  # neighbours counted by the title's preservation score
SNAPSHOT_EPOCHS = 10  # live, a new run shows its map after its first epoch and every 10


@functools.lru_cache(maxsize=4)
def digits_data(n_samples):
    """The first ``n_samples`` digits of classes 0 to 4, and their labels (read-only)."""
    X, y = load_digits(n_class=N_CLASSES)
    return frozen(X[:n_samples].astype(float), y[:n_samples])


@functools.lru_cache(maxsize=4)
def digits_neighbours(n_samples):
    """Each digit's :data:`K_KEPT` nearest digits (read-only): what the title's score compares
    every map with (found once, not for every snapshot)."""
    X, _ = digits_data(n_samples)
    return frozen(nearest_neighbors(X, K_KEPT))


def kept_share(n_samples, Z):
    """:func:`mlnotes.metrics.knn_preservation` of the map ``Z`` of the first ``n_samples``
    digits, with the digits' neighbours found once (:func:`digits_neighbours`)."""
    return _neighbourhoods_kept(digits_neighbours(n_samples), nearest_neighbors(Z, K_KEPT))


@streamed_run(maxsize=32)
def umap_run(n_neighbors, min_dist, n_samples, n_epochs, random_state):
    """One UMAP map of the digits: ``(Z, a, b, kept)``, ``kept`` the 10-NN preservation.

    ``umap_run.stream(...)`` steps the run, giving the map so far (same form) after the first
    epoch and every :data:`SNAPSHOT_EPOCHS` epochs (:func:`~mlnotes.widgets._stream.streamed_run`).
    """
    X, _ = digits_data(n_samples)
    model = UMAP(n_neighbors=n_neighbors, min_dist=min_dist, n_epochs=n_epochs,
                 random_state=random_state)

    def fit(callback):
        def every_few(epoch, Z):  # hand over after the first epoch, then every few
            done = epoch + 1
            return (done == 1 or done % SNAPSHOT_EPOCHS == 0) and callback(done, Z)
        model.callback = every_few
        return model.fit(X)

    with contextlib.closing(callback_steps(fit)) as steps:
        while True:
            with warnings.catch_warnings():  # at k = 5 a few digits form their own component
                warnings.simplefilter("ignore", DisconnectedGraphWarning)
                try:
                    done, Z = next(steps)
                except StopIteration:
                    break
            report_progress(done, n_epochs)
            yield frozen(Z), model.a_, model.b_, kept_share(n_samples, Z)
    Z = model.embedding_
    return frozen(Z), model.a_, model.b_, kept_share(n_samples, Z)


def umap_stream(*, n_neighbors=15, min_dist=0.1, n_samples=400, n_epochs=200, random_state=0):
    """The run of :func:`draw_umap` step by step
    (:meth:`~mlnotes.widgets._stream.StreamedRun.stream`)."""
    return umap_run.stream(int(n_neighbors), float(min_dist), n_samples, n_epochs, random_state)


class StreamedExplorer(Streaming, Explorer):
    """An explorer whose new setting is a new run, shown as it goes (:class:`Streaming`):
    ``stream(**params)`` steps the run that ``draw(**params)`` draws when it has ended."""

    def __init__(self, draw, controls, params, *, stream, **kwargs):
        self.stream = stream
        self._replay_run = 0  # the run under way
        self._replay_lock = threading.RLock()
        super().__init__(draw, controls, params, **kwargs)

    def _run_params(self):
        return dict(self.params)

    def _live_params(self, values):
        return {**self.params, **values}

    def _on_change(self, change=None):
        values = {name: c.value for name, c in self._controls.items()}
        if not self.is_kept(**values):  # (a run seen before is shown at once)
            self._status.value = "<small>running…</small>"
        with self._replay_lock:
            self._replay_run += 1
            self._stream_run(values, None)

    def _stream_began(self):
        pass

    def _stream_failed(self):
        self._image_widget.put(self._image, "")  # the last setting that worked, faded
        self._image_widget.layout.opacity = STALE_OPACITY

    def _stream_ended(self, values, start, first_s):
        with self._reporting_errors():
            self._mark_inapplicable(values)
            png = self.render(**values)
            self.last_update_s = time.perf_counter() - start
            self._show(png)
            if first_s is not None:
                self._status.value = (f"<small>first picture in {1000 * first_s:.0f} ms, the "
                                      f"run's end in {1000 * self.last_update_s:.0f} ms</small>")
            return True
        return False

    def _show_live(self, png):
        self._image_widget.put(png, "")  # a run under way: shown, not kept in the page
        self._image_widget.layout.opacity = "1"


def _titles(n_neighbors, min_dist, a, b, kept):
    return (f"map: {K_KEPT}-NN kept {kept:.2f}",
            f"q(d) = 1/(1 + {a:.2f} d^{2 * b:.2f})",
            f"UMAP: n_neighbors {n_neighbors}, min_dist {min_dist:g}")


def draw_umap(*, n_neighbors=15, min_dist=0.1, n_samples=400, n_epochs=200, random_state=0):
    """The UMAP map of five digit classes and the fitted similarity curve.

    Parameters
    ----------
    n_neighbors : int
        Neighbourhood size, the point itself counted.
    min_dist : float
        Map distance below which points count as together (spread 1).

    Returns
    -------
    matplotlib.figure.Figure
        Panels: the map coloured by the digit (gid ``"map"``) and the curve
        :math:`q(d)` (gid ``"q-curve"``) with the target it was fitted to (gid ``"target"``).
    """
    return UmapFigure(n_neighbors=n_neighbors, min_dist=min_dist, n_samples=n_samples,
                      n_epochs=n_epochs, random_state=random_state).fig


class UmapFigure(LiveFigure):
    """:func:`draw_umap`'s figure; a setting (or a later snapshot of a run under way) changes
    the map's points, the two curves and the titles; the axes stay (the curve panel's ranges
    are fixed, the map's box is set by its equal aspect)."""

    size = (8.0, 3.6)

    def build(self, *, n_neighbors, min_dist, n_samples, n_epochs, random_state):
        _, y = digits_data(n_samples)
        fig, changing = self.fig, self.changing
        map_ax, q_ax = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
        self._map = changing(scatter(map_ax, np.zeros((len(y), 2)), y, s=6, gid="map"))
        self._map_title = changing(map_ax.set_title(" "))
        map_ax.set_xticks([])
        map_ax.set_yticks([])
        self._target, = q_ax.plot(CURVE_X, CURVE_X, "--", color="0.5", gid="target")
        self._curve, = q_ax.plot(CURVE_X, CURVE_X, color="C0", gid="q-curve")
        q_ax.set(xlabel="map distance d", ylim=(0, 1.05))
        self._curve_title = changing(q_ax.set_title(" ", fontsize=10))
        self._suptitle = changing(fig.suptitle(" ", fontsize=10))
        for artist in (self._target, self._curve, *map_ax.spines.values(),
                       *q_ax.spines.values()):
            changing(artist)  # (the spines over the points and curves that reach them)
        fig.subplots_adjust(left=0.03, right=0.97, bottom=0.15, top=0.82, wspace=0.2)
        self._map_ax = map_ax
        self.update(n_neighbors=n_neighbors, min_dist=min_dist, n_samples=n_samples,
                    n_epochs=n_epochs, random_state=random_state)

    def update(self, *, n_neighbors, min_dist, n_samples, n_epochs, random_state):
        Z, a, b, kept = umap_run(int(n_neighbors), float(min_dist), n_samples, n_epochs,
                                 random_state)
        map_title, curve_title, suptitle = _titles(n_neighbors, min_dist, a, b, kept)
        set_points(self._map, Z)
        fit_view(self._map_ax, Z)
        self._target.set_ydata(target_curve(CURVE_X, min_dist, 1.0))
        self._curve.set_ydata(low_dimensional_similarity(CURVE_X, a, b))
        self._map_title.set_text(map_title)
        self._curve_title.set_text(curve_title)
        self._suptitle.set_text(suptitle)
        return True


def scene_umap(*, n_neighbors=15, min_dist=0.1, n_samples=400, n_epochs=200, random_state=0):
    """:func:`draw_umap`'s panels as data for the static book (:mod:`._static`)."""
    _, y = digits_data(n_samples)
    Z, a, b, kept = umap_run(int(n_neighbors), float(min_dist), n_samples, n_epochs,
                             random_state)
    map_title, curve_title, suptitle = _titles(n_neighbors, min_dist, a, b, kept)
    return st.scene(suptitle, [
        st.panel(map_title, [st.points(Z, y, size=2)], equal=True),
        st.panel(curve_title, [
            st.line(CURVE_X, target_curve(CURVE_X, min_dist, 1.0), color="muted", dash=True),
            st.line(CURVE_X, low_dimensional_similarity(CURVE_X, a, b)),
        ], xlim=(0, float(CURVE_X[-1])), ylim=(0, 1.05), xticks="auto", yticks="auto",
            xlabel="map distance d"),
    ])


def umap_explorer(**defaults):
    """Explorer over :func:`draw_umap`: ``n_neighbors`` and ``min_dist``. The static book holds
    every combination of the slider values."""
    controls = [
        Slider("n_neighbors", N_NEIGHBORS, "n_neighbors"),
        Slider("min_dist", MIN_DISTS, "min_dist"),
    ]
    return StreamedExplorer(draw_umap, controls, defaults, stream=umap_stream, scene=scene_umap,
                            grid="product", live=UmapFigure)
