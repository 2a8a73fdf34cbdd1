"""The explorers: each drawing function shows the right content, and the explorer machinery
(live widget, static rendering for the book) works without a browser.

Expected values come from independent computations (numpy, scikit-learn), never from the code
under test. Every figure is closed.
"""

import asyncio
import base64
import functools
import re
import threading

import matplotlib.pyplot as plt
import numpy as np
import pytest

import mlnotes.widgets as mw
from mlnotes.widgets import _core
from mlnotes.widgets._kept import setting_key

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def close_figures():
    figures = []
    yield figures.append
    for fig in figures:
        plt.close(fig)


def _by_gid(fig, gid):
    found = [a for a in fig.findobj() if a.get_gid() == gid]
    assert found, f"no artist with gid {gid!r}"
    return found[0]


def _shown(ex):
    """The PNG the live explorer shows: the page's kept picture of the controls' setting (for
    a replay, of the run's current snapshot)."""
    return _snapshots(ex, [ex.params["frame"]])[0] if hasattr(ex, "_frame") else \
        ex._image_widget.picture(setting_key(ex._controls, ex.params))


def _snapshots(ex, frames=None):
    """The pictures the page keeps of the replay's run shown, snapshot by snapshot."""
    frames = range(ex._run_n) if frames is None else frames
    return [ex._image_widget.picture(ex._snapshot_key(frame)) for frame in frames]


def _numbers(text):
    return [float(x) for x in re.findall(r"-?\d+\.\d+|-?\d+", text)]


# --- the machinery ------------------------------------------------------------------------------
def test_explorer_rejects_unknown_parameters_by_name():
    with pytest.raises(TypeError, match=r"draw_pca has no parameter\(s\) angel; choose among angle"):
        mw.pca_explorer(angel=10)


def test_bad_parameter_values_fail_at_construction_with_the_drawing_functions_message():
    with pytest.raises(ValueError, match="unknown case 'spiral'; choose one of two_clusters"):
        mw.tsne_explorer(case="spiral")
    with pytest.raises(ValueError, match="kernel must be one of linear, poly, rbf, sigmoid"):
        mw.kernel_pca_explorer(kernel="cosine")


def test_mimebundle_has_live_view_static_explorer_and_png():
    ex = mw.pca_explorer(angle=40)
    bundle = ex._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain", _core.WIDGET_VIEW_MIME}
    assert bundle[_core.WIDGET_VIEW_MIME]["model_id"] == ex.widget.model_id
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_MAGIC)
    assert "angle=40" in bundle["text/plain"]
    assert 'class="mlnotes-explorer"' in bundle["text/html"]


def test_moving_a_control_redraws_the_image():
    ex = mw.pca_explorer()
    assert ex.widget is not None  # built on first use
    before = ex._image_widget.value
    ex._controls["angle"].value = 90
    assert ex.params["angle"] == 90
    assert ex._image_widget.value != before and bytes(ex._image_widget.value).startswith(PNG_MAGIC)
    assert re.search(r"updated in \d+ ms", ex._status.value)


def test_a_seen_setting_is_left_to_the_pages_kept_picture():
    """The figure widget keeps (in the page) every picture it sent, keyed by the controls'
    indices: moving back to a seen setting sends no picture (the page shows its own copy)."""
    ex = mw.pca_explorer(angle=0)
    assert ex.widget is not None
    figure, angle = ex._image_widget, ex._controls["angle"]
    first = bytes(figure.value)
    assert figure.key == setting_key(ex._controls, ex.params) == str(angle.index)
    assert figure.controls == [angle.model_id]
    angle.value = 90
    ninety = bytes(figure.value)
    assert ninety != first and figure.key == str(angle.index)
    angle.value = 0  # seen: nothing sent, the widget still holds the last picture sent
    assert bytes(figure.value) == ninety and ex._image == first
    assert ex._status.value == _core.SEEN_STATUS
    # the page opened again holds only the last picture sent (90): it gets the one on show (0)
    figure._on_page_message(figure, {"event": "page", "kept": [figure.key]}, [])
    assert bytes(figure.value) == first and figure.key == str(angle.index)
    angle.value = 90  # ... and keeps both
    assert bytes(figure.value) == first and ex._status.value == _core.SEEN_STATUS
    figure.kept = 0  # a page that keeps nothing: every setting is sent
    angle.value = 45
    assert bytes(figure.value) != first and figure.key == str(angle.index)


def test_the_page_forgets_its_pictures_when_a_fixed_parameter_changes():
    from mlnotes.widgets._kept import kept_figure_class

    figure = kept_figure_class()()
    assert figure.put(b"a", "0", fixed="n=100") and figure.epoch == 1
    assert not figure.put(b"a", "0", fixed="n=100")  # kept in the page
    assert not figure.put(b"a", "0")  # None: the same fixed parameters
    assert figure.put(b"a", "0", fixed="n=200") and figure.epoch == 2
    assert figure.put(b"live", "") and figure.put(b"live", "")  # a run under way: never kept
    for key in range(figure.kept + 1):  # first kept, first dropped, as in the page
        figure.put(b"x%d" % key, str(key))
    assert figure.put(b"x0", "0") and not figure.put(b"x2", "2")


def test_a_default_off_the_slider_grid_is_kept():
    ex = mw.pca_explorer(angle=33)
    assert 33 in dict(ex.widget.children[0].children[0].options).values()


def test_progress_hook_only_inside_its_block():
    seen = []
    _core.report_progress(1, 2)
    with _core.reporting_progress(lambda d, t: seen.append((d, t))):
        _core.report_progress(3, 4)
    _core.report_progress(5, 6)
    assert seen == [(3, 4)]


# --- PCA -----------------------------------------------------------------------------------------
def _pca_readout(angle, close_figures):
    fig = mw.draw_pca(angle=angle)
    close_figures(fig)
    variance, error, trace = _numbers(_by_gid(fig, "readout").get_text())
    return variance, error, trace, fig


def test_pca_variance_is_maximal_at_the_first_principal_direction(close_figures):
    from mlnotes.widgets.pca import pca_data

    S = np.cov(pca_data(), rowvar=False)
    w, V = np.linalg.eigh(S)
    best = np.rad2deg(np.arctan2(V[1, -1], V[0, -1])) % 180
    assert best == pytest.approx(30.0, abs=1e-9)  # the data were built that way
    top, _, trace, fig = _pca_readout(best, close_figures)
    assert top == pytest.approx(w[-1], abs=1e-3)
    assert trace == pytest.approx(np.trace(S), abs=1e-3)
    assert _by_gid(fig, "principal").get_xdata()[0] == pytest.approx(best, abs=1e-6)
    for angle in range(0, 180, 10):
        variance, error, _, _ = _pca_readout(angle, close_figures)
        assert variance <= top + 1e-9
        assert variance + error == pytest.approx(trace, abs=2e-3)  # Pythagoras
    # the orthogonal direction captures the least: the smallest eigenvalue
    assert _pca_readout(best + 90, close_figures)[0] == pytest.approx(w[0], abs=1e-3)
    curve = _by_gid(fig, "variance-curve")
    assert curve.get_xdata()[np.argmax(curve.get_ydata())] == pytest.approx(best, abs=1.0)


# --- kernel PCA ----------------------------------------------------------------------------------
def _match_signs(Z, Z_ref):
    return Z * np.sign(np.sum(Z * Z_ref, axis=0))


@pytest.mark.parametrize("kernel, extra", [("rbf", {}), ("poly", {"degree": 2}), ("linear", {})])
def test_kernel_pca_embedding_matches_scikit_learn(kernel, extra, close_figures):
    from sklearn.decomposition import KernelPCA

    from mlnotes.widgets.kernel_pca import kpca_data

    X, _ = kpca_data("circles", 300, 0.05, 0)
    fig = mw.draw_kernel_pca(kernel=kernel, gamma=3.0, **extra)
    close_figures(fig)
    Z = _by_gid(fig, "embedding").get_offsets()
    ref = KernelPCA(2, kernel=kernel, gamma=3.0, degree=extra.get("degree", 3), coef0=1,
                    eigen_solver="dense").fit_transform(X)
    np.testing.assert_allclose(_match_signs(Z, ref), ref, atol=1e-6 * np.abs(ref).max())


def test_kernel_pca_contours_span_the_components_values_over_the_plane(close_figures):
    from sklearn.decomposition import KernelPCA

    from mlnotes.widgets.kernel_pca import GRID_SIZE, kpca_data

    X, _ = kpca_data("moons", 300, 0.05, 0)
    fig = mw.draw_kernel_pca(dataset="moons", gamma=3.0)
    close_figures(fig)
    kpca = KernelPCA(2, kernel="rbf", gamma=3.0, eigen_solver="dense").fit(X)
    lo, hi = X.min(axis=0) - 0.3, X.max(axis=0) + 0.3
    g = np.stack(np.meshgrid(*np.linspace(lo, hi, GRID_SIZE).T), axis=-1).reshape(-1, 2)
    values = kpca.transform(g)
    for l, ax in enumerate(fig.axes[:2]):
        levels = ax.collections[0].levels
        span = np.sort(np.abs([values[:, l].min(), values[:, l].max()]))
        drawn = np.sort(np.abs([levels[0], levels[-1]]))
        assert np.all(drawn >= span - 1e-9) and np.all(drawn <= 1.3 * span[1])


def test_kernel_pca_a_component_separates_the_circles_only_with_a_nonlinear_kernel(close_figures):
    # The best Fisher ratio of the two classes along one component: a linear projection of two
    # concentric circles cannot separate them, the RBF kernel's second component can.
    def separation(kernel):
        fig = mw.draw_kernel_pca(kernel=kernel, gamma=3.0)
        close_figures(fig)
        Z = np.asarray(_by_gid(fig, "embedding").get_offsets())
        y = np.arange(len(Z)) >= (len(Z) + 1) // 2  # make_circles: outer first, then inner
        return max(abs(z[y].mean() - z[~y].mean()) / np.sqrt(z[y].var() + z[~y].var()) for z in Z.T)

    assert separation("rbf") > 1.0
    assert separation("linear") < 0.2


# --- t-SNE ---------------------------------------------------------------------------------------
def _kl_of_map(X, Z, perplexity):
    from mlnotes.graphs import squared_distances
    from mlnotes.sne import conditional_affinities, joint_affinities

    P = joint_affinities(conditional_affinities(squared_distances(X), perplexity)[0])
    W = 1.0 / (1.0 + ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))  # Student-t, one dof
    np.fill_diagonal(W, 0.0)
    Q = W / W.sum()
    mask = P > 0
    return float(np.sum(P[mask] * np.log(P[mask] / Q[mask])))


def test_tsne_replays_every_recorded_snapshot_with_its_kl(close_figures):
    from mlnotes.widgets.tsne import distill_data, tsne_frames

    params = dict(case="trefoil", perplexity=10.0, max_iter=300, n_samples=120)
    n = tsne_frames(**params)
    assert n == 300 // 10 + 1  # the start, then every 10 iterations
    X, _ = distill_data("trefoil", 120, 0)
    kls = []
    for frame in (0, 5, n - 1):
        fig = mw.draw_tsne(frame=frame, **params)
        close_figures(fig)
        curve = _by_gid(fig, "kl-curve")
        np.testing.assert_array_equal(curve.get_xdata(), np.arange(0, 301, 10))
        Z = np.asarray(_by_gid(fig, "map").get_offsets())
        kl = _by_gid(fig, "kl-now").get_ydata()[0]
        assert kl == pytest.approx(_kl_of_map(X, Z, 10.0), rel=1e-6)
        assert curve.get_ydata()[frame] == kl
        kls.append(kl)
    assert kls[-1] < 0.5 * kls[0]
    with pytest.raises(ValueError, match=f"frame must be between -{n} and {n - 1}"):
        mw.draw_tsne(frame=n, **params)


def test_tsne_explorer_reruns_with_progress_and_shows_the_end_of_the_new_run():
    ex = mw.tsne_explorer(case="two_clusters", n_samples=60, max_iter=300, perplexity=10.0)
    assert ex.widget is not None
    before = _shown(ex)
    ex._frame.value = 0
    assert _shown(ex) != before and _shown(ex).startswith(PNG_MAGIC)
    assert ex.params["frame"] == 0
    ex._controls["perplexity"].value = 5.0
    assert ex._progress.value == 100 and ex._frame.max == 30 and ex._frame.value == 30
    assert ex.params["perplexity"] == 5.0 and ex.params["frame"] == 30
    assert ex._run_n == 31 and ex._frame.value == 30
    assert _shown(ex) == _core.figure_png(mw.draw_tsne(
        case="two_clusters", n_samples=60, max_iter=300, perplexity=5.0, frame=30))


# --- Isomap, LLE, eigenmaps ----------------------------------------------------------------------
def _swiss_roll():
    from mlnotes.widgets.neighbourhood import manifold_data

    return manifold_data("swiss_roll", 500, 0.3, 0)


def _sklearn_short_circuits(k):
    """Edges of the 'or' kNN graph (scikit-learn) whose chart distance is a detour."""
    from sklearn.neighbors import kneighbors_graph

    X, t = _swiss_roll()
    A = kneighbors_graph(X, k, mode="distance")
    A = A.maximum(A.T).tocoo()
    upper = A.row < A.col
    i, j, length = A.row[upper], A.col[upper], A.data[upper]
    chart = np.linalg.norm(t[i] - t[j], axis=1)
    return upper.sum(), int(((chart > 3 * length) & (chart > 2 * np.pi)).sum())


def _drawn_segments(fig, gid):
    fig.canvas.draw()  # 3-D collections project their segments when drawn
    return len(_by_gid(fig, gid).get_segments())


@pytest.mark.parametrize("k", [5, 6, 7, 10, 16])
def test_isomap_highlights_short_circuits_exactly_when_k_is_too_large(k, close_figures):
    n_edges, n_short = _sklearn_short_circuits(k)
    assert (n_short == 0) == (k <= 7)  # the data set: short circuits start at k = 8
    fig = mw.draw_isomap(n_neighbors=k)
    close_figures(fig)
    assert _drawn_segments(fig, "short-circuits") == n_short
    assert _drawn_segments(fig, "edges") == n_edges - n_short
    assert _numbers(_by_gid(fig, "graph-summary").get_text()) == [k, n_edges, n_short]
    residual_2d = _by_gid(fig, "residual-variance").get_ydata()[1]
    # one short circuit is enough to bend the geodesics: the 2-D fit degrades
    assert residual_2d < 0.02 if n_short == 0 else residual_2d > 0.05


def test_isomap_embedding_matches_scikit_learn(close_figures):
    from sklearn.manifold import Isomap

    X, _ = _swiss_roll()
    fig = mw.draw_isomap(n_neighbors=6)
    close_figures(fig)
    Z = np.asarray(_by_gid(fig, "embedding").get_offsets())
    ref = Isomap(n_neighbors=6, n_components=2, eigen_solver="dense").fit_transform(X)
    np.testing.assert_allclose(_match_signs(Z, ref), ref, atol=1e-6 * np.abs(ref).max())


def test_isomap_embeds_the_largest_component_of_a_disconnected_graph(close_figures):
    from scipy.sparse.csgraph import connected_components
    from sklearn.neighbors import radius_neighbors_graph

    X, _ = _swiss_roll()
    n, labels = connected_components(radius_neighbors_graph(X, 3.0), directed=False)
    assert n > 1
    largest = np.bincount(labels).max()
    fig = mw.draw_isomap(graph="epsilon", radius=3.0)
    close_figures(fig)
    assert len(_by_gid(fig, "embedding").get_offsets()) == largest
    assert f"({500 - largest} points cut off)" in fig.axes[1].get_title()


def _unit_columns(Z):
    Z = np.asarray(Z) - np.mean(Z, axis=0)
    return Z / np.linalg.norm(Z, axis=0)


def test_lle_embedding_matches_scikit_learn_and_shows_an_increasing_spectrum(close_figures):
    from sklearn.manifold import LocallyLinearEmbedding

    from mlnotes.widgets.neighbourhood import manifold_data

    X, _ = manifold_data("s_curve", 500, 0.0, 0)
    for reg in (1e-3, 1e-1):
        fig = mw.draw_lle(n_neighbors=12, reg=reg)
        close_figures(fig)
        Z = _by_gid(fig, "embedding").get_offsets()
        ref = LocallyLinearEmbedding(n_neighbors=12, reg=reg, eigen_solver="dense").fit_transform(X)
        np.testing.assert_allclose(np.abs(np.sum(_unit_columns(Z) * _unit_columns(ref), axis=0)),
                                   1.0, atol=1e-6)
        heights = [bar.get_height() for bar in fig.findobj() if bar.get_gid() == "spectrum"]
        assert len(heights) == 7 and heights[-1] == 1.0 and np.all(np.diff(heights) >= 0)


@pytest.mark.parametrize("t", [3.0, 100.0])
def test_eigenmaps_embedding_matches_scikit_learns_spectral_embedding(t, close_figures):
    from sklearn.manifold import SpectralEmbedding
    from sklearn.neighbors import kneighbors_graph

    from mlnotes.widgets.neighbourhood import manifold_data

    X, _ = manifold_data("s_curve", 500, 0.0, 0)
    A = kneighbors_graph(X, 10, mode="distance")
    A = A.maximum(A.T)
    A.data = np.exp(-A.data**2 / t)  # heat weights on the 'or' kNN graph
    ref = SpectralEmbedding(2, affinity="precomputed", eigen_solver="arpack",
                            random_state=0).fit_transform(A.toarray())
    fig = mw.draw_eigenmaps(n_neighbors=10, t=t)
    close_figures(fig)
    Z = _by_gid(fig, "embedding").get_offsets()
    corr = np.abs(np.sum(_unit_columns(Z) * _unit_columns(ref), axis=0))
    assert np.all(corr > 0.999), corr


# --- MDS and SMACOF ------------------------------------------------------------------------------
def _s_curve_dissimilarities(kind, n_samples=300):
    from scipy.sparse.csgraph import shortest_path
    from scipy.spatial.distance import cdist
    from sklearn.neighbors import kneighbors_graph

    from mlnotes.widgets.mds import mds_dissimilarities

    X = np.asarray(mds_dissimilarities("euclidean", n_samples, 0)[0])  # the data, not Delta
    if kind == "geodesic":
        return shortest_path(kneighbors_graph(X, 10, mode="distance"), directed=False)
    return cdist(X, X, metric=kind)


def _spectrum_heights(fig, gid):
    return np.array([seg[1][1] for seg in _by_gid(fig, gid).get_segments()])


@pytest.mark.parametrize("kind", ["euclidean", "cityblock", "geodesic"])
def test_mds_spectrum_shows_negative_eigenvalues_exactly_for_non_euclidean_input(kind, close_figures):
    Delta = _s_curve_dissimilarities(kind)
    N = len(Delta)
    C = np.eye(N) - 1.0 / N
    lam = np.sort(np.linalg.eigvalsh(-0.5 * C @ (Delta**2) @ C))[::-1]
    rel = lam / lam[0]
    fig = mw.draw_mds(dissimilarity=kind)
    close_figures(fig)
    negative = _spectrum_heights(fig, "negative")
    shown = np.sort(np.concatenate([_spectrum_heights(fig, "nonnegative"), negative]))[::-1]
    np.testing.assert_allclose(shown, rel, atol=1e-9)
    assert len(negative) == np.sum(rel < -1e-5)
    if kind == "euclidean":
        assert len(negative) == 0 and np.all(rel[3:] < 1e-9)  # rank 3: the data are 3-D
    else:
        assert len(negative) > 0 and negative.min() < -0.01
    assert _numbers(_by_gid(fig, "spectrum-summary").get_text())[0] == len(negative)


def test_smacof_replay_matches_scikit_learns_iterates_and_the_stress_never_rises(close_figures):
    from scipy.spatial.distance import pdist, squareform
    from sklearn.manifold import smacof

    from mlnotes.widgets.mds import smacof_frames

    Delta = _s_curve_dissimilarities("cityblock", 200)
    n = smacof_frames(dissimilarity="cityblock")

    def frame(i):
        fig = mw.draw_smacof(dissimilarity="cityblock", frame=i)
        close_figures(fig)
        return fig, np.asarray(_by_gid(fig, "configuration").get_offsets())

    fig0, Z0 = frame(0)
    stress = _by_gid(fig0, "stress-curve").get_ydata()
    assert len(stress) == n > 10
    assert np.all(np.diff(stress) <= 1e-9 * stress[0])  # majorisation: monotone
    for i in (1, 10, n - 1):
        fig, Z = frame(i)
        ref, ref_stress = smacof(Delta, init=Z0, n_init=1, max_iter=i, eps=0.0,
                                 normalized_stress=False)
        np.testing.assert_allclose(Z, ref, rtol=1e-8, atol=1e-8)
        own = np.sum((squareform(Delta, checks=False) - pdist(Z)) ** 2)
        assert _by_gid(fig, "stress-now").get_ydata()[0] == pytest.approx(own, rel=1e-9)
        assert ref_stress == pytest.approx(own, rel=1e-9)
    assert stress[-1] < 0.5 * stress[0]


# --- autoencoder ---------------------------------------------------------------------------------
def test_autoencoder_rows_are_the_data_and_pcas_reconstruction_and_it_beats_pca(close_figures):
    from sklearn.decomposition import PCA

    from mlnotes.widgets.autoencoder import EPOCH_SNAPSHOTS, IMAGE_SIZE, N_SHOWN, glyph_data

    X, angle = glyph_data(300, 0)
    pca = PCA(n_components=1).fit(X)
    X_pca = pca.inverse_transform(pca.transform(X))
    pca_loss = 0.5 * np.sum((X - X_pca) ** 2) / len(X)
    shown = np.argsort(angle[:, 0])[np.linspace(0, len(X) - 1, N_SHOWN).astype(int)]
    s = IMAGE_SIZE + 1
    losses = []
    for frame in (0, len(EPOCH_SNAPSHOTS) - 1):
        fig = mw.draw_autoencoder(bottleneck=1, frame=frame)
        close_figures(fig)
        mosaic = _by_gid(fig, "mosaic").get_array()
        cells = mosaic.reshape(3, s, N_SHOWN, s)[:, :IMAGE_SIZE, :, :IMAGE_SIZE]
        cells = cells.transpose(0, 2, 1, 3).reshape(3, N_SHOWN, -1)  # (row, column, pixels)
        np.testing.assert_allclose(cells[0], X[shown])
        np.testing.assert_allclose(cells[2], X_pca[shown], atol=1e-8)
        assert _by_gid(fig, "pca-loss").get_ydata()[0] == pytest.approx(pca_loss, rel=1e-9)
        now = _by_gid(fig, "loss-now")
        assert now.get_xdata()[0] == EPOCH_SNAPSHOTS[frame]
        losses.append(now.get_ydata()[0])
    assert losses[-1] < 0.2 * losses[0]
    # a 1-D curved manifold: the nonlinear code reconstructs far better than one principal axis
    assert losses[-1] < 0.5 * pca_loss


def test_a_setting_the_method_cannot_handle_is_reported_in_the_status_line(monkeypatch):
    ex = mw.tsne_explorer(case="two_clusters", n_samples=60, max_iter=300, perplexity=10.0)
    assert ex.widget is not None
    shown = _shown(ex)

    def diverge(**params):
        raise FloatingPointError("The optimisation diverged at iteration 3")

    monkeypatch.setattr(ex, "n_frames", diverge)
    ex._controls["learning_rate"].value = 1000.0
    assert "cannot draw this setting: The optimisation diverged" in ex._status.value
    assert ex._progress.bar_style == "danger" and _shown(ex) == shown
    assert ex._image_widget.layout.opacity == _core.STALE_OPACITY  # marked stale
    monkeypatch.undo()
    ex._controls["learning_rate"].value = 200.0  # a good setting again: the figure is current
    assert "updated in" in ex._status.value and ex._image_widget.layout.opacity == "1"


def test_lle_at_its_smallest_k_and_reg_draws_at_once():
    """k = 4, reg = 1e-6 (a many-fold null space of M) stalled ARPACK for 43 s in the widget."""
    import time

    ex = mw.lle_explorer()
    start = time.process_time()
    ex.render(n_neighbors=4, reg=1e-6)
    assert time.process_time() - start < 2.0


# --- the static explorer (text/html): data, same results as the widget, size ----------------------
from mlnotes.widgets import _static  # noqa: E402


def _spec(explorer):
    html = explorer.static_bundle()["text/html"]
    return _static.decode_spec(html), html


def _key(spec, **values):
    return ",".join(str(c["values"].index(_core._label(values[c["name"]])) if c["name"] in values
                        else c["index"]) for c in spec["controls"])


def _state(spec, frame=None, **values):
    """The scene the page shows for these control values (and replay frame)."""
    key = _key(spec, **values)
    if frame is not None:
        key += f"/{frame % spec['frames'][key]}"
    return spec["states"][key]


def _layer(spec, scene, panel, kind, which=0):
    """A layer of a scene with its arrays decoded (what explorer.js draws)."""
    layers = [l for l in scene["panels"][panel]["layers"] if l["t"] == kind]
    return {k: _static.decode_array(spec["arrays"][v[1:]]) if isinstance(v, str) and v[:1] == "@"
            else v for k, v in layers[which].items()}


def _step(a):
    """Half a quantisation step of the coordinates of ``a`` (per column), plus round-off."""
    a = np.asarray(a, dtype=float)
    return (np.ptp(a, axis=0) / _static.COORD_LEVELS) / 2 + 1e-9


def _assert_same_points(static_xy, drawn_xy):
    drawn_xy = np.asarray(drawn_xy)
    assert static_xy.shape == drawn_xy.shape
    assert np.all(np.abs(static_xy - drawn_xy) <= _step(drawn_xy))


def test_quantised_arrays_come_back_within_half_a_step():
    rng = np.random.default_rng(0)
    xy = rng.normal(size=(50, 2)) * [1.0, 100.0]
    back = _static.decode_array(_static.Data(xy, per_column=True).encoded)
    assert np.all(np.abs(back - xy) <= _step(xy))
    curve = np.array([1e4, 3e3, 1e3, np.nan, 120.0])
    back = _static.decode_array(_static.Data(curve, log=True).encoded)
    assert np.isnan(back[3])
    ok = ~np.isnan(curve)
    np.testing.assert_allclose(back[ok], curve[ok], rtol=np.log(10) * 2 / 1023)  # relative on a log scale
    pairs = np.array([[0, 5], [7, 3]])
    np.testing.assert_array_equal(_static.decode_array(_static.Data(pairs).encoded), pairs)


def test_static_explorer_is_self_contained_and_says_what_it_holds():
    spec, html = _spec(mw.pca_explorer(angle=60))
    assert not re.search(r"https?://|(src|href)=\"//", html), "the page must not load anything"
    assert '<script type="application/gzip" class="mlx-data">' in html
    assert "explorer.js" in html  # the loader, for a page that does not load it already
    assert [c["name"] for c in spec["controls"]] == ["angle"]
    angles = spec["controls"][0]["values"]
    assert angles == [str(a) for a in range(0, 180, 5)] and angles[spec["controls"][0]["index"]] == "60"
    assert len(spec["states"]) == 36
    assert "This page holds angle of b (°) 0, 5, …, 175 (36 values)." in spec["note"]
    assert "Run the notebook" in spec["note"]
    # the same results give the same bytes: a re-executed notebook does not change needlessly
    assert _spec(mw.pca_explorer(angle=60))[1] == html


def test_a_setting_the_method_cannot_handle_is_stored_with_its_message(monkeypatch):
    from mlnotes.widgets import neighbourhood

    real = neighbourhood.scene_lle

    def scene(**params):
        if params["reg"] == 1e-6:
            raise ValueError("ARPACK did not converge")
        return real(**params)

    ex = mw.lle_explorer()
    monkeypatch.setattr(ex, "scene", scene)
    spec, _ = _spec(ex)
    failed = [s for s in spec["states"].values() if "error" in s]
    assert len(failed) == len(spec["controls"][0]["values"])  # every k with reg = 1e-6
    assert failed[0]["error"] == "ARPACK did not converge"


def test_static_grids_hold_what_the_note_says():
    kpca = _spec(mw.kernel_pca_explorer())[0]
    kernels = {k: i for i, k in enumerate(kpca["controls"][2]["values"])}
    degrees = kpca["controls"][3]["values"]
    assert degrees == ["2", "3"]
    keys = [tuple(map(int, k.split(","))) for k in kpca["states"]]
    assert {k[3] for k in keys if k[2] == kernels["poly"]} == {0, 1}
    assert {k[3] for k in keys if k[2] != kernels["poly"]} == {degrees.index("2")}
    assert len({k[0] for k in keys if k[2] == kernels["linear"]}) == 1  # no gamma to move
    tsne = _spec(mw.tsne_explorer(case="two_clusters", n_samples=60, max_iter=300))[0]
    assert tsne["controls"][0]["values"] == ["two_clusters"]
    failed = {k: v["error"] for k, v in tsne["states"].items() if "error" in v}
    assert len(tsne["frames"]) + len(failed) == 1 + 5 + 4 + 2  # each slider moved alone
    perplexity_100 = f"0,{tsne['controls'][1]['values'].index('100')},3,2"
    assert list(failed) == [perplexity_100] and "perplexity" in failed[perplexity_100]  # > N = 60
    assert "one at a time, the others at perplexity 30, learning rate 200, exaggeration 12" in tsne["note"]
    assert all(n == 31 for n in tsne["frames"].values())  # every snapshot of a 300-iteration run


# Same results: what the page draws is what the widget draws, setting by setting.
def test_static_pca_matches_the_widget(close_figures):
    spec, _ = _spec(mw.pca_explorer())
    for angle in (0, 35, 120):
        fig = mw.draw_pca(angle=angle)
        close_figures(fig)
        scene = _state(spec, angle=angle)
        assert scene["panels"][1]["title"] == _by_gid(fig, "readout").get_text()
        _assert_same_points(_layer(spec, scene, 0, "pts", 1)["xy"], fig.axes[0].collections[2].get_offsets())


def test_static_mds_and_smacof_match_the_widget(close_figures):
    spec, _ = _spec(mw.mds_explorer())
    for kind in ("euclidean", "geodesic"):
        fig = mw.draw_mds(dissimilarity=kind)
        close_figures(fig)
        scene = _state(spec, dissimilarity=kind)
        _assert_same_points(_layer(spec, scene, 1, "pts")["xy"], _by_gid(fig, "embedding").get_offsets())
        assert scene["panels"][2]["title"] == _by_gid(fig, "spectrum-summary").get_text()
    ex = mw.smacof_explorer(max_iter=30)
    spec, _ = _spec(ex)
    n = spec["frames"][_key(spec, init="classical")]
    assert n < 30  # the classical start converges early: every snapshot is kept
    for frame in (0, 7, n - 1):
        fig = mw.draw_smacof(frame=frame, init="classical", max_iter=30)
        close_figures(fig)
        scene = _state(spec, frame=frame, init="classical")
        _assert_same_points(_layer(spec, scene, 1, "pts")["xy"],
                            _by_gid(fig, "configuration").get_offsets())
        stress = _layer(spec, scene, 2, "line")["y"]
        np.testing.assert_allclose(stress, _by_gid(fig, "stress-curve").get_ydata(), rtol=5e-3)


def test_static_kernel_pca_matches_the_widget(close_figures):
    from mlnotes.widgets.kernel_pca import kpca_fit

    spec, _ = _spec(mw.kernel_pca_explorer())
    for setting in (dict(gamma=30.0), dict(kernel="poly", degree=3, gamma=1.0), dict(dataset="moons")):
        fig = mw.draw_kernel_pca(**setting)
        close_figures(fig)
        scene = _state(spec, **setting)
        _assert_same_points(_layer(spec, scene, 2, "pts")["xy"], _by_gid(fig, "embedding").get_offsets())
        params = {"dataset": "circles", "kernel": "rbf", "gamma": 3.0, "degree": 2, **setting}
        values = kpca_fit(params["dataset"], params["kernel"], params["gamma"], params["degree"], 300,
                          0.05, 0)[4]
        image = _layer(spec, scene, 0, "img")["z"]
        assert np.max(np.abs(image - values[0])) <= np.ptp(values[0]) / 255 / 2 + 1e-9


@functools.lru_cache(maxsize=1)
def _isomap_spec():
    return _spec(mw.isomap_explorer())[0]


@pytest.mark.parametrize("setting", [dict(n_neighbors=6), dict(n_neighbors=16),
                                     dict(graph="epsilon", radius=3.0)])
def test_static_isomap_draws_the_widgets_edges_and_embedding(setting, close_figures):
    spec = _isomap_spec()
    fig = mw.draw_isomap(**setting)
    close_figures(fig)
    fig.canvas.draw()
    scene = _state(spec, **setting)
    for which, gid in ((0, "edges"), (1, "short-circuits")):
        layer = _layer(spec, scene, 0, "seg", which)
        xy, pairs = layer["xy"], layer["pairs"][:layer["count"]]
        drawn = _by_gid(fig, gid).get_segments()
        assert len(pairs) == len(drawn)
        if len(drawn):
            ends = np.sort(np.concatenate([xy[pairs[:, 0]], xy[pairs[:, 1]]], axis=1), axis=0)
            want = np.sort(np.array([np.concatenate(s) for s in drawn]), axis=0)
            assert np.all(np.abs(ends - want) <= np.tile(_step(xy), 2))
    assert scene["panels"][0]["title"] == _by_gid(fig, "graph-summary").get_text()
    assert scene["panels"][1]["title"] == fig.axes[1].get_title()
    _assert_same_points(_layer(spec, scene, 1, "pts")["xy"], _by_gid(fig, "embedding").get_offsets())


def test_static_lle_and_eigenmaps_match_the_widget(close_figures):
    for make, draw, setting in ((mw.lle_explorer, mw.draw_lle, dict(n_neighbors=15, reg=0.1)),
                                (mw.eigenmaps_explorer, mw.draw_eigenmaps, dict(n_neighbors=8, t=3.0))):
        spec, _ = _spec(make())
        fig = draw(**setting)
        close_figures(fig)
        scene = _state(spec, **setting)
        _assert_same_points(_layer(spec, scene, 1, "pts")["xy"], _by_gid(fig, "embedding").get_offsets())
        heights = [bar.get_height() for bar in fig.findobj() if bar.get_gid() == "spectrum"]
        np.testing.assert_allclose(_layer(spec, scene, 2, "bars")["y"], heights, atol=1 / 1023)


def test_static_tsne_and_autoencoder_replays_match_the_widget(close_figures):
    params = dict(case="trefoil", n_samples=80, max_iter=300)
    spec, _ = _spec(mw.tsne_explorer(**params))
    for frame in (0, 4, -1):
        fig = mw.draw_tsne(frame=frame, perplexity=10.0, **params)
        close_figures(fig)
        scene = _state(spec, frame=frame, perplexity=10.0)
        _assert_same_points(_layer(spec, scene, 1, "pts")["xy"], _by_gid(fig, "map").get_offsets())
        assert scene["panels"][1]["title"] == fig.axes[-2].get_title()
    spec, _ = _spec(mw.autoencoder_explorer(n_samples=120))
    for frame in (1, -1):
        fig = mw.draw_autoencoder(bottleneck=2, frame=frame, n_samples=120)
        close_figures(fig)
        scene = _state(spec, frame=frame, bottleneck=2)
        mosaic = _by_gid(fig, "mosaic").get_array().filled(np.nan)
        s = mosaic.shape[0] // 3
        for row in range(3):
            z = _layer(spec, scene, 0, "img", row)["z"][::-1]
            drawn = mosaic[row * s:(row + 1) * s]
            step = (np.nanmax(drawn) - np.nanmin(drawn)) / _static.IMAGE_LEVELS / 2
            assert np.allclose(z, drawn, rtol=0, atol=step + 1e-9, equal_nan=True)
        _assert_same_points(_layer(spec, scene, 1, "pts")["xy"], _by_gid(fig, "code").get_offsets())
        assert _layer(spec, scene, 2, "dot")["y"] == pytest.approx(_by_gid(fig, "loss-now").get_ydata()[0])


# The explorer data of each chapter page: within budget. The book is built from the chapters'
# saved outputs, so those are measured; a cell saved before explorers had a static form (or
# without its output) is computed afresh, as the chapter calls it.
def _chapter_explorer_cells():
    import json
    import pathlib

    cells = {}
    for path in sorted((pathlib.Path(__file__).parents[1] / "book").rglob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            source = "".join(cell["source"])
            calls = re.findall(r"^(?:ml\.)?widgets\.\w+_explorer\(.*\)\s*$", source, re.M)
            if cell["cell_type"] == "code" and calls:
                saved = "".join("".join(out.get("data", {}).get("text/html", ""))
                                for out in cell.get("outputs", []))
                cells.setdefault(path.stem, []).append((calls[-1], saved))
    return cells


def test_every_chapter_pages_explorer_data_is_within_budget():
    import mlnotes as ml

    cells = _chapter_explorer_cells()
    assert len(cells) >= 9
    sizes = {}
    for page, found in cells.items():
        sizes[page] = sum(
            len(saved) if 'class="mlnotes-explorer"' in saved
            else len(eval(call, {"ml": ml, "widgets": ml.widgets}).static_bundle()["text/html"])
            for call, saved in found)
    print({page: f"{size / 1e3:.0f} KB" for page, size in sizes.items()})
    over = {page: size for page, size in sizes.items() if size > _static.DATA_BUDGET_BYTES}
    assert not over, f"explorer data over {_static.DATA_BUDGET_BYTES} bytes on: {over}"


def test_controls_that_change_nothing_at_a_setting_are_marked_inert():
    spec = _isomap_spec()
    names = [c["name"] for c in spec["controls"]]
    # the page holds the unused control at its current value only (k = 6, radius 4.5)
    knn = _key(spec, graph="knn", n_neighbors=10, radius=4.5)
    epsilon = _key(spec, graph="epsilon", n_neighbors=6, radius=5.0)
    assert [names[j] for j in spec["inert"][knn]] == ["radius"]  # a kNN graph has no radius
    assert [names[j] for j in spec["inert"][epsilon]] == ["n_neighbors"]
    kpca = _spec(mw.kernel_pca_explorer())[0]
    names = [c["name"] for c in kpca["controls"]]
    assert [names[j] for j in kpca["inert"][_key(kpca, kernel="linear")]] == ["gamma", "degree"]
    assert [names[j] for j in kpca["inert"][_key(kpca, kernel="rbf")]] == ["degree"]
    assert _key(kpca, kernel="poly", degree=3) not in kpca["inert"]


def test_a_number_that_is_not_finite_does_not_break_the_export():
    arrays = {}
    scene = _static._register(_static.scene("t", [_static.panel("p", [_static.dot(1.0, np.nan)])]),
                              arrays)
    assert scene["panels"][0]["layers"][0]["y"] is None
    assert _static.decode_spec(f'<script type="application/gzip" class="mlx-data">'
                               f'{_static.encode_spec(scene)}</script>') == scene


@pytest.mark.parametrize("make, change, disabled, reason", [
    (lambda: mw.isomap_explorer(), {}, {"radius"}, "kNN graph has no radius"),
    (lambda: mw.isomap_explorer(), {"graph": "epsilon"}, {"n_neighbors"}, "ε graph has no k"),
    (lambda: mw.kernel_pca_explorer(), {"kernel": "linear"}, {"gamma", "degree"},
     "linear kernel has no gamma"),
    (lambda: mw.kernel_pca_explorer(), {"kernel": "poly"}, set(), ""),
    (lambda: mw.kernel_pca_explorer(kernel="poly"), {"kernel": "rbf"}, {"degree"},
     "only the poly kernel has a degree"),
])
def test_a_control_that_does_not_apply_is_disabled_and_says_why(make, change, disabled, reason,
                                                                 close_figures):
    ex = make()
    ex.widget  # noqa: B018 (builds the controls)
    for name, value in change.items():
        ex._controls[name].value = value
    assert {n for n, c in ex._controls.items() if c.disabled} == disabled
    for name in disabled:
        assert ex._controls[name].tooltip
    assert reason in ex._why_disabled.value
    if not disabled:
        assert ex._why_disabled.value == ""


def test_in_a_readers_kernel_the_explorer_computes_no_static_grid(monkeypatch, close_figures):
    ex = mw.pca_explorer()
    calls = []
    monkeypatch.setattr(type(ex), "static_spec", lambda self: calls.append(1) or {})
    monkeypatch.setenv("JPY_SESSION_NAME", "/book/pca.ipynb")
    bundle = ex._repr_mimebundle_()
    assert not calls and "text/html" not in bundle
    assert _core.WIDGET_VIEW_MIME in bundle
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_MAGIC)
    monkeypatch.delenv("JPY_SESSION_NAME")
    monkeypatch.setenv(_core.STATIC_GRID_VARIABLE, "0")  # make test's nbval pass: no grid either
    bundle = ex._repr_mimebundle_()
    assert not calls and "text/html" not in bundle and _core.WIDGET_VIEW_MIME in bundle
    monkeypatch.delenv(_core.STATIC_GRID_VARIABLE)
    monkeypatch.setattr(_core, "explorer_html", lambda spec: "<div>static</div>")
    assert "text/html" in ex._repr_mimebundle_() and calls  # the book's headless run: the grid


def test_a_seen_setting_is_sent_from_the_cache_without_drawing(monkeypatch, close_figures):
    ex = mw.pca_explorer()
    first = ex.render(angle=45)
    ex.render(angle=50)
    calls = []
    update = ex._live.update  # the kept figure, redrawn for a new setting
    monkeypatch.setattr(ex._live, "update", lambda **p: calls.append(p) or update(**p))
    assert ex.render(angle=45) == first and not calls and ex.params["angle"] == 45
    ex.render(angle=55)
    assert len(calls) == 1
    for i in range(_core.PNG_CACHE_SIZE):  # newer settings push the oldest out
        ex._pngs[("dummy", i)] = b""
    ex.render(angle=60)
    assert len(ex._pngs) == _core.PNG_CACHE_SIZE and _core._cache_key(ex.params) in ex._pngs
    assert _core._cache_key({**ex.params, "angle": 45}) not in ex._pngs


def test_in_a_readers_kernel_the_next_step_of_the_moved_slider_is_drawn_while_idle(
        monkeypatch, close_figures):
    """After a move, a reader's kernel draws, while idle, the picture of the same control one
    more step the same way (the likeliest next move): that move is then answered from the
    kept pictures, without drawing, with the picture drawn anew. A headless run draws none."""
    ex = mw.pca_explorer(angle=30)
    assert ex.widget is not None
    values = list(next(c for c in ex.controls if c.name == "angle").values)
    i = values.index(30)
    ex._controls["angle"].value = values[i - 1]  # no event loop: nothing drawn ahead
    assert len(ex._pngs) == 2 and ex.next_settings("angle", -1)[0]["angle"] == values[i - 2]
    monkeypatch.setenv("JPY_SESSION_NAME", "reader.ipynb")

    async def moves():
        ex._controls["angle"].value = values[i - 2]  # moving down
        await asyncio.sleep(_core.PREFETCH_DELAY_S + 0.5)
        assert ex.is_kept(angle=values[i - 3]) and not ex.is_kept(angle=values[i - 4])
        drawn = []
        monkeypatch.setattr(ex, "_rgba", lambda *a, **k: drawn.append(a))
        ex._controls["angle"].value = values[i - 3]
        assert not drawn and ex.params["angle"] == values[i - 3]

    asyncio.run(moves())
    assert bytes(ex._image_widget.value) == _core.figure_png(mw.draw_pca(angle=values[i - 3]))


def test_a_replay_keeps_twenty_runs_of_snapshots_in_the_kernel_and_the_page():
    """Every snapshot of a run is a picture: a replay explorer keeps about twenty t-SNE runs
    (51 snapshots each), so that a return to one of the first runs a reader tried is shown
    from the page (256, as the other explorers, held five)."""
    ex = mw.tsne_explorer(n_samples=60, max_iter=260)
    assert ex.widget is not None
    assert ex._image_widget.kept == ex.png_cache_size == _core.REPLAY_PICTURES >= 20 * 51
    for i in range(_core.REPLAY_PICTURES):
        ex._pngs[("dummy", i)] = b""
    ex.render(frame=0)
    assert len(ex._pngs) == _core.REPLAY_PICTURES


def test_a_replay_sends_every_snapshot_to_the_page_before_play_is_enabled(monkeypatch):
    """In a reader's kernel the snapshot slider and "play" switch pictures in the page alone:
    every snapshot of the run is sent, each its own drawing, before they are enabled; drawn
    between the kernel's messages, and a new run supersedes the snapshots still to send."""
    monkeypatch.setenv("JPY_SESSION_NAME", "reader.ipynb")
    params = {"case": "two_clusters", "n_samples": 60, "max_iter": 100, "perplexity": 10.0,
              "exaggeration": 1.0}

    async def replay():
        ex = mw.tsne_explorer(**params)
        assert ex.widget is not None
        n = ex._run_n
        assert n == 11 and ex._play.disabled and ex._frame.disabled  # only the last one is there
        assert _snapshots(ex)[:-1] == [None] * (n - 1)
        assert ex._frame.value == n - 1 and _shown(ex).startswith(PNG_MAGIC)
        ex._controls["perplexity"].value = 5.0  # a new run before the first is sent
        while ex._play.disabled:
            await asyncio.sleep(0.01)  # the kernel's event loop: snapshots go out one at a time
        assert "snapshots in the page" not in ex._status.value and not ex._frame.disabled
        return ex, _snapshots(ex)

    ex, pictures = asyncio.run(replay())
    assert len(pictures) == 11 and len(set(pictures)) == 11
    for frame in (0, 4, 10):  # each picture is its snapshot of the new run
        assert pictures[frame] == _core.figure_png(mw.draw_tsne(
            **{**params, "perplexity": 5.0}, frame=frame))
    assert ex.params["frame"] == 10 and ex._frame.value == 10
    assert _core.PLAY_INTERVAL_MS <= 150 and ex._play.interval == _core.PLAY_INTERVAL_MS


def test_a_new_run_on_another_thread_never_gets_the_old_runs_snapshots(monkeypatch):
    """JupyterLab may send the widgets' messages to a subshell (another thread and event loop of
    the kernel) while the cell's thread still sends the first run's snapshots: every picture
    of the new run is its own snapshot, and the explorer's parameters are the new run's."""
    monkeypatch.setenv("JPY_SESSION_NAME", "reader.ipynb")
    params = {"case": "two_clusters", "n_samples": 60, "max_iter": 100, "perplexity": 10.0,
              "exaggeration": 1.0}

    async def wait_for_replay(ex):
        while ex._play.disabled:
            await asyncio.sleep(0.002)

    async def cell():
        ex = mw.tsne_explorer(**params)
        assert ex.widget is not None and ex._play.disabled  # its snapshots go out on this loop
        await asyncio.sleep(0.02)

        def subshell():  # a control moved, answered on another thread with its own loop
            async def moved():
                ex._controls["perplexity"].value = 5.0
                await wait_for_replay(ex)
            asyncio.run(moved())

        other = threading.Thread(target=subshell)
        other.start()
        while other.is_alive():  # this loop keeps running (and sending) meanwhile
            await asyncio.sleep(0.001)
        other.join()
        return ex

    ex = asyncio.run(cell())
    assert ex.params["perplexity"] == 5.0 and not ex._play.disabled
    pictures = _snapshots(ex)
    for frame, picture in enumerate(pictures):
        assert picture == _core.figure_png(mw.draw_tsne(
            **{**params, "perplexity": 5.0}, frame=frame)), f"snapshot {frame}"


def test_the_static_fallback_tells_a_notebook_reader_to_run_the_cell():
    """A saved notebook reopened in JupyterLab shows the static HTML (its scripts do not run
    there) until the cell runs: the fallback says what to do."""
    html = _static.explorer_html({"title": "PCA", "note": "n"} | {"controls": []})
    assert "in a notebook, run this cell to use it" in html


# --- the live figure: kept, and only its changing artists redrawn --------------------------------
@pytest.mark.parametrize("make, moves", [
    (mw.pca_explorer, [dict(angle=5), dict(angle=135)]),
    (mw.mds_explorer, [dict(dissimilarity="cityblock"), dict(dissimilarity="geodesic")]),
    (mw.kernel_pca_explorer, [dict(gamma=0.3), dict(kernel="poly", degree=3),
                              dict(dataset="moons", kernel="linear"),
                              dict(dataset="circles", kernel="rbf"),  # its kept figure
                              dict(dataset="moons", gamma=1.0)]),
    (mw.isomap_explorer, [dict(n_neighbors=12), dict(graph="epsilon", radius=3.0)]),
    (mw.lle_explorer, [dict(n_neighbors=12), dict(n_neighbors=4, reg=1e-4)]),  # a bar < 0
    (mw.eigenmaps_explorer, [dict(t=1.0), dict(n_neighbors=20)]),
    (lambda: mw.smacof_explorer(n_samples=60, max_iter=20),
     [dict(frame=0), dict(dissimilarity="cityblock", frame=-1), dict(frame=3),
      dict(init="classical", frame=-1)]),
    (lambda: mw.autoencoder_explorer(n_samples=120),
     [dict(frame=0), dict(bottleneck=3, frame=-1), dict(frame=2)]),
    (lambda: mw.tsne_explorer(n_samples=60, max_iter=260),
     [dict(frame=0), dict(perplexity=5.0, exaggeration=1.0, frame=-1), dict(frame=3)]),
])
def test_the_kept_figure_redrawn_in_place_is_the_fresh_drawing_pixel_for_pixel(make, moves):
    """A setting reached by updating the explorer's kept figure (its changing artists drawn over
    the kept pixels of the rest) shows exactly what the drawing function draws afresh (a
    replay's snapshots too, of its run or another)."""
    ex = make()
    assert ex._live is not None
    draw_anew = getattr(ex.draw, "__wrapped__", ex.draw)  # (a replay's draws into one figure)
    for move in moves:
        ex.render(**move)
        np.testing.assert_array_equal(ex._live.rgba(**ex.params),
                                      _core.figure_rgba(draw_anew(**ex.params)))


def test_a_held_axis_label_that_would_move_makes_the_kept_figure_differ(monkeypatch):
    """The check above catches a label held where it moves: given a y label (a careless
    author labelling SMACOF's log stress axis), the label sits beside tick labels that come
    and go with the run (a run within one decade has none), so holding it leaves it where the
    first run put it, and the kept figure is no longer the fresh drawing."""
    draw = mw.mds.draw_smacof

    def labelled(**params):
        fig = draw(**params)
        fig.axes[-1].set_ylabel("raw stress")
        return fig

    monkeypatch.setattr(mw.mds, "draw_smacof", labelled)
    live = mw.mds.SmacofFigure(**{**_core.draw_defaults(draw), "n_samples": 60, "max_iter": 20})
    params = dict(live.params)
    live.rgba(**params)
    kept = live.rgba(**{**params, "init": "classical"})
    assert not np.array_equal(kept, _core.figure_rgba(labelled(**{**params, "init": "classical"})))


@pytest.mark.parametrize("draw, params", [
    (mw.draw_smacof, dict(n_samples=60, max_iter=20)),
    (mw.draw_tsne, dict(n_samples=60, max_iter=260)),
    (mw.draw_mds, dict(n_samples=60)),
])
def test_a_curve_panels_fixed_title_height_is_where_matplotlib_would_place_it(draw, params):
    """The panels drawn whole for every snapshot put their title at a fixed height
    (``TITLE_Y``) rather than measuring the axis each time: the title is where matplotlib's
    automatic placement (which clears anything above the axes) puts it."""
    fig = draw(**params)
    ax = fig.axes[-1]
    fig.canvas.draw()
    fixed = ax.title.get_window_extent().bounds
    ax._autotitlepos = True  # (matplotlib's own placement, as ``set_title`` without ``y``)
    fig.canvas.draw()
    assert ax.title.get_window_extent().bounds == fixed
    ax.xaxis.set_ticks_position("top")  # a careless panel with ticks above: the title moves
    fig.canvas.draw()
    assert ax.title.get_window_extent().y0 > fixed[1]

def test_kernel_pca_keeps_a_figure_per_data_set_and_updates_it_on_return():
    """Another data set builds a figure (other axes); coming back to a data set updates the
    figure kept for it instead of building one again (a new kernel there costs an update)."""
    ex = mw.kernel_pca_explorer(dataset="circles", n_samples=100)
    circles = ex._live
    ex.render(dataset="moons")
    moons = ex._live
    assert moons is not circles
    ex.render(dataset="circles", gamma=0.3)
    assert ex._live is circles
    ex.render(dataset="moons", gamma=0.3)
    assert ex._live is moons


def test_a_failed_update_drops_the_kept_figure_and_the_next_setting_builds_a_new_one(
        monkeypatch):
    ex = mw.pca_explorer()
    kept = ex._live

    def fail(**params):
        raise ValueError("no such setting")

    monkeypatch.setattr(kept, "update", fail)
    with pytest.raises(ValueError, match="no such setting"):
        ex.render(angle=45)
    assert ex._live is None
    ex.render(angle=50)
    assert ex._live is not kept and ex._live.params["angle"] == 50


def test_the_live_png_is_a_palette_image_close_to_the_drawing():
    from io import BytesIO

    from PIL import Image

    ex = mw.kernel_pca_explorer()
    picture = Image.open(BytesIO(ex.render(gamma=1.0)))
    assert picture.mode == "P"
    drawn = _core.figure_rgba(ex.draw(**ex.params))[..., :3].astype(int)
    error = np.abs(np.asarray(picture.convert("RGB")).astype(int) - drawn)
    assert error.mean() < 2.0 and np.percentile(error, 99) < 16


def test_isomaps_residual_variances_computed_together_are_each_columns_own():
    from mlnotes.metrics import residual_variance
    from mlnotes.widgets.neighbourhood import residual_variances

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)) + rng.uniform(0, 0.1, (60, 60))
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0)
    Z = rng.standard_normal((60, 4))
    np.testing.assert_allclose(residual_variances(D, Z),
                               [residual_variance(D, Z[:, :l]) for l in range(1, 5)],
                               rtol=1e-12, atol=1e-12)


def test_settings_drawn_on_two_threads_at_once_each_get_their_own_picture():
    """Widget messages may arrive on another thread than the cell's: the kept figure draws one
    setting at a time, so each thread gets the picture of the setting it asked for."""
    ex = mw.pca_explorer()
    angles = {0: (5, 15, 25, 35, 45, 55), 1: (10, 20, 30, 40, 50, 60)}
    got = {}

    def draw(which):
        for angle in angles[which]:
            got[angle] = ex._png({**ex.params, "angle": angle})

    threads = [threading.Thread(target=draw, args=(which,)) for which in angles]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for angle, png in got.items():
        assert png == _core.figure_png(mw.draw_pca(angle=angle)), angle


def test_text_drawn_from_kept_glyphs_is_matplotlibs_pixel_for_pixel():
    """The live figures' canvas keeps glyph bitmaps and layouts (:mod:`._glyphs`): text at
    sub-pixel positions, rotated, in several sizes, mathtext, drawn twice (the second time
    from the kept glyphs), gives matplotlib's own pixels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from mlnotes.widgets._glyphs import GlyphCanvas, glyph_cache_works

    assert glyph_cache_works()  # (this environment's matplotlib: the cache is in use)

    def pixels(canvas):
        fig = Figure(figsize=(3, 2), dpi=100)
        ax = fig.add_subplot()
        for i in range(12):
            ax.text(0.0137 * i + 0.0031, 0.081 * i, f"Wq λ{i} $x^2_{i}$ ∑é",
                    rotation=11 * i, fontsize=6 + 0.7 * i)
        ax.set_title("residual variance (2-D: 0.031)", fontsize=9.5)
        canvas(fig)
        fig.canvas.draw()
        first = np.asarray(fig.canvas.buffer_rgba()).copy()
        fig.canvas.draw()
        return first, np.asarray(fig.canvas.buffer_rgba()).copy()

    want, _ = pixels(FigureCanvasAgg)
    for got in pixels(GlyphCanvas):
        np.testing.assert_array_equal(got, want)
    assert isinstance(_core.new_figure(1, 1).canvas, GlyphCanvas)


def test_a_glyph_cache_that_draws_other_pixels_is_not_used(monkeypatch):
    """The live figures keep matplotlib's own text drawing when the glyph cache, hooked into
    matplotlib's private text path, would draw other pixels (a later matplotlib whose path
    changed meaning): :func:`._glyphs.glyph_cache_works` draws a probe both ways."""
    from mlnotes.widgets import _glyphs

    assert _glyphs.glyph_cache_works()
    draw_image = _glyphs._Recorder.draw_text_image

    def one_pixel_off(self, image, x, y, angle, gc):  # the glyphs kept one pixel too low
        draw_image(self, image, x, y + 1, angle, gc)

    _glyphs._GLYPHS.clear()
    monkeypatch.setattr(_glyphs._Recorder, "draw_text_image", one_pixel_off)
    assert not _glyphs.glyph_cache_works()
    _glyphs._GLYPHS.clear()


@pytest.mark.parametrize("kept_axis", [0, 1], ids=["x only", "y only"])
def test_the_glyph_probe_rejects_a_key_blind_to_one_sub_pixel_axis(monkeypatch, kept_axis):
    """A glyph's bitmap depends on its origin's sub-pixel offset along both axes: a cache
    keyed by one of them draws a glyph from another's bitmap, which the probe must notice
    (its text repeated a whole pixel apart along one axis, half a pixel along the other)."""
    from mlnotes.widgets import _glyphs

    subpixel = _glyphs._subpixel

    def one_axis(tx, ty):
        offsets = subpixel(tx, ty)
        return (offsets[0], 0) if kept_axis == 0 else (0, offsets[1])

    _glyphs._GLYPHS.clear()
    monkeypatch.setattr(_glyphs, "_subpixel", one_axis)
    assert not _glyphs.glyph_cache_works()
    _glyphs._GLYPHS.clear()
