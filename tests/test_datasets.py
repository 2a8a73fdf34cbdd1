"""mlnotes.datasets: shapes, ground truth, determinism and error messages."""

import numpy as np
import pytest

import mlnotes as ml
from mlnotes import datasets as ds

MANIFOLDS = {
    # generator: (ambient dimension, intrinsic dimension)
    ds.make_swiss_roll: (3, 2),
    ds.make_swiss_roll_hole: (3, 2),
    ds.make_broken_swiss_roll: (3, 2),
    ds.make_s_curve: (3, 2),
    ds.make_helix: (3, 1),
    ds.make_twin_peaks: (3, 2),
    ds.make_sphere: (3, 2),
}
LABELLED = [ds.make_circles, ds.make_moons, ds.make_clusters]


@pytest.mark.parametrize("make, dims", MANIFOLDS.items(), ids=lambda v: getattr(v, "__name__", ""))
def test_manifold_shapes_and_determinism(make, dims):
    D, d = dims
    X, t = make(257, random_state=3)
    assert X.shape == (257, D) and t.shape == (257, d)
    assert X.dtype == np.float64 and np.isfinite(X).all() and np.isfinite(t).all()
    X2, t2 = make(257, random_state=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(t, t2)
    X3, _ = make(257, random_state=4)
    assert not np.allclose(X, X3)


@pytest.mark.parametrize("make", LABELLED, ids=lambda f: f.__name__)
def test_labelled_shapes(make):
    X, y = make(101, random_state=0)
    assert X.shape[0] == 101 and y.shape == (101,)
    assert np.issubdtype(y.dtype, np.integer)


def test_noise_is_added_to_X_only():
    X0, t0 = ds.make_s_curve(300, random_state=0)
    X1, t1 = ds.make_s_curve(300, noise=0.1, random_state=0)
    np.testing.assert_array_equal(t0, t1)
    resid = X1 - X0
    assert 0.08 < resid.std() < 0.12


def test_swiss_roll_formula_matches_ground_truth():
    X, t = ds.make_swiss_roll(500, random_state=0)
    angle, h = t[:, 0], t[:, 1]
    np.testing.assert_allclose(X, np.column_stack([angle * np.cos(angle), h, angle * np.sin(angle)]))
    assert angle.min() >= 1.5 * np.pi and angle.max() <= 4.5 * np.pi
    assert h.min() >= 0 and h.max() <= 21


def test_arclength_chart_is_isometric_locally():
    X, s = ds.make_swiss_roll(3000, parameterization="arclength", random_state=0)
    dx = ml.graphs.pairwise_distances(X)
    ds_ = ml.graphs.pairwise_distances(s)
    close = (ds_ > 0) & (ds_ < 0.5)
    assert close.sum() > 100
    rel = np.abs(dx[close] - ds_[close]) / ds_[close]
    assert rel.max() < 0.01


def test_arclength_sampling_is_uniform_on_the_sheet():
    # Uniform arc length: the count per equal-length band along the roll is flat.
    _, s = ds.make_swiss_roll(20000, parameterization="arclength", random_state=0)
    counts, _ = np.histogram(s[:, 0], bins=10)
    assert counts.min() > 0.9 * counts.mean()
    # ... whereas with the angle uniform, the first (inner) band per unit length is denser.
    _, t = ds.make_swiss_roll(20000, parameterization="angle", random_state=0)
    arc = ds._spiral_arc_length(t[:, 0])
    counts, _ = np.histogram(arc, bins=10)
    assert counts[0] > 1.5 * counts[-1]


def test_s_curve_chart_is_isometric_locally():
    X, t = ds.make_s_curve(3000, random_state=0)
    dx, dt = ml.graphs.pairwise_distances(X), ml.graphs.pairwise_distances(t)
    close = (dt > 0) & (dt < 0.1)
    rel = np.abs(dx[close] - dt[close]) / dt[close]
    assert rel.max() < 0.01


def test_hole_and_gap_are_empty():
    _, t = ds.make_swiss_roll_hole(2000, hole=(0.4, 0.6, 0.3, 0.7), random_state=0)
    u = (t[:, 0] - 1.5 * np.pi) / (3 * np.pi)
    v = t[:, 1] / 21
    assert not np.any((u > 0.4) & (u < 0.6) & (v > 0.3) & (v < 0.7))
    assert len(t) == 2000
    _, t = ds.make_broken_swiss_roll(2000, gap=(0.3, 0.5), random_state=0)
    u = (t[:, 0] - 1.5 * np.pi) / (3 * np.pi)
    assert not np.any((u > 0.3) & (u < 0.5))


def test_sphere_points_are_unit_and_angles_consistent():
    X, ang = ds.make_sphere(500, random_state=0)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    theta, phi = ang.T
    np.testing.assert_allclose(
        X, np.column_stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)]),
        atol=1e-12,
    )


def test_helix_and_twin_peaks_formulas():
    X, t = ds.make_helix(200, turns=5, random_state=0)
    r = 2 + np.cos(5 * t[:, 0])
    np.testing.assert_allclose(X[:, 0], r * np.cos(t[:, 0]))
    np.testing.assert_allclose(X[:, 2], np.sin(5 * t[:, 0]))
    X, uv = ds.make_twin_peaks(200, random_state=0)
    np.testing.assert_allclose(X[:, 2], np.sin(np.pi * uv[:, 0]) * np.tanh(3 * uv[:, 1]))


def test_circles_radii_and_moons_labels():
    X, y = ds.make_circles(300, factor=0.3, random_state=0)
    r = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(r[y == 0], 1.0)
    np.testing.assert_allclose(r[y == 1], 0.3)
    X, y = ds.make_moons(300, random_state=0)
    assert set(np.unique(y)) == {0, 1}
    np.testing.assert_allclose(np.linalg.norm(X[y == 0], axis=1), 1.0)


def test_clusters_sizes_and_spreads():
    X, y = ds.make_clusters(sizes=(400, 100), spreads=(2.0, 0.5), separation=20, random_state=0)
    assert np.bincount(y).tolist() == [400, 100]
    assert abs(X[y == 0].std(axis=0).mean() - 2.0) < 0.2
    assert abs(X[y == 1].std(axis=0).mean() - 0.5) < 0.1
    X, y = ds.make_clusters(100, sizes=(3, 1), random_state=0)
    assert np.bincount(y).tolist() == [75, 25]


def test_glyph_images_depend_on_parameters_only():
    X, t = ds.make_glyph_images(20, transform="rotate", size=16, random_state=0)
    assert X.shape == (20, 256) and t.shape == (20, 1)
    assert X.min() >= 0 and X.max() <= 1
    # same angle -> same image, whatever the sample
    again = ds._render_glyph(16, t[3, 0], (0.0, 0.0)).ravel()
    np.testing.assert_array_equal(X[3], again)
    # rotation keeps the ink (up to anti-aliasing at the edges)
    ink = X.sum(axis=1)
    assert ink.std() / ink.mean() < 0.03
    # different angles -> different images
    assert np.linalg.norm(X[0] - X[1]) > 0
    X, t = ds.make_glyph_images(10, transform="rotate+translate", random_state=0)
    assert t.shape == (10, 3)
    X, t = ds.make_glyph_images(10, transform="translate", random_state=0)
    assert t.shape == (10, 2)


def test_glyph_has_no_rotational_symmetry():
    a = ds._render_glyph(24, 0.0, (0, 0))
    for k in (1, 2, 3):
        assert np.abs(np.rot90(a, k) - a).sum() > 10


@pytest.mark.parametrize("name", sorted(ds.DISTILL_CASES))
def test_distill_cases(name):
    X, t = ds.make_distill_case(name, 120, random_state=0)
    assert X.shape[0] == 120 and len(t) == 120 and np.isfinite(X).all()


def test_linked_rings_are_linked():
    # Linked: ring 1 crosses the plane of ring 0 (z = 0) inside ring 0's disc, at its centre.
    X, y = ds.make_distill_case("linked_rings", 2000, random_state=0)
    r1 = X[y == 1]
    crossing = r1[np.abs(r1[:, 2]) < 0.02]
    assert np.any(np.linalg.norm(crossing[:, :2], axis=1) < 0.1)


def test_load_digits():
    X, y = ds.load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float64
    assert set(np.unique(y)) == set(range(10))
    X, y = ds.load_digits(n_class=3)
    assert set(np.unique(y)) == {0, 1, 2}


@pytest.mark.parametrize("call, error, message", [
    (lambda: ds.make_swiss_roll(0), ValueError, r"n_samples must be finite and > 0, got 0"),
    (lambda: ds.make_swiss_roll(10.5), TypeError, r"n_samples must be an integer"),
    (lambda: ds.make_s_curve(10, noise=-0.1), ValueError, r"noise must be finite and >= 0"),
    (lambda: ds.make_s_curve(10, noise=float("nan")), ValueError, r"noise must be finite"),
    (lambda: ds.make_swiss_roll(10, parameterization="polar"), ValueError,
     r"parameterization must be 'angle' .* or 'arclength'"),
    (lambda: ds.make_swiss_roll_hole(10, hole=(0.5, 0.4, 0, 1)), ValueError,
     r"hole must be 4 fractions"),
    (lambda: ds.make_broken_swiss_roll(10, gap=(0.2,)), ValueError, r"gap must be 2 fractions"),
    (lambda: ds.make_circles(10, factor=1.5), ValueError, r"factor .* must be in \(0, 1\)"),
    (lambda: ds.make_clusters(sizes=(10, 5), spreads=(1.0,)), ValueError, r"equal length"),
    (lambda: ds.make_clusters(1, sizes=(10, 5)), ValueError, r"smaller than the number of clusters"),
    (lambda: ds.make_glyph_images(5, transform="scale"), ValueError, r"transform must be"),
    (lambda: ds.make_glyph_images(5, size=4), ValueError, r"size must be at least 8"),
    (lambda: ds.make_distill_case("spiral"), ValueError, r"unknown case 'spiral'"),
    (lambda: ds.make_helix(10, random_state="seed"), TypeError, r"random_state must be"),
    (lambda: ds.load_digits(n_class=11), ValueError, r"n_class must be between 1 and 10"),
])
def test_bad_arguments_are_explained(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- NCI60 -----------------------------------------------------------------------------------
# Reference values computed from the source files of ISLP 0.6.0 (ISLP/data/NCI60data.npy in
# float64 and ISLP/data/NCI60labs.csv; sha256 in mlnotes/data/README.md), not from the loader.
NCI60_COUNTS = {
    "BREAST": 7, "CNS": 5, "COLON": 7, "K562A-repro": 1, "K562B-repro": 1, "LEUKEMIA": 6,
    "MCF7A-repro": 1, "MCF7D-repro": 1, "MELANOMA": 8, "NSCLC": 9, "OVARIAN": 6, "PROSTATE": 2,
    "RENAL": 9, "UNKNOWN": 1,
}
NCI60_SUM = 8807.23775168406            # sum of all entries
NCI60_SUM_OF_SQUARES = 276183.1204288326
NCI60_ENTRIES = {(0, 0): 0.3, (1, 1): 1.289961, (10, 1000): 0.81, (63, 6829): 1.21}
NCI60_TOP_VARIANCES = (633.2155946, 352.9278146, 279.91889583)  # PCA, 1/(N-1) convention


def test_nci60_shape_labels_and_values():
    X, labels = ds.load_nci60()
    assert X.shape == (64, 6830) and X.dtype == np.float64 and np.isfinite(X).all()
    assert labels.shape == (64,)
    names, counts = np.unique(labels, return_counts=True)
    assert dict(zip(names.tolist(), counts.tolist(), strict=True)) == NCI60_COUNTS
    assert labels[:3].tolist() == ["CNS", "CNS", "CNS"] and labels[-1] == "MELANOMA"
    for (i, j), value in NCI60_ENTRIES.items():
        assert abs(X[i, j] - value) < 1e-6
    # float32 storage: each entry within 4e-7, so the sums agree to well under 1e-3 relative
    assert abs(X.sum() - NCI60_SUM) < 64 * 6830 * 4e-7
    np.testing.assert_allclose((X**2).sum(), NCI60_SUM_OF_SQUARES, rtol=1e-7)


def test_nci60_principal_variances_match_the_source():
    X, _ = ds.load_nci60()
    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    np.testing.assert_allclose(s[:3] ** 2 / (len(X) - 1), NCI60_TOP_VARIANCES, rtol=1e-6)


def test_nci60_merge_replicates():
    _, labels = ds.load_nci60()
    _, merged = ds.load_nci60(merge_replicates=True)
    names, counts = np.unique(merged, return_counts=True)
    assert len(names) == 10 and "UNKNOWN" in names
    assert dict(zip(names.tolist(), counts.tolist(), strict=True))["LEUKEMIA"] == 8
    assert dict(zip(names.tolist(), counts.tolist(), strict=True))["BREAST"] == 9
    changed = labels != merged
    assert set(labels[changed]) == set(ds.NCI60_REPLICATES)
    with pytest.raises(TypeError, match="merge_replicates must be True or False"):
        ds.load_nci60(merge_replicates="yes")


def test_nci60_missing_file_is_explained(monkeypatch):
    monkeypatch.setattr(ds, "_NCI60_FILE", "no_such_file.npz")
    with pytest.raises(FileNotFoundError, match=r"missing from this installation.*pip install"):
        ds.load_nci60()
