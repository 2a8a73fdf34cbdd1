"""A new optimisation run shows itself as it goes (:mod:`mlnotes.widgets._stream`).

The explorers whose new setting is a new run (t-SNE, metric MDS, the autoencoder) show the
run's start at once and its later snapshots between chunks of the run; a control moved
meanwhile abandons the run. What a stepped run shows must be what the finished run holds: the
snapshots so far are the finished run's first snapshots, exactly.
"""

import asyncio
import contextlib
import threading

import numpy as np
import pytest

import mlnotes.widgets as mw
from mlnotes.autoencoder import Autoencoder
from mlnotes.widgets import _core, _stream
from mlnotes.widgets.autoencoder import EPOCH_SNAPSHOTS, HIDDEN, autoencoder_runs, glyph_data
from mlnotes.widgets.mds import smacof_run
from mlnotes.widgets.tsne import tsne_run

TSNE_ARGS = ("two_clusters", 7.0, 200.0, 1.0, 60, 100, 2)  # a run no other test makes


def _assert_prefix(so_far, whole):
    k = len(so_far[0])
    for part, full in zip(so_far, whole, strict=True):
        np.testing.assert_array_equal(part, full[:k])


@pytest.mark.parametrize("run, args", [
    (tsne_run, TSNE_ARGS),
    (smacof_run, ("euclidean", "random", 60, 30, 2)),
])
def test_every_step_of_a_run_is_the_start_of_the_finished_run(run, args):
    steps = list(run.stream(*args))
    whole = run(*args)
    assert len(steps) >= 3 and len(steps[0][0]) == 1  # the start is the first step
    for so_far in steps:
        _assert_prefix(so_far, whole)
    assert list(run.stream(*args)) == []  # a finished run is cached: nothing to step


def test_the_autoencoder_snapshots_are_the_runs_of_that_many_epochs():
    """One training, kept after 1, 2, 5, ... epochs, is each shorter training (same seed)."""
    X, _ = glyph_data(120, 1)
    codes, recon, loss, _, _ = autoencoder_runs(2, 120, 1)
    for frame in (0, 3):
        ae = Autoencoder(n_components=2, hidden_layer_sizes=HIDDEN, epochs=EPOCH_SNAPSHOTS[frame],
                         random_state=1).fit(X)
        np.testing.assert_array_equal(codes[frame], ae.encode(X))
        np.testing.assert_array_equal(recon[frame], ae.decode(ae.encode(X)))
        np.testing.assert_array_equal(loss[:len(ae.loss_history_)], ae.loss_history_)
    assert len(loss) == EPOCH_SNAPSHOTS[-1] + 1


def test_an_abandoned_run_stops_its_optimiser_and_is_not_cached():
    args = ("two_clusters", 10.0, 200.0, 1.0, 60, 100, 1)
    threads = threading.active_count()
    steps = tsne_run.stream(*args)
    next(steps), next(steps)
    assert threading.active_count() == threads + 1  # the optimiser waits in its thread
    steps.close()
    assert threading.active_count() == threads and args not in tsne_run._done
    with _stream.partial_results():  # no partial results left behind: the run goes to its end
        assert len(tsne_run(*args)[0]) == 11


def test_an_error_in_a_stepped_optimiser_reaches_the_caller():
    def fit(callback):
        callback(1)
        raise FloatingPointError("diverged at iteration 2")

    steps = _stream.callback_steps(fit)
    assert next(steps) == (1,)
    with pytest.raises(FloatingPointError, match="diverged at iteration 2"):
        next(steps)


def test_a_new_run_shows_its_start_at_once_and_a_control_moved_meanwhile_abandons_it(monkeypatch):
    """In a reader's kernel: the first picture of the new run is on screen when the control's
    message has been answered (the run's start), the run goes on between the kernel's
    messages, and a control moved during it starts the newer run instead."""
    monkeypatch.setenv("JPY_SESSION_NAME", "reader.ipynb")
    params = {"case": "two_clusters", "n_samples": 60, "max_iter": 100, "perplexity": 10.0,
              "exaggeration": 1.0, "learning_rate": 50.0}
    drawn = []

    async def run():
        ex = mw.tsne_explorer(**params)
        assert ex.widget is not None
        rgba = ex._rgba  # (the pictures: its kept figure updated)
        monkeypatch.setattr(ex, "_rgba", lambda p, **k: drawn.append(p) or rgba(p, **k))
        ex._controls["perplexity"].value = 5.0
        # answered: the start of the new run is on screen, the run itself is not done
        assert ex._image_widget.key == "" and ex._play.disabled  # a picture of a run under way
        assert drawn == [{**ex.params, "perplexity": 5.0, "frame": -1}]
        assert ex.params["perplexity"] == 10.0 and "running" in ex._status.value
        await asyncio.sleep(_stream.FIRST_PICTURE_PAUSE_S + 0.005)  # a chunk or two of the run
        ex._controls["perplexity"].value = 30.0  # moved during the run: that run is abandoned
        while ex._play.disabled:
            await asyncio.sleep(0.005)
        return ex

    ex = asyncio.run(run())
    abandoned = ("two_clusters", 5.0, 50.0, 1.0, 60, 100, 0)
    assert abandoned not in tsne_run._done and ex.params["perplexity"] == 30.0
    assert "first picture in" in ex._status.value and ex._progress.value == 100
    pictures = [ex._image_widget.picture(ex._snapshot_key(frame)) for frame in range(ex._run_n)]
    assert len(pictures) == 11
    for frame in (0, 10):
        assert pictures[frame] == _core.figure_png(mw.draw_tsne(
            **{**params, "perplexity": 30.0}, frame=frame))


@pytest.mark.parametrize("make", [
    lambda: mw.smacof_explorer(n_samples=60, max_iter=20, init="classical"),
    lambda: mw.autoencoder_explorer(n_samples=120, bottleneck=2),
    lambda: mw.tsne_explorer(n_samples=60, max_iter=100, exaggeration=1.0),
], ids=["smacof", "autoencoder", "tsne"])
def test_a_snapshot_drawn_into_the_last_ones_figure_is_the_snapshot_drawn_anew(make):
    """The replay updates one figure's artists from snapshot to snapshot: byte for byte the
    picture its drawing function draws (scatter limits, the mosaic's grey scale, titles)."""
    ex = make()
    params = dict(ex.params)
    n = ex.n_frames(**{k: v for k, v in params.items() if k != "frame"})
    draw_anew = ex.draw.__wrapped__
    figure = None
    for frame in [0, n - 1, 1, n // 2]:
        fig = ex.draw(**{**params, "frame": frame})
        assert figure is None or fig is figure  # the same figure, updated
        figure = fig
        assert _core.figure_png(fig) == _core.figure_png(draw_anew(**{**params, "frame": frame}))


@pytest.mark.parametrize("make, run, changes, args, snapshot", [
    (lambda: mw.smacof_explorer(n_samples=60, max_iter=20), smacof_run,
     {"dissimilarity": "cityblock", "init": "classical"}, ("cityblock", "classical", 60, 20), 1),
    (lambda: mw.autoencoder_explorer(n_samples=120), autoencoder_runs, {"bottleneck": 3},
     (3, 120), 1),
    (lambda: mw.tsne_explorer(n_samples=60, max_iter=260), tsne_run,
     {"perplexity": 5.0, "learning_rate": 50.0, "exaggeration": 1.0},
     ("two_clusters", 5.0, 50.0, 1.0, 60, 260), 3),
], ids=["smacof", "autoencoder", "tsne"])
def test_another_runs_snapshot_drawn_into_the_last_runs_figure_is_drawn_anew(make, run, changes,
                                                                            args, snapshot):
    """Metric MDS's, the autoencoder's and t-SNE's snapshots of any run on one data set (one
    case), ended or under way, are drawn into the last run's figure (``figure_of``): byte for
    byte the picture drawn anew (the curves, their range and shading, the code panel's title,
    the titles; t-SNE with and without early exaggeration), and so is the live explorer's kept
    figure of a run under way."""
    ex = make()
    base = {k: v for k, v in ex.params.items() if k != "frame"}
    draw_anew = ex.draw.__wrapped__
    figure = ex.draw(**{**base, "frame": -1})
    args = (*args, base["random_state"])
    run._done.pop(args, None)
    setting = {**base, **changes}
    with contextlib.closing(iter(run.stream(*args))) as steps:
        next(steps)
        next(steps)
        with _stream.partial_results():  # the new run under way, in the last run's figure
            fig = ex.draw(**{**setting, "frame": -1})
            assert fig is figure
            assert _core.figure_png(fig) == _core.figure_png(draw_anew(**setting, frame=-1))
            # the live explorer's kept figure (its changing artists over the rest's pixels)
            np.testing.assert_array_equal(ex._rgba({**setting, "frame": -1}, partial=True),
                                          _core.figure_rgba(draw_anew(**setting, frame=-1)))
    for frame, params in [(-1, setting), (snapshot, setting), (-1, base), (0, base)]:
        fig = ex.draw(**{**params, "frame": frame})
        assert fig is figure  # the same figure, updated
        assert _core.figure_png(fig) == _core.figure_png(draw_anew(**params, frame=frame))


def test_the_umap_explorer_shows_its_map_after_one_epoch_then_the_finished_map(monkeypatch):
    """UMAP's explorer (no replay): the map after the run's first epoch when the control's
    message has been answered, then the maps every few epochs, then the finished run's
    picture (the map the chapter's claims are about, from the cache)."""
    from mlnotes.widgets.umap import umap_run

    monkeypatch.setenv("JPY_SESSION_NAME", "reader.ipynb")
    params = {"n_samples": 150, "n_epochs": 60}

    sent = []  # the keys of the pictures put in the page during the run

    async def run():
        ex = mw.umap_explorer(**params)
        assert ex.widget is not None
        put = ex._image_widget.put
        ex._image_widget.put = lambda png, key, *fixed: sent.append(key) or put(png, key, *fixed)
        ex._controls["min_dist"].value = 0.5
        first = bytes(ex._image_widget.value)
        assert "running" in ex._status.value and ex.params["min_dist"] == 0.1
        while "running" in ex._status.value:
            await asyncio.sleep(0.005)
        return ex, first

    ex, first = asyncio.run(run())
    assert ex.params["min_dist"] == 0.5 and "first picture in" in ex._status.value
    # the run as it goes (pictures of no setting, not kept by the page: how many depends on
    # how long each took to draw), then its end, kept under its setting's key
    assert len(sent) >= 2 and set(sent[:-1]) == {""} and sent[-1], sent
    final = _core.figure_png(mw.draw_umap(**{**params, "min_dist": 0.5}))
    assert bytes(ex._image_widget.value) == final != first
    steps = list(umap_run.stream(15, 0.5, 150, 60, 1))
    assert len(steps) == 1 + 6  # after the first epoch, then every 10
    np.testing.assert_array_equal(steps[-1][0], umap_run(15, 0.5, 150, 60, 1)[0])
    # the run's first picture (its kept figure updated, not a new one) is the map after one
    # epoch as the drawing function draws it afresh
    run = (15, 0.5, 150, 60, ex.params["random_state"])
    del umap_run._done[run]
    with contextlib.closing(iter(umap_run.stream(*run))) as again:
        next(again)
        with _stream.partial_results():
            assert first == _core.figure_png(mw.draw_umap(**{**ex.params, "min_dist": 0.5}))




@pytest.mark.parametrize("n_samples", [150, 400])
def test_the_umap_titles_kept_share_is_the_10nn_preservation_of_its_digits(n_samples):
    """The title's score, with the digits' neighbours found once per data size, is the share
    of each digit's 10 nearest digits among its 10 nearest in the map (scikit-learn's
    neighbours; a map that keeps no order scores near chance, one equal to the data's first
    coordinates scores its own value)."""
    from sklearn.neighbors import NearestNeighbors

    from mlnotes.widgets.umap import K_KEPT, digits_data, kept_share

    X, _ = digits_data(n_samples)
    rng = np.random.default_rng(0)
    for Z in (rng.normal(size=(n_samples, 2)), X[:, 20:22] + 1e-6 * rng.normal(size=(n_samples, 2))):
        in_X = NearestNeighbors(n_neighbors=K_KEPT + 1).fit(X).kneighbors(X)[1][:, 1:]
        in_Z = NearestNeighbors(n_neighbors=K_KEPT + 1).fit(Z).kneighbors(Z)[1][:, 1:]
        want = np.mean([len(set(a) & set(b)) / K_KEPT for a, b in zip(in_X, in_Z, strict=True)])
        assert kept_share(n_samples, Z) == pytest.approx(want, abs=0.01)
