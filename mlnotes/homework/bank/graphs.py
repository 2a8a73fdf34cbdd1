"""Questions on step 1, neighbourhood graphs: the kNN graph and Floyd-Warshall geodesics.

Graphs given to (and accepted from) students are dense ``(N, N)`` arrays of edge lengths with
``np.inf`` where there is no edge and 0 on the diagonal; a scipy.sparse answer is accepted too
(a missing entry is no edge).
"""

import numpy as np

from ...graphs import floyd_warshall as _floyd_warshall
from ...graphs import knn_graph as _knn_graph
from ..compare import relative_error
from ..core import Mistake, Property, Question
from ._common import (
    compare_close,
    curve_points,
    dense,
    graph_csr,
    knn_lengths,
    normalise_graph,
    register,
    symmetric,
    tol_by_size,
    zero_diagonal,
)

# Generated graphs make the classic Floyd-Warshall bug at least this wrong (relative error).
VISIBLE_ERROR = 1e-3


# --- kNN graph ---------------------------------------------------------------------------------

def _knn_inputs(rng):
    N = int(rng.integers(12, 30))
    return {"X": rng.normal(size=(N, int(rng.integers(2, 4)))),
            "n_neighbors": int(rng.integers(2, 6))}


def _adjacency(G):
    """1 on the edges of G, 0 elsewhere."""
    return (np.isfinite(G) & (G > 0)).astype(float)


def _at_least_k(answer, inputs, tol):
    G = answer[0]
    degrees = (np.isfinite(G) & (G > 0)).sum(axis=1)
    return bool(np.all(degrees >= inputs["n_neighbors"])), f"a point has {degrees.min()} edges"


register(Question(
    name="graphs.knn_graph",
    function="knn_graph",
    signature="def knn_graph(X, n_neighbors):",
    docstring=r"""Symmetric k-nearest-neighbour graph of edge lengths.

X : (N, p) data. n_neighbors : int k.
Returns an (N, N) array G: G[i, j] = ||x_i - x_j|| when j is among the k nearest neighbours
of i OR i among those of j (a point is not its own neighbour), np.inf where there is no
edge, 0 on the diagonal. (A scipy.sparse matrix of edge lengths is accepted too.)""",
    make_inputs=_knn_inputs,
    reference=lambda X, n_neighbors: dense(_knn_graph(X, n_neighbors, mode="or"), np.inf),
    compare=compare_close,
    tolerance=tol_by_size("X"),
    outputs=("G",),
    sparse_fill=np.inf,
    allow_inf=True,
    normalise=normalise_graph,
    properties=(symmetric(name="G"), zero_diagonal(name="G"),
                Property("every point has at least k edges", _at_least_k)),
    mistakes=(
        Mistake("self", lambda X, n_neighbors: knn_lengths(X, n_neighbors, include_self=True),
                "off by one: each point is its own nearest neighbour (distance 0); skip it "
                "and take the next k."),
        Mistake("directed", lambda X, n_neighbors: knn_lengths(X, n_neighbors, mode="directed"),
                "not symmetrised: keep the edge i-j when j is among i's neighbours OR i is "
                "among j's."),
        Mistake("mutual", lambda X, n_neighbors: knn_lengths(X, n_neighbors, mode="and"),
                "kept only mutual neighbours (AND): the graph asked for joins i and j when "
                "either is among the other's k nearest (OR)."),
        Mistake("squared", lambda X, n_neighbors: knn_lengths(X, n_neighbors, square=True),
                "edge lengths are squared distances: use the distances ||x_i - x_j||."),
        Mistake("adjacency", lambda X, n_neighbors: _adjacency(knn_lengths(X, n_neighbors)),
                "that is the 0/1 adjacency matrix: G holds the edge LENGTHS ||x_i - x_j|| "
                "(np.inf where there is no edge)."),
    ),
))


# --- Floyd-Warshall ----------------------------------------------------------------------------

def _floyd_inputs(rng):
    while True:  # long enough paths that the classic loop-order bug shows
        G = knn_lengths(curve_points(rng, int(rng.integers(14, 26))), 3)
        if relative_error(_floyd_wrong_order(G), _floyd(G)) > VISIBLE_ERROR:
            return {"G": G}


def _floyd(G, *, zero_gaps=False):
    D = np.where(np.isinf(G), 0.0, G) if zero_gaps else G.copy()
    for k in range(len(D)):  # d(i, j) <- min(d(i, j), d(i, k) + d(k, j)), pivot k outermost
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    return D


def _floyd_wrong_order(G):
    """The classic bug: the intermediate vertex k in the innermost loop."""
    D = G.copy()
    N = len(D)
    for i in range(N):
        for j in range(N):
            for k in range(N):
                D[i, j] = min(D[i, j], D[i, k] + D[k, j])
    return D


def _floyd_one_pass(G):
    return np.minimum(G, (G[:, :, None] + G[None, :, :]).min(axis=1))


def _no_longer_than_edges(answer, inputs, tol):
    G = inputs["G"]
    D = answer[0]
    ok = np.all(D <= G * (1 + tol) + tol)
    return bool(ok), "some distance is longer than the direct edge"


def _triangle(answer, inputs, tol):
    D = answer[0]
    via = (D[:, :, None] + D[None, :, :]).min(axis=1)
    finite = np.isfinite(D)
    ok = np.all(~finite | (D <= via * (1 + tol) + tol))
    return bool(ok), "d(i, j) > d(i, k) + d(k, j) for some k"


register(Question(
    name="graphs.floyd_warshall",
    function="floyd_warshall",
    signature="def floyd_warshall(G):",
    docstring=r"""All shortest-path (geodesic) distances of a graph, by Floyd-Warshall.

G : (N, N) array of edge lengths, np.inf where there is no edge, 0 on the diagonal.
Returns the (N, N) array of shortest-path lengths (np.inf between disconnected points):
for each intermediate vertex k in turn, d(i, j) = min(d(i, j), d(i, k) + d(k, j)).""",
    make_inputs=_floyd_inputs,
    reference=lambda G: _floyd_warshall(graph_csr(G)),
    compare=compare_close,
    tolerance=tol_by_size("G"),
    outputs=("D_geo",),
    sparse_fill=np.inf,
    allow_inf=True,
    properties=(symmetric(name="the distance matrix"), zero_diagonal(name="the distance matrix"),
                Property("no distance is longer than the direct edge", _no_longer_than_edges),
                Property("the triangle inequality holds", _triangle)),
    mistakes=(
        Mistake("loop order", _floyd_wrong_order,
                "the loop over the intermediate vertex k must be the OUTERMOST loop; with it "
                "innermost, d(i, k) and d(k, j) are used before they are final."),
        Mistake("one pass", _floyd_one_pass,
                "only paths of at most two edges were considered: repeat the update for every "
                "intermediate vertex k, keeping the improved distances."),
        Mistake("zero gaps", lambda G: _floyd(G, zero_gaps=True),
                "a missing edge was treated as length 0: it must stay infinite."),
    ),
))
