r"""Autoencoder explorer: a bottleneck, training replayed epoch by epoch, PCA as the yardstick.

The data are images of a rotated letter (:func:`mlnotes.datasets.make_glyph_images`): points on
a curved one-dimensional manifold in pixel space. PCA with :math:`L` components is the best
*linear* reconstruction (Eckart–Young); a nonlinear autoencoder with the same bottleneck can do
better because its code can follow the curve. Each snapshot is a training run of that many
epochs (same seed, so a shorter run is the beginning of a longer one).
"""

import contextlib
import functools

import numpy as np

from ..autoencoder import Autoencoder
from ..datasets import make_glyph_images
from ..pca import PCA
from ..plotting import scatter
from . import _static as st
from ._core import (
    LiveFigure,
    ReplayExplorer,
    Slider,
    frozen,
    new_figure,
    report_progress,
    snapshot_index,
)
from ._stream import by_gid, callback_steps, moved, streamed_run

EPOCH_SNAPSHOTS = (1, 2, 5, 10, 20, 50, 100)
BOTTLENECKS = (1, 2, 3, 4, 6, 8)
HIDDEN = (32,)
IMAGE_SIZE = 12
N_SHOWN = 8  # images shown in the mosaic


@functools.lru_cache(maxsize=4)
def glyph_data(n_samples, random_state):
    """Rotated-glyph images (N x 144) and their angles, read-only."""
    return frozen(*make_glyph_images(n_samples, size=IMAGE_SIZE, random_state=random_state))


@streamed_run(maxsize=16)
def autoencoder_runs(bottleneck, n_samples, random_state):
    r"""Train for the longest entry of :data:`EPOCH_SNAPSHOTS`, keeping the network after each
    entry's number of epochs (as a run of that length: same seed); also fit PCA with
    ``bottleneck`` components.

    Returns ``(codes, reconstructions, loss, pca_reconstruction, pca_loss)``: codes and
    reconstructions per snapshot, the loss curve of the longest run (before training and after
    each epoch), PCA's reconstruction and its loss :math:`\frac1{2N}\sum_n\|x_n-\hat x_n\|^2`.
    ``autoencoder_runs.stream(...)`` steps the training, one epoch a step, giving the snapshots
    so far (:func:`~mlnotes.widgets._stream.streamed_run`).
    """
    X, _ = glyph_data(n_samples, random_state)
    pca = PCA(n_components=bottleneck).fit(X)
    X_pca = pca.inverse_transform(pca.transform(X))
    pca_loss = 0.5 * np.sum((X - X_pca) ** 2) / len(X)

    def fit(callback):
        return Autoencoder(n_components=bottleneck, hidden_layer_sizes=HIDDEN,
                           epochs=EPOCH_SNAPSHOTS[-1], random_state=random_state,
                           callback=callback).fit(X)

    codes, recon, so_far = [], [], None
    with contextlib.closing(callback_steps(fit)) as steps:
        while True:
            try:
                epoch, ae = next(steps)
            except StopIteration as stop:
                ae = stop.value
                break
            report_progress(epoch, EPOCH_SNAPSHOTS[-1])
            if epoch in EPOCH_SNAPSHOTS:
                Z = ae.encode(X)
                codes.append(Z)
                recon.append(ae.decode(Z))
                so_far = frozen(np.array(codes), np.array(recon), np.array(ae.loss_history_),
                                X_pca, np.array(pca_loss))
            if so_far is not None:  # the same snapshots again until the next one is recorded
                yield so_far
    return frozen(np.array(codes), np.array(recon), np.array(ae.loss_history_), X_pca,
                  np.array(pca_loss))


def autoencoder_frames(*, bottleneck=1, n_samples=300, random_state=0, frame=-1):
    """Number of snapshots of :func:`draw_autoencoder` (one per entry of EPOCH_SNAPSHOTS)."""
    autoencoder_runs(int(bottleneck), n_samples, random_state)
    return len(EPOCH_SNAPSHOTS)


def autoencoder_stream(*, bottleneck=1, n_samples=300, random_state=0, frame=-1):
    """The training of :func:`draw_autoencoder` step by step, one epoch a step
    (:meth:`~mlnotes.widgets._stream.StreamedRun.stream`)."""
    return autoencoder_runs.stream(int(bottleneck), n_samples, random_state)


def _mosaic(rows):
    """Images side by side, one row of the mosaic per entry of ``rows`` (1-pixel white gaps)."""
    s = IMAGE_SIZE + 1
    out = np.full((len(rows) * s, N_SHOWN * s), np.nan)
    for r, images in enumerate(rows):
        for c, image in enumerate(images):
            out[r * s:r * s + IMAGE_SIZE, c * s:c * s + IMAGE_SIZE] = image.reshape(IMAGE_SIZE, -1)
    return out


def draw_autoencoder(*, bottleneck=1, frame=-1, n_samples=300, random_state=0):
    r"""Reconstructions of a nonlinear autoencoder and of PCA with the same bottleneck.

    Parameters
    ----------
    bottleneck : int
        Code size :math:`L` of the autoencoder and number of PCA components.
    frame : int
        Index into :data:`EPOCH_SNAPSHOTS` (training length); -1 for the longest.

    Returns
    -------
    matplotlib.figure.Figure
        Panels: a mosaic (gid ``"mosaic"``) of images (rows: data, autoencoder, PCA); the code
        (first coordinate against the rotation angle, or the first two coordinates; gid
        ``"code"``); the training loss per epoch (gid ``"loss-curve"``) with the snapshot marked
        (gid ``"loss-now"``) and PCA's loss as a dashed line (gid ``"pca-loss"``).
    """
    n = len(EPOCH_SNAPSHOTS)
    frame = snapshot_index(frame, n, of_run=False)
    X, angle = glyph_data(n_samples, random_state)
    codes, recon, loss, X_pca, pca_loss = autoencoder_runs(int(bottleneck), n_samples, random_state)
    frame %= len(codes)  # a run under way (the explorer's live pictures): its snapshots so far
    epochs = EPOCH_SNAPSHOTS[frame]
    shown = np.argsort(angle[:, 0])[np.linspace(0, n_samples - 1, N_SHOWN).astype(int)]

    fig = new_figure(10.0, 3.0)
    grid = fig.add_gridspec(1, 3, width_ratios=(1.6, 1, 1))
    ax = fig.add_subplot(grid[0])
    ax.imshow(_mosaic([X[shown], recon[frame][shown], X_pca[shown]]), cmap="gray_r",
              interpolation="nearest", gid="mosaic")
    s = IMAGE_SIZE + 1
    ax.set_yticks(np.arange(3) * s + IMAGE_SIZE / 2, ["data", "autoencoder", "PCA"])
    ax.set_xticks([])
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(f"bottleneck L = {bottleneck}, {epochs} epoch{'s' * (epochs > 1)}", fontsize=10)

    code_ax = fig.add_subplot(grid[1])
    Z = codes[frame]
    pts = np.column_stack([angle[:, 0], Z[:, 0]]) if bottleneck == 1 else Z[:, :2]
    scatter(code_ax, pts, angle, s=4, gid="code")
    code_ax.set_aspect("auto")
    code_ax.set_xticks([])
    code_ax.set_yticks([])
    code_ax.set_title("code vs angle" if bottleneck == 1 else "code (first two)", fontsize=10)

    curve = fig.add_subplot(grid[2])
    curve.plot(np.arange(len(loss)), loss, color="C0", gid="loss-curve")
    curve.plot(epochs, loss[epochs], "o", color="C3", gid="loss-now")
    curve.axhline(float(pca_loss), color="k", ls="--", lw=1, gid="pca-loss")
    curve.set(xlabel="epoch", xlim=(0, EPOCH_SNAPSHOTS[-1]), ylim=(0, 1.05 * max(loss.max(), pca_loss)))
    curve.locator_params(nbins=4)
    curve.set_title(f"loss {loss[epochs]:.3g}, PCA's (dashed) {float(pca_loss):.3g}", fontsize=10)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.16, top=0.88, wspace=0.15)
    return fig


def redraw_autoencoder(fig, *, bottleneck=1, frame=-1, n_samples=300, random_state=0):
    """Show snapshot ``frame`` in a figure :func:`draw_autoencoder` drew for a run on the same
    images (any bottleneck, ended or under way): the mosaic, the code, the loss curves and the
    titles updated (the picture :func:`draw_autoencoder` draws, without building the figure)."""
    n = len(EPOCH_SNAPSHOTS)
    frame = snapshot_index(frame, n, of_run=False)
    X, angle = glyph_data(n_samples, random_state)
    codes, recon, loss, X_pca, pca_loss = autoencoder_runs(int(bottleneck), n_samples, random_state)
    frame %= len(codes)  # a run under way: its snapshots so far
    epochs = EPOCH_SNAPSHOTS[frame]
    shown = np.argsort(angle[:, 0])[np.linspace(0, n_samples - 1, N_SHOWN).astype(int)]
    ax, code_ax, curve = fig.axes
    mosaic = by_gid(ax, "mosaic")
    mosaic.set_data(_mosaic([X[shown], recon[frame][shown], X_pca[shown]]))
    mosaic.norm.vmin = mosaic.norm.vmax = None  # scaled to the new mosaic, as when drawn anew
    mosaic.autoscale_None()
    ax.set_title(f"bottleneck L = {bottleneck}, {epochs} epoch{'s' * (epochs > 1)}", fontsize=10)
    Z = codes[frame]
    moved(code_ax, "code",
          np.column_stack([angle[:, 0], Z[:, 0]]) if bottleneck == 1 else Z[:, :2])
    code_ax.set_title("code vs angle" if bottleneck == 1 else "code (first two)", fontsize=10)
    by_gid(curve, "loss-curve").set_data(np.arange(len(loss)), loss)
    by_gid(curve, "loss-now").set_data([epochs], [loss[epochs]])
    by_gid(curve, "pca-loss").set_ydata([float(pca_loss)] * 2)
    curve.set_ylim(0, 1.05 * max(loss.max(), pca_loss))
    curve.set_title(f"loss {loss[epochs]:.3g}, PCA's (dashed) {float(pca_loss):.3g}", fontsize=10)


def _same_images(*, n_samples=300, random_state=0, **run):
    """Runs whose snapshots :func:`redraw_autoencoder` shows in one another's figure: one set
    of images (every bottleneck)."""
    return n_samples, random_state


class AutoencoderFigure(LiveFigure):
    """:func:`draw_autoencoder`'s figure, kept for every run on its images: a snapshot (any
    bottleneck, ended or under way) changes the mosaic, the code, their titles and the loss
    panel (drawn whole: a new run changes its range) (:func:`redraw_autoencoder`); the
    mosaic's labels and the code's frame stay."""

    def build(self, **params):
        self.fig = draw_autoencoder(**params)
        ax, code_ax, curve = self.fig.axes
        for artist in (by_gid(ax, "mosaic"), ax.title, by_gid(code_ax, "code"), code_ax.title,
                       curve):
            self.changing(artist)

    def update(self, **params):
        redraw_autoencoder(self.fig, **params)
        return True


def scene_autoencoder(*, bottleneck=1, frame=-1, n_samples=300, random_state=0):
    """:func:`draw_autoencoder`'s panels as data for the static book (:mod:`._static`): the
    mosaic as three images (rows), so that the data's row is shipped once."""
    frame %= len(EPOCH_SNAPSHOTS)
    X, angle = glyph_data(n_samples, random_state)
    codes, recon, loss, X_pca, pca_loss = autoencoder_runs(int(bottleneck), n_samples, random_state)
    epochs = EPOCH_SNAPSHOTS[frame]
    shown = np.argsort(angle[:, 0])[np.linspace(0, n_samples - 1, N_SHOWN).astype(int)]
    rows = [X[shown], recon[frame][shown], X_pca[shown]]
    whole = _mosaic(rows)
    vmin, vmax = np.nanmin(whole), np.nanmax(whole)  # imshow's normalisation of the mosaic
    s = IMAGE_SIZE + 1
    width = N_SHOWN * s
    mosaic = [st.grid_image(_mosaic([images])[::-1], (0, width, (2 - r) * s, (3 - r) * s),
                            cmap="gray", vmin=vmin, vmax=vmax) for r, images in enumerate(rows)]
    Z = codes[frame]
    pts = np.column_stack([angle[:, 0], Z[:, 0]]) if bottleneck == 1 else Z[:, :2]
    return st.scene("", [
        st.panel(f"bottleneck L = {bottleneck}, {epochs} epoch{'s' * (epochs > 1)}", mosaic,
                 xlim=(0, width), ylim=(0, 3 * s), equal=True, axes=False,
                 yticks=[(2 - r) * s + s / 2 for r in range(3)],
                 ytick_labels=["data", "autoencoder", "PCA"], wide=True),
        st.panel("code vs angle" if bottleneck == 1 else "code (first two)",
                 [st.points(pts, angle, size=1.6)]),
        st.panel(f"loss {loss[epochs]:.3g}, PCA's (dashed) {float(pca_loss):.3g}", [
            st.line(np.arange(len(loss)), loss), st.dot(epochs, loss[epochs]),
            st.rule("y", float(pca_loss))],
            xlim=(0, len(loss) - 1), ylim=(0, 1.05 * max(loss.max(), pca_loss)), xticks="auto",
            yticks="auto", xlabel="epoch"),
    ])


def autoencoder_explorer(**defaults):
    """Explorer over :func:`draw_autoencoder`: the bottleneck, and training replayed over the
    snapshots in :data:`EPOCH_SNAPSHOTS`."""
    return ReplayExplorer(draw_autoencoder, [Slider("bottleneck", BOTTLENECKS, "bottleneck L")],
                          defaults, n_frames=autoencoder_frames, stream=autoencoder_stream,
                          redraw=redraw_autoencoder, figure_of=_same_images,
                          scene=scene_autoencoder, live=AutoencoderFigure)
