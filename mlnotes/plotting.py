"""Figures shared by the chapters: data coloured by ground truth, embeddings side by side.

Also :func:`setup_notebook`, the first call of every chapter, which pins the things that make a
notebook reproduce exactly on another machine (BLAS threads, figure format and size), and sets
figure defaults that stay readable on a phone.

Phone figures. A figure is shown at its own width on a laptop and shrunk to the column on a
phone (about 348 CSS pixels at a 390 px screen). Text in a figure is sized in points, so what
decides its size on a phone is the ratio of font size to figure width. ``setup_notebook`` sets
fonts of ``FONT_SIZE`` points (tick labels ``TICK_SIZE``) and renders every inline figure at most
``MAX_FIGURE_WIDTH`` inches wide: a wider figure is scaled down (aspect ratio kept, fonts kept
in points, layout redone), so its tick labels are at least ``PHONE_MIN_TEXT_PX`` pixels when the
figure fills a phone's column. A figure with smaller tick labels (3-D axes: ``TICK_SIZE_3D``)
is saved narrower (``phone_width_limit``), so they reach that size too; each saved PNG records
its smallest tick label in points (the text entry ``MIN_TICK_KEY``), which the browser tests
read. Three panels a row is the most that stays readable.
"""

import os
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ._optional import import_optional, missing_message
from ._typing import ArrayLike

if TYPE_CHECKING:  # matplotlib is an extra: imported for the annotations only
    from matplotlib.axes import Axes
    from matplotlib.collections import PathCollection
    from matplotlib.figure import Figure

# One colour map for ground-truth coordinates everywhere in the book, and one for labels.
COORD_CMAP = "viridis"
LABEL_CMAP = "tab10"
FIG_DPI = 80  # CSS pixels per inch: the size a figure takes on the page
# Figures are rendered with this many device pixels per CSS pixel, so they stay sharp on 2x
# (retina) screens; the notebook output records the 1x size, which the book displays.
PIXEL_RATIO = 2
# Text sizes (points) and the widest inline figure (inches): 12 pt at 80 dpi is 13.3 px; a figure
# shown in a 338 px phone column keeps it at 9 px if it is at most 6.25 in (500 px) wide
# (phone_width_limit).
FONT_SIZE = 12.5
TICK_SIZE = 12
SMALL_SIZE = 11  # legends
TICK_SIZE_3D = 10  # 3-D axes put three sets of tick labels in one small panel
NBINS_3D = 4
MAX_FIGURE_WIDTH = 6.25  # 500 px: 12 pt tick labels are 9 px in a 338 px phone column
DEFAULT_FIGSIZE = (6.0, 3.8)
PHONE_COLUMN_PX = 338  # the narrowest output at a 390 px screen (a folded check cell's, 342 px;
# a plain cell's is 348.5 px), measured in Chromium
TIGHT_PAD = 0.1  # inches the inline backend pads a cropped figure with (savefig.pad_inches)
TITLE_ROOM = 1.0  # an axes title may be as wide as its axes, then it wraps
FIT_PASSES = 3
TICK_GAP_PT = 4.0  # neighbouring tick labels closer than this (points) are crowded
MAX_TICK_THINNING = 4
TICK_STEPS = [1, 2, 2.5, 5, 10]  # MaxNLocator's "nice" steps
PHONE_MIN_TEXT_PX = 9
MIN_TICK_PT = PHONE_MIN_TEXT_PX * 72 / FIG_DPI  # 8.1 pt: 9 px in a figure shown at its own size
MIN_TICK_KEY = "mlnotes-min-tick-pt"  # PNG text entry: a figure's smallest tick label, in points
BLAS_THREADS_VARIABLE = "MLNOTES_BLAS_THREADS"  # overrides setup_notebook(threads=...)
_THREAD_LIMITER = None  # kept alive so the thread limit lasts for the whole session


def setup_notebook(threads: int = 1) -> None:
    """Pin BLAS to ``threads`` thread(s) and set the book's matplotlib defaults.

    Floating-point sums in BLAS depend on how work is split among threads and on the CPU kernel
    BLAS picks; one thread keeps a notebook's own runs identical. The printed numbers that nbval
    compares are rounded to what the computation determines, so they hold under any kernel and
    thread count: ``make test`` runs the notebooks a second time under another OpenBLAS kernel with
    the environment variable ``MLNOTES_BLAS_THREADS`` (which overrides ``threads``) set to 2.

    Inline figures are drawn at ``PIXEL_RATIO`` times ``FIG_DPI`` (IPython's "retina" format) and
    shown at their ``FIG_DPI`` size: sharp on 2x screens, no larger on the page. Figures wider
    than ``MAX_FIGURE_WIDTH`` inches are drawn at that width, so their text stays readable on a
    phone (see the module docstring).
    """
    mpl = import_optional("matplotlib", purpose="setup_notebook()")

    global _THREAD_LIMITER
    threads = int(os.environ.get(BLAS_THREADS_VARIABLE, threads))
    try:
        from threadpoolctl import threadpool_limits

        _THREAD_LIMITER = threadpool_limits(limits=threads)
    except ImportError:  # BLAS keeps its own thread count: say so, the numbers may differ
        warnings.warn(missing_message("threadpoolctl", f"Pinning BLAS to {threads} thread(s)")
                      + " Without it BLAS uses its default thread count, and printed numbers "
                      "may differ in the last digits.", RuntimeWarning, stacklevel=2)
    mpl.rcParams.update({
        "figure.dpi": FIG_DPI,
        "savefig.dpi": FIG_DPI,
        "figure.figsize": DEFAULT_FIGSIZE,
        "font.size": FONT_SIZE,
        "axes.titlesize": FONT_SIZE,
        "axes.labelsize": FONT_SIZE,
        "xtick.labelsize": TICK_SIZE,
        "ytick.labelsize": TICK_SIZE,
        "legend.fontsize": SMALL_SIZE,
        "legend.title_fontsize": SMALL_SIZE,
        "figure.titlesize": FONT_SIZE + 1,
        "axes.titlepad": 4.0,
        "axes.labelpad": 2.0,
        "legend.borderaxespad": 0.3,
        "axes.grid": False,
        "image.cmap": COORD_CMAP,
        "svg.hashsalt": "mlnotes",  # deterministic SVG ids
    })
    _use_retina_figures()


def fit_to_width(fig: "Figure", max_width: float = MAX_FIGURE_WIDTH) -> float:
    """Scale ``fig`` down to ``max_width`` inches if it is wider, keeping its aspect ratio.

    Fonts keep their size in points, so they grow relative to the panels; the layout is redone
    (``tight_layout``) unless the figure has a layout engine that runs when it is drawn. Returns the scale.
    """
    width, height = fig.get_size_inches()
    if width <= max_width:
        return 1.0
    scale = max_width / width
    fig.set_size_inches(width * scale, height * scale, forward=False)
    _redo_layout(fig)
    return scale


def _redo_layout(fig):
    """Lay ``fig`` out again, unless it has a layout engine that runs when it is drawn."""
    import warnings

    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    # an engine that runs at draw time (constrained, tight) redoes the layout itself; after a
    # one-off fig.tight_layout() matplotlib keeps a PlaceHolderLayoutEngine, which does not
    engine = fig.get_layout_engine()
    if engine is None or isinstance(engine, PlaceHolderLayoutEngine):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # axes tight_layout cannot place (insets, colorbars)
            fig.tight_layout()


def _tidy_3d_axes(fig):
    """Fewer and smaller tick labels on 3-D axes, whose three axes crowd one panel."""
    import warnings

    for ax in fig.axes:
        if ax.name != "3d":
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # locators without an nbins (fixed, null ticks)
            try:
                ax.locator_params(nbins=NBINS_3D)
            except (AttributeError, TypeError, ValueError):
                pass
        ax.tick_params(labelsize=TICK_SIZE_3D, pad=0)


def _math_aware_words(text):
    """``text`` split at spaces, except inside ``$...$`` (mathtext stays in one piece)."""
    words, current, in_math = [], "", False
    for char in text:
        if char == "$":
            in_math = not in_math
        if char == " " and not in_math:
            if current:
                words.append(current)
            current = ""
        else:
            current += char
    return words + ([current] if current else [])


def fit_titles(fig: "Figure") -> int:
    """Wrap each axes title wider than its axes onto more lines, so that the titles of
    neighbouring panels never run into each other. Returns how many titles were wrapped."""
    renderer = fig.canvas.get_renderer()
    wrapped = 0
    for ax in fig.axes:
        room = ax.get_window_extent(renderer).width * TITLE_ROOM
        for title in (ax.title, ax._left_title, ax._right_title):
            text = title.get_text()
            if not text or "\n" in text or title.get_window_extent(renderer).width <= room:
                continue
            words = _math_aware_words(text)
            lines, line = [], ""
            for word in words:
                trial = f"{line} {word}".strip()
                title.set_text(trial)
                if line and title.get_window_extent(renderer).width > room:
                    lines.append(line)
                    line = word
                else:
                    line = trial
            lines.append(line)
            title.set_text("\n".join(lines))
            wrapped += len(lines) > 1
    return wrapped


def thin_crowded_ticks(fig: "Figure") -> int:
    """Fewer ticks on an axis whose tick labels (drawn at the figure's final size) touch or
    overlap: a panel shrunk to the phone width keeps its labels in points, so the locator's
    choice for the wider panel may no longer fit. Returns how many axes were thinned."""
    from matplotlib.ticker import AutoLocator, MaxNLocator

    renderer = fig.canvas.get_renderer()
    thinned = 0
    for ax in fig.axes:
        if ax.name != "rectilinear":
            continue
        for axis, lo, hi in ((ax.xaxis, "x0", "x1"), (ax.yaxis, "y0", "y1")):
            locator = axis.get_major_locator()
            if not isinstance(locator, (AutoLocator, MaxNLocator)):
                continue  # ticks the author placed stay where they are
            for _ in range(MAX_TICK_THINNING):
                fig.draw_without_rendering()  # tick labels as the locator now places them
                gap = TICK_GAP_PT * fig.dpi / 72
                low, high = sorted(axis.get_view_interval())
                boxes = sorted((label.get_window_extent(renderer)
                                for loc, label in zip(axis.get_majorticklocs(),
                                                      axis.get_majorticklabels(), strict=False)
                                if low <= loc <= high and label.get_visible()
                                and label.get_text()),
                               key=lambda box, lo=lo: getattr(box, lo))
                crowded = any(getattr(b, lo) < getattr(a, hi) + gap
                              for a, b in zip(boxes[:-1], boxes[1:], strict=True))
                if not crowded or len(boxes) <= 2:
                    break
                axis.set_major_locator(MaxNLocator(nbins=len(boxes) - 2, steps=TICK_STEPS))
                thinned += 1
    return thinned


def _tight_width(fig):
    """The width (inches) of ``fig`` as the inline backend saves it: cropped to what is drawn
    (``bbox_inches="tight"``) plus its padding."""
    renderer = fig.canvas.get_renderer()
    return fig.get_tightbbox(renderer).width + 2 * TIGHT_PAD


def smallest_tick_label_pt(fig: "Figure") -> float:
    """The size (points) of the smallest tick label drawn in ``fig`` (colour bars and 3-D axes
    included; 0.0 when it has none). Tick labels are written when the figure is laid out, so
    call it after a layout (``_tight_width``)."""
    sizes = []
    for ax in fig.axes:
        if not (ax.axison or ax.name == "3d"):  # a 3-D axes draws its own axis lines
            continue
        for axis in (ax.xaxis, ax.yaxis, getattr(ax, "zaxis", None)):
            if axis is None or not axis.get_visible():
                continue
            sizes += [label.get_fontsize() for label in axis.get_ticklabels()
                      if label.get_visible() and label.get_text().strip()]
    return float(min(sizes, default=0.0))


def _raise_small_tick_labels(fig):
    """Tick labels a notebook set smaller than ``MIN_TICK_PT`` (``set_yticklabels(names,
    fontsize=8)``) are raised to it: below it they are under ``PHONE_MIN_TEXT_PX`` even where
    the figure is not shrunk. Returns whether any changed."""
    changed = False
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis, getattr(ax, "zaxis", None)):
            if axis is None:
                continue
            for label in axis.get_ticklabels(which="both"):
                if label.get_fontsize() < MIN_TICK_PT:
                    label.set_fontsize(MIN_TICK_PT)
                    changed = True
    return changed


def phone_width_limit(tick_pt: float) -> float:
    """The widest a saved figure may be (inches) so that tick labels of ``tick_pt`` points are
    ``PHONE_MIN_TEXT_PX`` pixels when it is shrunk to a phone's column (``PHONE_COLUMN_PX``); at
    most ``MAX_FIGURE_WIDTH``. 12 pt: 6.25 in; the 3-D axes' 10 pt: 5.2 in."""
    if tick_pt <= 0:
        return MAX_FIGURE_WIDTH
    return min(MAX_FIGURE_WIDTH, PHONE_COLUMN_PX * tick_pt / (72 * PHONE_MIN_TEXT_PX))


def _phone_width_png(fig, **kwargs):
    """IPython's retina PNG of ``fig``, saved at most ``MAX_FIGURE_WIDTH`` inches wide.

    The inline backend crops the figure to what is drawn, so labels and titles outside the axes
    make the saved image wider than the figure: the figure is shrunk until the saved width fits
    (a few passes, as shrinking redoes the layout). Titles wider than their panel are wrapped
    and axes whose tick labels touch get fewer ticks.
    """
    from IPython.core.pylabtools import retina_figure

    _tidy_3d_axes(fig)
    fit_to_width(fig)
    if _raise_small_tick_labels(fig):
        _redo_layout(fig)
    _tight_width(fig)  # lays the figure out: its tick labels are written
    # smaller tick labels (3-D axes, a notebook's own size) need a narrower figure on a phone
    tick_pt = smallest_tick_label_pt(fig)
    limit = phone_width_limit(tick_pt)
    fit_to_width(fig, max_width=limit)
    for _ in range(FIT_PASSES):
        if fit_titles(fig):
            _redo_layout(fig)
        if thin_crowded_ticks(fig):
            _redo_layout(fig)
        saved = _tight_width(fig)
        if saved <= limit + 0.01:
            break
        width = fig.get_size_inches()[0]
        fit_to_width(fig, max_width=width * limit / saved)
    # the smallest tick label's size goes into the PNG (a tEXt entry): the browser tests read
    # it to work out how large the tick labels are shown on a phone (points x FIG_DPI / 72 x
    # the image's shown width / its own width)
    metadata = {**kwargs.pop("metadata", {}), MIN_TICK_KEY: f"{tick_pt:.2f}"}
    return retina_figure(fig, base64=True, metadata=metadata, **kwargs)


def _use_retina_figures():
    """Inline PNGs at ``PIXEL_RATIO`` x resolution and at most ``MAX_FIGURE_WIDTH`` wide; a
    no-op outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    from matplotlib.figure import Figure
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    # "retina" draws at 2 x figure.dpi and stores the 1x width/height in the output metadata.
    set_matplotlib_formats("retina")
    shell.display_formatter.formatters["image/png"].for_type(Figure, _phone_width_png)


def _color_and_cmap(c):
    c = np.asarray(c)
    if c.ndim == 2:
        c = c[:, 0]
    is_label = np.issubdtype(c.dtype, np.integer)
    return c, (LABEL_CMAP if is_label else COORD_CMAP)


def scatter(ax: "Axes", Z: ArrayLike, c: ArrayLike | str | None = None, *, s: float = 8,
            title: str | None = None, **kwargs: Any) -> "PathCollection":
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
        ax.set_title(title)
    return art


def plot_data_and_embeddings(X: ArrayLike, c: ArrayLike | str | None, embeddings: Mapping[str, ArrayLike], *,
                             view: tuple[float, float] = (10, -70), size: float = 3.0) -> "Figure":
    """One row: the data in 3-D (or 2-D) and then each embedding in ``embeddings``
    (a dict title -> ``Z``), all coloured by ``c``. Returns the figure."""
    plt = import_optional("matplotlib.pyplot", purpose="plot_data_and_embeddings()")

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
