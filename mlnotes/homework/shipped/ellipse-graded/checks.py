"""The grader's side of 'ellipse-graded': likely mistakes (never released to students)."""

import numpy as np


def _axes(Ns, variant):
    Ns = np.asarray(Ns, dtype=float)
    return Ns, variant["a"] ** 2, variant["b"] ** 2


def without_the_half(Ns, _variant):
    Ns, a2, b2 = _axes(Ns, _variant)
    return np.column_stack([Ns * a2, Ns * b2])


def over_n_minus_one(Ns, _variant):
    Ns, a2, b2 = _axes(Ns, _variant)
    return np.column_stack([(Ns - 1) * a2 / 2, (Ns - 1) * b2 / 2])
