r"""Approximate nearest neighbours for large data: a random-projection forest, then NN-descent.

Finding each point's :math:`k` nearest neighbours exactly compares every pair: :math:`N(N-1)/2`
distances, 2.4 billion at 70 000 points. Two ideas find almost all of them from a small
fraction of the pairs (the ideas of Dasgupta & Freund 2008 and Dong, Charikar & Li 2011, which
umap-learn's pynndescent also follows), written here in vectorised numpy:

1. **A random-projection tree** cuts the data in two by the hyperplane halfway between two
   random points, and each half again, until every leaf holds at most ``leaf_size`` points.
   Near points mostly land in the same leaf, so the nearest points *within* a point's leaf are
   good first guesses. A forest of ``n_trees`` trees (different random cuts) gives each point
   ``n_trees`` leaves of candidates; :func:`rp_forest_neighbors` keeps the ``k`` nearest.
2. **NN-descent** improves the guesses with the rule "a neighbour of my neighbour is likely my
   neighbour". Each point :math:`u` has a small *join set* :math:`B(u)`: some of its current
   neighbours and some of the points that list :math:`u` as theirs (reverse neighbours). One
   round offers :math:`u` every member of :math:`B(v)` for every :math:`v \in B(u)`, measures
   those distances, and keeps the ``k`` nearest of old and new. Rounds stop when fewer than a
   fraction ``tol`` of the list entries change.

A round goes through the points in blocks of near points (a tree's leaf order), so that one
matrix product of a block with the union of its candidates gives every inner product it needs.
The candidates are screened in single precision on the centred data; the ``k`` kept are measured
again in double precision from their differences, so the distances returned are exact for the
neighbours returned. The result is approximate in *which* neighbours are found:
:func:`neighbor_recall` measures the fraction of the exact ones
(:func:`mlnotes.tsne_fft.nearest_neighbors`) that were found. Every random choice comes from
``random_state``: the same seed gives the same neighbours.
"""

import numpy as np

from ._typing import ArrayLike, FloatArray, IntArray, Seed
from ._validation import check_array, check_positive, check_random_state

__all__ = ["nn_descent", "neighbor_recall", "rp_forest_neighbors"]

LEAF_SIZE = 40  # points per leaf of a random-projection tree, at most
N_TREES = 10  # trees in the forest that seeds NN-descent
JOIN_FORWARD = 8  # of each point's current neighbours, this many enter its join set
JOIN_REVERSE = 8  # ... and at most this many reverse neighbours, drawn at random
MIN_LIST = 10  # NN-descent keeps at least this many per point (then returns the k nearest)
MAX_ROUNDS = 10  # NN-descent rounds at most
TOL = 0.01  # stop once fewer than this fraction of the N * k list entries change in a round
BLOCK_BYTES = 2**26  # coordinates or distances held at once, in bytes
DESCENT_BLOCK = 256  # points of one NN-descent block (one matrix product with their candidates)


def nn_descent(X: ArrayLike, n_neighbors: int, *, n_trees: int = N_TREES,
               leaf_size: int = LEAF_SIZE, max_rounds: int = MAX_ROUNDS, tol: float = TOL,
               random_state: Seed = None) -> tuple[IntArray, FloatArray]:
    r"""The ``n_neighbors`` (approximately) nearest rows of every row of ``X``, itself excluded,
    in Euclidean distance: a random-projection forest's guess improved by NN-descent.

    Parameters
    ----------
    X : array-like of shape (N, p)
    n_neighbors : int
        :math:`k`, fewer than N.
    n_trees : int, default=10
        Trees of the forest that makes the first guess (:func:`rp_forest_neighbors`).
    leaf_size : int, default=40
        Points per leaf, at most; at least ``n_neighbors + 1`` is used.
    max_rounds : int, default=10
        NN-descent rounds at most (0: the forest's guess alone).
    tol : float, default=0.01
        Stop when a round changes fewer than ``tol * N * n_neighbors`` list entries.
    random_state : int, Generator or None, default=None
        Seeds the trees' cuts and the reverse neighbours drawn: the same seed, the same result.

    Returns
    -------
    indices : ndarray of shape (N, n_neighbors), int
        Each row's neighbours, nearest first.
    distances : ndarray of shape (N, n_neighbors)
        Their Euclidean distances :math:`\|x_i - x_j\|`, computed in double precision.

    Examples
    --------
    >>> import numpy as np
    >>> from mlnotes.neighbors import nn_descent, neighbor_recall
    >>> from mlnotes.tsne_fft import nearest_neighbors
    >>> X = np.random.default_rng(0).normal(size=(2000, 10))
    >>> ind, dist = nn_descent(X, 10, random_state=0)
    >>> neighbor_recall(ind, nearest_neighbors(X, 10)[0]) > 0.95
    True
    """
    X, k = _check(X, n_neighbors)
    check_positive(n_trees, "n_trees", integer=True)
    check_positive(leaf_size, "leaf_size", integer=True)
    check_positive(max_rounds, "max_rounds", integer=True, allow_zero=True)
    check_positive(tol, "tol", allow_zero=True)
    return _nn_descent(X, k, check_random_state(random_state), n_trees=n_trees,
                       leaf_size=leaf_size, max_rounds=max_rounds, tol=tol)


def _nn_descent(X, k, rng, *, n_trees=N_TREES, leaf_size=LEAF_SIZE, max_rounds=MAX_ROUNDS,
                tol=TOL):
    """:func:`nn_descent` on checked float data ``X`` with ``k < N``, a Generator ``rng``."""
    Xs = _centred_single(X)
    m = min(max(k, MIN_LIST), len(X) - 1)  # short lists have too few neighbours' neighbours
    ind, D2, order = _forest(Xs, m, n_trees, max(leaf_size, m + 1), rng)
    for _ in range(max_rounds):
        ind, D2, changed = _descent_round(Xs, ind, D2, order, rng)
        if changed < tol * ind.size:
            break
    ind, D = _exact_sorted(X, _fill_missing(Xs, ind))
    return ind[:, :k], D[:, :k]


def rp_forest_neighbors(X: ArrayLike, n_neighbors: int, *, n_trees: int = N_TREES,
                        leaf_size: int = LEAF_SIZE,
                        random_state: Seed = None) -> tuple[IntArray, FloatArray]:
    """The first guess of :func:`nn_descent` alone: each row's ``n_neighbors`` nearest among
    the points that share one of its ``n_trees`` random-projection leaves (padded with index -1
    and distance inf where the leaves hold too few).

    Returns
    -------
    indices, distances
        As :func:`nn_descent`.
    """
    X, k = _check(X, n_neighbors)
    check_positive(n_trees, "n_trees", integer=True)
    check_positive(leaf_size, "leaf_size", integer=True)
    ind, _, _ = _forest(_centred_single(X), k, n_trees, max(leaf_size, k + 1),
                        check_random_state(random_state))
    return _exact_sorted(X, ind)


def neighbor_recall(indices: ArrayLike, exact_indices: ArrayLike) -> float:
    """The fraction of the exact neighbours found: the mean over rows of
    :math:`|\\text{found}_i \\cap \\text{exact}_i| / k`, for two ``(N, k)`` index arrays."""
    A, E = np.asarray(indices), np.asarray(exact_indices)
    if A.shape != E.shape or A.ndim != 2:
        raise ValueError(f"indices has shape {A.shape} and exact_indices {E.shape}; both must "
                         "be (N, k) arrays of the same shape (one row of k neighbours per point).")
    found = (A[:, :, None] == E[:, None, :]).any(axis=1).sum()  # each exact one found?
    return float(found) / E.size


def _check(X, n_neighbors):
    X = check_array(X, min_samples=2)
    check_positive(n_neighbors, "n_neighbors", integer=True)
    if n_neighbors >= X.shape[0]:
        raise ValueError(f"n_neighbors={n_neighbors} needs at least n_neighbors + 1 = "
                         f"{n_neighbors + 1} samples (a point is not its own neighbour), got "
                         f"{X.shape[0]}; choose n_neighbors < {X.shape[0]}.")
    return X, int(n_neighbors)


def _centred_single(X):
    """The data centred (smaller norms, smaller rounding) in single precision, for screening."""
    return np.ascontiguousarray(X - X.mean(axis=0), dtype=np.float32)


def _forest(Xs, k, n_trees, leaf_size, rng):
    """Each point's ``k`` nearest among the points of its leaves in ``n_trees`` trees: indices
    (-1 where fewer) and squared single-precision distances (inf there); and the points in the
    first tree's leaf order (near points close together)."""
    sq = np.einsum("ij,ij->i", Xs, Xs)
    trees = [_rp_tree_leaves(Xs, leaf_size, rng) for _ in range(n_trees)]
    guesses = [_leaf_neighbors(Xs, sq, leaves, k) for leaves in trees]
    ind = np.concatenate([g[0] for g in guesses], axis=1)
    D2 = np.concatenate([g[1] for g in guesses], axis=1)
    return *_keep_nearest(ind, D2, k), trees[0][0]


def _rp_tree_leaves(Xs, leaf_size, rng):
    """One random-projection tree, built a level at a time: returns ``(order, starts)``, the
    points grouped leaf by leaf and where each leaf begins (with N appended).

    Every node larger than ``leaf_size`` is cut by the hyperplane halfway between two of its
    points drawn at random, :math:`(x - (x_a + x_b)/2)^\\top (x_a - x_b) > 0`; a cut that leaves
    one side empty (duplicates) splits the node's list in half instead."""
    N = len(Xs)
    order, starts = np.arange(N), np.array([0, N])
    while True:
        sizes = np.diff(starts)
        big = np.flatnonzero(sizes > leaf_size)
        if big.size == 0:
            return order, starts
        lo, size = starts[big], sizes[big]
        a = lo + rng.integers(0, size)  # two distinct random members of each big node
        b = lo + (a - lo + 1 + rng.integers(0, size - 1)) % size
        xa, xb = Xs[order[a]], Xs[order[b]]
        normal = xa - xb
        offset = 0.5 * np.einsum("ij,ij->i", normal, xa + xb)
        node = np.repeat(np.arange(len(sizes)), sizes)  # the node of every position
        which = np.full(len(sizes), -1)
        which[big] = np.arange(big.size)
        pos = np.flatnonzero(which[node] >= 0)  # positions in big nodes
        w = which[node[pos]]
        side = np.zeros(N, dtype=bool)
        side[pos] = np.einsum("ij,ij->i", Xs[order[pos]], normal[w]) > offset[w]
        right = np.bincount(w, weights=side[pos], minlength=big.size)
        flat = (right == 0) | (right == size)  # a cut with an empty side: halve the list
        if flat.any():
            halve = np.flatnonzero(flat[w])
            side[pos[halve]] = pos[halve] - lo[w[halve]] >= size[w[halve]] // 2
            right[flat] = size[flat] // 2 + size[flat] % 2
        # new order: within each node, the left side, then the right (stable)
        key = 2 * node + side
        order = order[np.argsort(key, kind="stable")]
        cut = lo + size - right.astype(np.intp)  # where each cut node's right side begins
        starts = np.sort(np.concatenate([starts, cut]))


def _leaf_neighbors(Xs, sq, leaves, k):
    """Each point's ``k`` nearest within its leaf (all pairs of a leaf in one batched
    product): indices (-1 where the leaf is small) and squared distances (inf there)."""
    order, starts = leaves
    N = len(order)
    sizes = np.diff(starts)
    L = int(sizes.max())
    leaf = np.repeat(np.arange(len(sizes)), sizes)
    slot = np.arange(N) - starts[leaf]
    members = np.full((len(sizes), L), -1)
    members[leaf, slot] = order
    valid = members >= 0
    M = Xs[np.where(valid, members, 0)]  # (leaves, L, p)
    sqm = np.where(valid, sq[np.where(valid, members, 0)], np.inf)
    D2 = sqm[:, :, None] + sqm[:, None, :] - 2.0 * (M @ M.transpose(0, 2, 1))
    D2[:, np.arange(L), np.arange(L)] = np.inf  # not its own neighbour
    m = min(k, L - 1)  # L >= 2: a cut node leaves a side of more than leaf_size / 2 points
    near = np.argpartition(D2, m - 1, axis=2)[:, :, :m]
    d = np.take_along_axis(D2, near, axis=2)
    cand = np.where(np.isfinite(d), members[np.arange(len(sizes))[:, None, None], near], -1)
    ind, D2k = np.full((N, k), -1), np.full((N, k), np.inf, dtype=np.float32)
    ind[order, :m] = cand[leaf, slot]
    D2k[order, :m] = d[leaf, slot]
    return ind, D2k


def _keep_nearest(ind, D2, k):
    """Of candidate lists with repeats (``(N, C)``, -1 for none), each row's ``k`` nearest
    distinct ones, nearest first."""
    by_index = np.argsort(ind, axis=1, kind="stable")
    ind = np.take_along_axis(ind, by_index, axis=1)
    D2 = np.take_along_axis(D2, by_index, axis=1)
    D2[:, 1:][ind[:, 1:] == ind[:, :-1]] = np.inf  # a repeat counts once
    D2[ind < 0] = np.inf
    near = np.argpartition(D2, k - 1, axis=1)[:, :k]
    d = np.take_along_axis(D2, near, axis=1)
    near = np.take_along_axis(near, np.argsort(d, axis=1, kind="stable"), axis=1)
    ind, D2 = np.take_along_axis(ind, near, axis=1), np.take_along_axis(D2, near, axis=1)
    ind[~np.isfinite(D2)] = -1
    return ind, D2


def _join_sets(ind, rng):
    """Each point's join set: its ``JOIN_FORWARD`` nearest and at most ``JOIN_REVERSE`` of the
    points that list it, drawn at random (-1 pads)."""
    N, k = ind.shape
    forward = ind[:, :min(JOIN_FORWARD, k)]
    src = np.repeat(np.arange(N), forward.shape[1])
    dst = forward.ravel()
    keep = dst >= 0
    src, dst = src[keep], dst[keep]
    shuffle = rng.permutation(len(dst))  # a random few of the reverse neighbours
    src, dst = src[shuffle], dst[shuffle]
    by_dst = np.argsort(dst, kind="stable")
    src, dst = src[by_dst], dst[by_dst]
    first = np.searchsorted(dst, np.arange(N))
    rank = np.arange(len(dst)) - first[dst]
    kept = rank < JOIN_REVERSE
    reverse = np.full((N, JOIN_REVERSE), -1)
    reverse[dst[kept], rank[kept]] = src[kept]
    return np.concatenate([forward, reverse], axis=1)


def _descent_round(Xs, ind, D2, order, rng):
    """One NN-descent round: every point is offered the join sets of its join set's members;
    the ``k`` nearest of old and new are kept. Returns the lists and how many entries changed.

    The points go through in ``order`` (a tree's leaves), ``DESCENT_BLOCK`` at a time: near
    points share most candidates, so one matrix product of the block with the union of its
    candidates gives every inner product needed, and each candidate's coordinates are read once
    per block instead of once per point offered it."""
    N, k = ind.shape
    B = _join_sets(ind, rng)
    sq = np.einsum("ij,ij->i", Xs, Xs)
    column = np.empty(N, dtype=np.intp)  # a candidate's column in the block's product
    new_ind, new_D2 = np.empty_like(ind), np.empty_like(D2)
    for s in range(0, N, DESCENT_BLOCK):
        rows = order[s:s + DESCENT_BLOCK]
        Bu = B[rows]
        cand = np.where(Bu[:, :, None] >= 0, B[np.maximum(Bu, 0)], -1).reshape(len(rows), -1)
        cand[cand == rows[:, None]] = -1  # not its own neighbour
        safe = np.maximum(cand, 0)
        union = np.flatnonzero(np.bincount(safe.ravel(), minlength=N))
        column[union] = np.arange(union.size)
        G = Xs[rows] @ Xs[union].T  # x_u . x_w for every u of the block, w of the union
        d = sq[rows, None] + sq[safe] - 2.0 * np.take_along_axis(G, column[safe], axis=1)
        new_ind[rows], new_D2[rows] = _keep_nearest(
            np.concatenate([ind[rows], cand], axis=1),
            np.concatenate([D2[rows], np.where(cand >= 0, d, np.inf)], axis=1), k)
    changed = int(np.sum(np.sort(new_ind, axis=1) != np.sort(ind, axis=1)))
    return new_ind, new_D2, changed


def _fill_missing(Xs, ind):
    """Rows still short of ``k`` neighbours (tiny or degenerate data, no rounds) searched
    against every point: each row of the result holds ``k`` distinct neighbours."""
    rows = np.flatnonzero((ind < 0).any(axis=1))
    k, block = ind.shape[1], max(1, BLOCK_BYTES // (4 * len(Xs)))
    sq = np.einsum("jp,jp->j", Xs, Xs)
    for s in range(0, rows.size, block):
        r = rows[s:s + block]
        D2 = sq[r, None] - 2.0 * (Xs[r] @ Xs.T) + sq[None, :]
        D2[np.arange(r.size), r] = np.inf  # not its own neighbour
        ind[r] = np.argpartition(D2, k - 1, axis=1)[:, :k]
    return ind


def _exact_sorted(X, ind):
    """The distances of the neighbours found, in double precision from the differences, and
    the lists sorted by them (-1 entries stay last, at distance inf)."""
    missing = ind < 0
    safe = np.where(missing, 0, ind)
    D = np.empty(ind.shape)
    block = max(1, BLOCK_BYTES // (8 * ind.shape[1] * X.shape[1]))
    for s in range(0, len(X), block):
        diff = X[s:s + block, None, :] - X[safe[s:s + block]]
        D[s:s + block] = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    D[missing] = np.inf
    order = np.argsort(D, axis=1, kind="stable")
    return np.take_along_axis(ind, order, axis=1), np.take_along_axis(D, order, axis=1)
