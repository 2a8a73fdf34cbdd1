"""The grader's side of 'ellipse-graded': likely mistakes (never released to students).

Each is derived from the key's answer (``expected``, a tuple of arrays, one per output) and the
case, so that this file, shipped in the package, does not spell out the right answer.
"""

import numpy as np


def without_the_half(expected, inputs):
    return 2 * expected[0]


def over_n_minus_one(expected, inputs):
    Ns = np.asarray(inputs["Ns"], dtype=float)
    return expected[0] * ((Ns - 1) / Ns)[:, None]
