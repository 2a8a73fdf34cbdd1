"""Figures shared by the chapters: data coloured by ground truth, embeddings side by side.

Also :func:`setup_notebook`, the first call of every chapter, which pins the things that make a
notebook reproduce exactly on another machine (BLAS threads, figure format and size).
"""

import os

import numpy as np

# One colour map for ground-truth coordinates everywhere in the book, and one for labels.
COORD_CMAP = "viridis"
LABEL_CMAP = "tab10"
FIG_DPI = 80  # CSS pixels per inch: the size a figure takes on the page
# Figures are rendered with this many device pixels per CSS pixel, so they stay sharp on 2x
# (retina) screens; the notebook output records the 1x size, which the book displays.
PIXEL_RATIO = 2
BLAS_THREADS_VARIABLE = "MLNOTES_BLAS_THREADS"  # overrides setup_notebook(threads=...)
_THREAD_LIMITER = None  # kept alive so the thread limit lasts for the whole session


def setup_notebook(threads=1):
    """Pin BLAS to ``threads`` thread(s) and set the book's matplotlib defaults.

    Floating-point sums in BLAS depend on how work is split among threads and on the CPU kernel
    BLAS picks; one thread keeps a notebook's own runs identical. The printed numbers that nbval
    compares are rounded to what the computation determines, so they hold under any kernel and
    thread count: ``make test`` runs the notebooks a second time under another OpenBLAS kernel with
    the environment variable ``MLNOTES_BLAS_THREADS`` (which overrides ``threads``) set to 2.

    Inline figures are drawn at ``PIXEL_RATIO`` times ``FIG_DPI`` (IPython's "retina" format) and
    shown at their ``FIG_DPI`` size: sharp on 2x screens, no larger on the page.
    """
    import matplotlib as mpl

    global _THREAD_LIMITER
    threads = int(os.environ.get(BLAS_THREADS_VARIABLE, threads))
    try:
        from threadpoolctl import threadpool_limits

        _THREAD_LIMITER = threadpool_limits(limits=threads)
    except ImportError:  # threadpoolctl ships with scikit-learn; without it, keep the default
        pass
    mpl.rcParams.update({
        "figure.dpi": FIG_DPI,
        "savefig.dpi": FIG_DPI,
        "figure.figsize": (6.4, 4.0),
        "axes.grid": False,
        "image.cmap": COORD_CMAP,
        "svg.hashsalt": "mlnotes",  # deterministic SVG ids
    })
    _use_retina_figures()


def _use_retina_figures():
    """Inline PNGs at ``PIXEL_RATIO`` x resolution; a no-op outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    if get_ipython() is None:
        return
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    # "retina" draws at 2 x figure.dpi and stores the 1x width/height in the output metadata.
    set_matplotlib_formats("retina")


def _color_and_cmap(c):
    c = np.asarray(c)
    if c.ndim == 2:
        c = c[:, 0]
    is_label = np.issubdtype(c.dtype, np.integer)
    return c, (LABEL_CMAP if is_label else COORD_CMAP)


def scatter(ax, Z, c=None, *, s=8, title=None, **kwargs):
    """Scatter a 2-D or 3-D point set on ``ax`` coloured by ``c`` (coordinates or labels).

    ``ax`` must be a 3-D axes for 3 columns (``fig.add_subplot(projection="3d")``).
    """
    Z = np.asarray(Z)
    kw = {"s": s, "linewidths": 0}
    if c is not None:
        c, cmap = _color_and_cmap(c)
        kw.update(c=c, cmap=cmap)
        if cmap == LABEL_CMAP:
            kw.update(vmin=0, vmax=9)
    kw.update(kwargs)
    if Z.shape[1] >= 3:
        art = ax.scatter(Z[:, 0], Z[:, 1], Z[:, 2], **kw)
    elif Z.shape[1] == 2:
        art = ax.scatter(Z[:, 0], Z[:, 1], **kw)
        ax.set_aspect("equal", adjustable="datalim")
    else:
        art = ax.scatter(Z[:, 0], np.zeros(len(Z)), **kw)
        ax.set_yticks([])
    if title:
        ax.set_title(title, fontsize=10)
    return art


def plot_data_and_embeddings(X, c, embeddings, *, view=(10, -70), size=3.0):
    """One row: the data in 3-D (or 2-D) and then each embedding in ``embeddings``
    (a dict title -> ``Z``), all coloured by ``c``. Returns the figure."""
    import matplotlib.pyplot as plt

    n = 1 + len(embeddings)
    fig = plt.figure(figsize=(size * n, size))
    if X.shape[1] >= 3:
        ax = fig.add_subplot(1, n, 1, projection="3d")
        ax.view_init(*view)
    else:
        ax = fig.add_subplot(1, n, 1)
    scatter(ax, X[:, :3], c, title="data")
    for i, (name, Z) in enumerate(embeddings.items(), start=2):
        scatter(fig.add_subplot(1, n, i), Z[:, :2], c, title=name)
    fig.tight_layout()
    return fig
