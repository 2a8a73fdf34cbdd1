"""The types of the public API's annotations: what an estimator takes and what it returns.

``ArrayLike`` is numpy's (an array, a list of lists, a data frame: anything ``np.asarray``
reads); ``FloatArray`` an array of floats (float64, or float32 where the estimator keeps the
input's precision); ``Self`` the estimator itself (``fit`` returns it, so calls chain).
"""

from typing import Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.floating]

__all__ = ["ArrayLike", "FloatArray", "Self"]
