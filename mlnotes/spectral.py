r"""Step 3 of the recipe: one symmetric eigenproblem.

By the Ky Fan theorem, :math:`\max \operatorname{tr}(Z^\top A Z)` subject to :math:`Z^\top Z = I_L`
is attained by the eigenvectors of the :math:`L` largest eigenvalues of the symmetric matrix
:math:`A`, and the minimum by those of the :math:`L` smallest. PCA, classical MDS, Isomap and
kernel PCA take the top of a Gram matrix; LLE and Laplacian eigenmaps the bottom of an alignment
matrix or a Laplacian, after skipping the trivial (constant) eigenvector.

Solvers: ``"dense"`` is LAPACK's ``eigh`` restricted to the wanted indices; ``"arpack"`` is
ARPACK's Lanczos iteration (:func:`scipy.sparse.linalg.eigsh`), which only needs products with
:math:`A` (top) or solves with :math:`A + sI` (bottom, "shift-invert": the smallest eigenvalues
of :math:`A` are the largest of :math:`(A + sI)^{-1}`). ``"auto"`` follows scikit-learn: ARPACK
when :math:`N > 200` and fewer than 10 eigenpairs are wanted, dense otherwise; and it also
looks at the spectrum: ARPACK gets about the dense solver's cost in products, and where the
wanted eigenvalues sit in a tight cluster (nearly separate groups of points) and it has not
converged by then, the dense solver answers (:func:`_arpack_within_budget`).

Sign convention: an eigenvector is defined only up to sign; :func:`flip_signs` makes the
largest-magnitude entry of each column positive (scikit-learn's ``svd_flip`` rule).
"""

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.linalg import eigh_tridiagonal, eigvalsh_tridiagonal, lapack
from scipy.linalg.blas import dsymv
from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh, splu

from ._typing import FloatArray, Matrix
from ._validation import check_n_components

SOLVERS = ("auto", "dense", "arpack")
TRIVIAL_SKIPPED = "n_samples - 1: the constant eigenvector is skipped"
ARPACK_MIN_SIZE = 200  # "auto" uses ARPACK above this many rows ...
ARPACK_MAX_K = 10  # ... when fewer than this many eigenpairs are wanted (scikit-learn's rule)
ARPACK_SEED = 0  # fixed start vector: ARPACK results are reproducible run to run
SMALLEST_EIGENVALUE_RTOL = 1e-7  # smallest_eigenvalue's accuracy, relative to the norm of A
AUTO_ARPACK_PRODUCTS = 0.5  # "auto": ARPACK may spend this many times N products with A
BOTTOM_SHIFT = 1e-10  # shift-invert about -BOTTOM_SHIFT * (largest diagonal entry): A + sI is PD


def check_solver(solver: str, name: str = "solver") -> str:
    """Check an eigensolver name (``"auto"``, ``"dense"`` or ``"arpack"``)."""
    if solver not in SOLVERS:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, SOLVERS))}, got {solver!r}.")
    return solver


def _choose(solver, n, k):
    check_solver(solver)
    if solver == "auto":
        return "arpack" if n > ARPACK_MIN_SIZE and k < ARPACK_MAX_K else "dense"
    if solver == "arpack" and k >= n:
        raise ValueError(
            f"ARPACK computes at most N - 1 = {n - 1} eigenpairs of an N x N matrix, {k} were "
            "asked for; use solver='dense'."
        )
    return solver


def _start_vector(n):
    return np.random.default_rng(ARPACK_SEED).uniform(-1, 1, n)


def _arpack(A, k, *, tol=0, **options):
    """``eigsh`` from the fixed start vector, with its failures explained."""
    try:
        return eigsh(A, k, v0=_start_vector(A.shape[0]), tol=tol, **options)
    except (ArpackError, RuntimeError) as exc:  # no convergence, or a singular shifted matrix
        raise _arpack_failure(A.shape[0], exc) from None


def _arpack_within_budget(A, k, **options):
    """``eigsh`` for ``solver="auto"``: at most about the dense solver's cost, else ``None``.

    ARPACK's cost is its number of products with ``A``; it is quick when the wanted
    eigenvalues stand apart from the rest and slow when they sit in a cluster (a graph with
    nearly separate pieces has several eigenvalues near 1; the bottom of a Laplacian with
    near-duplicate points several near 0). ``"auto"`` chooses by size, as scikit-learn does,
    and also by spectrum: it lets ARPACK restart only until it has spent
    ``AUTO_ARPACK_PRODUCTS * N`` products (about the flops of a dense solve), and returns
    ``None`` if it has not converged by then, so that the caller solves densely. The
    ``"arpack"`` solver, asked for by name, is never cut short.
    """
    n = A.shape[0]
    ncv = min(n, max(2 * k + 1, 20))  # eigsh's default Lanczos basis size
    restarts = max(1, int(AUTO_ARPACK_PRODUCTS * n) // max(ncv - k, 1))
    try:
        return eigsh(A, k, v0=_start_vector(n), tol=0, maxiter=restarts, **options)
    except (ArpackError, RuntimeError):  # not converged in the budget, or a singular shift
        return None


def _arpack_failure(n, exc):
    return ValueError(
        f"ARPACK failed on this {n} x {n} matrix ({exc}); the matrix may be ill-conditioned or "
        "(for the bottom eigenpairs) not positive semi-definite. Use solver='dense' "
        "(eigen_solver='dense' in the estimators)."
    )


def _check_square(A, name="A"):
    A = A if sp.issparse(A) else np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {A.shape}.")
    return A


def _symmetric_operator(A):
    """``v -> A v`` for a dense symmetric ``A`` by BLAS ``dsymv``, which reads one triangle:
    half the memory traffic of a general product, and ARPACK's time is all products."""
    if sp.issparse(A) or A.dtype != np.float64:
        return A
    A_F = A if A.flags.f_contiguous else A.T  # a C array is the Fortran array of A^T (= A)
    if not A_F.flags.f_contiguous:
        return A
    return LinearOperator(A.shape, matvec=lambda v: dsymv(1.0, A_F, v), dtype=np.float64)


def top_eigenpairs(A: Matrix, k: int, *, solver: str = "auto") -> tuple[FloatArray, FloatArray]:
    r"""The ``k`` largest eigenvalues of the symmetric matrix ``A`` and their eigenvectors.

    Solves :math:`\max_{Z^\top Z = I_k} \operatorname{tr}(Z^\top A Z)` (Ky Fan).

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (N, N), symmetric
    k : int
    solver : {"auto", "dense", "arpack"}

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        In decreasing order.
    V : ndarray of shape (N, k)
        Orthonormal eigenvectors (columns), signs as returned by the solver: apply
        :func:`flip_signs` for the package's convention.
    """
    A = _check_square(A)
    n = A.shape[0]
    k = check_n_components(k, n, what="the matrix size", name="k")
    found = None
    if _choose(solver, n, k) == "arpack":
        op = _symmetric_operator(A)
        found = (_arpack(op, k, which="LA") if solver == "arpack"
                 else _arpack_within_budget(op, k, which="LA"))
    if found is not None:
        lam, V = found
    else:
        A = A.toarray() if sp.issparse(A) else A
        lam, V = la.eigh(A, subset_by_index=(n - k, n - 1), check_finite=False)
    order = np.argsort(lam)[::-1]
    return lam[order], V[:, order]


def centred_top_eigenpairs(S: FloatArray, k: int, *, row_means: FloatArray, scale: float = 1.0,
                           solver: str = "auto",
                           overwrite: bool = True) -> tuple[FloatArray, FloatArray]:
    r"""The ``k`` largest eigenpairs of :math:`A = s\, C S C` for a dense symmetric ``S``,
    without forming :math:`A` for ARPACK.

    With :math:`m` the row means of :math:`S` (equal to its column means) and
    :math:`\bar m` their mean, :math:`C S C = S - \mathbf 1 m^\top - m \mathbf 1^\top
    + \bar m\, \mathbf 1 \mathbf 1^\top`, so one product costs one product with :math:`S`
    and :math:`O(N)` more:

    .. math::
        C S C\, v = S v - (m^\top v)\, \mathbf 1 - (\mathbf 1^\top v)\, m
        + \bar m\, (\mathbf 1^\top v)\, \mathbf 1.

    ARPACK needs nothing else, so no centred copy of :math:`S` (nor the passes over it) is
    made; kernel PCA (:math:`s = 1`) and Isomap (:math:`S = D2`, :math:`s = -\tfrac12`) use
    it. Only the lower triangle of ``S`` is read. The dense solver (``"dense"``, or ``"auto"``
    when ARPACK is not worth it) centres ``S`` (**in place** unless ``overwrite=False``) and
    solves as :func:`top_eigenpairs`.

    Parameters
    ----------
    S : ndarray of shape (N, N), symmetric (its lower triangle is read)
    k : int
    row_means : ndarray of shape (N,)
        :math:`m_i = \tfrac1N \sum_j S_{ij}`.
    scale : float
        :math:`s`.
    solver : {"auto", "dense", "arpack"}
    overwrite : bool, default=True
        Let the dense solver centre ``S`` in place (False: a copy; ARPACK never writes).

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        Decreasing.
    V : ndarray of shape (N, k)
    """
    S = _check_square(S, "S")
    n = S.shape[0]
    k = check_n_components(k, n, what="the matrix size", name="k")
    m = np.asarray(row_means, dtype=np.float64)
    m_bar = float(m.mean())
    found = None
    if _choose(solver, n, k) == "arpack":
        product = _symmetric_operator(S)

        def matvec(v):
            v = np.ravel(v)
            total = v.sum()
            y = product @ v
            y -= total * m
            y -= m @ v - m_bar * total
            y *= scale
            return y

        op = LinearOperator((n, n), matvec=matvec, dtype=np.float64)
        found = (_arpack(op, k, which="LA") if solver == "arpack"
                 else _arpack_within_budget(op, k, which="LA"))
    if found is not None:
        lam, V = found
    else:  # C S C in place: S_ij - m_j - m_i + m_bar (the lower triangle is all eigh reads)
        S = S if overwrite else S.copy()
        S -= m[None, :]
        S -= m[:, None]
        S += m_bar
        S *= scale
        lam, V = la.eigh(S, subset_by_index=(n - k, n - 1), check_finite=False)
    order = np.argsort(lam)[::-1]
    return lam[order], V[:, order]


def spectrum_and_top_eigenvectors(A: FloatArray, k: int) -> tuple[FloatArray, FloatArray]:
    r"""All eigenvalues of the dense symmetric ``A`` and the eigenvectors of the ``k`` largest.

    What classical MDS reports (the whole spectrum, to show negative eigenvalues) at the cost
    of one eigen-decomposition without all the vectors: one Householder reduction
    :math:`A = Q T Q^\top` to a tridiagonal :math:`T` (LAPACK ``dsytrd``, :math:`\tfrac43 N^3`
    flops), all eigenvalues of :math:`T` (:math:`O(N^2)`), ``k`` eigenvectors :math:`y` of
    :math:`T`, and :math:`v = Q y` (``dormqr``). A full ``eigh`` would also form all :math:`N`
    eigenvectors, about twice the work.

    Returns
    -------
    eigenvalues : ndarray of shape (N,)
        Decreasing.
    V : ndarray of shape (N, k)
        Unit eigenvectors of the ``k`` largest eigenvalues.
    """
    A = _check_square(np.asarray(A, dtype=float))
    n = A.shape[0]
    k = check_n_components(k, n, what="the matrix size", name="k")
    if n < 3:
        lam, V = la.eigh(A)
        return lam[::-1], V[:, ::-1][:, :k]
    lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
    reflectors, diag, offdiag, tau, info = lapack.dsytrd(A, lower=1, lwork=lwork)
    if info != 0:
        raise np.linalg.LinAlgError(f"LAPACK dsytrd failed (info={info}).")
    lam = eigvalsh_tridiagonal(diag, offdiag)
    _, Y = eigh_tridiagonal(diag, offdiag, select="i", select_range=(n - k, n - 1))
    # Q = H_1 ... H_{n-1} acts on rows 1..n-1 (the reflectors of the lower triangle, as dormtr)
    H = reflectors[1:, : n - 1]
    lwork = int(lapack.dormqr("L", "N", H, tau, Y[1:], lwork=-1)[1][0])
    QY, _, info = lapack.dormqr("L", "N", H, tau, Y[1:], lwork=lwork)
    V = np.vstack([Y[:1], QY])
    return lam[::-1], V[:, ::-1]


def _diagonal_of(B):
    """The diagonal of ``B`` if ``B`` is a diagonal matrix, else ``None``."""
    if sp.issparse(B):
        d = B.diagonal()
        return d if (sp.csr_matrix(B) - sp.diags(d)).count_nonzero() == 0 else None
    d = np.diag(B)
    return d if np.count_nonzero(B - np.diag(d)) == 0 else None


def _shift_invert(A, shift):
    """``x -> (A + shift I)^{-1} x`` by one sparse LU factorisation (symmetric ordering)."""
    n = A.shape[0]
    try:
        lu = splu(
            sp.csc_matrix(A + shift * sp.eye(n)),
            permc_spec="MMD_AT_PLUS_A",
            options={"SymmetricMode": True},
        )
    except RuntimeError as exc:  # "Factor is exactly singular"
        raise _arpack_failure(n, exc) from None
    return LinearOperator((n, n), matvec=lu.solve, dtype=np.float64)


def _bottom_arpack(A, m, B, *, within_budget):
    """Shift-invert ARPACK for the ``m`` smallest eigenpairs (``None``: solve densely)."""
    shift = BOTTOM_SHIFT * max(float(np.abs(A.diagonal()).max()), np.finfo(float).tiny)
    M = None if B is None else sp.csc_matrix(B)
    try:
        OPinv = _shift_invert(A, shift) if M is None else None
    except ValueError:  # a singular shifted matrix
        if within_budget:  # "auto": the dense solver has no such limit
            return None
        raise
    options = dict(M=M, sigma=-shift, which="LM", OPinv=OPinv)
    if within_budget:
        return _arpack_within_budget(A, m, **options)
    return _arpack(A, m, **options)


def bottom_eigenpairs(A: Matrix, k: int, *, B: Matrix | None = None, skip: int = 0,
                      solver: str = "auto") -> tuple[FloatArray, FloatArray]:
    r"""The ``k`` smallest eigenpairs of :math:`A v = \lambda B v` after the ``skip`` smallest.

    Solves :math:`\min \operatorname{tr}(Z^\top A Z)` subject to :math:`Z^\top B Z = I_k`
    (:math:`B = I` when ``B`` is None). ``skip=1`` drops the trivial eigenvector (the constant
    vector of an alignment matrix or Laplacian, eigenvalue 0).

    For a diagonal ``B`` (Laplacian eigenmaps: :math:`L v = \lambda D v`) the problem is solved
    as the symmetric one :math:`B^{-1/2} A B^{-1/2} u = \lambda u`, then :math:`v = B^{-1/2} u`;
    for :math:`A = L`, :math:`B = D` that matrix is :math:`L_{sym}`. Eigenvectors are
    :math:`B`-orthonormal, :math:`V^\top B V = I`.

    The ARPACK path factorises :math:`A + sI` once (sparse LU, :math:`s` a small shift that
    makes it positive definite for positive semi-definite :math:`A`) and iterates with its
    inverse, whose largest eigenvalues :math:`1/(\lambda + s)` are the smallest :math:`\lambda`.

    Parameters
    ----------
    A : ndarray or sparse matrix of shape (N, N), symmetric (positive semi-definite for ARPACK)
    k : int
    B : ndarray or sparse matrix of shape (N, N), symmetric positive definite, optional
    skip : int
        Number of smallest eigenpairs to drop.
    solver : {"auto", "dense", "arpack"}

    Returns
    -------
    eigenvalues : ndarray of shape (k,)
        Increasing.
    V : ndarray of shape (N, k)
    """
    A = _check_square(A)
    n = A.shape[0]
    if skip < 0 or skip >= n:
        raise ValueError(f"skip must be between 0 and {n - 1}, got {skip}.")
    k = check_n_components(k, n - skip, what=f"the matrix size minus skip={skip}", name="k")
    scale_back = None
    if B is not None:
        B = _check_square(B, "B")
        d = _diagonal_of(B)
        if d is not None:
            if d.min() <= 0:
                raise ValueError("B must be positive definite, but it has a diagonal entry <= 0.")
            # B^{-1/2} A B^{-1/2}: symmetric, same eigenvalues, eigenvectors u = B^{1/2} v
            scale_back = 1.0 / np.sqrt(d)
            S = sp.diags(scale_back)
            A = S @ A @ S if sp.issparse(A) else scale_back[:, None] * A * scale_back[None, :]
            B = None
    m = k + skip
    found = None
    if _choose(solver, n, m) == "arpack":
        found = _bottom_arpack(sp.csr_matrix(A), m, B, within_budget=solver == "auto")
    if found is not None:
        lam, V = found
    else:
        A = A.toarray() if sp.issparse(A) else A
        if B is not None:
            B = B.toarray() if sp.issparse(B) else np.asarray(B, dtype=float)
        lam, V = la.eigh(A, B, subset_by_index=(0, m - 1), check_finite=False)
    order = np.argsort(lam)[skip:]
    lam, V = lam[order], V[:, order]
    if scale_back is not None:
        V = V * scale_back[:, None]
    return lam, V


def smallest_eigenvalue(A: Matrix, *, solver: str = "auto", rtol: float = SMALLEST_EIGENVALUE_RTOL) -> float:
    r"""The smallest eigenvalue of a symmetric matrix, to within ``rtol`` times its norm.

    Used to test a Gram matrix for positive semi-definiteness. ``solver`` as in
    :func:`top_eigenpairs` (``"auto"``: ARPACK above ``ARPACK_MIN_SIZE`` rows). ARPACK
    iterates on the shifted :math:`A + cI`, :math:`c = \|A\|_2 \ge |\lambda|` (the largest
    magnitude, one cheap ARPACK run), whose eigenvalues lie in :math:`[0, 2c]`: the smallest
    is then found to ``rtol`` of :math:`c` even where :math:`A`'s bottom is a dense cluster near
    zero (a PSD kernel matrix), where asking ARPACK for the smallest eigenvalue of :math:`A`
    itself to a relative accuracy does not converge. Should ARPACK still not converge, the
    dense solver answers.
    """
    A = _check_square(A)
    n = A.shape[0]
    if _choose(solver, n, 1) == "arpack":
        op = _symmetric_operator(A)
        v0 = _start_vector(n)
        try:
            c = abs(float(eigsh(op, 1, which="LM", v0=v0, tol=rtol)[0][0])) * (1 + rtol)
            shifted = LinearOperator((n, n), matvec=lambda v: op @ v + c * v, dtype=np.float64)
            return float(eigsh(shifted, 1, which="SA", v0=v0, tol=rtol)[0][0]) - c
        except (ArpackError, RuntimeError):  # no convergence: the exact answer, more slowly
            pass
    A = A.toarray() if sp.issparse(A) else A
    return float(la.eigvalsh(A, subset_by_index=(0, 0), check_finite=False)[0])


def is_nearly_psd(A: Matrix, tol: float) -> bool:
    r"""Whether every eigenvalue of the dense symmetric ``A`` is above ``-tol`` (``tol > 0``).

    One Cholesky factorisation of :math:`A + \mathrm{tol}\, I` (:math:`N^3/3` flops, a
    quarter of an eigenvalue decomposition) answers exactly: it exists if and only if that
    matrix is positive definite.
    """
    try:
        la.cholesky(A + tol * np.eye(A.shape[0]), lower=True, check_finite=False)
    except la.LinAlgError:
        return False
    return True


def flip_signs(V: FloatArray) -> FloatArray:
    """Flip each column of ``V`` so that its largest-magnitude entry is positive.

    The package's one sign convention for eigenvectors (scikit-learn's ``svd_flip`` with
    ``u_based_decision=True``); a column of zeros is left alone.
    """
    V = np.asarray(V, dtype=float)
    big = V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
    return V * np.where(big < 0, -1.0, 1.0)
