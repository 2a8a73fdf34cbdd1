"""The autoencoder chapter's "things to try" with its explorer, checked on the explorer's runs.

The chapter (book/autoencoders.ipynb, section Explore) calls ``autoencoder_explorer()``: images
of a rotated letter, a bottleneck slider and a replay of training. The runs are the cached ones
the explorer draws (:func:`mlnotes.widgets.autoencoder.autoencoder_runs`). Training is chaotic
(its last digits change with the BLAS kernel), so the sentences, and the tests, use margins.
"""

import json

import numpy as np

from mlnotes import PCA
from mlnotes.widgets._core import draw_defaults
from mlnotes.widgets.autoencoder import (
    BOTTLENECKS,
    autoencoder_runs,
    draw_autoencoder,
    glyph_data,
)

from browser_support import ROOT


def _pca_loss(n_components):
    """PCA's loss with that many components, as the explorer computes it (no training)."""
    d = draw_defaults(draw_autoencoder)
    X, _ = glyph_data(d["n_samples"], d["random_state"])
    pca = PCA(n_components=n_components).fit(X)
    return 0.5 * np.sum((X - pca.inverse_transform(pca.transform(X))) ** 2) / len(X)


def _runs(bottleneck):
    d = draw_defaults(draw_autoencoder)
    _, _, loss, _, pca_loss = autoencoder_runs(bottleneck, d["n_samples"], d["random_state"])
    return loss, float(pca_loss)


def test_the_chapter_calls_the_explorer_these_claims_are_about():
    cells = json.loads((ROOT / "book" / "autoencoders.ipynb").read_text(encoding="utf-8"))["cells"]
    calls = ["".join(c["source"]) for c in cells
             if c["cell_type"] == "code" and "autoencoder_explorer(" in "".join(c["source"])]
    assert calls == ["ml.widgets.autoencoder_explorer()"]
    assert draw_defaults(draw_autoencoder)["bottleneck"] == 1


def test_replay_crosses_pcas_line_between_epochs_5_and_20_and_ends_far_below():
    """"replay the default, a bottleneck of one number: the loss crosses PCA's dashed line
    between epochs 5 and 20, and after 100 epochs it is over ten times lower"."""
    loss, pca = _runs(1)
    assert loss[5] > 0.9 * pca and loss[20] < 0.5 * pca
    assert loss[-1] < pca / 10


def test_pca_needs_about_eight_components_to_match_one_number():
    """"PCA needs about eight components to come close to what the autoencoder does with one
    number"."""
    assert {4, 8} <= set(BOTTLENECKS)
    ae_1 = _runs(1)[0][-1]
    assert _pca_loss(1) == _runs(1)[1]
    assert _pca_loss(4) > 2 * ae_1  # four components: still far worse
    assert _pca_loss(8) < 1.6 * ae_1  # eight: close (training moves ae_1 a little)
