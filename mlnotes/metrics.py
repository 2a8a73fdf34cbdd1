"""Quality measures for embeddings.

Each function takes the high-dimensional data (or its distances) and an embedding ``Z`` and
returns a number the book discusses.
"""

import numpy as np

from ._validation import check_array, check_dissimilarity
from .graphs import pairwise_distances


def _embedding_distances(Z, p=2):
    Z = check_array(Z, name="Z")
    if p == 2:
        return pairwise_distances(Z)
    if p == 1:
        return np.abs(Z[:, None, :] - Z[None, :, :]).sum(axis=-1)
    raise ValueError(f"p must be 1 or 2 (the distance used in the embedding), got {p!r}.")


def raw_stress(Delta, Z, *, p=2):
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


def normalized_stress(Delta, Z, *, p=2):
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
