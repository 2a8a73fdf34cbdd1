"""The student-side check of 'ellipse-graded': released to students with the notebook.

What a student's ``check`` runs without the key: the cases (sizes, small and large) and two
properties every right answer has, one of them a dense computation of classical MDS on the
small sizes from its definition (the large ones need the derivation).
"""

import numpy as np

# The largest N built densely (the matrix B is N x N).
DENSE_MAX = 200


def sizes(rng):
    """One case: two small sizes (built densely by the check) and two large ones."""
    small = rng.integers(3, DENSE_MAX, size=2)
    large = np.round(10 ** rng.uniform(4, 12, size=2))
    return {"Ns": np.concatenate([small, large]).astype(np.int64)}


def positive_decreasing(answer, inputs, tol):
    """every row holds two positive eigenvalues, the larger first

    Both non-zero eigenvalues of B are positive (B is a Gram matrix of the centred points),
    and the one along the axis of length a comes first: a value that is zero or negative, or
    rows in the wrong order, point to a sign or an axis mixed up."""
    values = np.atleast_2d(answer[0])
    ok = values.shape[-1] == 2 and bool(np.all(values[:, 1] > 0)
                                         and np.all(values[:, 0] >= values[:, 1]))
    return ok, "a value is <= 0, or a row is not in decreasing order"


def ellipse(N, a, b):
    """The N points of the question's ellipse, as rows."""
    theta = 2 * np.pi * np.arange(N) / N
    return np.column_stack([a * np.cos(theta), b * np.sin(theta)])


def on_small_ellipses(answer, inputs, tol):
    """on the small sizes, agrees with classical MDS computed from its definition

    On a size small enough to build, your eigenvalues differ from those of B = -1/2 J D2 J
    computed for the ellipse with YOUR variant's a and b: compare there first, then check
    each factor of your formula (the 1/2 of B, the count of points) and the constants."""
    v, values = inputs["_variant"], np.atleast_2d(answer[0])
    for k, N in enumerate(np.asarray(inputs["Ns"])):
        if N > DENSE_MAX:
            continue
        X = ellipse(int(N), v["a"], v["b"])
        D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)
        J = np.eye(int(N)) - 1.0 / N
        want = np.linalg.eigvalsh(-0.5 * J @ D2 @ J)[::-1][:2]
        err = float(np.max(np.abs(values[k] - want)) / np.max(want))
        if not err <= 1e-7:
            return False, f"relative difference {err:.1e} at N = {int(N)}"
    return True, ""
