"""Comparing an answer with the reference, up to what the mathematics leaves free.

Everything here runs in the trusted process on plain ``float64`` arrays. Three kinds of
freedom are allowed, and nothing else:

* an eigenvector's sign (``v`` and ``-v`` solve the same eigenproblem);
* a rotation inside an eigenspace whose eigenvalue repeats (any orthonormal basis of it is right):
  the columns of such a block are matched by orthogonal Procrustes, which for a block of one column
  is just the sign;
* a whole embedding up to an orthogonal transform, where the method defines it only that far.

Tolerances scale with the size and the conditioning of the problem: a direct formula loses about
``N * eps`` relative accuracy, a linear solve ``N * eps * cond``, an eigenvector
``eps * ||A|| / gap`` (the Davis-Kahan bound).
"""

import numpy as np

EPS = np.finfo(np.float64).eps
# Slack over the rounding estimates above: a student's formula may be ordered differently.
SLACK = 1e3
# Tolerances never go below this (a bound of 1e-15 would reject a different summation order).
TOL_FLOOR = 1e-11
# An eigenvector question's inputs are generated with a clear eigengap; no tolerance is looser.
TOL_CAP = 1e-5
# Eigenvalues closer than this (relative to the largest) count as one repeated eigenvalue.
REPEATED_EIGENVALUE = 1e-6


def tol_direct(n):
    """Relative tolerance for an ``n x n`` closed-form matrix expression."""
    return max(TOL_FLOOR, SLACK * n * EPS)


def tol_solve(n, cond):
    """Relative tolerance for the solution of ``n`` linear systems of condition number ``cond``."""
    return max(TOL_FLOOR, SLACK * n * EPS * max(float(cond), 1.0))


def tol_eigvecs(A, eigenvalues, n_components, *, skip=0, largest=True):
    """Relative tolerance for eigenvectors ``skip .. skip + n_components`` of the symmetric ``A``.

    ``eigenvalues`` are all of ``A``'s eigenvalues (any order). The bound is
    ``eps * ||A||_2 / gap`` where ``gap`` separates the wanted eigenvalues from the others.
    """
    lam = np.sort(np.asarray(eigenvalues, dtype=float))
    if largest:
        lam = lam[::-1]
    wanted = lam[skip:skip + n_components]
    others = np.concatenate([lam[:skip], lam[skip + n_components:]])
    norm = max(float(np.abs(lam).max()), EPS)
    gap = float(np.abs(others[:, None] - wanted[None, :]).min()) if others.size else norm
    return min(TOL_CAP, max(TOL_FLOOR, SLACK * len(lam) * EPS * norm / max(gap, EPS * norm)))


def relative_error(A, B):
    """``||A - B||_F / ||B||_F`` (absolute error when ``B`` is zero); ``inf`` for non-finite ``A``."""
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    if A.shape != B.shape:
        return np.inf
    # Equal infinities (a graph's "no edge") agree; they are compared as a pattern, not a number.
    both_inf = np.isinf(A) & np.isinf(B) & (np.sign(A) == np.sign(B))
    if not np.all(np.isfinite(A) | both_inf):
        return np.inf
    if not np.all(np.isfinite(B) | both_inf):
        return np.inf
    A = np.where(both_inf, 0.0, A)
    B = np.where(both_inf, 0.0, B)
    with np.errstate(over="ignore", invalid="ignore"):  # answers near 1e308 overflow: inf
        scale = float(np.linalg.norm(B))
        err = float(np.linalg.norm(A - B))
    return err / scale if scale > 0 else err


def eigen_blocks(eigenvalues, *, rel=REPEATED_EIGENVALUE):
    """Group consecutive (sorted) eigenvalues that are equal up to ``rel`` into blocks of indices."""
    lam = np.asarray(eigenvalues, dtype=float)
    scale = max(float(np.abs(lam).max(initial=0.0)), EPS)
    blocks, current = [], [0]
    for i in range(1, len(lam)):
        if abs(lam[i] - lam[i - 1]) <= rel * scale:
            current.append(i)
        else:
            blocks.append(current)
            current = [i]
    blocks.append(current)
    return blocks


def align_blocks(Z, Z_ref, blocks):
    """Rotate each block of columns of ``Z`` onto ``Z_ref`` (orthogonal Procrustes per block).

    For a one-column block the rotation is the sign; for a repeated eigenvalue it is the
    orthogonal ``R = U V^T`` from the SVD of ``Z_b^T Z_ref_b`` that minimises ``||Z_b R - Z_ref_b||``.
    """
    Z = np.array(Z, dtype=float)
    for block in blocks:
        U, _, Vt = np.linalg.svd(Z[:, block].T @ Z_ref[:, block])
        Z[:, block] = Z[:, block] @ (U @ Vt)
    return Z


def procrustes_error(Z, Z_ref):
    """Relative error of ``Z`` after the best orthogonal transform onto ``Z_ref``."""
    if np.shape(Z) != np.shape(Z_ref) or not np.all(np.isfinite(Z)):
        return np.inf
    return relative_error(align_blocks(Z, Z_ref, [list(range(Z_ref.shape[1]))]), Z_ref)


def eigvec_error(Z, Z_ref, eigenvalues):
    """Relative error of ``Z`` after fixing signs, and rotations inside repeated eigenvalues."""
    if np.shape(Z) != np.shape(Z_ref) or not np.all(np.isfinite(Z)):
        return np.inf
    return relative_error(align_blocks(Z, Z_ref, eigen_blocks(eigenvalues)), Z_ref)


def scalar_factor(A, B):
    """The ``c`` with ``A ~ c B`` (least squares) and the relative residual of that fit."""
    A = np.asarray(A, dtype=float).ravel()
    B = np.asarray(B, dtype=float).ravel()
    if A.shape != B.shape or not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
        return None, np.inf
    with np.errstate(over="ignore", invalid="ignore"):
        bb = float(B @ B)
        c = float(A @ B) / bb if bb != 0 else None
    if c is None or not np.isfinite(c):
        return None, np.inf
    return c, relative_error(A, c * B) if np.any(A) else np.inf
