"""Input checks shared by every estimator and step function.

One place produces the error messages, so that they read the same everywhere and tests can pin
them. Each message says what is wrong and what to do about it.
"""

import numbers

import numpy as np


def check_array(X, *, name="X", ensure_2d=True, min_samples=1, min_features=1, dtype=np.float64,
                accept_sparse=False, copy=False):
    """Return ``X`` as a finite float array, or raise a ``ValueError`` that says what to fix.

    Parameters
    ----------
    X : array-like
        Data, one sample per row (``N x D``).
    name : str
        How the message names the argument.
    ensure_2d : bool
        Require a 2-D array (a 1-D array gets a hint on how to reshape it).
    min_samples, min_features : int
        Smallest acceptable number of rows and columns.
    accept_sparse : bool
        Return a ``scipy.sparse`` matrix as a float CSR matrix (the methods that work on
        sparse data: PCA and the kNN-graph methods) instead of refusing it.
    copy : bool
        Return an array the caller does not share: an estimator that keeps its training data
        (``X_fit_``) asks for a copy, so that changing ``X`` after ``fit`` cannot change
        later ``transform`` results (without it a float64 array comes back as itself).
    """
    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        if accept_sparse:
            return _check_sparse(X, name=name, min_samples=min_samples,
                                 min_features=min_features, dtype=dtype, copy=copy)
        raise TypeError(
            f"{name} is a sparse matrix, but this method needs a dense array; "
            f"convert it with {name}.toarray() (if it fits in memory)."
        )
    if np.dtype(getattr(X, "dtype", None) or np.float64).kind == "c":
        raise ValueError(
            f"Complex data not supported: {name} is complex; pass real numbers "
            f"(e.g. {name}.real or abs({name}))."
        )
    try:
        A = np.array(X, dtype=dtype) if copy else np.asarray(X, dtype=dtype)
    except (TypeError, ValueError) as exc:
        # keep the kind of the failure: an entry of the wrong type (TypeError) or a value that
        # does not parse as a number (ValueError)
        raise type(exc)(
            f"{name} must be a numeric array (one sample per row); converting it failed: {exc}"
        ) from None
    if ensure_2d:
        if A.ndim == 1:
            raise ValueError(
                f"{name} must be 2-D (n_samples, n_features) but is 1-D with shape {A.shape}. "
                f"Reshape your data: {name}.reshape(-1, 1) for one feature or "
                f"{name}.reshape(1, -1) for one sample."
            )
        if A.ndim != 2:
            raise ValueError(
                f"{name} must be 2-D (n_samples, n_features) but has shape {A.shape}; "
                "flatten each sample to one row first."
            )
        if A.shape[0] < min_samples:
            raise ValueError(
                f"{name} has {A.shape[0]} sample(s) (shape={A.shape}) while a minimum of "
                f"{min_samples} is required; pass at least {min_samples} samples (rows)."
            )
        if A.shape[1] < min_features:
            raise ValueError(
                f"{name} has {A.shape[1]} feature(s) (shape={A.shape}) while a minimum of "
                f"{min_features} is required; pass at least {min_features} features (columns)."
            )
    check_finite(A, name=name)
    return A


def _check_sparse(X, *, name, min_samples, min_features, dtype, copy=False):
    import scipy.sparse as sp

    if X.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} is complex; pass real numbers.")
    A = sp.csr_matrix(X, dtype=dtype, copy=copy)
    if not A.has_canonical_format:  # summing duplicates works in place: not on the caller's
        A = A.copy()
        A.sum_duplicates()
    for what, count, least in (("sample(s)", A.shape[0], min_samples),
                               ("feature(s)", A.shape[1], min_features)):
        if count < least:
            raise ValueError(
                f"{name} has {count} {what} (shape={A.shape}) while a minimum of {least} is "
                f"required; pass at least {least}."
            )
    check_finite(A.data, name=name)
    return A


def check_finite(A, *, name="X"):
    """Raise a ``ValueError`` naming the first non-finite entries of ``A``."""
    bad = ~np.isfinite(A)
    if bad.any():
        where = np.argwhere(bad)
        n_nan = int(np.isnan(A).sum())
        n_inf = int(bad.sum()) - n_nan
        first = ", ".join(str(tuple(int(i) for i in w)) for w in where[:3])
        raise ValueError(
            f"{name} contains {n_nan} NaN and {n_inf} infinite value(s) (first at {first}); "
            "remove or impute them before fitting."
        )
    return A


def check_n_components(n_components, upper, *, what="n_samples", name="n_components"):
    """Check ``1 <= n_components <= upper`` (an integer) and return it as ``int``."""
    if isinstance(n_components, bool) or not isinstance(n_components, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {n_components!r}.")
    if n_components < 1:
        raise ValueError(f"{name} must be at least 1, got {n_components}.")
    if n_components > upper:
        raise ValueError(
            f"{name}={n_components} is too large: at most {upper} ({what}) are possible here; "
            f"choose {name} <= {upper}."
        )
    return int(n_components)


def check_positive(value, name, *, integer=False, allow_zero=False):
    """Check that a scalar parameter is a positive (or non-negative) finite number."""
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        word = "an integer" if integer else "a number"
        raise TypeError(f"{name} must be {word}, got {value!r}.")
    if not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {bound}, got {value}.")
    return value


def check_random_state(seed):
    """Turn ``None``, an int or a ``Generator`` into a ``numpy.random.Generator``."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(seed.randint(2**31))
    raise TypeError(
        f"random_state must be None, an int or a numpy Generator, got {type(seed).__name__}."
    )


def check_dissimilarity(Delta, *, name="the dissimilarity matrix", atol=1e-8):
    """Check a precomputed dissimilarity matrix: square, finite, symmetric, non-negative, zero diagonal.

    Returns the matrix as float64 (symmetrised exactly, so round-off does not leak into
    eigenvectors).
    """
    Delta = check_array(Delta, name=name)
    n, m = Delta.shape
    if n != m:
        raise ValueError(
            f"{name} must be square (n_samples x n_samples) but has shape {Delta.shape}; "
            "pass dissimilarity='euclidean' to give data instead of distances."
        )
    scale = max(float(np.abs(Delta).max()), 1.0)
    asym = float(np.abs(Delta - Delta.T).max())
    if asym > atol * scale:
        i, j = np.unravel_index(np.argmax(np.abs(Delta - Delta.T)), Delta.shape)
        raise ValueError(
            f"{name} is not symmetric: entry ({i}, {j}) = {Delta[i, j]:.6g} but ({j}, {i}) = "
            f"{Delta[j, i]:.6g}; symmetrise it, e.g. (Delta + Delta.T) / 2."
        )
    if Delta.min() < 0:
        i, j = np.unravel_index(np.argmin(Delta), Delta.shape)
        raise ValueError(
            f"{name} has negative entries (smallest {Delta[i, j]:.6g} at ({i}, {j})); "
            "dissimilarities must be >= 0."
        )
    diag = float(np.abs(np.diag(Delta)).max())
    if diag > atol * scale:
        raise ValueError(
            f"{name} must have a zero diagonal (a point is at distance 0 from itself), "
            f"but its largest diagonal entry is {diag:.6g}."
        )
    Delta = (Delta + Delta.T) / 2
    np.fill_diagonal(Delta, 0.0)
    return Delta


class NotFittedError(RuntimeError, ValueError, AttributeError):
    """A fitted attribute was asked for before ``fit``.

    A ``RuntimeError`` (calling in the wrong order), and also a ``ValueError`` and an
    ``AttributeError``, the classes scikit-learn's tools expect from an unfitted estimator.
    """


def check_is_fitted(estimator, attribute):
    """Raise a helpful :class:`NotFittedError` when ``transform`` is called before ``fit``."""
    if attribute not in vars(estimator):
        name = type(estimator).__name__
        raise NotFittedError(
            f"This {name} is not fitted yet; call fit(X) (or fit_transform(X)) first."
        )


def check_n_neighbors(n_neighbors, n_samples, *, name="n_neighbors"):
    """Check ``1 <= n_neighbors <= n_samples - 1`` (a point is not its own neighbour)."""
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {n_neighbors!r}.")
    if n_neighbors < 1:
        raise ValueError(f"{name} must be at least 1, got {n_neighbors}.")
    if n_neighbors > n_samples - 1:
        raise ValueError(
            f"{name}={n_neighbors} is too large: with {n_samples} samples each point has at most "
            f"{n_samples - 1} neighbours; choose {name} <= {n_samples - 1}."
        )
    return int(n_neighbors)


def check_square_symmetric(A, *, name="the kernel matrix", atol=1e-8):
    """Check a precomputed (kernel) matrix: square, finite, symmetric; return it symmetrised."""
    A = check_array(A, name=name)
    if A.shape[0] != A.shape[1]:
        raise ValueError(
            f"{name} must be square (n_samples x n_samples) but has shape {A.shape}; "
            "pass the data instead and choose a kernel by name."
        )
    scale = max(float(np.abs(A).max()), 1.0)
    diff = np.abs(A - A.T)
    if diff.max() > atol * scale:
        i, j = np.unravel_index(np.argmax(diff), A.shape)
        raise ValueError(
            f"{name} is not symmetric: entry ({i}, {j}) = {A[i, j]:.6g} but ({j}, {i}) = "
            f"{A[j, i]:.6g}; symmetrise it, e.g. (K + K.T) / 2."
        )
    return (A + A.T) / 2


# Relative size below which a negative eigenvalue of a Gram matrix counts as round-off.
NEGATIVE_EIGENVALUE_RTOL = 1e-5
# Relative size below which a positive eigenvalue counts as zero (round-off is ~1e-14).
ZERO_EIGENVALUE_RTOL = 1e-10


def check_top_eigenvalues_positive(eigenvalues, n_components, *, name="the Gram matrix"):
    """Check that the ``n_components`` largest ``eigenvalues`` (decreasing) are positive.

    Their square roots scale the coordinates; a zero or negative one would give a zero or
    imaginary coordinate, so ask for fewer components instead.
    """
    lam = np.asarray(eigenvalues, dtype=float)
    top = lam[:n_components]
    positive = int((top > ZERO_EIGENVALUE_RTOL * max(float(lam[0]), 0.0)).sum())
    if positive == 0:
        raise ValueError(
            f"{name} has no positive eigenvalue (largest {float(lam[0]):.3g}), so there is "
            "nothing to embed: all points coincide (every distance is zero) or the kernel is "
            "constant on them. Check the input (e.g. duplicated or constant rows, a wrong "
            "column selection), or the kernel's parameters."
        )
    if positive < n_components:
        shown = ", ".join(f"{v:.3g}" for v in top[:6])
        raise ValueError(
            f"n_components={n_components} is too large: {name} has only {positive} positive "
            f"eigenvalue(s) among its top {n_components} ({shown}), so the other coordinates would "
            f"be zero or imaginary (rank {positive}: e.g. collinear points, or more components than "
            f"the data have dimensions); choose n_components <= {positive}."
        )
    return eigenvalues


def describe_negative_eigenvalues(eigenvalues, *, name="the Gram matrix K", rtol=NEGATIVE_EIGENVALUE_RTOL):
    """Return a sentence describing significant negative ``eigenvalues``, or ``None`` if none.

    An eigenvalue is significant when it is below ``-rtol`` times the largest eigenvalue.
    """
    lam = np.asarray(eigenvalues, dtype=float)
    top, bottom = float(lam.max()), float(lam.min())
    if bottom >= -rtol * max(top, 0.0) and top > 0:
        return None
    n_neg = int((lam < -rtol * max(top, 0.0)).sum())
    ratio = f"{abs(bottom) / top:.3g} times the largest ({top:.6g})" if top > 0 else "and none is positive"
    return (
        f"{name} is not positive semi-definite: {n_neg} eigenvalue(s) are significantly negative, "
        f"the most negative is {bottom:.6g}, {ratio}"
    )


def check_n_features(X, n_features, *, name="X", estimator=None, accept_sparse=False):
    """Check new data against the number of features seen in ``fit``."""
    X = check_array(X, name=name, accept_sparse=accept_sparse)
    if X.shape[1] != n_features:
        who = type(estimator).__name__ if estimator is not None else "the model"
        raise ValueError(
            f"{name} has {X.shape[1]} features, but {who} is expecting {n_features} features as "
            f"input (the model was fitted on {n_features}); pass data with the same columns."
        )
    return X
