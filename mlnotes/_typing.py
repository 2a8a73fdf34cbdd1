"""The types of the public API's annotations: what an estimator or a step function takes and
what it returns.

``ArrayLike`` is numpy's (an array, a list of lists, a data frame: anything ``np.asarray``
reads); ``FloatArray`` an array of floats (float64, or float32 where the estimator keeps the
input's precision), ``IntArray`` one of integers (indices, labels), ``BoolArray`` one of
booleans; ``Sparse`` a scipy sparse matrix or array (the graphs are CSR), ``Matrix`` a dense or a
sparse one; ``Seed`` what ``random_state`` accepts (``None``, an int or a numpy ``Generator``);
``Objective`` an embedding's objective ``f(Z, P, **options) -> (value or None, gradient)`` (the
SNE family's); ``Self`` the estimator itself (``fit`` returns it, so calls chain).
"""

from collections.abc import Callable
from typing import Self

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.floating]
IntArray = NDArray[np.integer]
BoolArray = NDArray[np.bool_]
Sparse = sp.sparray | sp.spmatrix
Matrix = FloatArray | Sparse
Seed = int | np.random.Generator | None
Objective = Callable[..., tuple[float | None, FloatArray]]

__all__ = ["ArrayLike", "BoolArray", "FloatArray", "IntArray", "Matrix", "Objective", "Seed",
           "Self", "Sparse"]
