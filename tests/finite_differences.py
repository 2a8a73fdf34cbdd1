"""Central finite differences, the reference every analytic gradient in the tests is checked against."""

import numpy as np


def central_differences(f, Z, h=1e-6):
    r"""Gradient of the scalar function ``f`` at ``Z`` by central differences,
    :math:`\partial f / \partial z_k \approx (f(Z + h e_k) - f(Z - h e_k)) / 2h` (error
    :math:`O(h^2)`), one coordinate at a time."""
    G = np.zeros_like(Z)
    for idx in np.ndindex(*Z.shape):
        E = np.zeros_like(Z)
        E[idx] = h
        G[idx] = (f(Z + E) - f(Z - E)) / (2 * h)
    return G
