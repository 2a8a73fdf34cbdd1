"""Step 1 of the recipe: distances and neighbourhood graphs.

Everything a spectral method needs before it builds a matrix: pairwise (squared) distances,
neighbourhood graphs and their geodesic (shortest-path) distances.
"""

import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph
from scipy.spatial import cKDTree

from ._typing import ArrayLike, BoolArray, FloatArray, IntArray, Matrix, Sparse
from ._validation import check_array, check_finite, check_n_neighbors, check_positive


def squared_distances(X: ArrayLike | Sparse, Y: ArrayLike | Sparse | None = None) -> FloatArray:
    r"""Squared Euclidean distances :math:`D2_{ij} = \|x_i - y_j\|^2`.

    Uses the expansion :math:`\|x - y\|^2 = \|x\|^2 + \|y\|^2 - 2 x^\top y` (one matrix
    product instead of a loop over pairs), clipped at zero against round-off; the diagonal of
    ``squared_distances(X)`` is exactly zero.

    Parameters
    ----------
    X : ndarray of shape (N, D)
    Y : ndarray of shape (M, D), optional
        Defaults to ``X``.

    Returns
    -------
    D2 : ndarray of shape (N, M)

    ``X`` and ``Y`` may be ``scipy.sparse`` matrices (the same expansion, with sparse
    products; the result is dense).
    """
    if sp.issparse(X) or sp.issparse(Y):
        return _sparse_squared_distances(X, Y)
    X = check_array(X)
    same = Y is None
    Y = X if same else check_array(Y, name="Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}; both need the same columns."
        )
    sq_x = np.einsum("ij,ij->i", X, X)
    sq_y = sq_x if same else np.einsum("ij,ij->i", Y, Y)
    # in place, one N x M product and one N x M outer sum: -2 x^T y + (|x|^2 + |y|^2).
    # For Y = X numpy forms X X^T with a symmetric rank-k update (exactly symmetric) and
    # |x_i|^2 + |x_j|^2 is commutative, so D2 is exactly symmetric.
    D2 = X @ Y.T
    D2 *= -2.0
    D2 += np.add.outer(sq_x, sq_y)
    np.maximum(D2, 0.0, out=D2)
    if same:
        np.fill_diagonal(D2, 0.0)
    return D2


def _row_norms2(A):
    return np.asarray(A.multiply(A).sum(axis=1)).ravel()


def _sparse_squared_distances(X, Y=None):
    r""":func:`squared_distances` for sparse rows: :math:`\|x\|^2 + \|y\|^2 - 2 x^\top y`
    with one sparse product, clipped at 0, exact zero diagonal for ``Y=None``."""
    X = check_array(X, accept_sparse=True)
    same = Y is None
    Y = X if same else check_array(Y, name="Y", accept_sparse=True)
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}; both need the same columns."
        )
    X, Y = sp.csr_matrix(X), sp.csr_matrix(Y)
    D2 = np.asarray((X @ Y.T).todense())
    D2 *= -2.0
    D2 += np.add.outer(_row_norms2(X), _row_norms2(Y))
    np.maximum(D2, 0.0, out=D2)
    if same:
        D2 = (D2 + D2.T) / 2  # the sparse product need not be exactly symmetric
        np.fill_diagonal(D2, 0.0)
    return D2


def same_rows(A: ArrayLike | Sparse, B: ArrayLike | Sparse) -> BoolArray:
    """Whether row i of ``A`` equals row i of ``B``, for each i (dense or sparse)."""
    if sp.issparse(A) or sp.issparse(B):
        return (sp.csr_matrix(A) != sp.csr_matrix(B)).getnnz(axis=1) == 0
    return np.all(A == B, axis=1)


def pairwise_distances(X: ArrayLike | Sparse, Y: ArrayLike | Sparse | None = None) -> FloatArray:
    r"""Euclidean distances :math:`d_{ij} = \|x_i - y_j\|_2` (the square root of
    :func:`squared_distances`)."""
    return np.sqrt(squared_distances(X, Y))


# ---------------------------------------------------------------------------------------------
# Nearest neighbours.  For few features a k-d tree finds them in O(N log N); beyond that the
# tree degenerates and one matrix product (brute force, in row blocks) is faster.

KDTREE_MAX_FEATURES = 15  # scipy's cKDTree up to this many features (as scikit-learn's "auto")
BRUTE_BLOCK_ENTRIES = 2**22  # brute force works in row blocks of about this many distances


def _exact_lengths(X, Y, rows, cols):
    """Edge lengths :math:`\\|y_r - x_c\\|` computed pair by pair (exact and symmetric)."""
    diff = Y[rows] - X[cols]
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def _kneighbors(X, n_neighbors, Y=None):
    """Indices ``(M, k)`` of the ``k`` nearest rows of ``X`` for each row of ``Y``, nearest first.

    With ``Y=None`` the queries are the rows of ``X`` and a point is never its own neighbour
    (with duplicates, the point itself is dropped, not its twin).
    """
    self_query = Y is None
    Q = X if self_query else Y
    k = n_neighbors + 1 if self_query else n_neighbors
    if X.shape[1] <= KDTREE_MAX_FEATURES:
        _, ind = cKDTree(X).query(Q, k=k)
        ind = ind.reshape(len(Q), k)
    else:
        ind = np.empty((len(Q), k), dtype=np.intp)
        block = max(1, BRUTE_BLOCK_ENTRIES // len(X))
        sq_x = np.einsum("ij,ij->i", X, X)
        for start in range(0, len(Q), block):
            q = Q[start:start + block]
            # ||q - x||^2 up to the per-row constant ||q||^2, which does not change the order
            d2 = sq_x[None, :] - 2.0 * (q @ X.T)
            part = np.argpartition(d2, k - 1, axis=1)[:, :k]
            order = np.argsort(np.take_along_axis(d2, part, axis=1), axis=1, kind="stable")
            ind[start:start + block] = np.take_along_axis(part, order, axis=1)
    if not self_query:
        return ind
    # drop the query point itself; if it is not among the k+1 (many duplicates), drop the last
    drop = ind == np.arange(len(X))[:, None]
    drop[~drop.any(axis=1), -1] = True
    return ind[~drop].reshape(len(X), n_neighbors)


def nearest_neighbors(X: ArrayLike | Sparse, n_neighbors: int,
                      Y: ArrayLike | Sparse | None = None) -> IntArray:
    """Indices of the ``n_neighbors`` nearest rows of ``X``, nearest first, for each row of ``Y``.

    With ``Y=None`` the queries are the rows of ``X`` themselves, and a point is not its own
    neighbour. A k-d tree for at most ``KDTREE_MAX_FEATURES`` features, brute force beyond.

    Returns
    -------
    ind : ndarray of shape (M, n_neighbors)
    """
    X = check_array(X)
    if Y is None:
        n_neighbors = check_n_neighbors(n_neighbors, len(X))
    else:
        Y = check_array(Y, name="Y")
        n_neighbors = check_n_neighbors(n_neighbors, len(X) + 1)
    return _kneighbors(X, n_neighbors, Y)


def _symmetrise(n, rows, cols, lengths, mode):
    """Undirected graph from directed edges: keep a pair if it appears in either direction
    ("or") or in both ("and"); stored in both directions, zero lengths kept as explicit edges.
    A pair stored with two lengths (a precomputed graph's round-off) keeps the shorter, as a
    shortest path would."""
    r = np.concatenate([rows, cols])
    c = np.concatenate([cols, rows])
    d = np.concatenate([lengths, lengths])
    key = r.astype(np.int64) * n + c
    order = np.argsort(key)  # by pair (one integer key: far quicker than a two-key lexsort)
    key, d = key[order], d[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    count = np.diff(np.r_[first, len(key)])
    shortest = np.minimum.reduceat(d, first) if len(key) else np.zeros(1)  # each pair's shortest
    keep = count >= (2 if mode == "and" else 1)
    key = key[first[keep]]
    return sp.csr_matrix((shortest[keep], (key // n, key % n)), shape=(n, n))


def knn_graph(X: ArrayLike | Sparse, n_neighbors: int, *, mode: str = "or") -> Sparse:
    r"""k-nearest-neighbour graph of edge lengths :math:`\|x_i - x_j\|` (step 1).

    Parameters
    ----------
    X : ndarray of shape (N, D)
    n_neighbors : int
        :math:`k`, at most ``N - 1``; a point is not its own neighbour.
    mode : {"or", "and", "directed"}
        How the relation "j is among the k nearest neighbours of i" (not symmetric) becomes a
        graph: ``"or"`` joins i and j if either is a neighbour of the other (every point keeps
        at least its k edges; the usual choice and scikit-learn's), ``"and"`` only if both are
        (mutual kNN, sparser, may disconnect), ``"directed"`` keeps the raw relation (row i holds
        the k neighbours of i).

    Returns
    -------
    G : scipy.sparse.csr_matrix of shape (N, N)
        Edge lengths; a missing entry means no edge. Duplicate points give explicit zero-length
        edges, which scipy's graph routines treat as edges.
    """
    X = check_array(X, min_samples=2)
    n_neighbors = check_n_neighbors(n_neighbors, len(X))
    if mode not in ("or", "and", "directed"):
        raise ValueError(f"mode must be 'or', 'and' or 'directed', got {mode!r}.")
    n = len(X)
    ind = _kneighbors(X, n_neighbors)
    rows = np.repeat(np.arange(n), n_neighbors)
    cols = ind.ravel()
    lengths = _exact_lengths(X, X, rows, cols)
    if mode == "directed":
        return sp.csr_matrix((lengths, (rows, cols)), shape=(n, n))
    return _symmetrise(n, rows, cols, lengths, mode)


def _pairs_within(X, radius, Y=None):
    """Pairs (rows of Y or X, rows of X) at distance <= radius (no self pairs when Y is None)."""
    if X.shape[1] <= KDTREE_MAX_FEATURES:
        tree = cKDTree(X)
        if Y is None:
            pairs = tree.query_pairs(radius, output_type="ndarray")
            return pairs[:, 0], pairs[:, 1]
        lists = cKDTree(Y).query_ball_tree(tree, radius)
        rows = np.repeat(np.arange(len(Y)), [len(a) for a in lists])
        cols = np.fromiter((j for a in lists for j in a), dtype=np.intp, count=len(rows))
        return rows, cols
    D2 = squared_distances(X if Y is None else Y, X)
    close = D2 <= radius**2
    if Y is None:
        close = np.triu(close, k=1)
    return np.nonzero(close)


def _check_radius(radius):
    """A positive radius; ``np.inf`` (every pair an edge: the complete graph) included."""
    if not (isinstance(radius, float) and radius == np.inf):
        check_positive(radius, "radius")
    return radius


def epsilon_graph(X: ArrayLike | Sparse, radius: float) -> Sparse:
    r"""Epsilon-neighbourhood graph: an edge of length :math:`\|x_i - x_j\|` wherever that
    length is at most ``radius`` (step 1). Symmetric by construction.

    Returns
    -------
    G : scipy.sparse.csr_matrix of shape (N, N)
        Edge lengths; a missing entry means no edge.
    """
    X = check_array(X, min_samples=2)
    _check_radius(radius)
    n = len(X)
    rows, cols = _pairs_within(X, radius)
    lengths = _exact_lengths(X, X, rows, cols)
    return _symmetrise(n, rows, cols, lengths, "or")


def cross_graph(Y: ArrayLike | Sparse, X: ArrayLike | Sparse, *, n_neighbors: int | None = None,
                radius: float | None = None) -> Sparse:
    """Edges from new points (rows of ``Y``) to their neighbours among the rows of ``X``.

    Used for out-of-sample extensions: row i of the ``(M, N)`` result holds the lengths
    :math:`\\|y_i - x_j\\|` to the ``n_neighbors`` nearest ``x_j`` (or to all within ``radius``).
    """
    X = check_array(X)
    Y = check_array(Y, name="Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"The new points have {Y.shape[1]} features but the model was fitted on {X.shape[1]}; "
            "pass data with the same columns."
        )
    m, n = len(Y), len(X)
    if radius is None:
        n_neighbors = check_n_neighbors(n_neighbors, n + 1)
        rows = np.repeat(np.arange(m), n_neighbors)
        cols = _kneighbors(X, n_neighbors, Y).ravel()
    else:
        rows, cols = _pairs_within(X, radius, Y)
    lengths = _exact_lengths(X, Y, rows, cols)
    return sp.csr_matrix((lengths, (rows, cols)), shape=(m, n))


# ---------------------------------------------------------------------------------------------
# Components and geodesic distances.


def _check_graph(G):
    if not sp.issparse(G) or G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise TypeError(
            "G must be a square scipy.sparse matrix of edge lengths (e.g. from knn_graph), "
            f"got {type(G).__name__} with shape {getattr(G, 'shape', None)}."
        )
    G = sp.csr_matrix(G, dtype=np.float64)
    check_finite(G.data, name="G")
    if G.nnz and G.data.min() < 0:
        raise ValueError("G has negative edge lengths; shortest paths need lengths >= 0.")
    return G


def connected_components(G: Matrix) -> tuple[int, IntArray]:
    """Connected components of the undirected graph ``G`` (an edge in either direction counts).

    Returns
    -------
    n_components : int
    labels : ndarray of shape (N,)
        Component index of every node.
    """
    n_components, labels = csgraph.connected_components(_check_graph(G), directed=False)
    return int(n_components), labels


def floyd_warshall(G: Matrix) -> FloatArray:
    r"""All-pairs shortest paths by Floyd–Warshall, the notes' algorithm (step 1).

    Start from :math:`d_{ij}` = edge length (0 on the diagonal, :math:`\infty` for no edge), then
    for each pivot :math:`k`: :math:`d_{ij} \leftarrow \min(d_{ij},\, d_{ik} + d_{kj})`, all
    pairs at once (one vectorised update per pivot, :math:`O(N^3)` in total). For teaching;
    :func:`dijkstra` is much faster on sparse graphs and returns the same distances.

    Returns
    -------
    D : ndarray of shape (N, N)
        Geodesic distances; ``inf`` between nodes in different components.
    """
    G = _check_graph(G)
    n = G.shape[0]
    D = np.full((n, n), np.inf)
    coo = G.tocoo()
    # the graph is undirected: an edge stored in either direction joins both ways
    np.minimum.at(D, (coo.row, coo.col), coo.data)
    np.minimum.at(D, (coo.col, coo.row), coo.data)
    np.fill_diagonal(D, 0.0)
    for k in range(n):
        # d_ij <- min(d_ij, d_ik + d_kj); row and column k do not change during pivot k
        np.minimum(D, D[:, k, None] + D[None, k, :], out=D)
    return D


def dijkstra(G: Matrix) -> FloatArray:
    """All-pairs shortest paths by Dijkstra's algorithm from every node (scipy.sparse.csgraph).

    :math:`O(N (E + N \\log N))` for :math:`E` edges; returns the same distances as
    :func:`floyd_warshall` (``inf`` between components).
    """
    G = _check_graph(G)
    # an edge stored in one direction only joins both ways; a graph already stored both ways
    # (knn_graph, epsilon_graph) needs no second, transposed adjacency list
    pattern = G.copy()
    pattern.data[:] = 1.0  # explicit zero-length edges count as edges
    symmetric = (G != G.T).nnz == 0 and (pattern != pattern.T).nnz == 0
    return csgraph.dijkstra(G, directed=symmetric)


GEODESIC_METHODS = {"dijkstra": dijkstra, "floyd": floyd_warshall}


def geodesic_distances(G: Matrix, method: str = "dijkstra") -> FloatArray:
    """Geodesic (shortest-path) distances of the graph ``G`` by ``"dijkstra"`` or ``"floyd"``."""
    if method not in GEODESIC_METHODS:
        raise ValueError(f"method must be 'dijkstra' or 'floyd', got {method!r}.")
    return GEODESIC_METHODS[method](G)


def smallest_connecting_k(X: ArrayLike | Sparse) -> int:
    """Smallest ``n_neighbors`` whose "or" kNN graph of ``X`` is connected.

    Connectivity only grows with k, so: double k until the graph connects, then bisect,
    reusing one sorted neighbour list (the kNN graph for k is its first k columns).
    """
    X = check_array(X, min_samples=2)
    n = len(X)
    rows_of = lambda k: np.repeat(np.arange(n), k)
    connected = lambda ind, k: csgraph.connected_components(
        sp.csr_matrix((np.ones(n * k), (rows_of(k), ind[:, :k].ravel())), shape=(n, n)),
        directed=False,
    )[0] == 1
    hi = 1
    ind = _kneighbors(X, hi)
    while not connected(ind, hi):  # ends: the complete graph (k = N - 1) is connected
        hi = min(2 * hi, n - 1)
        ind = _kneighbors(X, hi)
    lo = hi // 2  # not connected (or 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if connected(ind, mid) else (mid, hi)
    return hi


def smallest_connecting_radius(X: ArrayLike | Sparse) -> float:
    """Smallest ``radius`` whose epsilon graph of ``X`` is connected: the longest edge of the
    Euclidean minimum spanning tree."""
    D = pairwise_distances(X)
    # a zero distance (duplicate points) would read as "no edge"; those points join at any radius
    D[D == 0] = np.finfo(float).tiny
    np.fill_diagonal(D, 0.0)
    return float(csgraph.minimum_spanning_tree(D).max())


GEODESIC_CONSEQUENCE = "geodesic distances between them are infinite and the embedding is undefined"
JOINED_CONSEQUENCE = (
    "geodesic distances between them would be infinite: Isomap joins every pair of components "
    "by the shortest straight edge between them (join_components, as scikit-learn's Isomap "
    "does), so distances between components run through those shortcuts, not along the "
    "manifold, and the embedding places the components only roughly"
)
SPECTRAL_CONSEQUENCE = (
    "the Laplacian (or LLE alignment matrix) has one zero eigenvalue per component: each "
    "component is embedded only up to its own translation and scale; the first coordinates "
    "mostly tell the components apart, and distances between components mean nothing"
)


class DisconnectedGraphWarning(UserWarning):
    """A spectral method was fitted on a disconnected neighbourhood graph.

    The fit returns a finite embedding, but the components are placed independently of one
    another (see :func:`check_connected`). Turn it into an error with
    ``warnings.simplefilter("error", mlnotes.DisconnectedGraphWarning)``.
    """


def _stacklevel_outside_package():
    """The ``stacklevel`` that points a warning issued by the caller at the first frame outside
    mlnotes (the user's ``fit`` call), however deep inside the package it was raised."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1  # level 1 is the function calling warnings.warn
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def check_connected(G: Sparse, X: ArrayLike | Sparse | None, *, n_neighbors: int | None = None,
                    radius: float | None = None, consequence: str = GEODESIC_CONSEQUENCE,
                    warn: bool = False, distances: FloatArray | None = None,
                    fix: str | None = None, what: str | None = None) -> Sparse:
    """Refuse (or, with ``warn=True``, warn about) a disconnected neighbourhood graph ``G`` of
    ``X``.

    The message gives the component sizes, what the disconnection means (``consequence``) and
    the smallest ``n_neighbors`` (or ``radius``) that would connect the graph (computed from
    ``distances``, the full distance matrix, when given instead of ``X``). A method whose
    result is undefined on a disconnected graph (Isomap: infinite geodesic distances) raises a
    ``ValueError``; a spectral method, whose eigenproblem still has a solution, passes
    ``warn=True`` and gets a :class:`DisconnectedGraphWarning` (as scikit-learn's
    ``SpectralEmbedding`` warns). A graph given as such (a precomputed graph, no points to
    search) passes its own ``what`` (the graph's name) and ``fix`` (the remedy).
    """
    n_components, labels = connected_components(G)
    if n_components == 1:
        return G
    sizes = np.sort(np.bincount(labels))[::-1]
    shown = ", ".join(str(int(s)) for s in sizes[:6]) + (", ..." if len(sizes) > 6 else "")
    if fix is None:
        if distances is not None:
            least = _smallest_connecting_from_distances(distances, radius)
        else:
            least = smallest_connecting_k(X) if radius is None else smallest_connecting_radius(X)
        if radius is None:
            fix = (f"increase n_neighbors to at least {least} (the smallest value that "
                   "connects it)")
        else:
            fix = f"increase radius to at least {least:.6g} (the smallest value that connects it)"
    if what is None:
        what = (f"The {n_neighbors}-nearest-neighbour graph" if radius is None
                else f"The radius-{radius:g} neighbourhood graph")
    message = (
        f"{what} is disconnected: it has {n_components} connected components (sizes {shown}), "
        f"so {consequence}; {fix}, or remove the outlying points"
    )
    if not warn:
        raise ValueError(message + ".")
    warnings.warn(message + ", or embed each component on its own.", DisconnectedGraphWarning,
                  stacklevel=_stacklevel_outside_package())
    return G


def join_components(G: Sparse, X: ArrayLike | Sparse) -> Sparse:
    r"""``G`` with every pair of its connected components joined by one edge: the shortest
    straight segment between them, of length :math:`\min_{i \in A, j \in B} \|x_i - x_j\|`.

    Makes geodesic distances finite on a disconnected graph (Isomap's fallback, as
    scikit-learn's); a path between components then takes at least one such shortcut.
    Returns ``G`` itself (as CSR) when it is already connected; the new edges are stored both
    ways.
    """
    G = _check_graph(G)
    X = check_array(X)
    n_components, labels = connected_components(G)
    if n_components == 1:
        return G
    members = [np.flatnonzero(labels == c) for c in range(n_components)]
    trees = [cKDTree(X[m]) for m in members]
    rows, cols, lengths = [], [], []
    for a in range(n_components):
        for b in range(a + 1, n_components):
            dist, nearest = trees[b].query(X[members[a]], k=1)  # nearest point of B to each of A
            i = int(np.argmin(dist))
            rows.append(members[a][i])
            cols.append(members[b][nearest[i]])
            lengths.append(dist[i])
    # exact lengths (the tree's are rounded differently), kept > 0 so the edge is not dropped
    lengths = np.maximum(_exact_lengths(X, X, np.array(rows), np.array(cols)),
                         np.finfo(float).tiny)
    coo = G.tocoo()  # concatenated, not added: a sum would drop G's zero-length edges
    return sp.csr_matrix((np.r_[coo.data, lengths, lengths],
                          (np.r_[coo.row, rows, cols], np.r_[coo.col, cols, rows])),
                         shape=G.shape)


def neighbourhood_graph(X: ArrayLike | Sparse, *, n_neighbors: int | None = None, radius: float | None = None,
                        consequence: str = GEODESIC_CONSEQUENCE, warn: bool = False) -> Sparse:
    """The kNN ("or") or epsilon graph of ``X`` (step 1 of Isomap and eigenmaps), checked for
    connectedness.

    Exactly one of ``n_neighbors`` and ``radius`` must be given; a disconnected graph raises a
    ``ValueError`` (or, with ``warn=True``, gives a :class:`DisconnectedGraphWarning`) with the
    component sizes and the smallest value that connects it (:func:`check_connected`).
    """
    if (n_neighbors is None) == (radius is None):
        raise ValueError(
            "Give exactly one of n_neighbors and radius (the other must be None), got "
            f"n_neighbors={n_neighbors!r}, radius={radius!r}; e.g. n_neighbors=None, radius=1.5."
        )
    G = knn_graph(X, n_neighbors) if radius is None else epsilon_graph(X, radius)
    return check_connected(G, X, n_neighbors=n_neighbors, radius=radius, consequence=consequence,
                           warn=warn)


# ---------------------------------------------------------------------------------------------
# Other metrics (Isomap's and t-SNE's ``metric``): scipy's cdist, for real-valued vectors.

CDIST_METRICS = ("euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski", "cosine",
                 "correlation", "canberra", "braycurtis", "seuclidean", "mahalanobis",
                 "jensenshannon")
METRIC_ALIASES = {"l1": "cityblock", "manhattan": "cityblock", "l2": "euclidean"}


def check_metric(metric: str | Callable[..., float], *,
                 precomputed: bool = True) -> str | Callable[..., float]:
    """A metric name of :data:`CDIST_METRICS` (or an alias: ``"l1"``, ``"manhattan"``,
    ``"l2"``), ``"precomputed"`` (when allowed) or a callable ``f(u, v) -> float``; returns
    the canonical name (or the callable)."""
    if callable(metric):
        return metric
    names = CDIST_METRICS + tuple(METRIC_ALIASES) + (("precomputed",) if precomputed else ())
    if not isinstance(metric, str) or metric not in names:
        raise ValueError(
            f"metric must be one of {', '.join(map(repr, names))} or a callable f(u, v), got "
            f"{metric!r}."
        )
    return METRIC_ALIASES.get(metric, metric)


def metric_distances(X: ArrayLike | Sparse, Y: ArrayLike | Sparse | None = None, *,
                     metric: str | Callable[..., float] = "euclidean",
                     metric_params: dict[str, Any] | None = None) -> FloatArray:
    """Distances :math:`d(x_i, y_j)` in ``metric`` by ``scipy.spatial.distance.cdist``
    (``metric_params``: its keyword arguments, e.g. ``{"p": 3}`` for ``"minkowski"``);
    ``"euclidean"`` is :func:`pairwise_distances`. Returns an ``(N, M)`` array."""
    from scipy.spatial.distance import cdist

    metric = check_metric(metric, precomputed=False)
    if isinstance(metric, str) and metric == "euclidean" and not metric_params:
        return pairwise_distances(X, Y)
    X = check_array(X)
    Y = X if Y is None else check_array(Y, name="Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}; both need the same columns."
        )
    D = cdist(X, Y, metric=metric, **(metric_params or {}))
    check_finite(D, name=f"the {metric if isinstance(metric, str) else 'metric'} distances")
    if D.min(initial=0.0) < 0:
        raise ValueError("The metric returned negative distances; a metric must be >= 0.")
    return D


# ---------------------------------------------------------------------------------------------
# Graphs from a full distance matrix: any metric, precomputed distances, sparse data.


def check_distances(D: ArrayLike, *, name: str = "the distance matrix", copy: bool = False) -> FloatArray:
    """A square, finite, non-negative distance matrix (as float64; a copy if ``copy``)."""
    D = check_array(D, name=name, min_samples=2, copy=copy)
    if D.shape[0] != D.shape[1]:
        raise ValueError(
            f"{name} must be square (n_samples x n_samples) but has shape {D.shape}; pass "
            "metric='euclidean' (or another metric) to give data instead of distances."
        )
    if D.min() < 0:
        raise ValueError(f"{name} has negative entries; distances must be >= 0.")
    return D


def _nearest_from_distances(D, n_neighbors, *, exclude_self):
    """Indices ``(M, k)`` of each row's k smallest entries, nearest first (the diagonal left
    out when ``exclude_self``: a point is not its own neighbour)."""
    if exclude_self:
        D = D.copy()
        np.fill_diagonal(D, np.inf)
    part = np.argpartition(D, n_neighbors - 1, axis=1)[:, :n_neighbors]
    order = np.argsort(np.take_along_axis(D, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def graph_from_distances(D: ArrayLike, *, n_neighbors: int | None = None,
                         radius: float | None = None) -> Sparse:
    """The kNN ("or") or epsilon graph of points given by their distance matrix ``D``: the
    same graphs as :func:`knn_graph` and :func:`epsilon_graph`, for any metric."""
    n = len(D)
    if radius is None:
        n_neighbors = check_n_neighbors(n_neighbors, n)
        rows = np.repeat(np.arange(n), n_neighbors)
        cols = _nearest_from_distances(D, n_neighbors, exclude_self=True).ravel()
    else:
        _check_radius(radius)
        rows, cols = np.nonzero(np.triu(D <= radius, k=1))
    return _symmetrise(n, rows, cols, D[rows, cols], "or")


def cross_graph_from_distances(D_new: ArrayLike, *, n_neighbors: int | None = None,
                               radius: float | None = None) -> Sparse:
    """:func:`cross_graph` from the ``(M, N)`` distances of new points to the training points."""
    m, n = D_new.shape
    if radius is None:
        n_neighbors = check_n_neighbors(n_neighbors, n + 1)
        rows = np.repeat(np.arange(m), n_neighbors)
        cols = _nearest_from_distances(D_new, n_neighbors, exclude_self=False).ravel()
    else:
        rows, cols = np.nonzero(D_new <= radius)
    return sp.csr_matrix((D_new[rows, cols], (rows, cols)), shape=(m, n))


def _smallest_connecting_from_distances(D, radius):
    if radius is not None:
        D = D.copy()
        D[D == 0] = np.finfo(float).tiny  # duplicates join at any radius
        np.fill_diagonal(D, 0.0)
        return float(csgraph.minimum_spanning_tree(D).max())
    n = len(D)
    ind = _nearest_from_distances(D, n - 1, exclude_self=True)

    def connected(k):
        A = sp.csr_matrix((np.ones(n * k), (np.repeat(np.arange(n), k), ind[:, :k].ravel())),
                          shape=(n, n))
        return csgraph.connected_components(A, directed=False)[0] == 1

    lo, hi = 0, n - 1  # bisection: connectivity only grows with k
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if connected(mid) else (mid, hi)
    return hi


def join_components_by_distances(G: Sparse, D: ArrayLike) -> Sparse:
    """:func:`join_components` with the shortest edge between components read from ``D``."""
    G = _check_graph(G)
    n_components, labels = connected_components(G)
    if n_components == 1:
        return G
    members = [np.flatnonzero(labels == c) for c in range(n_components)]
    rows, cols, lengths = [], [], []
    for a in range(n_components):
        for b in range(a + 1, n_components):
            block = D[np.ix_(members[a], members[b])]
            i, j = np.unravel_index(np.argmin(block), block.shape)
            rows.append(members[a][i])
            cols.append(members[b][j])
            lengths.append(max(float(block[i, j]), np.finfo(float).tiny))
    coo = G.tocoo()
    return sp.csr_matrix((np.r_[coo.data, lengths, lengths],
                          (np.r_[coo.row, rows, cols], np.r_[coo.col, cols, rows])),
                         shape=G.shape)


def neighbourhood_graph_from_distances(D: ArrayLike, *, n_neighbors: int | None = None,
                                       radius: float | None = None, consequence: str = GEODESIC_CONSEQUENCE,
                                       warn: bool = False) -> Sparse:
    """:func:`neighbourhood_graph` for points given by their distance matrix ``D``."""
    if (n_neighbors is None) == (radius is None):
        raise ValueError(
            "Give exactly one of n_neighbors and radius (the other must be None), got "
            f"n_neighbors={n_neighbors!r}, radius={radius!r}; e.g. n_neighbors=None, radius=1.5."
        )
    G = graph_from_distances(D, n_neighbors=n_neighbors, radius=radius)
    return check_connected(G, None, n_neighbors=n_neighbors, radius=radius,
                           consequence=consequence, warn=warn, distances=D)


# ---------------------------------------------------------------------------------------------
# A precomputed sparse neighbours graph (scikit-learn's KNeighborsTransformer(mode="distance"),
# kneighbors_graph(mode="distance"), radius_neighbors_graph): step 1 done by someone else.

PRECOMPUTED_GRAPH = "the precomputed neighbours graph"
PRECOMPUTED_SYMMETRY_RTOL = 1e-5  # G[i, j] and G[j, i] may differ by round-off (float32: 1e-7)


def check_sparse_distances(G: sp.spmatrix, *, name: str = PRECOMPUTED_GRAPH,
                           n_columns: int | None = None, copy: bool = False) -> sp.csr_matrix:
    r"""A sparse matrix of distances: finite, :math:`\ge 0`, as float64 CSR with sorted
    indices (a copy if ``copy``). A stored entry is an edge, an explicit zero included (a
    duplicate point, or the point itself); a missing entry is no edge.

    ``n_columns=None`` asks for a square graph on the training points; an integer for the
    ``(M, n_columns)`` distances of new points to the training points."""
    if not sp.issparse(G):
        raise TypeError(f"{name} must be a scipy.sparse matrix, got {type(G).__name__}.")
    G = check_array(G, name=name, min_samples=1 if n_columns else 2, accept_sparse=True,
                    copy=copy)
    if n_columns is None and G.shape[0] != G.shape[1]:
        raise ValueError(
            f"{name} must be square (n_samples x n_samples) but has shape {G.shape}; give "
            "the graph of the training points to themselves, e.g. "
            "KNeighborsTransformer(mode='distance').fit_transform(X)."
        )
    if G.nnz and G.data.min() < 0:
        i = int(np.argmin(G.data))
        row = int(np.searchsorted(G.indptr, i, side="right") - 1)
        raise ValueError(
            f"{name} has negative entries (the most negative: ({row}, {int(G.indices[i])}) = "
            f"{G.data[i]:.6g}); its entries are edge lengths (distances), which are >= 0. "
            "Pass distances (mode='distance'), not similarities or affinities."
        )
    if not G.has_sorted_indices:
        G = G.copy() if not copy else G
        G.sort_indices()
    return G


def _stored_rows(G, *, exclude_self):
    """The stored entries of ``G`` as ``(rows, cols, lengths)``, the diagonal left out if
    ``exclude_self`` (a point is not its own neighbour)."""
    coo = G.tocoo()
    keep = coo.row != coo.col if exclude_self else np.ones(coo.nnz, dtype=bool)
    return coo.row[keep], coo.col[keep], coo.data[keep]


def nearest_from_sparse(G: sp.csr_matrix, n_neighbors: int, *, exclude_self: bool = True,
                        name: str = PRECOMPUTED_GRAPH) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's ``n_neighbors`` shortest stored edges of the sparse distances ``G``
    (ties by column index), as directed edges ``(rows, cols, lengths)``.

    A row may store more edges than that (``KNeighborsTransformer`` stores the point itself
    and ``n_neighbors`` others; a graph built for a larger ``k`` serves any smaller one) but
    not fewer: a row with too few raises a ``ValueError`` naming it and the remedy.
    """
    rows, cols, lengths = _stored_rows(G, exclude_self=exclude_self)
    n_rows = G.shape[0]
    counts = np.bincount(rows, minlength=n_rows)
    short = np.flatnonzero(counts < n_neighbors)
    if len(short):
        besides = " besides the point itself" if exclude_self else ""
        raise ValueError(
            f"Row(s) {short[:5].tolist()} of {name} store only {int(counts[short].min())} "
            f"edge(s){besides}, but n_neighbors={n_neighbors} needs at least {n_neighbors} "
            "in every row. Build the graph with at least that many neighbours (e.g. "
            f"KNeighborsTransformer(n_neighbors={n_neighbors}, mode='distance'), which also "
            "stores each point itself), or lower n_neighbors."
        )
    order = np.lexsort((cols, lengths, rows))  # by row, then length, then column
    rows, cols, lengths = rows[order], cols[order], lengths[order]
    rank = np.arange(len(rows)) - np.r_[0, np.cumsum(counts)[:-1]][rows]
    keep = rank < n_neighbors
    return rows[keep], cols[keep], lengths[keep]


def _check_symmetric_lengths(G, name):
    """Where both ``G[i, j]`` and ``G[j, i]`` are stored they must agree (up to round-off):
    a distance is symmetric. One direction missing is fine (a kNN relation is not)."""
    rows, cols, lengths = _stored_rows(G, exclude_self=True)
    key = np.minimum(rows, cols).astype(np.int64) * G.shape[0] + np.maximum(rows, cols)
    order = np.argsort(key, kind="stable")
    key, lengths, rows, cols = key[order], lengths[order], rows[order], cols[order]
    twice = np.flatnonzero(key[1:] == key[:-1])  # pairs stored in both directions
    a, b = lengths[twice], lengths[twice + 1]
    bad = twice[np.abs(a - b) > PRECOMPUTED_SYMMETRY_RTOL * np.maximum(a, b)]
    if len(bad):
        i, j = int(rows[bad[0]]), int(cols[bad[0]])
        raise ValueError(
            f"{name} is not symmetric: entry ({i}, {j}) = {G[i, j]:.6g} but ({j}, {i}) = "
            f"{G[j, i]:.6g}. Its entries are distances, the same both ways; build it from a "
            "metric (KNeighborsTransformer(mode='distance') does), or store one direction only."
        )


def graph_from_sparse_distances(G: sp.spmatrix, *, n_neighbors: int | None = None,
                                radius: float | None = None,
                                name: str = PRECOMPUTED_GRAPH) -> sp.csr_matrix:
    """The kNN ("or") or epsilon graph of points given by a sparse graph of distances ``G``:
    :func:`knn_graph`'s and :func:`epsilon_graph`'s graphs, from the edges ``G`` stores.

    For ``n_neighbors=k`` every row keeps its ``k`` shortest stored edges to other points
    (:func:`nearest_from_sparse`); for ``radius`` the stored edges of length at most
    ``radius``. So ``KNeighborsTransformer(n_neighbors=k, mode="distance")`` followed by
    ``n_neighbors=k`` gives :func:`knn_graph`'s graph of the data. An edge stored with two
    different lengths (beyond round-off) raises a ``ValueError``.
    """
    if (n_neighbors is None) == (radius is None):
        raise ValueError(
            "Give exactly one of n_neighbors and radius (the other must be None), got "
            f"n_neighbors={n_neighbors!r}, radius={radius!r}; e.g. n_neighbors=None, radius=1.5."
        )
    G = check_sparse_distances(G, name=name)
    _check_symmetric_lengths(G, name)
    n = G.shape[0]
    if radius is None:
        n_neighbors = check_n_neighbors(n_neighbors, n)
        rows, cols, lengths = nearest_from_sparse(G, n_neighbors, name=name)
    else:
        _check_radius(radius)
        rows, cols, lengths = _stored_rows(G, exclude_self=True)
        close = lengths <= radius
        rows, cols, lengths = rows[close], cols[close], lengths[close]
    return _symmetrise(n, rows, cols, lengths, "or")


def cross_graph_from_sparse(G_new: sp.spmatrix, n_train: int, *, n_neighbors: int | None = None,
                            radius: float | None = None,
                            name: str = "the distances to the training points",
                            ) -> sp.csr_matrix:
    """:func:`cross_graph` from the sparse ``(M, N)`` distances of new points to the
    training points (``KNeighborsTransformer.transform``): each row's ``n_neighbors``
    shortest stored edges, or those within ``radius``."""
    G_new = check_sparse_distances(G_new, name=name, n_columns=n_train)
    if radius is None:
        rows, cols, lengths = nearest_from_sparse(G_new, n_neighbors, exclude_self=False,
                                                  name=name)
    else:
        rows, cols, lengths = _stored_rows(G_new, exclude_self=False)
        close = lengths <= radius
        rows, cols, lengths = rows[close], cols[close], lengths[close]
    return sp.csr_matrix((lengths, (rows, cols)), shape=G_new.shape)


def precomputed_graph_fix(n_neighbors: int | None = None, radius: float | None = None) -> str:
    """The remedy for a disconnected precomputed graph (no points to search for a k)."""
    more = ("more neighbours per row" if radius is None else "a larger radius")
    return (f"build the graph with {more} (n_neighbors={n_neighbors}, radius={radius} used "
            "here), or pass the full (dense) distance matrix")
