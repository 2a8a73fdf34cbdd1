"""Step 1 of the recipe: distances and neighbourhood graphs.

Everything a spectral method needs before it builds a matrix: pairwise (squared) distances,
neighbourhood graphs and their geodesic (shortest-path) distances.
"""

import numpy as np

from ._validation import check_array


def squared_distances(X, Y=None):
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
    """
    X = check_array(X)
    same = Y is None
    Y = X if same else check_array(Y, name="Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}; both need the same columns."
        )
    sq_x = np.einsum("ij,ij->i", X, X)
    sq_y = sq_x if same else np.einsum("ij,ij->i", Y, Y)
    D2 = sq_x[:, None] + sq_y[None, :] - 2.0 * (X @ Y.T)
    np.maximum(D2, 0.0, out=D2)
    if same:
        D2 = (D2 + D2.T) / 2  # exact symmetry
        np.fill_diagonal(D2, 0.0)
    return D2


def pairwise_distances(X, Y=None):
    r"""Euclidean distances :math:`d_{ij} = \|x_i - y_j\|_2` (the square root of
    :func:`squared_distances`)."""
    return np.sqrt(squared_distances(X, Y))
