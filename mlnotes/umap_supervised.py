r"""Supervised UMAP: the fuzzy graph of the data intersected with the fuzzy graph of the labels.

With categorical labels :math:`y_i` (``-1``: unknown) the labels define a second fuzzy set of
edges, in which an edge between two points of one label is certain, an edge between two labels
nearly impossible, and an edge to an unlabelled point uncertain:

.. math:: t_{ij} = \begin{cases} 1 & y_i = y_j \\ e^{-\delta_{\text{far}}} & y_i \ne y_j \\
          e^{-\delta_{\text{unknown}}} & y_i = -1 \text{ or } y_j = -1 \end{cases}

with :math:`\delta_{\text{unknown}} = 1` and :math:`\delta_{\text{far}} = 2.5 / (1 - w)` for
``target_weight`` :math:`w < 1` (:math:`+\infty` at :math:`w = 1`: cross-label edges vanish),
umap-learn's constants. Supervised UMAP embeds the fuzzy **intersection** of the data's graph
:math:`P` and this one, with the product t-norm (the probabilistic "and", the dual of the
union's probabilistic "or"): :math:`p'_{ij} = p_{ij}\,t_{ij}`
(:func:`categorical_intersection`). Only the existing edges change: a cross-label edge keeps a
fraction :math:`e^{-\delta_{\text{far}}}` of its weight (0.0067 at the default
:math:`w = 0.5`), so the cross-entropy's attraction along it, proportional to :math:`p'_{ij}`,
nearly vanishes while its repulsion, proportional to :math:`1 - p'_{ij}`, takes over: the map
pulls each label together and pushes labels apart.

The intersection can leave a point without an edge of membership 1 (its nearest neighbour had
another label), which breaks UMAP's local-connectivity assumption (every point is certainly
connected to its nearest neighbour). :func:`reset_local_connectivity` restores it as
umap-learn does: each row is divided by its largest entry, then the rows are joined again by
the fuzzy union :math:`a + a^\top - a \circ a^\top`.

A caveat umap-learn shares: at :math:`w = 0` the labels still act
(:math:`e^{-2.5} \approx 0.08`); the data's graph alone is ``fit(X)`` without ``y``.
"""

import numpy as np
import scipy.sparse as sp

from ._typing import ArrayLike

UNKNOWN_LABEL = -1  # an integer label -1 is "unknown", as in umap-learn
UNKNOWN_DISTANCE = 1.0  # delta_unknown
FAR_SCALE = 2.5  # delta_far = FAR_SCALE / (1 - target_weight)
FAR_AT_WEIGHT_ONE = 1.0e12  # delta_far at target_weight = 1: exp(-delta) is 0


def far_distance(target_weight: float) -> float:
    r""":math:`\delta_{\text{far}} = 2.5 / (1 - w)` for ``target_weight`` :math:`w < 1`,
    ``FAR_AT_WEIGHT_ONE`` at :math:`w = 1`."""
    return FAR_AT_WEIGHT_ONE if target_weight >= 1.0 else FAR_SCALE / (1.0 - target_weight)


def check_labels(y: ArrayLike, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """Categorical labels as integer codes (-1 kept as unknown); returns ``(codes, known)``.

    Labels may be integers or strings; an integer ``-1`` marks an unlabelled point.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        if y.ndim == 2 and 1 in y.shape:
            y = y.ravel()
        else:
            raise ValueError(f"y must hold one categorical label per sample (1-D), got shape "
                             f"{y.shape}; pass y.ravel() or one label column.")
    if len(y) != n_samples:
        raise ValueError(
            f"y has {len(y)} labels but X has {n_samples} samples: pass one label per sample "
            "(-1 for an unlabelled one)."
        )
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinite labels; mark an unlabelled sample with -1.")
    if y.dtype.kind in "iuf":
        known = y != UNKNOWN_LABEL
    else:
        known = np.ones(len(y), dtype=bool)
    codes = np.full(len(y), UNKNOWN_LABEL, dtype=np.intp)
    codes[known] = np.unique(y[known], return_inverse=True)[1]
    return codes, known


def categorical_intersection(P: sp.spmatrix, codes: np.ndarray, target_weight: float = 0.5,
                             unknown_distance: float = UNKNOWN_DISTANCE) -> sp.csr_matrix:
    r"""The fuzzy intersection :math:`p'_{ij} = p_{ij}\,t_{ij}` of the graph with the labels'.

    Parameters
    ----------
    P : sparse matrix of shape (N, N)
        The fuzzy union graph (:func:`mlnotes.umap.fuzzy_graph`).
    codes : ndarray of shape (N,)
        Integer labels, ``-1`` for unknown (:func:`check_labels`).
    target_weight : float in [0, 1]
        :math:`w`; the cross-label factor is :math:`e^{-2.5/(1 - w)}`.

    Returns
    -------
    P_intersect : scipy.sparse.csr_matrix
        Edges only rescaled, none added; then :func:`reset_local_connectivity`.
    """
    coo = sp.coo_matrix(P)
    yi, yj = codes[coo.row], codes[coo.col]
    factor = np.where(yi == yj, 1.0, np.exp(-far_distance(target_weight)))
    factor = np.where((yi == UNKNOWN_LABEL) | (yj == UNKNOWN_LABEL),
                      np.exp(-unknown_distance), factor)
    A = sp.csr_matrix((coo.data * factor, (coo.row, coo.col)), shape=P.shape)
    return reset_local_connectivity(A)


def reset_local_connectivity(A: sp.spmatrix) -> sp.csr_matrix:
    r"""Each row divided by its largest entry (every point keeps one edge of membership 1),
    then the fuzzy union :math:`a_{ij} + a_{ji} - a_{ij} a_{ji}` of the rows."""
    A = sp.csr_matrix(A, copy=True)
    row_max = np.asarray(A.max(axis=1).todense()).ravel()
    scale = np.divide(1.0, row_max, out=np.zeros_like(row_max), where=row_max > 0)
    A = sp.diags(scale) @ A
    At = A.T.tocsr()
    U = (A + At - A.multiply(At)).tocsr()
    U.eliminate_zeros()
    return U
