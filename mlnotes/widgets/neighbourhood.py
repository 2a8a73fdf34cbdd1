r"""Explorers for the neighbourhood-graph methods: Isomap, LLE, Laplacian eigenmaps.

Each caches its expensive steps per parameter set (the graph, the geodesic distances, the
eigenproblem), so that returning to a setting is instant and a new one costs one computation.

Isomap's explorer marks *short circuits*: graph edges whose endpoints are far apart on the
manifold. On the Swiss roll sampled uniformly in arc length, the ground truth ``t`` is an
isometric chart, so an edge of length :math:`\|x_i - x_j\|` is a short circuit when the chart
distance :math:`\|t_i - t_j\|` exceeds :data:`SHORT_CIRCUIT_RATIO` times the length and one
layer gap :math:`2\pi` (below that, a large ratio only means noise on a very short edge).
"""

import functools

import numpy as np
import scipy.sparse as sp
from matplotlib.collections import LineCollection
from matplotlib.patches import Patch
from scipy.spatial.distance import pdist, squareform

from .._typing import FloatArray
from ..datasets import make_s_curve, make_swiss_roll
from ..eigenmaps import heat_kernel_weights, laplacian
from ..graphs import connected_components, epsilon_graph, geodesic_distances, knn_graph
from ..kernel_pca import gram_embedding
from ..kernels import double_center
from ..lle import alignment_matrix, lle_weights
from ..metrics import residual_variance
from ..plotting import scatter
from ..spectral import bottom_eigenpairs, flip_signs
from . import _static as st
from ._core import (
    Choice,
    Explorer,
    LiveFigure,
    Slider,
    fit_view,
    frozen,
    new_figure,
    set_points,
    static_panel,
)

SHORT_CIRCUIT_RATIO = 3.0
LAYER_GAP = 2 * np.pi  # radial distance between turns of the Swiss roll
MAX_DIMENSION = 6  # residual variance is shown for 1 .. MAX_DIMENSION coordinates
N_SPECTRUM = 8  # bottom eigenvalues shown by LLE and eigenmaps
VIEW = (12, -72)  # elevation, azimuth of the 3-D panels
ZOOM_3D = 1.35  # 3-D axes leave wide margins by default
DATA_PANEL_WIDTH = 3.2  # inches of a 10-inch figure: the first of three panels
NEIGHBOURS = tuple(range(4, 21)) + (25, 30)
RADII = (3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 7.0)
HELD_NEIGHBOURS = (4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 25, 30)  # k the static book holds
HELD_SPECTRAL_NEIGHBOURS = (6, 8, 10, 12, 15, 20, 30)  # ... for LLE and eigenmaps
REGS = (1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
HEAT_TS = (1.0, 3.0, 10.0, 30.0, 100.0, 1000.0)


@functools.lru_cache(maxsize=8)
def manifold_data(dataset, n_samples, noise, random_state):
    """``(X, t)``: the Swiss roll (uniform in arc length, so ``t`` is an isometric chart) or the
    S-curve, read-only."""
    if dataset == "swiss_roll":
        X, t = make_swiss_roll(n_samples, noise=noise, parameterization="arclength",
                               random_state=random_state)
    elif dataset == "s_curve":
        X, t = make_s_curve(n_samples, noise=noise, random_state=random_state)
    else:
        raise ValueError(f"dataset must be 'swiss_roll' or 's_curve', got {dataset!r}.")
    return frozen(X, t)


def _edges(G):
    """Each undirected edge once: (rows, cols, lengths)."""
    U = sp.triu(G, k=1).tocoo()
    return U.row, U.col, U.data


def project(X, view=VIEW):
    """Orthographic projection of 3-D points onto the screen of a camera at ``view`` =
    (elevation, azimuth) in degrees, matplotlib's 3-D convention: the screen's right and up
    directions are (-sin a, cos a, 0) and (-sin e cos a, -sin e sin a, cos e)."""
    e, a = np.deg2rad(view)
    right = np.array([-np.sin(a), np.cos(a), 0.0])
    up = np.array([-np.sin(e) * np.cos(a), -np.sin(e) * np.sin(a), np.cos(e)])
    return X @ np.column_stack([right, up])


def _axes_3d(fig, position, X, c, title):
    ax = fig.add_subplot(*position, projection="3d")
    ax.view_init(*VIEW)
    scatter(ax, X, c, s=4, title=title)
    ax.set_axis_off()  # no panes, grid or ticks: the shape is the point, and it draws faster
    ax.set_box_aspect(None, zoom=ZOOM_3D)
    return ax


def _plain(ax):
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


# --- Isomap -------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def isomap_graph(graph, size, n_samples, noise, random_state):
    """The neighbourhood graph (kNN for ``graph="knn"``, ``size`` = k; epsilon, ``size`` = the
    radius) and the short-circuit mask of its edges (in :func:`_edges` order)."""
    X, t = manifold_data("swiss_roll", n_samples, noise, random_state)
    if graph == "knn":
        G = knn_graph(X, int(size))
    elif graph == "epsilon":
        G = epsilon_graph(X, float(size))
    else:
        raise ValueError(f"graph must be 'knn' or 'epsilon', got {graph!r}.")
    rows, cols, lengths = _edges(G)
    chart = np.linalg.norm(t[rows] - t[cols], axis=1)
    short = (chart > SHORT_CIRCUIT_RATIO * lengths) & (chart > LAYER_GAP)
    return G, frozen(short)


@functools.lru_cache(maxsize=64)
def isomap_embedding(graph, size, n_samples, noise, random_state):
    """Isomap of the largest connected component of the graph.

    Returns ``(keep, Z, residual)``: indices of the embedded points, their
    ``MAX_DIMENSION``-dimensional embedding, and the residual variance for 1 .. MAX_DIMENSION
    coordinates.
    """
    G, _ = isomap_graph(graph, size, n_samples, noise, random_state)
    _, labels = connected_components(G)
    keep = np.flatnonzero(labels == np.argmax(np.bincount(labels)))
    D_geo = geodesic_distances(G[keep][:, keep])
    Z, _, _ = gram_embedding(double_center(D_geo**2), MAX_DIMENSION)
    return frozen(keep, Z, residual_variances(D_geo, Z))


def residual_variances(D_geo: FloatArray, Z: FloatArray) -> FloatArray:
    """:func:`mlnotes.metrics.residual_variance` of the embedding's first 1, 2, ... columns,
    computed together: the geodesic distances of the pairs are listed and centred once, and
    each column count's distances are scipy's ``pdist`` (compiled, no index arrays: a
    fifth of the time of six separate calls)."""
    a = squareform(D_geo, checks=False)  # the pairs i < j, in pdist's order
    a = a - a.mean()
    out = []
    for l in range(1, Z.shape[1] + 1):
        b = pdist(Z[:, :l])
        b -= b.mean()
        denom = np.sqrt((a @ a) * (b @ b))
        if denom == 0:  # its error message
            return np.array([residual_variance(D_geo, Z[:, :m]) for m in range(1, l + 1)])
        out.append(1.0 - (a @ b / denom) ** 2)
    return np.array(out)


def draw_isomap(*, n_neighbors=6, radius=4.5, graph="knn", n_samples=500, noise=0.3,
                random_state=0):
    r"""Isomap on a noisy Swiss roll: the graph with its short circuits, the embedding, and the
    residual-variance curve.

    Parameters
    ----------
    n_neighbors : int
        :math:`k` of the kNN graph (used when ``graph="knn"``).
    radius : float
        :math:`\epsilon` of the epsilon graph (used when ``graph="epsilon"``).
    graph : {"knn", "epsilon"}

    Returns
    -------
    matplotlib.figure.Figure
        Panels: the roll in 3-D (a fixed view) with the graph's edges (gid ``"edges"``) and its short circuits
        in red (gid ``"short-circuits"``); the 2-D embedding of the largest connected component
        coloured by arc length (gid ``"embedding"``); the residual variance
        :math:`1 - R^2(d^G, d^Z)` for 1-6 coordinates (gid ``"residual-variance"``). The first
        panel's title (gid ``"graph-summary"``) counts edges and short circuits.
    """
    return IsomapFigure(n_neighbors=n_neighbors, radius=radius, graph=graph,
                        n_samples=n_samples, noise=noise, random_state=random_state).fig


def _isomap_parts(*, n_neighbors, radius, graph, n_samples, noise, random_state):
    """What a setting of :func:`draw_isomap` shows: the edges (ordinary, short circuits) as
    index pairs, the embedding, and the three panels' titles."""
    size = n_neighbors if graph == "knn" else radius
    G, short = isomap_graph(graph, size, n_samples, noise, random_state)
    keep, Z, residual = isomap_embedding(graph, size, n_samples, noise, random_state)
    rows, cols, _ = _edges(G)
    pairs = np.stack([rows, cols], axis=1)
    what = f"k = {n_neighbors}" if graph == "knn" else f"ε = {radius:g}"
    lost = n_samples - len(keep)
    titles = (f"{what}: {len(rows)} edges, {int(short.sum())} short circuits",
              "embedding" + (f" ({lost} points cut off)" if lost else ""),
              f"residual variance (2-D: {residual[1]:.3f})")
    return pairs[~short], pairs[short], keep, Z, residual, titles


class IsomapFigure(LiveFigure):
    """:func:`draw_isomap`'s figure; a setting changes the edges, the embedding, the residual
    variance and the titles (the points over the edges are drawn again, in their place)."""

    size = (10.0, 3.5)

    def build(self, *, n_neighbors, radius, graph, n_samples, noise, random_state):
        X, t = manifold_data("swiss_roll", n_samples, noise, random_state)
        self._P, self._t = P, t = project(X), t
        ok, short, keep, Z, residual, titles = _isomap_parts(
            n_neighbors=n_neighbors, radius=radius, graph=graph, n_samples=n_samples,
            noise=noise, random_state=random_state)
        fig, changing = self.fig, self.changing
        # the graph in a fixed 3-D view, projected by hand: a 2-D axes draws many times faster
        ax = _plain(fig.add_subplot(1, 3, 1))
        ax.set_axis_off()
        self._ok = changing(ax.add_collection(LineCollection(P[ok], colors="0.6", lw=0.3,
                                                             gid="edges")))
        changing(scatter(ax, P, t, s=4))
        self._short = changing(ax.add_collection(
            LineCollection(P[short], colors="red", lw=1.2, gid="short-circuits")))
        self._titles = [changing(ax.set_title(titles[0], fontsize=10, gid="graph-summary"))]

        self._emb = emb = _plain(fig.add_subplot(1, 3, 2))
        self._embedding = changing(scatter(emb, Z[:, :2], t[keep], s=4, gid="embedding"))
        self._titles.append(changing(emb.set_title(titles[1], fontsize=10)))

        curve = fig.add_subplot(1, 3, 3)
        dims = np.arange(1, MAX_DIMENSION + 1)
        self._curve, = curve.plot(dims, residual, "o-", color="C0", gid="residual-variance")
        changing(self._curve)
        curve.set(xlabel="dimension", ylim=(0, 1), xticks=dims, yticks=(0, 0.5, 1))
        self._titles.append(changing(curve.set_title(titles[2], fontsize=10)))
        for spine in curve.spines.values():  # over the curve, which reaches 0
            changing(spine)
        fig.subplots_adjust(left=0.0, right=0.98, bottom=0.2, top=0.9, wspace=0.15)  # "dimension"

    def update(self, **params):
        ok, short, keep, Z, residual, titles = _isomap_parts(**params)
        self._ok.set_segments(self._P[ok])
        self._short.set_segments(self._P[short])
        set_points(self._embedding, Z[:, :2], self._t[keep])
        fit_view(self._emb, Z)
        self._curve.set_ydata(residual)
        for text, title in zip(self._titles, titles, strict=True):
            text.set_text(title)
        return True


@functools.lru_cache(maxsize=8)
def isomap_edge_order(graph, sizes, n_samples, noise, random_state):
    """The edges of the graphs of every size in ``sizes`` (increasing), each edge listed once in
    the order the sizes add them: kNN and epsilon graphs grow with k and epsilon, so the graph
    of ``sizes[m]`` is a prefix of the list. Returns ``{short: (pairs, first)}`` for ordinary
    edges (``short=False``) and short circuits: the (i, j) rows and the index of the first size
    whose graph has the edge."""
    n = n_samples
    first = {}
    for m, size in enumerate(sizes):
        G, short = isomap_graph(graph, size, n_samples, noise, random_state)
        rows, cols, _ = _edges(G)
        for e, s in zip(rows * n + cols, short, strict=True):
            first.setdefault((int(e), bool(s)), m)
    out = {}
    for flag in (False, True):
        items = sorted((m, e) for (e, s), m in first.items() if s == flag)
        ids = np.array([e for _, e in items], dtype=np.int64)
        out[flag] = frozen(np.column_stack([ids // n, ids % n]).reshape(-1, 2),
                           np.array([m for m, _ in items], dtype=np.int64))
    return out


def scene_isomap(*, n_neighbors=6, radius=4.5, graph="knn", n_samples=500, noise=0.3,
                 random_state=0):
    """:func:`draw_isomap`'s panels as data for the static book (:mod:`._static`). The edges
    of every graph of the held sizes are shipped once (:func:`isomap_edge_order`); a setting
    draws the prefix its graph is."""
    size = n_neighbors if graph == "knn" else radius
    X, t = manifold_data("swiss_roll", n_samples, noise, random_state)
    _, short = isomap_graph(graph, size, n_samples, noise, random_state)
    keep, Z, residual = isomap_embedding(graph, size, n_samples, noise, random_state)
    sizes = tuple(sorted(set(HELD_NEIGHBOURS if graph == "knn" else RADII) | {size}))
    order = isomap_edge_order(graph, sizes, n_samples, noise, random_state)
    m = sizes.index(size)
    P = project(X)
    (ok_pairs, ok_first), (short_pairs, short_first) = order[False], order[True]
    n_ok, n_short = int(np.sum(ok_first <= m)), int(np.sum(short_first <= m))
    what = f"k = {n_neighbors}" if graph == "knn" else f"ε = {radius:g}"
    lost = n_samples - len(keep)
    dims = np.arange(1, MAX_DIMENSION + 1)
    return st.scene("", [
        st.panel(f"{what}: {n_ok + n_short} edges, {int(short.sum())} short circuits", [
            st.segments(P, ok_pairs, count=n_ok, color="muted", width=0.4),
            st.points(P, t, size=1.6),
            st.segments(P, short_pairs, count=n_short, color="red", width=1.3),
        ], equal=True, axes=False),
        st.panel("embedding" + (f" ({lost} points cut off)" if lost else ""),
                 [st.points(Z[:, :2], t[keep], size=1.6)], equal=True),
        st.panel(f"residual variance (2-D: {residual[1]:.3f})",
                 [st.line(dims, residual, marker=True)], xlim=(0.5, MAX_DIMENSION + 0.5),
                 ylim=(0, 1), xticks=dims, yticks=(0, 0.5, 1), xlabel="dimension"),
    ])


def isomap_unused(*, graph="knn", **params):
    """The control the graph type does not read, with the reason: the radius of a kNN graph,
    the k of an ε graph."""
    if graph == "knn":
        return {"radius": "the kNN graph has no radius (choose graph = epsilon)"}
    return {"n_neighbors": "the ε graph has no k (choose graph = knn)"}


def isomap_explorer(**defaults):
    """Explorer over :func:`draw_isomap`: ``n_neighbors``, ``radius`` and the graph type. The
    static book holds k in :data:`HELD_NEIGHBOURS` and every radius, for each graph type."""
    controls = [
        Slider("n_neighbors", NEIGHBOURS, "k (kNN)", held=HELD_NEIGHBOURS),
        Slider("radius", RADII, "ε (radius)"),
        Choice("graph", ("knn", "epsilon"), "graph"),
    ]
    return Explorer(draw_isomap, controls, defaults, scene=scene_isomap,
                    irrelevant=isomap_unused, live=IsomapFigure)


# --- LLE and Laplacian eigenmaps ------------------------------------------------------------------
def paint_data(fig, dataset, n_samples, noise, random_state):
    """The data set in 3-D, filling ``fig`` (a :func:`~mlnotes.widgets._core.static_panel`)."""
    X, t = manifold_data(dataset, n_samples, noise, random_state)
    ax = _axes_3d(fig, (1, 1, 1), X, t, f"data ({dataset.replace('_', '-')})")
    ax.set_position((0.0, 0.02, 1.0, 0.8))


def _draw_spectral(data, t, Z, eigenvalues, title, spectrum_title):
    """Three panels shared by LLE and eigenmaps: data, embedding, bottom of the spectrum.
    ``data`` = (dataset, n_samples, noise, random_state)."""
    fig = new_figure(10.0, 3.3)
    static_panel(fig, paint_data, data, width=DATA_PANEL_WIDTH)
    emb = _plain(fig.add_subplot(1, 3, 2))
    scatter(emb, Z, t, s=4, gid="embedding", title="embedding (eigenvectors 2 and 3)")
    spec = fig.add_subplot(1, 3, 3)
    # the first eigenvalue (0, the constant vector) is left out; the rest relative to the last
    colors = ["C3"] * 2 + ["C0"] * (len(eigenvalues) - 3)
    index = np.arange(2, len(eigenvalues) + 1)
    spec.bar(index, eigenvalues[1:] / eigenvalues[-1], color=colors, gid="spectrum")
    spec.legend(handles=[Patch(color="C3", label="used: 2 and 3"),
                         Patch(color="C0", label="not used")], fontsize=8, loc="upper left")
    spec.set_title(_spectrum_title(eigenvalues, spectrum_title), fontsize=9)
    # the bars reach 1 (the last over itself); a first one a rounding error below 0 would
    # otherwise move the axis a pixel, and the live figure keeps the axis
    spec.set(xlabel="eigenvalue index i", xticks=index, yticks=(0, 0.5, 1), ylim=(0, 1.05))
    fig.suptitle(title, fontsize=10)
    fig.subplots_adjust(left=0.0, right=0.98, bottom=0.15, top=0.82, wspace=0.2)
    return fig


def _spectrum_title(eigenvalues, spectrum_title):
    return (f"{spectrum_title}, λi / λ{len(eigenvalues)}\n"
            f"(λ1 = {eigenvalues[0]:.0e}: the constant vector)")


class SpectralFigure(LiveFigure):
    """:func:`_draw_spectral`'s figure, live: a setting changes the embedding, the bars'
    heights, the spectrum's title and the figure's (the legend is drawn again over the bars).
    A subclass says where its parts come from (``parts(**params)``, as :func:`_lle_parts`)."""

    @staticmethod
    def parts(**params):
        raise TypeError("a SpectralFigure needs parts(**params).")

    def build(self, **params):
        self.fig = _draw_spectral(*self.parts(**params))
        emb, spec = self.fig.axes
        self._emb, self._embedding = emb, self.changing(emb.collections[0])
        self._bars = [self.changing(bar) for bar in spec.patches]
        self.changing(spec.get_legend())
        self._title = self.changing(spec.title)
        title = self.fig.get_suptitle()
        self._suptitle = self.changing(next(t for t in self.fig.texts if t.get_text() == title))

    def update(self, **params):
        _, t, Z, eigenvalues, title, spectrum_title = self.parts(**params)
        set_points(self._embedding, Z, t)
        fit_view(self._emb, Z)
        for bar, height in zip(self._bars, eigenvalues[1:] / eigenvalues[-1], strict=True):
            bar.set_height(height)
        self._title.set_text(_spectrum_title(eigenvalues, spectrum_title))
        self._suptitle.set_text(title)
        return True


@functools.lru_cache(maxsize=64)
def lle_spectrum(n_neighbors, reg, n_samples, noise, random_state):
    """Bottom ``N_SPECTRUM`` eigenpairs of :math:`M = (I - W)^\\top (I - W)` (the first is the
    constant vector's 0)."""
    X, _ = manifold_data("s_curve", n_samples, noise, random_state)
    M = alignment_matrix(lle_weights(X, n_neighbors, reg=reg))
    # dense: at the explorer's size (500 points) as fast as ARPACK, and it cannot stall on the
    # many-fold null space of small k with little regularisation (k = 4, reg = 1e-6)
    lam, V = bottom_eigenpairs(M, N_SPECTRUM, solver="dense")
    return frozen(lam, flip_signs(V[:, 1:3]))


def draw_lle(*, n_neighbors=10, reg=1e-3, n_samples=500, noise=0.0, random_state=0):
    r"""LLE of the S-curve: data, embedding, and the bottom eigenvalues of
    :math:`M = (I - W)^\top (I - W)`.

    Parameters
    ----------
    n_neighbors : int
    reg : float
        Regularisation of each local Gram matrix, relative to its trace
        (:func:`mlnotes.lle.lle_weights`).

    Returns
    -------
    matplotlib.figure.Figure
        Embedding gid ``"embedding"``; eigenvalues 2-8 over the 8th, bars with gid ``"spectrum"``.
    """
    return _draw_spectral(*_lle_parts(n_neighbors, reg, n_samples, noise, random_state))


def _lle_parts(n_neighbors, reg, n_samples, noise, random_state):
    """What the LLE figure and its static scene share: data, colour, embedding, spectrum, labels."""
    data = ("s_curve", n_samples, noise, random_state)
    _, u = manifold_data(*data)
    lam, Z = lle_spectrum(int(n_neighbors), float(reg), n_samples, noise, random_state)
    return (data, u, Z, lam, f"LLE: k = {n_neighbors}, reg = {reg:g}",
            "bottom of M's spectrum")


def _scene_spectral(data, t, Z, eigenvalues, title, spectrum_title):
    """:func:`_draw_spectral`'s panels as data for the static book (:mod:`._static`)."""
    X, _ = manifold_data(*data)
    index = np.arange(2, len(eigenvalues) + 1)
    colors = ["C3"] * 2 + ["C0"] * (len(eigenvalues) - 3)
    return st.scene(title, [
        st.panel(f"data ({data[0].replace('_', '-')})", [st.points(project(X), t, size=1.6)],
                 equal=True, axes=False),
        st.panel("embedding (eigenvectors 2 and 3)", [st.points(Z, t, size=1.6)], equal=True),
        st.panel(f"{spectrum_title}, λi / λ{len(eigenvalues)} (λ1 = {eigenvalues[0]:.0e}: "
                 "the constant vector)", [st.bars(index, eigenvalues[1:] / eigenvalues[-1], colors),
                                          st.text(1.5, 0.97, "■ used: 2 and 3", color="C3"),
                                          st.text(1.5, 0.87, "■ not used", color="C0")],
                 xlim=(1.4, len(eigenvalues) + 0.6), ylim=(0, 1.05), xticks=index,
                 yticks=(0, 0.5, 1), xlabel="eigenvalue index i"),
    ])


class LleFigure(SpectralFigure):
    """:func:`draw_lle`'s figure, live (:class:`SpectralFigure`)."""

    @staticmethod
    def parts(**params):
        return _lle_parts(**params)


def scene_lle(*, n_neighbors=10, reg=1e-3, n_samples=500, noise=0.0, random_state=0):
    """:func:`draw_lle`'s panels as data for the static book (:mod:`._static`)."""
    return _scene_spectral(*_lle_parts(n_neighbors, reg, n_samples, noise, random_state))


def lle_explorer(**defaults):
    """Explorer over :func:`draw_lle`: ``n_neighbors`` and ``reg``."""
    controls = [Slider("n_neighbors", NEIGHBOURS, "k", held=HELD_SPECTRAL_NEIGHBOURS),
                Slider("reg", REGS, "reg")]
    return Explorer(draw_lle, controls, defaults, scene=scene_lle, live=LleFigure)


@functools.lru_cache(maxsize=64)
def eigenmaps_spectrum(n_neighbors, t, n_samples, noise, random_state):
    r"""Bottom ``N_SPECTRUM`` solutions of :math:`L v = \lambda D v` for heat weights."""
    X, _ = manifold_data("s_curve", n_samples, noise, random_state)
    W = heat_kernel_weights(knn_graph(X, n_neighbors), t)
    L = laplacian(W)
    lam, V = bottom_eigenpairs(L, N_SPECTRUM, B=sp.diags(L.diagonal()))
    return frozen(lam, flip_signs(V[:, 1:3]))


def draw_eigenmaps(*, n_neighbors=10, t=10.0, n_samples=500, noise=0.0, random_state=0):
    r"""Laplacian eigenmaps of the S-curve with heat weights :math:`w_{ij} = e^{-d_{ij}^2/t}`.

    Parameters
    ----------
    n_neighbors : int
    t : float or None
        Heat-kernel width; None for binary weights (the limit :math:`t \to \infty`).

    Returns
    -------
    matplotlib.figure.Figure
        Embedding gid ``"embedding"``; generalised eigenvalues 2-8 over the 8th, bars with gid
        ``"spectrum"``.
    """
    return _draw_spectral(*_eigenmaps_parts(n_neighbors, t, n_samples, noise, random_state))


def _eigenmaps_parts(n_neighbors, t, n_samples, noise, random_state):
    """What the eigenmaps figure and its static scene share (see :func:`_lle_parts`)."""
    data = ("s_curve", n_samples, noise, random_state)
    _, u = manifold_data(*data)
    lam, Z = eigenmaps_spectrum(int(n_neighbors), None if t is None else float(t), n_samples,
                                noise, random_state)
    return data, u, Z, lam, _eigenmaps_title(n_neighbors, t), "L v = λ D v"


class EigenmapsFigure(SpectralFigure):
    """:func:`draw_eigenmaps`'s figure, live (:class:`SpectralFigure`)."""

    @staticmethod
    def parts(**params):
        return _eigenmaps_parts(**params)


def scene_eigenmaps(*, n_neighbors=10, t=10.0, n_samples=500, noise=0.0, random_state=0):
    """:func:`draw_eigenmaps`'s panels as data for the static book (:mod:`._static`)."""
    return _scene_spectral(*_eigenmaps_parts(n_neighbors, t, n_samples, noise, random_state))


def _eigenmaps_title(n_neighbors, t):
    heat = "binary weights" if t is None else f"heat t = {t:g}"
    return f"Laplacian eigenmaps: k = {n_neighbors}, {heat}"


def eigenmaps_explorer(**defaults):
    """Explorer over :func:`draw_eigenmaps`: ``n_neighbors`` and heat ``t``."""
    controls = [Slider("n_neighbors", NEIGHBOURS, "k", held=HELD_SPECTRAL_NEIGHBOURS),
                Slider("t", HEAT_TS, "heat t")]
    return Explorer(draw_eigenmaps, controls, defaults, scene=scene_eigenmaps,
                    live=EigenmapsFigure)
