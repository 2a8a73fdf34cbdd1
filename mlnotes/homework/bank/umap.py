"""Questions on UMAP: the fuzzy neighbourhood graph (local bandwidths, directed memberships and
their fuzzy union)."""

import numpy as np

from ...umap import fuzzy_graph as _fuzzy_graph
from ..core import Mistake, Property, Question
from ._common import (
    compare_close,
    dense,
    fixed_tolerance,
    in_range,
    register,
    squared_distances,
    symmetric,
    zero_diagonal,
)

# The exercise asks for the graph to 1e-4 of mlnotes.umap.fuzzy_graph: the bisections of the two
# stop at slightly different sigma_i.
GRAPH_TOL = 1e-4
BISECTION_STEPS = 100


def _graph_inputs(rng):
    """Continuous points (no ties among distances), and k counting the point itself."""
    n = int(rng.integers(20, 40))
    X = rng.normal(size=(n, int(rng.integers(2, 5)))) * rng.uniform(0.5, 2.0)
    return {"X": X, "k": int(rng.integers(4, 9))}


def _graph(X, k, *, n_nbrs=None, target=None, local=True, squared=False, union="or"):
    """The fuzzy graph, with the slips a student might make (a trusted helper for mistakes)."""
    N = len(X)
    n_nbrs = k - 1 if n_nbrs is None else n_nbrs
    target = np.log2(k) if target is None else target
    D = squared_distances(X)
    D = D if squared else np.sqrt(D)
    np.fill_diagonal(D, np.inf)
    nbr = np.argsort(D, axis=1)[:, :n_nbrs]
    d = np.take_along_axis(D, nbr, axis=1)
    rho = d[:, 0] if local else np.zeros(N)
    excess = d - rho[:, None]
    lo, hi = np.full(N, -60.0), np.full(N, 60.0)  # bisection on log(sigma)
    for _ in range(BISECTION_STEPS):
        mid = (lo + hi) / 2
        too_wide = np.exp(-excess / np.exp(mid)[:, None]).sum(axis=1) > target
        lo, hi = np.where(too_wide, lo, mid), np.where(too_wide, mid, hi)
    sigma = np.exp((lo + hi) / 2)
    A = np.zeros((N, N))
    A[np.repeat(np.arange(N), n_nbrs), nbr.ravel()] = np.exp(-excess / sigma[:, None]).ravel()
    return {"or": A + A.T - A * A.T, "max": np.maximum(A, A.T), "mean": (A + A.T) / 2,
            "directed": A, "and": A * A.T}[union]


def _nearest_is_one(answer, inputs, tol):
    P, X = answer[0], inputs["X"]
    D = squared_distances(X)
    np.fill_diagonal(D, np.inf)
    w = P[np.arange(len(X)), D.argmin(axis=1)]
    low = int((w < 1 - tol).sum())
    return low == 0, f"{low} of {len(X)} points have their nearest neighbour below 1"


register(Question(
    name="umap.fuzzy_graph",
    function="umap_graph",
    signature="def umap_graph(X, k):",
    docstring=r"""UMAP's fuzzy neighbourhood graph, as a dense (N, N) array.

X : (N, D) points. k : int, neighbours counting the point itself (each point has k - 1).
rho_i is the distance to the nearest neighbour; sigma_i solves
sum_j exp(-(d_ij - rho_i) / sigma_i) = log2 k over the k - 1 neighbours; the directed memberships
are p_{j|i} = exp(-(d_ij - rho_i) / sigma_i) (0 for non-neighbours), and the graph is their fuzzy
union p_ij = p_{j|i} + p_{i|j} - p_{j|i} p_{i|j}, with zero diagonal.""",
    make_inputs=_graph_inputs,
    reference=lambda X, k: dense(_fuzzy_graph(X, k)[0]),
    compare=compare_close,
    tolerance=fixed_tolerance(GRAPH_TOL),
    outputs=("P",),
    properties=(symmetric(name="P"), in_range(0, 1), zero_diagonal(name="P"),
                Property("each point's nearest neighbour has membership 1", _nearest_is_one,
                         hint="the local connectivity: subtract rho_i, the distance to the "
                              "nearest neighbour, before dividing by sigma_i.")),
    mistakes=(
        Mistake("directed", lambda X, k: _graph(X, k, union="directed"),
                "P is not symmetric: that is the directed graph of the p_{j|i}; combine the two "
                "directions of each pair with the fuzzy union."),
        Mistake("max", lambda X, k: _graph(X, k, union="max"),
                "the union is the larger of the two directions: the fuzzy union (probabilistic "
                "'or') counts both, so a pair joined both ways is stronger than either way."),
        Mistake("mean", lambda X, k: _graph(X, k, union="mean"),
                "the two directions are averaged (t-SNE's rule): UMAP combines them with the "
                "fuzzy union, which keeps an edge that is certain one way at 1."),
        Mistake("and", lambda X, k: _graph(X, k, union="and"),
                "the two directions are multiplied (a fuzzy intersection): UMAP takes their "
                "union, so an edge present in one direction only survives."),
        Mistake("no rho", lambda X, k: _graph(X, k, local=False),
                "the nearest neighbours do not have membership 1: the memberships decay from "
                "the nearest neighbour's distance rho_i, not from 0."),
        Mistake("k neighbours", lambda X, k: _graph(X, k, n_nbrs=k),
                "each point has one neighbour too many: k counts the point itself."),
        Mistake("ln k", lambda X, k: _graph(X, k, target=np.log(k)),
                "the bandwidths solve for the wrong total: the memberships of a row sum to "
                "log2 k, not the natural log."),
        Mistake("squared", lambda X, k: _graph(X, k, squared=True),
                "used squared distances: UMAP's memberships decay with the distance d_ij "
                "itself."),
    ),
))
