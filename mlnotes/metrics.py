"""Quality measures for embeddings.

Each function takes the high-dimensional data (or its distances) and an embedding ``Z`` and
returns a number the book discusses.
"""

import numpy as np

from ._typing import ArrayLike, FloatArray
from ._validation import check_array, check_dissimilarity, check_positive
from .graphs import nearest_neighbors, pairwise_distances, squared_distances


def _embedding_distances(Z, p=2):
    Z = check_array(Z, name="Z")
    if p == 2:
        return pairwise_distances(Z)
    if p == 1:
        return np.abs(Z[:, None, :] - Z[None, :, :]).sum(axis=-1)
    raise ValueError(f"p must be 1 or 2 (the distance used in the embedding), got {p!r}.")


def raw_stress(Delta: ArrayLike, Z: ArrayLike, *, p: int = 2) -> float:
    r"""Raw stress :math:`\sigma(Z) = \sum_{i<j} (\delta_{ij} - \|z_i - z_j\|_p)^2`.

    Each unordered pair is counted once (scikit-learn's ``smacof`` convention); the notes'
    sum over :math:`i \ne j` counts each pair twice, so it is twice this value.

    Parameters
    ----------
    Delta : ndarray of shape (N, N)
        Dissimilarities :math:`\delta_{ij}` (symmetric, zero diagonal).
    Z : ndarray of shape (N, L)
        Embedding.
    p : {1, 2}
        The norm used for distances in the embedding.
    """
    Delta = check_dissimilarity(Delta)
    Dz = _embedding_distances(Z, p)
    if Dz.shape != Delta.shape:
        raise ValueError(
            f"Delta is {Delta.shape} but Z has {Dz.shape[0]} rows; they must describe the same points."
        )
    return float(((Delta - Dz) ** 2)[np.triu_indices_from(Delta, k=1)].sum())


def normalized_stress(Delta: ArrayLike, Z: ArrayLike, *, p: int = 2) -> float:
    r"""Kruskal's stress-1, :math:`\sqrt{\sum_{i<j} (\delta_{ij} - d_{ij})^2 / \sum_{i<j} d_{ij}^2}`
    with :math:`d_{ij} = \|z_i - z_j\|_p` the embedding distances.

    Scale-free: 0 is a perfect fit, and Kruskal's rule of thumb calls 0.05 good and 0.2 poor.
    """
    Delta = check_dissimilarity(Delta)
    Dz = _embedding_distances(Z, p)
    iu = np.triu_indices_from(Delta, k=1)
    denom = float((Dz[iu] ** 2).sum())
    if denom == 0:
        raise ValueError("All embedding points coincide (every distance is 0); stress-1 is undefined.")
    return float(np.sqrt(((Delta[iu] - Dz[iu]) ** 2).sum() / denom))


def _same_points(X, Z, names=("X", "Z")):
    X = check_array(X, name=names[0])
    Z = check_array(Z, name=names[1])
    if len(X) != len(Z):
        raise ValueError(
            f"{names[0]} has {len(X)} rows but {names[1]} has {len(Z)}; they must describe the "
            "same points in the same order."
        )
    return X, Z


def _check_k(n_neighbors, n, bound, why):
    check_positive(n_neighbors, "n_neighbors", integer=True)
    if n_neighbors > bound:
        raise ValueError(
            f"n_neighbors={n_neighbors} is too large for {n} points: {why}; "
            f"choose n_neighbors <= {bound}."
        )


def _ranks(X):
    """``R[i, j]`` = rank of ``j`` among the neighbours of ``i`` by distance (nearest = 1)."""
    D2 = squared_distances(X)
    np.fill_diagonal(D2, np.inf)  # a point is not its own neighbour
    order = np.argsort(D2, axis=1)
    R = np.empty_like(order)
    np.put_along_axis(R, order, np.arange(1, len(X) + 1)[None, :], axis=1)
    return R


def trustworthiness(X: ArrayLike, Z: ArrayLike, n_neighbors: int = 5) -> float:
    r"""Trustworthiness (Venna and Kaski): are the embedding's neighbours true neighbours?

    .. math::
        T(k) = 1 - \frac{2}{N k (2N - 3k - 1)} \sum_i \sum_{j \in U_i^k} (r(i, j) - k)

    where :math:`U_i^k` are the points among the :math:`k` nearest neighbours of :math:`i` in
    ``Z`` but not in ``X`` and :math:`r(i, j)` is the rank of :math:`j` by distance from
    :math:`i` in ``X``. 1 is perfect; requires :math:`k < N / 2`.
    """
    X, Z = _same_points(X, Z)
    return _trustworthiness(X, Z, n_neighbors)


def _trustworthiness(X, Z, n_neighbors):
    n = len(X)
    _check_k(n_neighbors, n, (n - 1) // 2, "trustworthiness needs n_neighbors < n_samples / 2")
    R_X = _ranks(X)
    in_Z = nearest_neighbors(Z, n_neighbors)
    excess = np.take_along_axis(R_X, in_Z, axis=1) - n_neighbors  # r(i, j) - k, > 0 if intruder
    total = excess[excess > 0].sum()
    return float(1.0 - 2.0 * total / (n * n_neighbors * (2.0 * n - 3.0 * n_neighbors - 1.0)))


def continuity(X: ArrayLike, Z: ArrayLike, n_neighbors: int = 5) -> float:
    r"""Continuity: are the true neighbours kept as neighbours in the embedding?

    The trustworthiness with the roles of ``X`` and ``Z`` exchanged: penalises points among the
    :math:`k` nearest in ``X`` that the embedding pushes away, by their rank in ``Z``.
    """
    X, Z = _same_points(X, Z)
    return _trustworthiness(Z, X, n_neighbors)


def residual_variance(D_geo: ArrayLike, Z: ArrayLike) -> float:
    r"""Residual variance :math:`1 - R^2`, with :math:`R` the Pearson correlation between the
    distances ``D_geo`` (e.g. Isomap's geodesic distances) and the Euclidean distances in the
    embedding ``Z``, over all pairs :math:`i < j` (Tenenbaum et al., 2000)."""
    D_geo = check_array(D_geo, name="D_geo")
    Z = check_array(Z, name="Z")
    if D_geo.shape != (len(Z), len(Z)):
        raise ValueError(f"D_geo is {D_geo.shape} but Z has {len(Z)} rows; D_geo must be N x N.")
    iu = np.triu_indices(len(Z), k=1)
    a, b = D_geo[iu], pairwise_distances(Z)[iu]
    a = a - a.mean()
    b = b - b.mean()
    denom = np.sqrt((a @ a) * (b @ b))
    if denom == 0:
        raise ValueError("The distances are all equal (zero variance); the correlation is undefined.")
    return float(1.0 - (a @ b / denom) ** 2)


def align(Z: ArrayLike, Z_ref: ArrayLike, *, allow: str = "sign") -> FloatArray:
    r"""``Z`` transformed to best match ``Z_ref`` in least squares, to compare two embeddings.

    ``allow="sign"`` flips each column whose inner product with the matching column of
    ``Z_ref`` is negative; ``allow="orthogonal"`` applies the orthogonal Procrustes rotation
    :math:`R = U V^\top` from :math:`Z^\top Z_{ref} = U \Sigma V^\top`, which minimises
    :math:`\|Z R - Z_{ref}\|_F` over all orthogonal :math:`R` (rotations and reflections).
    """
    Z, Z_ref = _same_points(Z, Z_ref, ("Z", "Z_ref"))
    if Z.shape != Z_ref.shape:
        raise ValueError(f"Z is {Z.shape} but Z_ref is {Z_ref.shape}; they must have the same shape.")
    if allow == "sign":
        return Z * np.where(np.einsum("ij,ij->j", Z, Z_ref) < 0, -1.0, 1.0)
    if allow == "orthogonal":
        U, _, Vt = np.linalg.svd(Z.T @ Z_ref)
        return Z @ (U @ Vt)
    raise ValueError(f"allow must be 'sign' or 'orthogonal', got {allow!r}.")


def procrustes_disparity(Z: ArrayLike, Z_ref: ArrayLike) -> float:
    r"""Procrustes disparity: the squared error left after the best translation, scaling and
    orthogonal transformation of ``Z`` onto ``Z_ref``, both first centred and scaled to unit
    Frobenius norm. It equals :math:`1 - (\sum_l \sigma_l)^2` with :math:`\sigma_l` the
    singular values of :math:`\hat Z_{ref}^\top \hat Z`; 0 means the same shape, 1 unrelated.
    (The same number as :func:`scipy.spatial.procrustes`.) Embeddings of different widths
    are compared by padding the narrower with zero columns."""
    Z, Z_ref = _same_points(Z, Z_ref, ("Z", "Z_ref"))
    width = max(Z.shape[1], Z_ref.shape[1])
    hats = []
    for A in (Z, Z_ref):
        A = np.pad(A - A.mean(axis=0), ((0, 0), (0, width - A.shape[1])))
        norm = np.linalg.norm(A)
        if norm == 0:
            raise ValueError("All points of an embedding coincide; the disparity is undefined.")
        hats.append(A / norm)
    sigma = np.linalg.svd(hats[1].T @ hats[0], compute_uv=False)
    return float(max(1.0 - sigma.sum() ** 2, 0.0))


def knn_preservation(X: ArrayLike, Z: ArrayLike, n_neighbors: int = 10) -> float:
    r"""Mean fraction of each point's ``n_neighbors`` nearest neighbours in ``X`` that are also
    among its ``n_neighbors`` nearest in ``Z`` (1 = every neighbourhood kept)."""
    X, Z = _same_points(X, Z)
    _check_k(n_neighbors, len(X), len(X) - 1, "each point has at most n_samples - 1 neighbours")
    return _neighbourhoods_kept(nearest_neighbors(X, n_neighbors),
                                nearest_neighbors(Z, n_neighbors))


def _neighbourhoods_kept(in_X: np.ndarray, in_Z: np.ndarray) -> float:
    """Mean fraction of each row of ``in_X`` (a point's nearest neighbours' indices in the data)
    also found in the same row of ``in_Z`` (in the embedding): :func:`knn_preservation` for
    neighbours already found, as when one data set's neighbours are compared with many maps."""
    return float((in_X[:, :, None] == in_Z[:, None, :]).any(axis=2).mean())


def kl_divergence(P: ArrayLike, Q: ArrayLike) -> float:
    r"""Kullback–Leibler divergence :math:`\mathrm{KL}(P\|Q) = \sum_{p_{ij} > 0} p_{ij}
    \log(p_{ij} / q_{ij})` between two affinity matrices (or distributions) of the same shape.

    Entries with :math:`p_{ij} = 0` contribute nothing (:math:`0 \log 0 = 0`). The natural
    logarithm is used (nats).
    """
    P = check_array(P, name="P", ensure_2d=False)
    Q = check_array(Q, name="Q", ensure_2d=False)
    if P.shape != Q.shape:
        raise ValueError(f"P has shape {P.shape} but Q has {Q.shape}; they must match.")
    if (P < 0).any() or (Q < 0).any():
        raise ValueError("P and Q must be non-negative (affinities or probabilities).")
    support = P > 0
    if (Q[support] == 0).any():
        raise ValueError(
            "Q is zero where P is positive, so KL(P||Q) is infinite; Q must be positive "
            "wherever P is (e.g. add a small floor such as 1e-12)."
        )
    p, q = P[support], Q[support]
    return float(np.sum(p * np.log(p / q)))
