"""Data sets for every chapter of the book: synthetic ones with known ground truth, and real ones.

Each generator (``make_*``) returns ``(X, u)``:

* ``X``, an ``(N, p)`` float array, one sample per row;
* ``u``, the ground truth: for a manifold, its intrinsic coordinates as an ``(N, d)`` float
  array (``d`` the intrinsic dimension, so ``u[:, 0]`` is the natural colour); for clustered
  data, the integer label of each point as an ``(N,)`` array.

Every generator takes ``n_samples``, ``noise`` (standard deviation of isotropic Gaussian noise
added to ``X``, never to ``u``) and ``random_state`` (None, an int or a ``numpy.random.Generator``),
and validates them. Only numpy is used, so the same code runs anywhere numpy does.

(The book writes ``u`` for the ground truth and keeps ``t`` for the heat-kernel width; inside a
formula, ``t`` is still the curve parameter, as in :func:`make_swiss_roll`.)

The real data sets (``load_*``) return ``(X, y)`` with labels instead of coordinates:
:func:`load_digits` (the copy bundled with scikit-learn) and :func:`load_nci60` (a
gene-expression microarray shipped with this package in ``mlnotes/data/``).
"""

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ._optional import import_optional
from ._typing import ArrayLike, FloatArray, IntArray, Seed
from ._validation import check_positive, check_random_state

__all__ = [
    "make_swiss_roll",
    "make_swiss_roll_hole",
    "make_broken_swiss_roll",
    "make_s_curve",
    "make_helix",
    "make_twin_peaks",
    "make_sphere",
    "make_circles",
    "make_moons",
    "make_clusters",
    "make_glyph_images",
    "make_distill_case",
    "DISTILL_CASES",
    "load_digits",
    "load_nci60",
    "NCI60_REPLICATES",
]

# The Swiss roll is the spiral (t cos t, h, t sin t) for t in [1.5 pi, 4.5 pi]: one and a half turns.
SWISS_T_MIN, SWISS_T_MAX = 1.5 * np.pi, 4.5 * np.pi
SWISS_HEIGHT = 21.0


def _check_common(n_samples, noise, *, min_samples=1):
    check_positive(n_samples, "n_samples", integer=True)
    if n_samples < min_samples:
        raise ValueError(f"n_samples must be at least {min_samples}, got {n_samples}.")
    check_positive(noise, "noise", allow_zero=True)


def _add_noise(X, noise, rng):
    if noise > 0:
        X = X + noise * rng.standard_normal(X.shape)
    return X


def _spiral_arc_length(t):
    r"""Arc length of the spiral :math:`(t\cos t, t\sin t)` from 0 to ``t``:
    :math:`s(t) = \tfrac12\,(t\sqrt{1+t^2} + \operatorname{arsinh} t)`."""
    return 0.5 * (t * np.sqrt(1 + t**2) + np.arcsinh(t))


def _spiral_t_from_arc_length(s, t0):
    """Invert :func:`_spiral_arc_length` by Newton's method (ds/dt = sqrt(1 + t^2))."""
    t = np.full_like(s, t0)
    for _ in range(50):
        step = (_spiral_arc_length(t) - s) / np.sqrt(1 + t**2)
        t -= step
        if np.max(np.abs(step)) < 1e-13:
            break
    return t


def _roll(t, h):
    return np.column_stack([t * np.cos(t), h, t * np.sin(t)])


def _sample_roll(n_samples, parameterization, rng):
    """Sample ``(t, h)`` on the Swiss roll and return them with the ground-truth coordinates."""
    if parameterization == "angle":
        # t uniform: uniform in the angle, so the outer turns (longer) are sampled more sparsely.
        t = rng.uniform(SWISS_T_MIN, SWISS_T_MAX, n_samples)
        coord = t
    elif parameterization == "arclength":
        # Arc length s uniform: uniform density on the rolled-up sheet (an isometric chart).
        s_lo, s_hi = _spiral_arc_length(np.array([SWISS_T_MIN, SWISS_T_MAX]))
        coord = rng.uniform(s_lo, s_hi, n_samples)
        t = _spiral_t_from_arc_length(coord, SWISS_T_MAX)
    else:
        raise ValueError(
            f"parameterization must be 'angle' (t uniform, as scikit-learn) or 'arclength' "
            f"(uniform on the sheet), got {parameterization!r}."
        )
    h = rng.uniform(0.0, SWISS_HEIGHT, n_samples)
    return t, h, np.column_stack([coord, h])


def make_swiss_roll(n_samples: int = 1000, *, noise: float = 0.0, parameterization: str = "angle",
                    random_state: Seed = None) -> tuple[FloatArray, FloatArray]:
    r"""The Swiss roll: a rectangle rolled up in :math:`\mathbb{R}^3`.

    .. math:: x = (t\cos t,\; h,\; t\sin t), \quad t \in [1.5\pi, 4.5\pi],\; h \in [0, 21].

    Parameters
    ----------
    n_samples : int
    noise : float
        Standard deviation of Gaussian noise added to ``X``.
    parameterization : {"angle", "arclength"}
        ``"angle"`` draws the angle :math:`t` uniformly (scikit-learn's convention; the density
        on the sheet falls off along the roll) and returns ``u[:, 0]`` = angle. ``"arclength"``
        draws the arc length :math:`s(t)` uniformly, which is uniform on the sheet, and returns
        ``u[:, 0]`` = arc length, so that ``u`` is an isometric chart of the roll.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, 3)
    u : ndarray of shape (n_samples, 2)
        (angle or arc length, height).

    Examples
    --------
    >>> X, u = make_swiss_roll(500, random_state=0)
    >>> X.shape, u.shape
    ((500, 3), (500, 2))
    """
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    t, h, coords = _sample_roll(n_samples, parameterization, rng)
    return _add_noise(_roll(t, h), noise, rng), coords


def make_swiss_roll_hole(
    n_samples: int = 1000, *, noise: float = 0.0,
    hole: tuple[float, float, float, float] = (0.4, 0.6, 0.35, 0.65), parameterization: str = "angle",
    random_state: Seed = None,
) -> tuple[FloatArray, FloatArray]:
    """The Swiss roll with a rectangular hole cut out of the sheet (a non-convex chart).

    Parameters
    ----------
    hole : tuple of 4 floats
        ``(t_lo, t_hi, h_lo, h_hi)`` as fractions in [0, 1] of the ranges of the first and second
        ground-truth coordinates; points inside are rejected and redrawn, so exactly
        ``n_samples`` points are returned.

    See :func:`make_swiss_roll` for the other parameters and the return values.
    """
    _check_common(n_samples, noise)
    t_lo, t_hi, h_lo, h_hi = _check_fractions(hole, "hole", 4)
    rng = check_random_state(random_state)

    def outside(coords, lo, hi):
        u = (coords - lo) / (hi - lo)  # position as a fraction of each range
        inside = (t_lo < u[:, 0]) & (u[:, 0] < t_hi) & (h_lo < u[:, 1]) & (u[:, 1] < h_hi)
        return ~inside

    return _rejection_sample_roll(n_samples, noise, parameterization, rng, outside)


def make_broken_swiss_roll(
    n_samples: int = 1000, *, noise: float = 0.0, gap: tuple[float, float] = (0.4, 0.6),
    parameterization: str = "angle", random_state: Seed = None,
) -> tuple[FloatArray, FloatArray]:
    """The Swiss roll with a band across the roll removed: two pieces, far apart along the roll.

    Parameters
    ----------
    gap : tuple of 2 floats
        ``(lo, hi)`` fractions of the first ground-truth coordinate's range that are removed.

    See :func:`make_swiss_roll` for the other parameters and the return values.
    """
    _check_common(n_samples, noise)
    lo_f, hi_f = _check_fractions(gap, "gap", 2)
    rng = check_random_state(random_state)

    def outside(coords, lo, hi):
        u = (coords[:, 0] - lo[0]) / (hi[0] - lo[0])
        return (u <= lo_f) | (u >= hi_f)

    return _rejection_sample_roll(n_samples, noise, parameterization, rng, outside)


def _check_fractions(values, name, count):
    values = tuple(float(v) for v in np.ravel(values))
    pairs = list(zip(values[::2], values[1::2], strict=False))
    if len(values) != count or not all(0 <= a < b <= 1 for a, b in pairs):
        raise ValueError(
            f"{name} must be {count} fractions (lo, hi, ...) with 0 <= lo < hi <= 1, got {values}."
        )
    return values


def _rejection_sample_roll(n_samples, noise, parameterization, rng, keep):
    if parameterization == "angle":
        lo = np.array([SWISS_T_MIN, 0.0])
        hi = np.array([SWISS_T_MAX, SWISS_HEIGHT])
    else:
        s = _spiral_arc_length(np.array([SWISS_T_MIN, SWISS_T_MAX]))
        lo, hi = np.array([s[0], 0.0]), np.array([s[1], SWISS_HEIGHT])
    ts, hs, cs = [], [], []
    count = 0
    while count < n_samples:
        t, h, coords = _sample_roll(2 * (n_samples - count) + 16, parameterization, rng)
        ok = keep(coords, lo, hi)
        ts.append(t[ok])
        hs.append(h[ok])
        cs.append(coords[ok])
        count += int(ok.sum())
    t, h = np.concatenate(ts)[:n_samples], np.concatenate(hs)[:n_samples]
    coords = np.concatenate(cs)[:n_samples]
    return _add_noise(_roll(t, h), noise, rng), coords


def make_s_curve(n_samples: int = 1000, *, noise: float = 0.0,
                 random_state: Seed = None) -> tuple[FloatArray, FloatArray]:
    r"""The S-curve: an S-shaped sheet in :math:`\mathbb{R}^3`.

    .. math:: x = (\sin t,\; h,\; \operatorname{sign}(t)(\cos t - 1)),
       \quad t \in [-3\pi/2, 3\pi/2],\; h \in [0, 2].

    Returns
    -------
    X : ndarray of shape (n_samples, 3)
    u : ndarray of shape (n_samples, 2)
        (t, h); ``t`` is proportional to arc length along the S (the curve is made of two
        unit-radius arcs), so the chart is isometric up to that scale.
    """
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    t = rng.uniform(-1.5 * np.pi, 1.5 * np.pi, n_samples)
    h = rng.uniform(0.0, 2.0, n_samples)
    X = np.column_stack([np.sin(t), h, np.sign(t) * (np.cos(t) - 1)])
    return _add_noise(X, noise, rng), np.column_stack([t, h])


def make_helix(n_samples: int = 1000, *, noise: float = 0.0, turns: float = 8,
               random_state: Seed = None) -> tuple[FloatArray, FloatArray]:
    r"""A closed helix wound around a torus (a 1-D manifold, a loop):

    .. math:: x = ((2 + \cos m t)\cos t,\; (2 + \cos m t)\sin t,\; \sin m t),
       \quad t \in [0, 2\pi),

    with ``m = turns``. Ground truth ``u`` = ``t[:, None]``, shape ``(n_samples, 1)``.
    """
    _check_common(n_samples, noise)
    check_positive(turns, "turns", integer=True)
    rng = check_random_state(random_state)
    t = rng.uniform(0.0, 2 * np.pi, n_samples)
    r = 2 + np.cos(turns * t)
    X = np.column_stack([r * np.cos(t), r * np.sin(t), np.sin(turns * t)])
    return _add_noise(X, noise, rng), t[:, None]


def make_twin_peaks(n_samples: int = 1000, *, noise: float = 0.0,
                    random_state: Seed = None) -> tuple[FloatArray, FloatArray]:
    r"""Twin peaks: the graph of :math:`z = \sin(\pi u)\tanh(3 v)` over :math:`[-1, 1]^2`,
    a sheet with a peak and a trough. Ground truth ``(u, v)``."""
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    uv = rng.uniform(-1.0, 1.0, (n_samples, 2))
    z = np.sin(np.pi * uv[:, 0]) * np.tanh(3 * uv[:, 1])
    return _add_noise(np.column_stack([uv, z]), noise, rng), uv


def make_sphere(n_samples: int = 1000, *, noise: float = 0.0,
                random_state: Seed = None) -> tuple[FloatArray, FloatArray]:
    r"""Points uniform on the unit sphere :math:`S^2` (a closed manifold no 2-D chart covers).

    Ground truth: (polar angle :math:`\theta \in [0, \pi]`, azimuth :math:`\varphi \in
    (-\pi, \pi]`).
    """
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    X = rng.standard_normal((n_samples, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)  # normalised Gaussians are uniform on S^2
    angles = np.column_stack([np.arccos(np.clip(X[:, 2], -1, 1)), np.arctan2(X[:, 1], X[:, 0])])
    return _add_noise(X, noise, rng), angles


def make_circles(n_samples: int = 400, *, noise: float = 0.0, factor: float = 0.5,
                 random_state: Seed = None) -> tuple[FloatArray, IntArray]:
    """Two concentric circles in the plane (radii 1 and ``factor``): labels 0 (outer), 1 (inner).

    The classic case where no linear projection separates the classes but an RBF or
    degree-2 polynomial kernel does.
    """
    _check_common(n_samples, noise, min_samples=2)
    if not 0 < factor < 1:
        raise ValueError(f"factor (inner radius / outer radius) must be in (0, 1), got {factor}.")
    rng = check_random_state(random_state)
    y = (np.arange(n_samples) >= (n_samples + 1) // 2).astype(int)
    angle = rng.uniform(0, 2 * np.pi, n_samples)
    radius = np.where(y == 0, 1.0, factor)
    X = radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)])
    return _add_noise(X, noise, rng), y


def make_moons(n_samples: int = 400, *, noise: float = 0.0,
               random_state: Seed = None) -> tuple[FloatArray, IntArray]:
    """Two interleaving half circles: labels 0 (upper moon) and 1 (lower moon)."""
    _check_common(n_samples, noise, min_samples=2)
    rng = check_random_state(random_state)
    y = (np.arange(n_samples) >= (n_samples + 1) // 2).astype(int)
    angle = rng.uniform(0, np.pi, n_samples)
    upper = np.column_stack([np.cos(angle), np.sin(angle)])
    lower = np.column_stack([1 - np.cos(angle), 0.5 - np.sin(angle)])
    X = np.where(y[:, None] == 0, upper, lower)
    return _add_noise(X, noise, rng), y


def make_clusters(
    n_samples: int | None = None, *, sizes: Sequence[int] = (200, 50), spreads: Sequence[float] = (1.0, 0.25),
    n_features: int = 2, separation: float = 10.0, centers: ArrayLike | None = None, noise: float = 0.0,
    random_state: Seed = None,
) -> tuple[FloatArray, IntArray]:
    """Gaussian clusters of unequal size and spread.

    Parameters
    ----------
    n_samples : int, optional
        Total number of points, shared among the clusters in the proportions of ``sizes``
        (rounded; the last cluster takes the remainder). None: exactly ``sizes``.
    sizes : sequence of int
        Number of points in each cluster (or their proportions when ``n_samples`` is given).
    spreads : sequence of float
        Standard deviation of each cluster (same length as ``sizes``).
    n_features : int
        Dimension of the space.
    separation : float
        Distance between consecutive cluster centres, which are placed along the first axis
        unless ``centers`` is given.
    centers : array-like of shape (n_clusters, n_features), optional
    noise : float
        Extra isotropic noise (kept for a uniform signature; usually 0).

    Returns
    -------
    X : ndarray of shape (sum(sizes), n_features)
    y : ndarray of shape (sum(sizes),) of int cluster labels
    """
    sizes = [check_positive(s, "each size", integer=True) for s in sizes]
    if n_samples is not None:
        check_positive(n_samples, "n_samples", integer=True)
        if n_samples < len(sizes):
            raise ValueError(
                f"n_samples={n_samples} is smaller than the number of clusters ({len(sizes)})."
            )
        share = np.floor(n_samples * np.asarray(sizes) / sum(sizes)).astype(int)
        share = np.maximum(share, 1)
        share[-1] = n_samples - share[:-1].sum()
        sizes = [int(s) for s in share]
    spreads = [check_positive(float(s), "each spread", allow_zero=True) for s in spreads]
    if len(sizes) != len(spreads) or not sizes:
        raise ValueError(
            f"sizes and spreads must be non-empty and of equal length, got {len(sizes)} sizes "
            f"and {len(spreads)} spreads."
        )
    check_positive(n_features, "n_features", integer=True)
    check_positive(noise, "noise", allow_zero=True)
    rng = check_random_state(random_state)
    if centers is None:
        centers = np.zeros((len(sizes), n_features))
        centers[:, 0] = separation * np.arange(len(sizes))
    centers = np.asarray(centers, dtype=float)
    if centers.shape != (len(sizes), n_features):
        raise ValueError(
            f"centers must have shape ({len(sizes)}, {n_features}), got {centers.shape}."
        )
    y = np.repeat(np.arange(len(sizes)), sizes)
    X = centers[y] + np.asarray(spreads)[y, None] * rng.standard_normal((len(y), n_features))
    return _add_noise(X, noise, rng), y


# --- an image manifold: a rendered glyph, rotated or translated --------------------------------

# The glyph "F" as rectangles (x0, x1, y0, y1) in a [-1, 1]^2 frame, y pointing up. It has no
# rotational symmetry, so every angle gives a different image.
_GLYPH_F = np.array([
    [-0.45, -0.20, -0.75, 0.75],   # stem
    [-0.20, 0.50, 0.50, 0.75],     # top bar
    [-0.20, 0.25, 0.00, 0.22],     # middle bar
])
_SUPERSAMPLE = 4  # sub-pixels per pixel side, for anti-aliased edges


def _render_glyph(size, angle, shift):
    """Grey levels in [0, 1] of the glyph rotated by ``angle`` (rad) and shifted by ``shift``
    (in frame units), on a ``size x size`` grid covering [-1, 1]^2.

    Each pixel is the fraction of its ``_SUPERSAMPLE^2`` sub-pixel centres that fall inside the
    glyph: the sub-pixel centre p is inside the moved glyph iff R(-angle)(p - shift) is inside
    the glyph at rest.
    """
    m = size * _SUPERSAMPLE
    c = (np.arange(m) + 0.5) / m * 2 - 1
    px, py = np.meshgrid(c, -c)  # image rows go down, y goes up
    qx, qy = px - shift[0], py - shift[1]
    cos, sin = np.cos(angle), np.sin(angle)
    rx, ry = cos * qx + sin * qy, -sin * qx + cos * qy
    inside = np.zeros_like(rx, dtype=bool)
    for x0, x1, y0, y1 in _GLYPH_F:
        inside |= (x0 <= rx) & (rx <= x1) & (y0 <= ry) & (ry <= y1)
    return inside.reshape(size, _SUPERSAMPLE, size, _SUPERSAMPLE).mean(axis=(1, 3))


def make_glyph_images(
    n_samples: int = 400, *, transform: str = "rotate", size: int = 24, max_angle: float = np.pi / 2,
    max_shift: float = 0.35, noise: float = 0.0, random_state: Seed = None,
) -> tuple[FloatArray, FloatArray]:
    """Images of the letter F, rotated and/or translated: a real high-dimensional data set
    (``size * size`` pixels) whose points lie on a manifold of known dimension.

    Parameters
    ----------
    transform : {"rotate", "translate", "rotate+translate"}
        ``"rotate"``: one parameter, the angle in ``[-max_angle, max_angle]`` (with
        ``max_angle=pi`` the images form a closed loop). ``"translate"``: two parameters, the
        shift in x and y, each in ``[-max_shift, max_shift]`` (units of half the image width).
        ``"rotate+translate"``: all three.
    size : int
        Image side in pixels (at least 8).

    Notes
    -----
    The rendering is quantised: a glyph edge moves in steps of one sub-pixel, ``1 / (4 size)`` of
    the image width, so two samples whose parameters differ by less than that can give the *same*
    image: at ``size=16`` the default translations take only about 22 x 22 distinct positions,
    so 600 samples repeat about a quarter of their rows. Methods that refuse duplicate points
    (LLE) then need a larger ``size``, fewer samples or a little ``noise``.

    Returns
    -------
    X : ndarray of shape (n_samples, size * size)
        Flattened grey-level images (reshape a row with ``.reshape(size, size)``).
    u : ndarray of shape (n_samples, d)
        The parameters (angle; dx, dy; or angle, dx, dy), d = 1, 2 or 3.
    """
    _check_common(n_samples, noise)
    check_positive(size, "size", integer=True)
    if size < 8:
        raise ValueError(f"size must be at least 8 pixels to show the glyph, got {size}.")
    check_positive(max_angle, "max_angle")
    check_positive(max_shift, "max_shift")
    if max_angle > np.pi:
        raise ValueError(f"max_angle must be at most pi (a full turn), got {max_angle}.")
    if max_shift > 0.5:
        raise ValueError(f"max_shift must be at most 0.5 to keep the glyph inside, got {max_shift}.")
    rng = check_random_state(random_state)
    zeros = np.zeros(n_samples)
    if transform == "rotate":
        angle, dx, dy = rng.uniform(-max_angle, max_angle, n_samples), zeros, zeros
        t = angle[:, None]
    elif transform == "translate":
        dx, dy = rng.uniform(-max_shift, max_shift, (2, n_samples))
        angle, t = zeros, np.column_stack([dx, dy])
    elif transform == "rotate+translate":
        angle = rng.uniform(-max_angle, max_angle, n_samples)
        dx, dy = rng.uniform(-max_shift, max_shift, (2, n_samples))
        t = np.column_stack([angle, dx, dy])
    else:
        raise ValueError(
            f"transform must be 'rotate', 'translate' or 'rotate+translate', got {transform!r}."
        )
    X = np.stack([
        _render_glyph(size, a, (x, y)).ravel() for a, x, y in zip(angle, dx, dy, strict=True)
    ])
    return _add_noise(X, noise, rng), t


# --- the cases of "How to Use t-SNE Effectively" (Wattenberg, Viegas and Johnson, 2016) -------

def _rings(n, rng, linked):
    """Two circles of radius 1 in orthogonal planes; linked when each passes through the other."""
    a = rng.uniform(0, 2 * np.pi, n)
    y = (np.arange(n) >= n // 2).astype(int)
    ring0 = np.column_stack([np.cos(a), np.sin(a), np.zeros(n)])
    offset = 1.0 if linked else 3.0
    ring1 = np.column_stack([offset + np.cos(a), np.zeros(n), np.sin(a)])
    return np.where(y[:, None] == 0, ring0, ring1), y


def _trefoil(n, rng):
    s = np.sort(rng.uniform(0, 2 * np.pi, n))
    X = np.column_stack([
        np.sin(s) + 2 * np.sin(2 * s), np.cos(s) - 2 * np.cos(2 * s), -np.sin(3 * s)
    ])
    return X, s[:, None]


def _random_walk(n, rng, dim=100):
    X = np.cumsum(rng.standard_normal((n, dim)), axis=0)
    return X, np.arange(n, dtype=float)[:, None]


def _distill_clusters(n, rng, name):
    if name == "two_clusters":
        return make_clusters(sizes=(n // 2, n - n // 2), spreads=(1.0, 1.0), random_state=rng)
    if name == "unequal_spread":
        return make_clusters(sizes=(n // 2, n - n // 2), spreads=(10.0, 1.0), separation=60.0,
                             random_state=rng)
    if name == "cluster_distances":
        k = n // 3
        centers = np.array([[0.0, 0.0], [10.0, 0.0], [50.0, 0.0]])
        return make_clusters(sizes=(k, k, n - 2 * k), spreads=(1.0, 1.0, 1.0), centers=centers,
                             random_state=rng)
    if name == "gaussian_noise":
        return rng.standard_normal((n, 100)), np.zeros(n, dtype=int)
    if name == "long_clusters":
        s = rng.uniform(-1, 1, n)
        y = (np.arange(n) >= n // 2).astype(int)
        X = np.column_stack([10 * s, 0.5 * y]) + 0.02 * rng.standard_normal((n, 2))
        return X, y
    raise KeyError(name)


DISTILL_CASES = {
    "two_clusters": "two equal Gaussian clusters (2-D)",
    "unequal_spread": "two clusters, one ten times wider: t-SNE evens out sizes",
    "cluster_distances": "three clusters, two close and one far: distances between clusters "
    "are not kept",
    "gaussian_noise": "pure Gaussian noise in 100-D: low perplexity shows spurious clumps",
    "long_clusters": "two long parallel lines",
    "linked_rings": "two linked circles in 3-D",
    "unlinked_rings": "two separate circles in 3-D",
    "trefoil": "a trefoil knot in 3-D",
    "random_walk": "a Gaussian random walk in 100-D: a curve t-SNE may tear apart",
}


def make_distill_case(name: str, n_samples: int = 200, *, noise: float = 0.0,
                      random_state: Seed = None) -> tuple[FloatArray, FloatArray | IntArray]:
    """One of the cases from "How to Use t-SNE Effectively" (see :data:`DISTILL_CASES`).

    Returns ``(X, u)``: labels for the clustered cases (and the rings), the curve parameter
    for the trefoil and the random walk.
    """
    _check_common(n_samples, noise, min_samples=3)
    if name not in DISTILL_CASES:
        raise ValueError(f"unknown case {name!r}; choose one of {sorted(DISTILL_CASES)}.")
    rng = check_random_state(random_state)
    if name in ("linked_rings", "unlinked_rings"):
        X, t = _rings(n_samples, rng, linked=name == "linked_rings")
    elif name == "trefoil":
        X, t = _trefoil(n_samples, rng)
    elif name == "random_walk":
        X, t = _random_walk(n_samples, rng)
    else:
        X, t = _distill_clusters(n_samples, rng, name)
    return _add_noise(X, noise, rng), t


def load_digits(n_class: int = 10) -> tuple[FloatArray, IntArray]:
    """The 1797 8x8 handwritten digits bundled with scikit-learn (no download).

    Returns ``(X, y)``: ``X`` of shape (N, 64) with grey levels 0..16, ``y`` the digit.
    """
    # the copy bundled with scikit-learn (the 'sklearn' extra)
    _sk_load_digits = import_optional("sklearn.datasets", purpose="load_digits").load_digits
    check_positive(n_class, "n_class", integer=True)
    if n_class > 10:
        raise ValueError(f"n_class must be between 1 and 10, got {n_class}.")
    X, y = _sk_load_digits(n_class=n_class, return_X_y=True)
    return X.astype(np.float64), y


# --- real data shipped with the package ----------------------------------------------------------

# The four replicate hybridisations in NCI60 and the cancer type of the cell line each repeats:
# K562 is a chronic myelogenous leukaemia line, MCF7 a breast adenocarcinoma line.
NCI60_REPLICATES = {
    "K562A-repro": "LEUKEMIA",
    "K562B-repro": "LEUKEMIA",
    "MCF7A-repro": "BREAST",
    "MCF7D-repro": "BREAST",
}
_NCI60_FILE = "nci60.npz"


def load_nci60(*, merge_replicates: bool = False) -> tuple[FloatArray, NDArray[np.str_]]:
    """The NCI60 microarray: expression of 6830 genes in 64 cancer cell lines (Ross et al. 2000).

    The real high-dimensional data set of lecture note 001 (and of Hastie, Tibshirani and
    Friedman, *The Elements of Statistical Learning*): each row is one cell line, each column one
    gene, so ``p = 6830`` is a hundred times ``N = 64``. The data ship with mlnotes (0.9 MB, no
    download); source, licence and citation are in ``mlnotes/data/README.md``.

    Parameters
    ----------
    merge_replicates : bool
        The labels include four replicate hybridisations, ``"K562A-repro"``, ``"K562B-repro"``,
        ``"MCF7A-repro"`` and ``"MCF7D-repro"``. False (default): keep the original 14 labels.
        True: label each replicate with the cancer type of its cell line (see
        :data:`NCI60_REPLICATES`), leaving 10 labels (``"UNKNOWN"`` stays as it is).

    Returns
    -------
    X : ndarray of shape (64, 6830), float64
        Expression levels (log ratios, as in the source), rows in the original order. The file
        stores them as float32, so each entry is within 4e-7 of the published value.
    labels : ndarray of shape (64,), str
        The cancer type of each cell line, e.g. ``"MELANOMA"``. For integer codes (to colour a
        scatter plot): ``names, y = np.unique(labels, return_inverse=True)``.

    References
    ----------
    D. T. Ross, U. Scherf, M. B. Eisen et al., "Systematic variation in gene expression patterns
    in human cancer cell lines", Nature Genetics 24(3), 227-235, 2000. The copy is the one in the
    ISLP package 0.6.0 (James, Witten, Hastie, Tibshirani and Taylor, 2023; BSD licence).

    Examples
    --------
    >>> X, labels = load_nci60()
    >>> X.shape, labels[:2].tolist()
    ((64, 6830), ['CNS', 'CNS'])
    """
    if not isinstance(merge_replicates, (bool, np.bool_)):
        raise TypeError(
            f"merge_replicates must be True or False, got {merge_replicates!r}."
        )
    from importlib.resources import files

    resource = files(__package__).joinpath("data").joinpath(_NCI60_FILE)
    try:
        with resource.open("rb") as f, np.load(f) as data:
            X = data["X"].astype(np.float64)
            labels = data["labels"]
    except FileNotFoundError:
        raise FileNotFoundError(
            f"the NCI60 data file mlnotes/data/{_NCI60_FILE} is missing from this installation "
            "of mlnotes; reinstall it from the repository (pip install -e .) or from a wheel "
            "built with its package data (mlnotes/data/*)."
        ) from None
    if merge_replicates:
        labels = np.array([NCI60_REPLICATES.get(str(name), str(name)) for name in labels])
    return X, labels
