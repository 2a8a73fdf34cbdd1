"""Interactive explorers, one per method, that still mean something in the static book.

Each explorer is a thin ipywidgets layer over a plain drawing function of the parameters::

    ml.widgets.isomap_explorer()              # last line of a cell: the live explorer
    ml.widgets.draw_isomap(n_neighbors=12)    # the same figure, as a matplotlib Figure

``xxx_explorer(**defaults)`` takes any keyword of ``draw_xxx`` as its starting value. In
JupyterLab the explorer is live (sliders redraw the figure, cached so an update is instant); in
the saved notebook it also carries a static rendering (the figure, a sweep of its main parameter,
or a JavaScript replay of an iterative method) that the HTML book shows instead of the widget.
See :mod:`mlnotes.widgets._core` for how.
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
