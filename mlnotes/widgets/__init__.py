"""Interactive explorers, one per method, that still mean something in the static book.

Each explorer is a thin ipywidgets layer over a plain drawing function of the parameters::

    ml.widgets.isomap_explorer()              # last line of a cell: the live explorer
    ml.widgets.draw_isomap(n_neighbors=12)    # the same figure, as a matplotlib Figure

``xxx_explorer(**defaults)`` takes any keyword of ``draw_xxx`` as its starting value. In
JupyterLab the explorer is live (sliders redraw the figure, cached so an update is instant); in
the saved notebook it also carries a static rendering (the figure, a sweep of its main parameter,
or a JavaScript replay of an iterative method) that the HTML book shows instead of the widget.
See :mod:`mlnotes.widgets._core` for how.

Explorers, their controls, and what the static book shows (every other keyword of
``draw_xxx`` is a fixed setting, e.g. ``n_samples``, ``random_state``):

* ``pca_explorer(angle=0.0)``: angle of the direction; the figure.
* ``mds_explorer(dissimilarity="euclidean")``: euclidean / cityblock / geodesic; the figure.
* ``smacof_explorer(dissimilarity="euclidean", init="random", max_iter=100)``: dissimilarity,
  start, replay of the iterations; a JavaScript replay.
* ``kernel_pca_explorer(gamma=3.0, dataset="circles", kernel="rbf", degree=2)``: all four;
  a sweep over gamma.
* ``isomap_explorer(n_neighbors=6, radius=4.5, graph="knn")``: all three; a sweep over k.
* ``lle_explorer(n_neighbors=10, reg=1e-3)``, ``eigenmaps_explorer(n_neighbors=10, t=10.0)``:
  both; the figure.
* ``tsne_explorer(case="two_clusters", perplexity=30.0, learning_rate=200.0,
  exaggeration=12.0, max_iter=500)``: the four, replay of the run; a JavaScript replay.
* ``autoencoder_explorer(bottleneck=1)``: bottleneck, training replayed over epochs; a
  JavaScript replay.

``kernel_pca_explorer`` and ``isomap_explorer`` also take ``sweep=`` (values of their first
control drawn one below the other in the static book; ``()`` for the single figure).
"""

from .autoencoder import autoencoder_explorer, draw_autoencoder
from .kernel_pca import draw_kernel_pca, kernel_pca_explorer
from .mds import draw_mds, draw_smacof, mds_explorer, smacof_explorer
from .neighbourhood import (
    draw_eigenmaps,
    draw_isomap,
    draw_lle,
    eigenmaps_explorer,
    isomap_explorer,
    lle_explorer,
)
from .pca import draw_pca, pca_explorer
from .tsne import draw_tsne, tsne_explorer

__all__ = [
    "draw_autoencoder", "autoencoder_explorer",
    "draw_kernel_pca", "kernel_pca_explorer",
    "draw_isomap", "isomap_explorer",
    "draw_mds", "mds_explorer",
    "draw_smacof", "smacof_explorer",
    "draw_lle", "lle_explorer",
    "draw_eigenmaps", "eigenmaps_explorer",
    "draw_pca", "pca_explorer",
    "draw_tsne", "tsne_explorer",
]
