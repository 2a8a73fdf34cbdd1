r"""t-SNE for tens of thousands of points: sparse affinities and FFT-interpolated repulsion.

The exact t-SNE gradient (:func:`mlnotes.sne.tsne_objective_gradient`) costs
:math:`O(N^2)` time per iteration and, with a dense :math:`P`, :math:`O(N^2)` memory. With
:math:`\nu` degrees of freedom, :math:`w_{ij} = (1 + \|z_i - z_j\|^2/\nu)^{-1}`,
:math:`k_{ij} = w_{ij}^{(\nu+1)/2}` and :math:`Z = \sum_{k \ne l} k_{kl}` it splits as

.. math::
    \frac{\partial C}{\partial z_i} = \frac{2(\nu+1)}{\nu} \Big[
        \underbrace{\sum_j p_{ij} w_{ij} (z_i - z_j)}_{\text{attraction}}
        - \frac{1}{Z} \underbrace{\sum_j k_{ij} w_{ij} (z_i - z_j)}_{\text{repulsion}} \Big],

and the method of Linderman et al. (2019), used by FIt-SNE and openTSNE, makes each part cheap:

1. **Sparse affinities** (:func:`sparse_affinities`). Each :math:`p_{\cdot|i}` is searched on
   the :math:`k = \lfloor 3\,\mathrm{Perp} \rfloor` nearest neighbours of point i only
   (:func:`nearest_neighbors`, exact, in blocks of rows so that the distance matrix is never
   held whole; screened in single precision, re-ranked in double), so :math:`P` has at most
   :math:`2kN` non-zeros and the attraction is a sparse sum, :math:`O(kN)`.
2. **Interpolated repulsion** (:func:`repulsion`). The sums
   :math:`\phi(z_i) = \sum_j \kappa(z_i - z_j)\, q_j` with a smooth, translation-invariant
   kernel :math:`\kappa` (here :math:`k = w^{(\nu+1)/2}` with charge :math:`q_j = 1` for
   :math:`Z`, and :math:`kw = w^{(\nu+3)/2}` with charges :math:`1` and :math:`z_j` for the
   repulsion) are approximated by Lagrange interpolation: the map's bounding square is cut
   into boxes of side at most 1.25, each box carries :math:`p` equispaced nodes per axis (so all
   nodes form one equispaced grid of spacing :math:`h`), and

   .. math::
       \kappa(z_i - z_j) \approx \sum_{a, b} L_a(z_i)\, \kappa(g_a - g_b)\, L_b(z_j),

   where :math:`g_a` are the nodes of the box holding the point and :math:`L_a` the Lagrange
   polynomials of those nodes. Three steps follow: spread the charges onto the grid,
   :math:`\hat q_b = \sum_j L_b(z_j) q_j` (:math:`O(N p^d)`); on the grid,
   :math:`\hat\phi_a = \sum_b \kappa(g_a - g_b) \hat q_b`, a discrete **convolution** because
   :math:`\kappa(g_a - g_b)` depends only on the offset :math:`a - b` — one FFT product,
   :math:`O(M \log M)` for :math:`M` nodes; and interpolate back,
   :math:`\phi(z_i) \approx \sum_a L_a(z_i) \hat\phi_a`. The error is that of degree
   :math:`p - 1` interpolation of a smooth kernel over a box of side :math:`\le 1.25`.

The cost per iteration is :math:`O(kN + N p^d + M \log M)` and the memory :math:`O(kN + M)`.
A map with fewer pairs than a quarter of its padded grid's nodes (a few points spread far
apart, whose grid would follow the map's extent squared) has its repulsion summed exactly
instead (:func:`exact_repulsion`), which is then cheaper: an iteration costs at most
:math:`O(\min(N^2, M \log M))`, with :math:`M \le` :data:`MAX_NODES`.

The grid: boxes of side at most :data:`BOX_WIDTH` = 1.25, so their number grows with the map's
extent, :math:`\max(\text{floor}, \lceil \text{extent} / 1.25 \rceil)` per axis, as in FIt-SNE
and openTSNE (whose boxes have side 1), but :math:`p = 5` nodes per box and axis (4 per unit
length) where they use 3 (3 per unit length). On the final map of the 20 000 noisy digits of
the benchmark (``benchmarks/scaling.py``, about 208 units across), the repulsion's relative
error against the exact sums, and the time of one :func:`repulsion` (one thread), were: 4.3%
and 71 ms with 3 nodes in boxes of side 1 (their grid), 1.2% and 124 ms with 4, 0.32% and
220 ms with 5, and 0.96% and 101 ms with 5 in boxes of side 1.25 (this grid: the same node
spacing as 4 in side 1, a higher degree). From :data:`LARGE_N` = 50 000 points on the map is
wider (its extent grows about as :math:`\sqrt N`), the grid's nodes grow with the points, and
the boxes keep side 1.25 but carry :math:`p = 4` nodes (3.2 per unit length,
:func:`default_n_interp`): on the final map of the benchmark's 70 000 points (about 229 units
across) the force error (of :math:`r_i / Z_{\mathrm{sum}}`, against a grid of 0.1% error)
was 3.4% with :math:`p = 4`, 0.97% with 5, and 5.2% with their grid, and one
:func:`repulsion` cost 113, 175 and 89 ms of CPU (one thread, a busy machine). Their floor of 50 boxes
is kept from :data:`FULL_FLOOR_N` = 1 000 points on; fewer points get a floor in proportion,
:math:`\lceil 50 N / 1000 \rceil`, at least 5 (:func:`default_min_boxes`): the floor only
refines a map smaller than 50 units, which the side-1 boxes already interpolate accurately, and
on 150 points the 250 x 250 nodes of 50 boxes cost sixty times the exact gradient (12 s
against 0.2 s for 1 000 iterations). The price of the coarser grid on few points: once a
150-point map has spread over ~20 units, boxes of side 1 interpolate its (small, nearly
balanced) gradient to ~10% where the 50 boxes of side 0.4 gave 0.4%, and its KL after 1 000
iterations is 0.262 instead of 0.237 (exact: 0.216). On so few points the exact method is the
right one; ``TSNE(method="auto")`` picks it below 5 000 points. (These figures, and the next,
were measured with boxes of side 1.) Measured on a converged 3 000-point map of the digits,
the repulsion's relative error is 4.9% with 3 nodes per unit length, 1.1-1.5% with 4 and 0.4%
with 5; and after 1 000 iterations from the same start the map's KL divergence
(dense P) was 14% above the exact method's with :math:`p = 3` and 0.7% above with
:math:`p = 5`. Equispaced nodes do not allow much more: at :math:`p \ge 8` Runge's phenomenon
makes the interpolation worse, not better.
The objective is the same KL divergence, computed from the sparse :math:`P` and the
interpolated :math:`Z`: :math:`\mathrm{KL} = \sum p \log p - \frac{\nu+1}{2} \sum p \log w +
(\sum p) \log Z`. Maps of dimension 1 and 2 are supported.

References
----------
.. [1] Linderman, G. C., Rachh, M., Hoskins, J. G., Steinerberger, S. and Kluger, Y. (2019).
       Fast interpolation-based t-SNE for improved visualization of single-cell RNA-seq data.
       Nature Methods 16, 243-245.
.. [2] van der Maaten, L. (2014). Accelerating t-SNE using tree-based algorithms. JMLR 15,
       3221-3245 (the 3 x perplexity neighbours).
"""

import math
import numbers

import numpy as np
import scipy.fft
import scipy.sparse as sp
from scipy.spatial import cKDTree

from ._typing import ArrayLike, FloatArray, IntArray, Matrix, Sparse
from ._validation import check_array, check_positive
from .affinities import knn_conditional_affinities
from .graphs import _nearest_from_distances, squared_distances
from .sne import _student_t_kernel

# --- named constants --------------------------------------------------------------------------
NEIGHBOURS_PER_PERPLEXITY = 3  # k = floor(3 Perp) nearest neighbours carry p_{j|i}
KNN_BLOCK_BYTES = 2**27  # each block of the kNN search holds at most 128 MB of distances
KD_TREE_MAX_DIM = 8  # up to this data dimension a k-d tree beats the blocked BLAS search
KNN_SLACK = 10  # the BLAS search screens k + this many candidates in single precision
KNN_SAMPLE_FRACTION = 0.1  # ... bounding each row's candidates by the columns of a 10% sample
KNN_SAMPLE_MIN = 20  # ... of at least 20 x the candidates (else every row is sorted whole)
N_INTERPOLATION = 5  # Lagrange nodes per box and axis (p); openTSNE and FIt-SNE use 3, see below
N_INTERPOLATION_LARGE = 4  # ... and from LARGE_N points on, where the grid's cost dominates
LARGE_N = 50000
MIN_BOXES = 50  # boxes per axis at least (FIt-SNE's and openTSNE's floor) from ...
FULL_FLOOR_N = 1000  # ... this many points on; fewer points get a floor in proportion, ...
MIN_BOXES_SMALL = 5  # ... but at least this many boxes
BOX_WIDTH = 1.25  # more boxes when needed to keep each box's side <= 1.25 (module doc)
MAX_NODES = 2**21  # bound on the grid (a diverging map must not allocate a huge grid)
SINGLE_PRECISION_PAIRS = 2**20  # the attraction's pair arithmetic in float32 from here on
EXACT_REPULSION_RATIO = 0.25  # N^2 <= this x the padded grid's nodes (N <= nodes per axis): exact sums
MAX_DIM = 2
FFT_DTYPE = np.float32  # single precision transforms: rounding ~1e-7, far below the interpolation error


def check_workers(workers: int | None, name: str = "workers") -> int:
    """``None`` (one thread), a positive number of threads, or -1 for all cores."""
    if workers is None:
        return 1
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers == 0 \
            or workers < -1:
        raise ValueError(
            f"{name} must be None (one thread), a positive number of threads or -1 (all "
            f"cores), got {workers!r}."
        )
    return int(workers)


# --- step 1: sparse affinities ------------------------------------------------------------------
def nearest_neighbors(X: ArrayLike, k: int, *, workers: int | None = None) -> tuple[IntArray, FloatArray]:
    r"""The k nearest neighbours of every row of ``X`` (itself excluded), exactly.

    Squared distances :math:`\|x_i - x_j\|^2 = \|x_i\|^2 - 2 x_i^\top x_j + \|x_j\|^2` for a
    block of rows at a time (one matrix product, so BLAS does the work, and at most
    :data:`KNN_BLOCK_BYTES` held), in single precision on the centred data, and a partial sort
    of each row keeps :math:`k +` :data:`KNN_SLACK` candidates; their distances are recomputed
    in double precision directly from the differences (no cancellation error for close pairs)
    and the k nearest kept. The result is the exact k nearest unless single-precision rounding
    (relative :math:`\sim 10^{-7}` of the squared norms) moves a true neighbour behind ten
    others, which needs eleven distances within that rounding of each other. In dimension
    :math:`\le` :data:`KD_TREE_MAX_DIM` a k-d tree answers instead.

    ``workers`` threads answer the k-d tree's queries (-1: all cores; default 1).

    Returns
    -------
    indices : ndarray of shape (N, k), int
        Neighbours of each point, nearest first.
    D2 : ndarray of shape (N, k)
        Their squared distances.
    """
    X = check_array(X, accept_sparse=True)
    N = X.shape[0]
    check_positive(k, "k", integer=True)
    if k >= N:
        raise ValueError(f"k={k} neighbours needs at least k + 1 = {k + 1} points, got {N}.")
    if sp.issparse(X):
        return _sparse_nearest_neighbors(X, k)
    if X.shape[1] <= KD_TREE_MAX_DIM:
        _, idx = cKDTree(X).query(X, k=k + 1, workers=1 if workers is None else workers)
        idx = _drop_self(idx, k)
    else:
        idx = _screen_single(X, min(k + KNN_SLACK, N - 1))
    D2 = np.empty(idx.shape)
    block = max(1, KNN_BLOCK_BYTES // (8 * idx.shape[1] * X.shape[1]))
    for s in range(0, N, block):  # |x_i - x_j|^2 from the differences, a block at a time
        diff = X[s:s + block, None, :] - X[idx[s:s + block]]
        D2[s:s + block] = np.einsum("ijk,ijk->ij", diff, diff)
    order = np.argsort(D2, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(idx, order, axis=1), np.take_along_axis(D2, order, axis=1)


def _sparse_nearest_neighbors(X, k):
    """:func:`nearest_neighbors` for sparse rows: exact squared distances from blocks of
    sparse products (the data are never densified), the k smallest of each row kept."""
    N = X.shape[0]
    idx, D2 = np.empty((N, k), dtype=np.intp), np.empty((N, k))
    block = max(1, KNN_BLOCK_BYTES // (8 * N))
    for s in range(0, N, block):
        rows = slice(s, min(s + block, N))
        D = squared_distances(X[rows], X)
        D[np.arange(rows.stop - rows.start), np.arange(rows.start, rows.stop)] = np.inf
        idx[rows] = _nearest_from_distances(D, k, exclude_self=False)
        D2[rows] = np.take_along_axis(D, idx[rows], axis=1)
    return idx, D2


def _screen_single(X, n_candidates):
    r"""The ``n_candidates`` nearest of each row (itself excluded, unordered) by blocked
    single-precision distances of the centred data: half the bytes and twice the speed of
    double precision; :func:`nearest_neighbors` re-ranks them in double precision.

    Within a row only the order matters, so the row's own :math:`\|x_i\|^2` is left out and
    :math:`\|x_j\|^2 - 2 x_i^\top x_j` comes from one product of the rows
    :math:`(-2 x_i, 1)` and :math:`(x_j, \|x_j\|^2)`, with no pass over the block after it.
    For many points the rows are not partially sorted whole: the ``n_candidates``-th smallest
    value among a random :data:`KNN_SAMPLE_FRACTION` of the columns bounds the row's own
    ``n_candidates``-th smallest from above (a subset's order statistic is never below the
    whole row's), so every true candidate is at most that bound; those entries (about
    ``n_candidates / KNN_SAMPLE_FRACTION`` per row) are gathered and partially sorted.
    """
    N = X.shape[0]
    Xs = (X - X.mean(axis=0)).astype(np.float32)  # centred: smaller norms, smaller rounding
    left = np.empty((N, Xs.shape[1] + 1), dtype=np.float32)
    np.multiply(Xs, -2.0, out=left[:, :-1])
    left[:, -1] = 1.0
    right = np.empty_like(left)
    right[:, :-1] = Xs
    right[:, -1] = np.einsum("ij,ij->i", Xs, Xs)
    n_sample = max(int(KNN_SAMPLE_FRACTION * N), KNN_SAMPLE_MIN * n_candidates)
    if n_sample < N:  # sampled columns first: a random order of the points, mapped back below
        order = np.random.default_rng(0).permutation(N)
        right = right[order]
        place = np.empty(N, dtype=np.intp)
        place[order] = np.arange(N)  # the column of point i
    else:
        order = None
    block = max(1, KNN_BLOCK_BYTES // (4 * N))
    idx = np.empty((N, n_candidates), dtype=np.intp)
    for s in range(0, N, block):
        rows = np.arange(s, min(s + block, N))
        D2 = left[rows] @ right.T
        if order is None:
            D2[np.arange(rows.size), rows] = np.inf  # not its own neighbour
            idx[rows] = np.argpartition(D2, n_candidates - 1, axis=1)[:, :n_candidates]
        else:
            D2[np.arange(rows.size), place[rows]] = np.inf
            idx[rows] = order[_smallest_below_sample_bound(D2, n_candidates, n_sample)]
    return idx


def _smallest_below_sample_bound(D2, n, n_sample):
    """Column indices of the ``n`` smallest entries of each row of ``D2``, from the entries at
    most the row's ``n``-th smallest among its first ``n_sample`` columns (an upper bound)."""
    bound = np.partition(D2[:, :n_sample], n - 1, axis=1)[:, n - 1:n]
    r, c = np.nonzero(D2 <= bound)  # row-major: each row's candidates contiguous
    counts = np.bincount(r, minlength=D2.shape[0])
    first = np.cumsum(counts) - counts
    position = np.arange(r.size) - first[r]
    values = np.full((D2.shape[0], counts.max()), np.inf, dtype=D2.dtype)
    columns = np.zeros(values.shape, dtype=np.intp)
    values[r, position] = D2[r, c]
    columns[r, position] = c
    keep = np.argpartition(values, n - 1, axis=1)[:, :n]
    return np.take_along_axis(columns, keep, axis=1)


def _drop_self(idx, k):
    """Remove each row's own index from a (N, k + 1) neighbour list (it may not come first when
    there are duplicate points), keeping the first k others."""
    N = idx.shape[0]
    is_self = idx == np.arange(N)[:, None]
    is_self[~is_self.any(axis=1), -1] = True  # self beyond k + 1: drop the farthest instead
    return idx[~is_self].reshape(N, k)


def sparse_affinities(X: ArrayLike, perplexity: float, *, n_neighbors: int | None = None,
                      workers: int | None = None) -> tuple[Sparse, FloatArray]:
    r"""t-SNE's joint affinities on the nearest-neighbour graph, as a sparse matrix.

    :math:`p_{j|i}` is the perplexity-calibrated Gaussian over the
    :math:`k = \lfloor 3\,\mathrm{Perp} \rfloor` nearest neighbours of point i
    (:func:`mlnotes.sne.knn_conditional_affinities`; zero elsewhere), and
    :math:`p_{ij} = (p_{j|i} + p_{i|j}) / 2N` as in the exact method, so :math:`\sum P = 1`.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (N, p)
    perplexity : float
        ``1 < perplexity < N - 1``.
    n_neighbors : int, optional
        k; default :math:`\min(\lfloor 3\,\mathrm{Perp} \rfloor, N - 1)`.
    workers : int, optional
        Threads for the neighbour search (:func:`nearest_neighbors`).

    Returns
    -------
    P : scipy.sparse.csr_array of shape (N, N)
        Symmetric, zero diagonal, at most 2kN stored entries.
    sigma : ndarray of shape (N,)
    """
    X = check_array(X, min_samples=3, accept_sparse=True)
    N = X.shape[0]
    if n_neighbors is None:
        check_positive(perplexity, "perplexity")
        n_neighbors = min(int(NEIGHBOURS_PER_PERPLEXITY * perplexity), N - 1)
    idx, D2 = nearest_neighbors(X, n_neighbors, workers=workers)
    P_knn, sigma = knn_conditional_affinities(D2, perplexity)
    indptr = np.arange(0, N * n_neighbors + 1, n_neighbors)
    P_cond = sp.csr_array((P_knn.ravel(), idx.ravel(), indptr), shape=(N, N))
    P = sp.csr_array((P_cond + P_cond.T) / (2.0 * N))  # as joint_affinities, kept sparse
    P.sum_duplicates()
    P.sort_indices()
    return P, sigma


# --- step 2: interpolated repulsion -------------------------------------------------------------
def lagrange_weights(u: ArrayLike, n_nodes: int) -> FloatArray:
    r"""Lagrange basis :math:`L_a(u) = \prod_{b \ne a} (u - x_b) / (x_a - x_b)` at the nodes
    :math:`x_a = (a + 1/2) / p`, :math:`a = 0, \dots, p - 1`, of the unit box.

    ``u`` has shape (N,) with entries in [0, 1]; returns shape (N, p), rows summing to 1
    (interpolation reproduces constants).
    """
    x = (np.arange(n_nodes) + 0.5) / n_nodes
    u = np.asarray(u, dtype=np.float64)
    # numerators prod_{b != a} (u - x_b) as (product of the factors before a) x (after a),
    # 2p products instead of p(p - 1); the denominators are constants
    factors = u[None, :] - x[:, None]  # (p, N): one contiguous row per node
    W = np.empty((n_nodes, u.shape[0]))
    W[-1] = 1.0
    for a in range(n_nodes - 1, 0, -1):  # W[a - 1] = prod_{b >= a} (u - x_b)
        np.multiply(W[a], factors[a], out=W[a - 1])
    before = factors[0].copy()
    for a in range(1, n_nodes):  # times prod_{b < a} (u - x_b)
        W[a] *= before
        before *= factors[a]
    gaps = x[:, None] - x[None, :]
    np.fill_diagonal(gaps, 1.0)
    W /= gaps.prod(axis=1)[:, None]
    return W.T


def default_min_boxes(N: int) -> int:
    r"""The floor on boxes per axis for ``N`` points:
    :math:`\min(50, \max(5, \lceil 50 N / 1000 \rceil))` (see the module docstring)."""
    return min(MIN_BOXES, max(MIN_BOXES_SMALL, math.ceil(MIN_BOXES * N / FULL_FLOOR_N)))


def _grid_size(Z, n_interp, min_boxes, box_width):
    """The grid's corner, box width and boxes per axis (see :func:`_grid`)."""
    N, d = Z.shape
    lo = Z.min(axis=0)
    span = max(float((Z.max(axis=0) - lo).max()), np.finfo(float).tiny)
    most = max(1, int(MAX_NODES ** (1.0 / d)) // n_interp)
    width = max(min(span / min_boxes, box_width), span / most)
    n_boxes = min(math.ceil(span / width), most)
    return lo, width, n_boxes


def _grid(Z, n_interp, size):
    """Boxes over the map's bounding square: the node of each point's interpolation stencil
    (flat grid index) and its Lagrange weight, the nodes per axis and their spacing.

    Boxes have side ``box_width`` exactly once the map spans ``min_boxes`` of them (so the
    spacing, and with it the kernel's transform, stays the same from one iteration to the
    next); a smaller map is cut into ``min_boxes`` equal boxes, and a map too wide for
    :data:`MAX_NODES` nodes into as many wider boxes as they allow. ``size`` is
    :func:`_grid_size`'s answer.
    """
    lo, width, n_boxes = size
    index, weight = _stencil(Z, lo, width, n_boxes, n_interp)
    return index, weight, n_boxes * n_interp, width / n_interp  # nodes per axis, spacing h


def _stencil(Y, lo, width, n_boxes, n_interp):
    """Flat grid indices and Lagrange weights of each point's :math:`p^d` nodes on the grid
    with corner ``lo``, boxes of side ``width``, ``n_boxes`` per axis (a point outside is
    given its nearest box: the fitted map's points never are; new points may be)."""
    M, d = Y.shape
    m = n_boxes * n_interp  # nodes per axis
    rel = (Y - lo) / width
    box = np.clip(np.floor(rel), 0, n_boxes - 1)
    u = rel - box
    box = box.astype(np.intp)
    nodes = np.arange(n_interp)
    index, weight = np.zeros((M, 1), dtype=np.intp), np.ones((M, 1))
    for axis in range(d):  # tensor-product stencil: p nodes per axis, p**d in all
        ia = box[:, axis, None] * n_interp + nodes  # (M, p) node indices on this axis
        wa = lagrange_weights(u[:, axis], n_interp)
        index = (index[:, :, None] * m + ia[:, None, :]).reshape(M, -1)
        weight = (weight[:, :, None] * wa[:, None, :]).reshape(M, -1)
    return index, weight


_KERNEL_CACHE = {}  # (n, d, h, exponent, dof) -> transform of the kernel on the padded grid
KERNEL_CACHE_SIZE = 8


def _kernel_transform(n, d, h, exponent, dof, workers):
    r"""FFT of :math:`(1 + r^2/\nu)^{-e}` at the circular offsets of an n-point padded grid
    (real-to-complex along the last axis), cached: the grid keeps its spacing and size for
    many iterations once the map has grown, so the kernel is transformed once per grid."""
    key = (n, d, h, exponent, dof)
    if key not in _KERNEL_CACHE:
        t = np.arange(n)
        off2 = (np.minimum(t, n - t) * h) ** 2  # squared circular offset along one axis
        r2 = off2
        for _ in range(d - 1):
            r2 = r2[..., None] + off2
        kernel = ((1.0 + r2 / dof) ** -exponent).astype(FFT_DTYPE)
        if len(_KERNEL_CACHE) >= KERNEL_CACHE_SIZE:
            _KERNEL_CACHE.pop(next(iter(_KERNEL_CACHE)))
        _KERNEL_CACHE[key] = scipy.fft.rfftn(kernel, workers=workers)
    return _KERNEL_CACHE[key]


_PADDED = {}  # dtype -> a flat buffer reused for the zero-padded transforms (see _buffer)


def _buffer(shape, dtype):
    """An uninitialised array of this shape in a buffer kept from call to call (grown when a
    larger grid needs it): a fresh array of megabytes per transform costs about as much in
    page faults as the transform."""
    size = math.prod(shape)
    key = np.dtype(dtype)
    if key not in _PADDED or _PADDED[key].size < size:
        _PADDED[key] = np.empty(size, dtype=dtype)
    return _PADDED[key][:size].reshape(shape)


def _half_spectrum_weights(n):
    """How often each column of a real-to-complex transform of length n stands in the full
    spectrum: 1 for frequency 0 (and n/2 when n is even), 2 for the others (and their
    conjugates)."""
    c = np.full(n // 2 + 1, 2.0)
    c[0] = 1.0
    if n % 2 == 0:
        c[-1] = 1.0
    return c


def _convolve(charges, exponents, dof, m, h, d, *, energy=None, workers=1):
    r"""On the grid, :math:`\hat\phi_a = \sum_b \kappa(g_a - g_b)\, \hat q_b` for every charge
    (rows of ``charges``, each a flat grid of m**d nodes) and every kernel
    :math:`\kappa = (1 + r^2/\nu)^{-e}`, ``e`` in ``exponents``, by zero-padded FFT.

    ``exponents`` is a list of ``(e, rows)``: kernel e is applied to the charges ``rows``; each
    charge is transformed once, whatever the number of kernels it meets. The offsets
    :math:`a - b` run over :math:`-(m-1), \dots, m-1` per axis, so a circular convolution of
    length :math:`n \ge 2m - 1` (a size the FFT likes) is the linear one. The transforms run
    axis by axis, so that the padding (zeros in, unused values out) costs nothing on the first
    axis, in single precision (its rounding, ~1e-7, is far below the interpolation error).

    ``energy=(e, row)`` also returns :math:`\sum_a \hat q_a \hat\phi_a` for kernel e and that
    charge without transforming back: by Parseval, with :math:`Q` the transform of the padded
    charge and :math:`\hat K` the kernel's (real, as the kernel is even),
    :math:`\sum_a \hat q_a (K \hat q)_a = n^{-d} \sum_f \hat K(f)\, |Q(f)|^2`.
    Returns one array of shape (len(rows), m**d) per kernel (and the energy, if asked for).
    """
    n = scipy.fft.next_fast_len(2 * m - 1, real=True)
    k = charges.shape[0]
    padded = _buffer((k,) + (m,) * (d - 1) + (n,), FFT_DTYPE)  # zero-padded charges
    padded[..., :m] = charges.reshape((k,) + (m,) * d)
    padded[..., m:] = 0.0
    q_hat = scipy.fft.rfft(padded, axis=-1, workers=workers)
    if d == 2:  # zero-pad the other axis too, then transform along it, in place
        padded = _buffer((k, n, q_hat.shape[-1]), q_hat.dtype)
        padded[:, :m] = q_hat
        padded[:, m:] = 0.0
        q_hat = scipy.fft.fft(padded, axis=-2, workers=workers, overwrite_x=True)
    out = []
    if energy is not None:  # first, while q_hat is untouched
        exponent, row = energy
        Q = q_hat[row]
        power_spectrum = np.square(Q.real, dtype=np.float64)
        power_spectrum += np.square(Q.imag, dtype=np.float64)
        power_spectrum *= _kernel_transform(n, d, h, exponent, dof, workers).real
        # K^(f) |Q(f)|^2 summed over the full spectrum: each column stands for itself and its
        # conjugate
        columns = power_spectrum.reshape(-1, power_spectrum.shape[-1]).sum(axis=0)
        energy = float(columns @ _half_spectrum_weights(n)) / n**d
    for k, (exponent, rows) in enumerate(exponents):
        K_hat = _kernel_transform(n, d, h, exponent, dof, workers)
        if k == len(exponents) - 1:  # the last kernel may overwrite the charges' transforms
            phi_hat = q_hat[rows]
            phi_hat *= K_hat
        else:
            phi_hat = q_hat[rows] * K_hat
        for axis in range(-d, -1):
            phi_hat = scipy.fft.ifft(phi_hat, axis=axis, workers=workers, overwrite_x=True)
            phi_hat = phi_hat[(Ellipsis, slice(0, m)) + (slice(None),) * (-axis - 1)]
        phi = scipy.fft.irfft(phi_hat, n=n, axis=-1, workers=workers)[..., :m]
        out.append(phi.reshape(phi.shape[0], -1))  # single precision, see above
    if energy is not None:
        out.append(energy)
    return out


def repulsion(Z: ArrayLike, *, dof: float = 1.0, n_interp: int | None = None, min_boxes: int | None = None,
              box_width: float | None = None, workers: int | None = None) -> tuple[float, FloatArray]:
    r"""The normaliser and the repulsive forces by FFT-accelerated interpolation.

    .. math::
        Z_{\mathrm{sum}} = \sum_{i \ne j} k_{ij}, \qquad
        r_i = \sum_j k_{ij}\, w_{ij}\, (z_i - z_j) = z_i \sum_j (kw)_{ij} - \sum_j (kw)_{ij} z_j,

    the two kernels :math:`k = w^{(\nu+1)/2}` (charge 1) and :math:`kw = w^{(\nu+3)/2}`
    (charges 1 and the coordinates), each sum interpolated as described in the module doc. The
    interpolated sums include the self terms :math:`j = i`: in :math:`r_i` they cancel
    (:math:`z_i - z_i = 0`, and both terms carry the same interpolated kernel value); from
    :math:`Z_{\mathrm{sum}}` the interpolated self terms are subtracted (not :math:`N`, their
    exact value, so that their interpolation error goes too). :math:`Z_{\mathrm{sum}}` is
    only needed summed over the points, :math:`\sum_i \sum_a L_a(z_i) \hat\phi_a =
    \sum_a \hat q_a \hat\phi_a`, which the transform gives without an inverse FFT
    (:func:`_convolve`): six grid transforms per gradient of a 2-D map (three charges forward,
    three back), not seven.

    Parameters
    ----------
    Z : ndarray of shape (N, d), d = 1 or 2
    dof : float
        :math:`\nu`.
    n_interp : int, optional
        Lagrange nodes per box and axis, :math:`p` (default :func:`default_n_interp` of N: 5,
        or 4 from 50 000 points on).
    min_boxes : int, optional
        Boxes per axis at least (default :func:`default_min_boxes` of N: 50 from 1 000
        points on, fewer for fewer points).
    box_width : float, optional
        Largest side of a box (default :data:`BOX_WIDTH`): a larger map gets more boxes. A
        finer grid (more nodes, smaller boxes) means a smaller interpolation error.
    workers : int, optional
        Threads for the FFTs (scipy.fft's ``workers``: -1 for all cores); default 1.

    Returns
    -------
    Z_sum : float
    r : ndarray of shape (N, d)
    """
    n_interp, size = _grid_choice(Z, n_interp, min_boxes, box_width)
    return _interpolated_repulsion(Z, float(dof), n_interp, size, 1 if workers is None
                                   else workers)


def default_n_interp(N: int) -> int:
    r"""Lagrange nodes per box and axis for ``N`` points: :data:`N_INTERPOLATION` = 5 below
    :data:`LARGE_N` = 50 000 points, :data:`N_INTERPOLATION_LARGE` = 4 from there on (see the
    module docstring)."""
    return N_INTERPOLATION if N < LARGE_N else N_INTERPOLATION_LARGE


def _grid_choice(Z, n_interp, min_boxes, box_width):
    """The nodes per box and :func:`_grid_size` of the map, defaults filled in."""
    n_interp = default_n_interp(Z.shape[0]) if n_interp is None else n_interp
    min_boxes = default_min_boxes(Z.shape[0]) if min_boxes is None else min_boxes
    box_width = BOX_WIDTH if box_width is None else box_width
    return n_interp, _grid_size(Z, n_interp, min_boxes, box_width)


def _interpolated_repulsion(Z, dof, n_interp, size, workers):
    """:func:`repulsion` on the grid of ``size`` (:func:`_grid_size`)."""
    N, d = Z.shape
    power = (dof + 1.0) / 2.0
    index, weight, m, h = _grid(Z, n_interp, size)
    # L[i, a] = L_a(z_i): p**d weights per row, at the nodes of point i's box
    L = sp.csr_array((weight.ravel(), index.ravel(), np.arange(0, index.size + 1,
                                                                index.shape[1])),
                     shape=(N, m**d))
    charges = np.empty((N, d + 1))  # q_j = 1 and z_j
    charges[:, 0] = 1.0
    charges[:, 1:] = Z
    spread = (L.T @ charges).T  # \hat q_b = sum_j L_b(z_j) q_j, one row per charge
    phi_kw, energy = _convolve(spread, [(power + 1.0, slice(None))], dof, m, h, d,
                               energy=(power, 0), workers=workers)
    # back to the points: phi(z_i) = sum_a L_a(z_i) \hat phi_a
    at_kw = L @ phi_kw.T.astype(np.float64)
    # drop the self terms as interpolated, w_i^T K_loc w_i with K_loc the kernel between the
    # p**d nodes of one box (the same for every box), not k_ii = 1: their errors cancel
    stencil = np.stack(np.meshgrid(*[np.arange(n_interp)] * d, indexing="ij"), -1).reshape(-1, d)
    gap2 = ((stencil[:, None, :] - stencil[None, :, :]) ** 2).sum(axis=-1) * h**2
    K_loc = (1.0 + gap2 / dof) ** -power
    Z_sum = energy - float(np.einsum("na,na->", weight @ K_loc, weight))
    r = at_kw[:, :1] * Z - at_kw[:, 1:]
    return Z_sum, r


def _exact_is_cheaper(Z, n_interp, n_boxes):
    """Whether the map has fewer pairs than :data:`EXACT_REPULSION_RATIO` times its padded
    grid's nodes (few points, spread far: the exact sums then cost less than the FFTs)."""
    N, d = Z.shape
    return N * N <= EXACT_REPULSION_RATIO * (2 * n_boxes * n_interp) ** d


def exact_repulsion(Z: ArrayLike, *, dof: float = 1.0) -> tuple[float, FloatArray]:
    r""":func:`repulsion`'s :math:`Z_{\mathrm{sum}}` and :math:`r_i` summed over all pairs,
    :math:`O(N^2)`: what :func:`repulsion` computes when the map has fewer pairs than its grid
    would have nodes (a few points spread far apart)."""
    W = _student_t_kernel(Z, float(dof))  # w_ij, zero diagonal
    power = (dof + 1.0) / 2.0
    K = W if dof == 1.0 else W**power
    KW = K * W
    return float(K.sum()), KW.sum(axis=1)[:, None] * Z - KW @ Z


# --- the objective --------------------------------------------------------------------------------
class _UpperPairs:
    r"""The pairs i < j stored in a symmetric sparse P, and :math:`\sum p\log p`.

    The optimiser calls the objective a thousand times with the same P (or the same P times the
    exaggeration), so the last one is kept: a new P is recognised by comparing its arrays
    (equal structure: keep the pairs; equal values too: keep the weights as well). The pairs
    are held as an upper-triangular CSR matrix ``U`` (rows sorted, so a point's pairs are
    contiguous) whose values the attraction overwrites each call, with preallocated buffers
    for the per-pair arithmetic: a fresh array of a million pairs per operation would cost a
    page fault per 4 kB, about as much as the operation itself. From
    :data:`SINGLE_PRECISION_PAIRS` pairs on that arithmetic (differences, :math:`w_{ij}`, the
    forces and their sums) runs in single precision, half the bytes to move: the attraction's
    relative error is then about :math:`10^{-6}` (2e-6 measured on 4.6 million pairs), far
    below the interpolated repulsion's (about 1%); fewer pairs (every test of the gradient
    against finite differences or the exact method) keep double precision.
    """

    last = None

    def __init__(self, P):
        self.indptr, self.indices, self.data = P.indptr, P.indices, P.data
        N = P.shape[0]
        rows = np.repeat(np.arange(N), np.diff(P.indptr))
        upper = P.indices > rows  # the diagonal of P is zero; j > i stands for both (i, j), (j, i)
        self.upper, self.rows, self.cols = upper, rows[upper], P.indices[upper].astype(np.intp)
        counts = np.bincount(self.rows, minlength=N)
        U_indptr = np.concatenate([[0], np.cumsum(counts)])
        self.dtype = np.float32 if self.rows.size >= SINGLE_PRECISION_PAIRS else np.float64
        self.U = sp.csr_array((np.empty(self.rows.size, dtype=self.dtype), self.cols, U_indptr),
                              shape=(N, N))
        self.has_pairs = counts > 0  # rows of U with a pair, and where their pairs start
        self.row_starts = U_indptr[:-1][self.has_pairs]
        self.buffers = np.empty((MAX_DIM + 2, self.rows.size), dtype=self.dtype)  # differences,
        # a spare, 1 / w
        self._set_weights(P.data)

    def _set_weights(self, data):
        self.data = data
        self.p = data[self.upper]
        self.p_log_p = 2.0 * float(np.dot(self.p, np.log(self.p, out=np.zeros_like(self.p),
                                                         where=self.p > 0)))
        self.p_sum = 2.0 * float(self.p.sum())
        self.p_work = self.p.astype(self.dtype, copy=False)  # in the attraction's precision

    @classmethod
    def of(cls, P):
        c = cls.last
        if c is not None and P.indices is c.indices and P.data is c.data:
            return c  # the very same P as last time
        if c is None or not (np.array_equal(c.indptr, P.indptr)
                             and np.array_equal(c.indices, P.indices)):
            c = cls.last = cls(P)
        elif not np.array_equal(c.data, P.data):
            c._set_weights(P.data)
        c.indptr, c.indices, c.data = P.indptr, P.indices, P.data  # recognised next time
        return c

    def attraction(self, Z, dof):
        r"""The attraction :math:`\sum_j p_{ij} w_{ij} (z_i - z_j)` of every point, and the
        pairs' :math:`1 / w_{ij} = 1 + \|z_i - z_j\|^2 / \nu` (a view of a buffer, valid
        until the next call; :math:`p_{ij} w_{ij}` is one division, not a reciprocal and a
        product).

        Per pair i < j: :math:`w_{ij}` from the coordinate differences, and the force
        :math:`f_{ij} = p_{ij} w_{ij} (z_i - z_j)` per coordinate, which pulls i (row sums of
        ``U`` holding :math:`f`) and, with the opposite sign, j (its column sums). The forces
        are summed as they are, not as :math:`z_i \sum_j a_{ij} - \sum_j a_{ij} z_j`, whose
        rounding would not vanish between coincident points (and would split exact twins)."""
        N, d = Z.shape
        diffs, spare, den = self.buffers[:d], self.buffers[d], self.buffers[d + 1]
        for c in range(d):
            zc = np.ascontiguousarray(Z[:, c], dtype=self.dtype)
            dc = diffs[c]
            np.take(zc, self.rows, out=dc, mode="clip")  # "clip": unbuffered
            np.take(zc, self.cols, out=spare, mode="clip")
            dc -= spare
            if c == 0:
                np.multiply(dc, dc, out=den)
            else:
                np.multiply(dc, dc, out=spare)
                den += spare
        if dof != 1.0:
            den /= dof
        den += 1.0
        np.divide(self.p_work, den, out=spare)  # a_ij = p_ij w_ij
        ones = np.ones(N, dtype=self.dtype)
        attract = np.zeros((N, d))
        for c in range(d):
            np.multiply(spare, diffs[c], out=self.U.data)  # f_ij, coordinate c
            if self.row_starts.size:  # row sums of U: contiguous segments, no gather
                attract[self.has_pairs, c] = np.add.reduceat(self.U.data, self.row_starts)
            attract[:, c] -= self.U.T @ ones
        return attract, den


def _check_sparse_pair(Z, P):
    Z = check_array(Z, name="Z")
    if Z.shape[1] > MAX_DIM:
        raise ValueError(
            f"The FFT-interpolated gradient supports maps of dimension 1 or 2, got {Z.shape[1]} "
            "(the grid grows as (nodes per axis)**d). Use method='exact' for 3-D maps."
        )
    if not sp.issparse(P):
        P = check_array(P, name="P")
    P = sp.csr_array(P)
    if P.shape != (Z.shape[0], Z.shape[0]):
        raise ValueError(
            f"P has shape {P.shape} but Z has {Z.shape[0]} rows; P must be N x N for N points."
        )
    P.sum_duplicates()
    if not np.isfinite(P.data).all() or (P.data < 0).any():
        raise ValueError("P must hold finite, non-negative affinities.")
    if abs(P - P.T).max() > 1e-12 * abs(P).max() or P.diagonal().any():
        raise ValueError(
            "P must be symmetric with a zero diagonal (t-SNE's joint affinities); build it with "
            "sparse_affinities(X, perplexity)."
        )
    return Z, P


def fft_objective_gradient(Z: ArrayLike, P: Matrix, *, dof: float = 1.0, compute_objective: bool = True,
                           check_input: bool = True, n_interp: int | None = None,
                           min_boxes: int | None = None, box_width: float | None = None,
                           workers: int | None = None) -> tuple[float | None, FloatArray]:
    r"""t-SNE's KL divergence and gradient with sparse :math:`P` and interpolated repulsion.

    .. math::
        \frac{\partial C}{\partial z_i} = \frac{2(\nu+1)}{\nu} \Big[ \sum_{j:\, p_{ij} > 0}
            p_{ij} w_{ij} (z_i - z_j) - \frac{r_i}{Z_{\mathrm{sum}}} \Big],
        \qquad
        C = \sum p \log p - \frac{\nu+1}{2} \sum p \log w + \Big(\sum p\Big) \log Z_{\mathrm{sum}},

    the attraction summed over the stored pairs of ``P`` (each pair :math:`i < j` once: its
    force :math:`p_{ij} w_{ij} (z_i - z_j)` pulls i and, with the opposite sign, j), and
    :math:`r_i`, :math:`Z_{\mathrm{sum}}` from :func:`repulsion`. Same signature and return
    values as :func:`mlnotes.sne.tsne_objective_gradient`, with ``P`` a symmetric sparse matrix
    (a dense one is converted) and the grid's parameters and the FFTs' ``workers`` (threads)
    passed on to :func:`repulsion`. When the map has fewer pairs :math:`N^2` than
    :data:`EXACT_REPULSION_RATIO` times its padded grid's nodes (a few points spread far
    apart), the repulsion is summed exactly instead (:func:`exact_repulsion`): it is cheaper
    there, so an iteration never costs more than the exact method's.
    """
    if check_input:
        Z, P = _check_sparse_pair(Z, P)
        check_positive(dof, "dof")
        for name, value, integer in [("n_interp", n_interp, True),
                                     ("min_boxes", min_boxes, True),
                                     ("box_width", box_width, False)]:
            if value is not None:
                check_positive(value, name, integer=integer)
        check_workers(workers)
    dof = float(dof)
    N, d = Z.shape
    pairs = _UpperPairs.of(P)
    attract, den = pairs.attraction(Z, dof)  # 1 / w_ij = 1 + |z_i - z_j|^2 / nu, i < j
    n_interp, size = _grid_choice(Z, n_interp, min_boxes, box_width)  # once per gradient
    if _exact_is_cheaper(Z, n_interp, size[2]):
        Z_sum, r = exact_repulsion(Z, dof=dof)
    else:
        Z_sum, r = _interpolated_repulsion(Z, dof, n_interp, size,
                                           1 if workers is None else workers)
    grad = (2.0 * (dof + 1.0) / dof) * (attract - r / Z_sum)
    kl = None
    if compute_objective:
        p_log_w = -2.0 * float(np.dot(pairs.p, np.log(den, dtype=np.float64)))
        kl = pairs.p_log_p - (dof + 1.0) / 2.0 * p_log_w + pairs.p_sum * np.log(Z_sum)
    return kl, grad
