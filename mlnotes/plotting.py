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
is saved narrower (``phone_width_limit``), so they reach that size too; legend text is raised
to the size that reaches it at the width the figure is saved at (``legend_pt_for_width``: 12 pt
at ``MAX_FIGURE_WIDTH``, less for a narrower figure). Every other text a reader must read (titles,
axis and colour-bar labels, point labels, annotations, panel letters, the figure's own texts:
``readable_texts``) must reach that size too, and the formatter warns
(:class:`FigureTextOverlap`) when one does not: the notebook sets it larger, labels fewer
points or draws the figure narrower (such text is not raised for it, which would move labels
placed for the layout). Each saved PNG records its smallest text in points (the text entry
``MIN_TICK_KEY``), which the browser tests read. Three panels a row is the most that stays
readable.

Layout. When the formatter shrinks a figure it lays it out again as its author did: a
constrained layout runs itself with its own settings, and a one-off ``fig.tight_layout(rect=...,
pad=...)`` is repeated with the same arguments (``setup_notebook`` makes ``Figure.tight_layout``
remember them), so room reserved for a legend below the panels stays reserved.

Colliding text. After fitting a figure, the PNG formatter thins any crowded axis (3-D axes' and
colour bars' included) and gives flattened fixed-aspect panels more height; text that still
overlaps other text (tick labels, titles, axis labels, point labels, a legend's frame), a point
label over a marker or crossed by a plotted line (a curve, an error bar), a legend over plotted
data and a title wrapped onto more than ``MAX_TITLE_LINES`` lines (a panel too narrow: a wide
row shrunk to a phone's width) raise :class:`FigureTextOverlap`, which shows in the chapter's
output (``find_text_overlaps``, ``find_covering_legends`` and ``find_cramped_titles`` list
them; a hygiene test keeps every chapter free of it).
"""

import functools
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
OVERLAP_TOLERANCE_PT = 1.0  # texts overlapping by less (text boxes carry some padding) do not collide
MAX_HEIGHT_GROWTH = 1.6  # a figure with flattened fixed-aspect panels may grow this much taller
MAX_OVERLAPS_NAMED = 3  # pairs of colliding texts a warning names
MAX_TITLE_LINES = 3  # a panel title wrapped onto more lines: the panel is too narrow
LEGEND_COVER_MAX = 0.02  # a legend may sit over at most this fraction of one plotted series
LINE_SAMPLE_PT = 2.0  # a line without markers is checked at points this far apart along it
TICK_STEPS = [1, 2, 2.5, 5, 10]  # MaxNLocator's "nice" steps
PHONE_MIN_TEXT_PX = 9
MIN_TICK_PT = PHONE_MIN_TEXT_PX * 72 / FIG_DPI  # 8.1 pt: 9 px in a figure shown at its own size
# PNG text entry: the size (points) of a figure's smallest text a reader must read (readable_texts;
# the name dates from when tick labels were all it measured)
MIN_TICK_KEY = "mlnotes-min-tick-pt"
# the keyword arguments of a figure's last fig.tight_layout(...) call (rect, pad): see _redo_layout
TIGHT_LAYOUT_ATTRIBUTE = "_mlnotes_tight_layout"
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
    # every colliding figure warns, not only the first with a given message
    warnings.simplefilter("always", FigureTextOverlap)
    _record_tight_layout_settings()
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
    """Lay ``fig`` out again, unless it has a layout engine that runs when it is drawn.

    The pass keeps what the figure's author asked for: the ``rect``, ``pad``, ``h_pad`` and
    ``w_pad`` of the figure's last ``fig.tight_layout(...)`` call (recorded by
    :func:`_record_tight_layout_settings`; room a notebook reserved for a legend below the panels
    stays reserved), and a constrained or tight layout engine's own settings (it lays the figure
    out at draw time, so it is left alone)."""
    import warnings

    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    # an engine that runs at draw time (constrained, tight) redoes the layout itself; after a
    # one-off fig.tight_layout() matplotlib keeps a PlaceHolderLayoutEngine, which does not
    engine = fig.get_layout_engine()
    if engine is None or isinstance(engine, PlaceHolderLayoutEngine):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # axes tight_layout cannot place (insets, colorbars)
            fig.tight_layout(**getattr(fig, TIGHT_LAYOUT_ATTRIBUTE, {}))


def _record_tight_layout_settings():
    """Make ``Figure.tight_layout`` remember its keyword arguments on the figure (the attribute
    ``TIGHT_LAYOUT_ATTRIBUTE``), so that the formatter's layout pass (:func:`_redo_layout`) lays
    a shrunk figure out as its author did: matplotlib forgets them once the one-off layout is
    done. The method still does what it did; wrapped once however often this is called."""
    from matplotlib.figure import Figure

    original = Figure.tight_layout
    if getattr(original, "_mlnotes_records_settings", False):
        return

    @functools.wraps(original)
    def tight_layout(self, **kwargs):
        original(self, **kwargs)
        setattr(self, TIGHT_LAYOUT_ATTRIBUTE, dict(kwargs))

    tight_layout._mlnotes_records_settings = True
    Figure.tight_layout = tight_layout


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


class FigureTextOverlap(UserWarning):
    """Two texts of a saved figure overlap (tick labels, titles, axis labels, colour bar labels,
    point labels), a point label hides a marker or a plotted line crosses it, or a legend hides
    plotted data: the figure needs more room (``figsize``, fewer panels a row), fewer ticks or
    labels, labels moved off their points and lines, or its legend outside the data."""


def _drawn_ticks(axis):
    """The ticks ``axis`` drew at its last draw (within its view interval), major and minor.

    Read without ``Axis._update_ticks``, which would move a 3-D axis' labels back to 2-D places.
    """
    low, high = sorted(axis.get_view_interval())
    eps = 1e-10 * max(abs(high - low), 1e-300)
    drawn = []
    for locs, ticks in ((axis.get_majorticklocs(), axis.get_major_ticks),
                        (axis.get_minorticklocs(), axis.get_minor_ticks)):
        drawn += [tick for loc, tick in zip(locs, ticks(len(locs)), strict=True)
                  if low - eps <= loc <= high + eps]
    return drawn


def _tick_label_texts(axis):
    """The visible, non-empty tick labels ``axis`` draws."""
    return [label for tick in _drawn_ticks(axis) for label in (tick.label1, tick.label2)
            if label.get_visible() and label.get_text().strip()]


def _axes_axes(ax):
    """The axes' x, y (and z, on a 3-D axes) axis with its letter, if it is drawn."""
    if not (ax.axison or ax.name == "3d"):
        return []
    return [(letter, axis) for letter, axis in (("x", ax.xaxis), ("y", ax.yaxis),
                                                ("z", getattr(ax, "zaxis", None)))
            if axis is not None and axis.get_visible()]


def _panel_name(fig, ax):
    """A reader's name for ``ax``: its number and title, or "colour bar"."""
    if hasattr(ax, "_colorbar"):
        return "the colour bar"
    title = ax.get_title().replace("\n", " ")
    number = [a for a in fig.axes if not hasattr(a, "_colorbar")].index(ax) + 1
    return f"panel {number}" + (f" ({title!r})" if title else "")


def _point_labels(ax):
    """The visible, non-empty texts an author placed on ``ax`` (``ax.text``, ``ax.annotate``;
    on a 3-D axes, texts at 3-D points, boxed where they are drawn by :func:`_text_extents`)."""
    return [text for text in ax.texts if text.get_visible() and text.get_text().strip()]


def _text_extents(text, renderer):
    """(x0, y0, x1, y1) of ``text`` in display pixels as last drawn (an annotation's text, its
    leader line left out: a thin line does not hide a marker). A text on a 3-D axes
    holds its 3-D position between draws and is drawn at its projection, with the axes'
    projection of the last draw: its box is taken there."""
    from matplotlib.text import Annotation, Text

    if isinstance(text, Annotation):  # its text, not a leader line's box (a thin line)
        return Text.get_window_extent(text, renderer).extents
    if not hasattr(text, "get_position_3d"):
        return text.get_window_extent(renderer).extents
    from mpl_toolkits.mplot3d import proj3d

    x, y, z = text.get_position_3d()
    xs, ys, _ = proj3d.proj_transform(x, y, z, text.axes.M)
    text.set_position((xs, ys))  # (what drawing it does, for the draw)
    try:
        return text.get_window_extent(renderer).extents
    finally:
        text.set_position_3d((x, y, z))


def figure_texts(fig: "Figure") -> list[tuple[str, "Axes | None", Any]]:
    """The texts of ``fig`` that must not overlap: each axes' titles, axis labels, drawn tick
    labels (3-D axes and colour bars included) and the labels an author placed (``ax.text``,
    ``ax.annotate``), and the figure's own texts, suptitle and super labels.

    Returns (description, owning axes or None, Text) triples. Positions are those of the last
    draw: lay the figure out first (``fig.draw_without_rendering()``).
    """
    texts = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        name = _panel_name(fig, ax)
        for title in (ax.title, ax._left_title, ax._right_title):
            if title.get_visible() and title.get_text().strip():
                texts.append((f"the title of {name}", ax, title))
        for letter, axis in _axes_axes(ax):
            if axis.label.get_visible() and axis.label.get_text().strip():
                texts.append((f"the {letter} label {axis.label.get_text()!r} of {name}", ax,
                               axis.label))
            texts += [(f"the {letter} tick label {label.get_text()!r} of {name}", ax, label)
                      for label in _tick_label_texts(axis)]
        texts += [(f"the label {text.get_text()!r} of {name}", ax, text)
                  for text in _point_labels(ax)]
    named = {}
    for attribute in ("_suptitle", "_supxlabel", "_supylabel"):
        text = getattr(fig, attribute, None)
        if text is not None:
            named[id(text)] = f"the figure's {attribute.strip('_')} {text.get_text()!r}"
    # fig.texts holds the suptitle and super labels too
    texts += [(named.get(id(text), f"the figure's text {text.get_text()!r}"), None, text)
              for text in fig.texts if text.get_visible() and text.get_text().strip()]
    return texts


def find_text_overlaps(fig: "Figure", *, tolerance_pt: float = OVERLAP_TOLERANCE_PT,
                       draw: bool = True) -> list[tuple[str, str]]:
    """Pairs of texts of ``fig`` whose bounding boxes overlap, by more than ``tolerance_pt``
    points in both directions, as drawn at the figure's size (see :func:`figure_texts`; a
    legend's frame counts as one text), and
    point labels (``ax.text``, ``ax.annotate``) whose box covers a marker of their axes (their
    own point's or another's, a marker taken as the square of its size; see :func:`data_marks`)
    or that a plotted line crosses (:func:`data_segments`: curves, error bars; an annotation's
    own leader line is not one).

    Text keeps its size in points when a figure is scaled, so whether two texts overlap does not
    depend on the scale it is shown at; whether a label covers a point does. One layout pass
    (``draw=False``: the last draw's) and bounding boxes only. Returns (description,
    description) pairs, in the figure's order.
    """
    if draw:
        fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    texts = figure_texts(fig)
    legends = _visible_legends(fig)
    if not texts:
        return []
    boxes = np.array([_text_extents(text, renderer) for _, _, text in texts])
    # a legend's frame is a text too (its entries and title are inside it): a legend placed
    # outside the panels may run over tick or axis labels, another legend or a title
    frames = [legend.get_frame().get_window_extent(renderer).extents for _, legend, _ in legends]
    every = np.vstack([boxes, *frames]) if frames else boxes
    names = [name for name, _, _ in texts] + [name for name, _, _ in legends]
    tol = tolerance_pt * fig.dpi / 72
    x0, y0, x1, y1 = (every[:, i] for i in range(4))
    # two boxes overlap when they overlap along x AND along y
    along_x = np.minimum(x1[:, None], x1[None, :]) - np.maximum(x0[:, None], x0[None, :]) > tol
    along_y = np.minimum(y1[:, None], y1[None, :]) - np.maximum(y0[:, None], y0[None, :]) > tol
    first, second = np.nonzero(np.triu(along_x & along_y, k=1))
    pairs = [(names[i], names[j]) for i, j in zip(first, second, strict=True)]
    return pairs + _labels_over_markers(fig, texts, boxes, tol)


def _visible_legends(fig):
    """The visible legends of ``fig``, its axes' and its own, as (description, Legend, the axes
    it keys)."""
    legends = [(f"the legend of {_panel_name(fig, ax)}", ax.get_legend(), [ax])
               for ax in fig.axes if ax.get_visible()]
    legends += [("the figure's legend", legend, fig.axes) for legend in fig.legends]
    return [(name, legend, axes) for name, legend, axes in legends
            if legend is not None and legend.get_visible()]


def _in_view(ax, points):
    """Which of ``points`` (display coordinates) lie inside the drawn area of ``ax``."""
    box = ax.get_window_extent()
    return (np.isfinite(points).all(axis=1) & (points[:, 0] >= box.x0) & (points[:, 0] <= box.x1)
            & (points[:, 1] >= box.y0) & (points[:, 1] <= box.y1))


def _series_name(kind, artist):
    label = artist.get_label()
    return f"{kind} {label!r}" if label and not label.startswith("_") else kind


def data_marks(ax: "Axes", *, lines: bool = True,
               projected: bool = False) -> list[tuple[str, Any, Any]]:
    """The plotted data of a 2-D ``ax`` as drawn at its last draw, one entry a series.

    Scatter points (their offsets) and the vertices of lines that have markers are marks with a
    size; a line without markers is sampled every ``LINE_SAMPLE_PT`` points along its length
    (size 0). Lines and points placed in axes coordinates (``axhline``, ``axvline``, guides) are
    not data; nor is anything on a 3-D axes (an empty list), unless ``projected``.

    Parameters
    ----------
    ax : matplotlib Axes
        Laid out (``fig.draw_without_rendering()``): positions are those of the last draw.
    lines : bool, default True
        False leaves out lines without markers (a label may sit over a line, not over a point).
    projected : bool, default False
        On a 3-D axes, its scatter points where the last draw projected them (a 3-D scatter
        holds its projected offsets between draws; its lines are left out).

    Returns
    -------
    marks : list of (str, ndarray of shape (n, 2), ndarray of shape (n,))
        Per series: its description ("the points 'label'"), the display coordinates (pixels) of
        its marks inside the axes, and their half-widths in pixels.
    """
    from matplotlib.collections import PathCollection

    if (ax.name == "3d" and not projected) or not ax.get_visible():
        return []
    scale = ax.figure.dpi / 72
    marks = []
    for collection in ax.collections:
        if (not isinstance(collection, PathCollection) or not collection.get_visible()
                or collection.get_offset_transform() != ax.transData):
            continue
        points = ax.transData.transform(np.asarray(collection.get_offsets(), dtype=float))
        sizes = np.sqrt(np.broadcast_to(collection.get_sizes(), (len(points),))) * scale / 2
        keep = _in_view(ax, points)
        marks.append((_series_name("the points", collection), points[keep], sizes[keep]))
    for line in ax.lines if ax.name != "3d" else []:
        if not line.get_visible() or line.get_transform() != ax.transData:
            continue
        points = ax.transData.transform(np.asarray(line.get_xydata(), dtype=float))
        if line.get_marker() not in (None, "", "None", " ", "none"):
            sizes = np.full(len(points), line.get_markersize() * scale / 2)
        elif lines and line.get_linestyle() not in ("None", "", " ", "none"):
            # points every LINE_SAMPLE_PT along each segment (a segment with a NaN end is not drawn)
            step = LINE_SAMPLE_PT * scale
            start, end = points[:-1], points[1:]
            counts = np.ceil(np.nan_to_num(np.hypot(*(end - start).T)) / step).astype(int) + 1
            counts[~np.isfinite(start).all(axis=1) | ~np.isfinite(end).all(axis=1)] = 0
            owner = np.repeat(np.arange(len(start)), counts)
            # 0, 1/(n-1), ..., 1 along each segment of n samples
            first = np.repeat(np.cumsum(counts) - counts, counts)
            fractions = (np.arange(len(owner)) - first) / np.maximum(counts[owner] - 1, 1)
            points = start[owner] + fractions[:, None] * (end - start)[owner]
            sizes = np.zeros(len(points))
        else:
            continue
        keep = _in_view(ax, points)
        marks.append((_series_name("the line", line), points[keep], sizes[keep]))
    return [mark for mark in marks if len(mark[1])]


def data_segments(ax: "Axes") -> list[tuple[str, Any]]:
    """The straight pieces of the lines plotted on a 2-D ``ax``, in display pixels as drawn at
    its last draw, one entry a series: lines with a line style (``ax.plot``: curves, the
    segments between markers) and line collections (``ax.errorbar``'s bars, ``ax.vlines``,
    ``ax.hlines``, ``LineCollection``), in data coordinates. Guides placed in axes coordinates
    (``axhline``, ``axvline``) are not data; a 3-D axes has none (an empty list).

    Returns
    -------
    segments : list of (str, ndarray of shape (n, 2, 2))
        Per series: its description ("the line 'label'") and its segments' two ends (pixels);
        a segment with an end that is not finite (a gap in the line) is left out.
    """
    from matplotlib.collections import LineCollection

    if ax.name == "3d" or not ax.get_visible():
        return []
    found = []
    for line in ax.lines:
        if (not line.get_visible() or line.get_transform() != ax.transData
                or line.get_linestyle() in ("None", "", " ", "none")):
            continue
        points = ax.transData.transform(np.asarray(line.get_xydata(), dtype=float))
        found.append((_series_name("the line", line), np.stack([points[:-1], points[1:]], axis=1)))
    for collection in ax.collections:
        if (not isinstance(collection, LineCollection) or not collection.get_visible()
                or collection.get_transform() != ax.transData):
            continue
        pieces = [np.stack([ends[:-1], ends[1:]], axis=1)
                  for ends in (ax.transData.transform(np.asarray(segment, dtype=float))
                               for segment in collection.get_segments()) if len(ends) > 1]
        if pieces:
            found.append((_series_name("the lines", collection), np.concatenate(pieces)))
    found = [(name, segments[np.isfinite(segments).all(axis=(1, 2))]) for name, segments in found]
    return [(name, segments) for name, segments in found if len(segments)]


def segment_lengths_in_box(segments: Any, box: Any) -> Any:
    """The length (pixels) of each segment (rows of ``segments``, shape (n, 2, 2)) inside
    ``box`` (x0, y0, x1, y1): each segment clipped to the box (Liang-Barsky)."""
    segments = np.asarray(segments, dtype=float).reshape(-1, 2, 2)
    start, delta = segments[:, 0], segments[:, 1] - segments[:, 0]
    enter, leave = np.zeros(len(segments)), np.ones(len(segments))
    for axis in (0, 1):
        low, high = box[axis], box[axis + 2]
        along = delta[:, axis]
        flat = along == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            first = (low - start[:, axis]) / along
            second = (high - start[:, axis]) / along
        # a segment parallel to this side is inside along it throughout, or nowhere
        within = (start[:, axis] >= low) & (start[:, axis] <= high)
        enter = np.maximum(enter, np.where(flat, np.where(within, 0.0, np.inf),
                                           np.minimum(first, second)))
        leave = np.minimum(leave, np.where(flat, np.where(within, 1.0, -np.inf),
                                           np.maximum(first, second)))
    return np.clip(leave - enter, 0.0, None) * np.hypot(delta[:, 0], delta[:, 1])


def _labels_over_markers(fig, texts, boxes, tol):
    """(label, markers or line) pairs: a point label whose box covers a marker of its axes (its
    own point's or another's) by more than ``tol`` pixels both ways, or that a plotted line
    (:func:`data_segments`) crosses more than ``tol`` pixels inside its edges."""
    pairs = []
    marks: dict = {}  # the marks and lines of each axes with point labels, found once
    for (description, ax, text), (x0, y0, x1, y1) in zip(texts, boxes, strict=True):
        if ax is None or text not in ax.texts:
            continue
        if ax not in marks:
            marks[ax] = (data_marks(ax, lines=False, projected=True), data_segments(ax))
        for series, points, half in marks[ax][0]:
            hidden = ((np.minimum(x1, points[:, 0] + half) - np.maximum(x0, points[:, 0] - half) > tol)
                      & (np.minimum(y1, points[:, 1] + half) - np.maximum(y0, points[:, 1] - half) > tol))
            if hidden.any():
                count = int(hidden.sum())
                pairs.append((description, f"{count} marker{'s' * (count > 1)} of {series} of "
                              f"{_panel_name(fig, ax)}"))
        inner = (x0 + tol, y0 + tol, x1 - tol, y1 - tol)
        pairs += [(description, f"{series} of {_panel_name(fig, ax)}")
                  for series, segments in marks[ax][1]
                  if inner[0] < inner[2] and inner[1] < inner[3]
                  and segment_lengths_in_box(segments, inner).sum() > tol]
    return pairs


def find_covering_legends(fig: "Figure", *, max_fraction: float = LEGEND_COVER_MAX,
                          draw: bool = True) -> list[tuple[str, str, float]]:
    """Legends of ``fig`` that hide plotted data, as drawn at the figure's size.

    A legend (an axes' or the figure's) covers a series of a 2-D axes when more than
    ``max_fraction`` of the series' marks (scatter points, markers, or samples along a line;
    see :func:`data_marks`) have their centre inside the legend's frame. ``loc="best"`` picks the
    least-covering place, which may still cover: such a legend belongs outside the axes
    (``fig.legend(loc="outside lower center")`` with ``layout="constrained"``, or
    ``bbox_to_anchor``), or smaller.

    Parameters
    ----------
    fig : matplotlib Figure
    max_fraction : float, default ``LEGEND_COVER_MAX`` (0.02)
        The share of one series a legend may cover.
    draw : bool, default True
        Lay the figure out first; False uses the last draw's positions.

    Returns
    -------
    covering : list of (str, str, float)
        (legend, series, share of the series under it), in the figure's order.
    """
    if draw:
        fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    found = []
    for name, legend, axes in _visible_legends(fig):
        # the frame as last drawn: the legend's own extent would search loc="best" again
        x0, y0, x1, y1 = legend.get_frame().get_window_extent(renderer).extents
        for ax in axes:
            for series, points, _ in data_marks(ax):
                under = ((points[:, 0] > x0) & (points[:, 0] < x1)
                         & (points[:, 1] > y0) & (points[:, 1] < y1))
                fraction = float(under.mean())
                if fraction > max_fraction:
                    found.append((name, f"{series} of {_panel_name(fig, ax)}", fraction))
    return found


def find_cramped_titles(fig: "Figure", *, max_lines: int = MAX_TITLE_LINES) -> list[str]:
    """The axes titles of ``fig`` set on more than ``max_lines`` lines (:func:`fit_titles` wraps
    a title to its panel's width): a sign that the panel is too narrow for its contents, as when
    a wide row of panels is shrunk to a phone's width. Returns their descriptions."""
    return [f"the title of {_panel_name(fig, ax)} ({title.get_text().count(chr(10)) + 1} lines)"
            for ax in fig.axes if ax.get_visible()
            for title in (ax.title, ax._left_title, ax._right_title)
            if title.get_visible() and title.get_text().count("\n") + 1 > max_lines]


def warn_text_overlaps(fig: "Figure", *, draw: bool = True) -> list[tuple[str, str]]:
    """Warn (:class:`FigureTextOverlap`) if texts of ``fig`` overlap or hide markers
    (:func:`find_text_overlaps`), a legend hides data (:func:`find_covering_legends`), or a
    panel is too narrow for its title (:func:`find_cramped_titles`); returns the pairs."""
    cramped = find_cramped_titles(fig)
    if cramped:
        warnings.warn(f"A panel is too narrow for its title: {'; '.join(cramped)}. Give the "
                      "figure fewer panels a row (stack them: the phone's width is the limit) "
                      "or shorter titles.", FigureTextOverlap, stacklevel=2)
    pairs = find_text_overlaps(fig, draw=draw)
    if pairs:
        shown = "; ".join(f"{a} overlaps {b}" for a, b in pairs[:MAX_OVERLAPS_NAMED])
        more = (f" (and {len(pairs) - MAX_OVERLAPS_NAMED} more pairs)"
                if len(pairs) > MAX_OVERLAPS_NAMED else "")
        warnings.warn(f"Text collides in this figure: {shown}{more}. Give the figure more room "
                      "(a larger figsize, two rows instead of three columns), fewer ticks or "
                      "labels, or move the labels off the points and lines.", FigureTextOverlap, stacklevel=2)
    covering = find_covering_legends(fig, draw=False)
    if covering:
        shown = "; ".join(f"{legend} hides {fraction:.0%} of {series}"
                          for legend, series, fraction in covering[:MAX_OVERLAPS_NAMED])
        warnings.warn(f"A legend covers data in this figure: {shown}. Place it outside the axes "
                      "(bbox_to_anchor) or below the panels, or make it smaller; loc='best' "
                      "still covers here.", FigureTextOverlap, stacklevel=2)
        pairs = pairs + [(legend, series) for legend, series, _ in covering]
    return pairs


def _crowded(boxes, gap):
    """Whether any two of ``boxes`` (x0, y0, x1, y1 rows) come closer than ``gap`` pixels in
    both directions."""
    if len(boxes) < 2:
        return False
    x0, y0, x1, y1 = (boxes[:, i] for i in range(4))
    along_x = np.minimum(x1[:, None], x1[None, :]) - np.maximum(x0[:, None], x0[None, :]) > -gap
    along_y = np.minimum(y1[:, None], y1[None, :]) - np.maximum(y0[:, None], y0[None, :]) > -gap
    return bool(np.triu(along_x & along_y, k=1).any())


def _thinner_locator(axis, n_labels):
    """A locator with fewer ticks than ``axis`` draws now (``n_labels`` labels), or None where
    thinning is not safe: ticks an author named (fixed labels, a function's) stay."""
    from matplotlib.ticker import AutoLocator, FixedFormatter, FixedLocator, FuncFormatter, MaxNLocator

    locator = axis.get_major_locator()
    if isinstance(locator, (AutoLocator, MaxNLocator)):
        nbins = max(n_labels // 2, 1)  # MaxNLocator keeps two ticks in view unless told one will do
        return MaxNLocator(nbins=nbins, steps=TICK_STEPS, min_n_ticks=1 if nbins == 1 else 2)
    if (isinstance(locator, FixedLocator)
            and not isinstance(axis.get_major_formatter(), (FixedFormatter, FuncFormatter))):
        locs = np.asarray(locator.locs)
        if len(locs) > 2:  # numbers the author placed: every other one, the first kept
            return FixedLocator(locs[::2])
    return None


def thin_crowded_ticks(fig: "Figure") -> int:
    """Fewer ticks on an axis whose tick labels (drawn at the figure's final size) touch or
    overlap: a panel shrunk to the phone width keeps its labels in points, so the locator's
    choice for the wider panel may no longer fit. Any axis, 3-D axes' and colour bars' included;
    automatic ticks are re-chosen, numeric ticks an author placed keep every other one, named
    ticks stay. Returns how many axes were thinned."""
    renderer = fig.canvas.get_renderer()
    gap = TICK_GAP_PT * fig.dpi / 72
    thinned, done = 0, set()
    for _ in range(MAX_TICK_THINNING):  # one layout a round, every crowded axis thinned in it
        fig.draw_without_rendering()  # tick labels as the locators now place them
        changed = False
        for ax in fig.axes:
            for _, axis in _axes_axes(ax):
                if axis in done:
                    continue
                labels = _tick_label_texts(axis)
                boxes = np.array([label.get_window_extent(renderer).extents
                                  for label in labels]).reshape(-1, 4)
                # down to two labels while crowded; two labels only go if they overlap
                locator = (_thinner_locator(axis, len(labels))
                           if len(boxes) >= 2 and _crowded(boxes, gap if len(boxes) > 2 else 0.0)
                           else None)
                if locator is None:
                    done.add(axis)
                    continue
                colorbar = getattr(ax, "_colorbar", None)
                long_axis = getattr(colorbar, "long_axis", None)  # matplotlib >= 3.11
                if callable(getattr(colorbar, "_long_axis", None)):
                    long_axis = colorbar._long_axis()
                if colorbar is not None and axis is long_axis:
                    colorbar.locator = locator  # the colour bar resets its axis' locator
                else:
                    axis.set_major_locator(locator)
                thinned += 1
                changed = True
        if not changed:
            break
    return thinned


def _grow_for_fixed_aspect(fig):
    """Give ``fig`` more height when a fixed-aspect panel (``set_aspect("equal")``) is drawn
    narrower than its slot: shrinking a wide figure flattens its slots, and such a panel shrinks
    with their height, crowding its tick labels. Returns whether the figure grew."""
    growth = 1.0
    for ax in fig.axes:
        if ax.get_aspect() == "auto" or ax.get_adjustable() != "box" or hasattr(ax, "_colorbar"):
            continue
        ax.apply_aspect()
        slot, drawn = ax.get_position(original=True), ax.get_position()
        if drawn.width > 0 and drawn.width < slot.width * 0.98:
            growth = max(growth, slot.width / drawn.width)
    if growth <= 1.0:
        return False
    width, height = fig.get_size_inches()
    fig.set_size_inches(width, height * min(growth, MAX_HEIGHT_GROWTH), forward=False)
    return True


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


def legend_texts(fig: "Figure") -> list:
    """The texts (entries and titles) of the visible legends of ``fig``, its axes' and its
    own (:func:`_visible_legends`)."""
    return [text for _, legend, _ in _visible_legends(fig)
            for text in [*legend.get_texts(), legend.get_title()]
            if text.get_visible() and text.get_text().strip()]


def readable_texts(fig: "Figure") -> list[tuple[str, Any]]:
    """Every text of ``fig`` a reader must read: titles, axis labels (a colour bar's too), drawn
    tick labels, the labels an author placed on the data (``ax.text``, ``ax.annotate``,
    :func:`label_points`: point labels, annotations, panel letters), the figure's own texts
    (suptitle, super labels, ``fig.text``) and legend entries and titles. Returns (description,
    Text) pairs; positions and tick labels are those of the last layout."""
    texts = [(name, text) for name, _, text in figure_texts(fig)]
    return texts + [(f"the legend text {text.get_text()!r}", text) for text in legend_texts(fig)]


def _smallest_readable_text(fig):
    """(size in points, description) of the smallest text of ``fig`` a reader must read
    (:func:`readable_texts`), or (0.0, "") when it has none."""
    sized = [(text.get_fontsize(), name) for name, text in readable_texts(fig)]
    return min(sized, key=lambda pair: pair[0], default=(0.0, ""))


def smallest_text_pt(fig: "Figure") -> float:
    """The size (points) of the smallest text a reader must read in ``fig`` (tick labels,
    legends, titles, axis and colour-bar labels, point labels and annotations, the figure's own
    texts: :func:`readable_texts`; 0.0 when it has none): what must be legible on a phone (the
    browser tests read it from the PNG). Call it after a layout, as
    :func:`smallest_tick_label_pt`."""
    return float(_smallest_readable_text(fig)[0])


def _raise_small_tick_labels(fig):
    """Tick labels and legend texts a notebook set smaller than ``MIN_TICK_PT``
    (``set_yticklabels(names, fontsize=8)``, ``legend(fontsize=7)``) are raised to it: below it
    they are under ``PHONE_MIN_TEXT_PX`` even where the figure is not shrunk. Returns whether
    any changed."""
    texts = legend_texts(fig)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis, getattr(ax, "zaxis", None)):
            if axis is not None:
                texts += axis.get_ticklabels(which="both")
    small = [text for text in texts if text.get_fontsize() < MIN_TICK_PT]
    for text in small:
        text.set_fontsize(MIN_TICK_PT)
    return bool(small)


def legend_pt_for_width(width_in: float) -> float:
    """The smallest text (points; legends are raised to it) that a figure saved ``width_in``
    inches wide shows at ``PHONE_MIN_TEXT_PX`` pixels in a phone's column (``PHONE_COLUMN_PX``):
    ``MIN_TICK_PT`` for a figure no wider than the column, 12 pt at ``MAX_FIGURE_WIDTH``."""
    return MIN_TICK_PT * max(1.0, width_in * FIG_DPI / PHONE_COLUMN_PX)


def _raise_legends_for_width(fig):
    """Raise legend text below :func:`legend_pt_for_width` of the figure's saved width to it.
    Returns whether any changed."""
    texts = legend_texts(fig)
    if not texts:  # (no layout pass for a figure without a legend)
        return False
    # (1% to spare: the retina PNG's crop, at twice the resolution, is a little wider)
    need = 1.01 * legend_pt_for_width(_tight_width(fig))
    small = [text for text in texts if text.get_fontsize() < need - 0.005]
    for text in small:
        text.set_fontsize(need)
    return bool(small)


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
    # legends are drawn for the width the figure is saved at: their text is raised to the size
    # that a phone's column shrinks to PHONE_MIN_TEXT_PX (rather than the figure narrowed, which
    # would move labels placed for its layout, label_points)
    for _ in range(FIT_PASSES):  # (a larger legend outside the axes widens the saved figure)
        if not _raise_legends_for_width(fig):
            break
        _redo_layout(fig)
    # what the passes left: equal-aspect axes change their view interval at each layout, so
    # their ticks are thinned once more; what still collides is reported
    # (shrinking flattened the slots: a fixed-aspect panel shrank with their height, and more
    # height at the same width gives its labels room)
    if find_text_overlaps(fig):
        if _grow_for_fixed_aspect(fig):
            _redo_layout(fig)
        if thin_crowded_ticks(fig):
            _redo_layout(fig)
    warn_text_overlaps(fig)
    _warn_small_on_a_phone(fig)
    # the smallest readable text's size goes into the PNG (a tEXt entry): the browser tests
    # read it to work out how large that text is shown on a phone (points x FIG_DPI / 72 x
    # the image's shown width / its own width)
    metadata = {**kwargs.pop("metadata", {}), MIN_TICK_KEY: f"{smallest_text_pt(fig):.2f}"}
    return retina_figure(fig, base64=True, metadata=metadata, **kwargs)


def shown_on_a_phone_px(fig: "Figure") -> float:
    """How tall (CSS pixels) the smallest text a reader must read in ``fig`` (laid out;
    :func:`smallest_text_pt`) is shown when the saved figure is shrunk to a phone's column
    (``PHONE_COLUMN_PX``); what the browser test measures in the built page."""
    return _shown_px(smallest_text_pt(fig), _tight_width(fig))


def _shown_px(points, width_in):
    """How tall (CSS pixels) text of ``points`` is in a figure saved ``width_in`` inches wide
    and shrunk to a phone's column."""
    return points * FIG_DPI / 72 * min(1.0, PHONE_COLUMN_PX / (width_in * FIG_DPI))


def _warn_small_on_a_phone(fig):
    """Warn (:class:`FigureTextOverlap`) if a text of the figure, as the passes left it, would
    show under ``PHONE_MIN_TEXT_PX`` on a phone: a point label, annotation or title set small
    in a figure saved wide, or a legend too wide for the width (raising its text widens the
    figure further)."""
    width = _tight_width(fig)
    points, name = _smallest_readable_text(fig)
    shown = _shown_px(points, width)
    if 0 < shown < PHONE_MIN_TEXT_PX - 0.05:
        warnings.warn(f"Text too small on a phone: the figure is saved {width:.2f} in wide, so "
                      f"its {points:.3g} pt text ({name}) shows at {shown:.1f} px in a phone's "
                      f"column (at least {PHONE_MIN_TEXT_PX}: "
                      f"{legend_pt_for_width(width):.3g} pt at this width). Set its text "
                      "larger, label fewer points, draw the figure narrower (fewer panels a "
                      "row) or give its legend fewer columns.", FigureTextOverlap, stacklevel=3)


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


# where a point's label may go: (direction x, direction y, horizontal, vertical alignment), in
# the order preferred when several are free (upper right first, as a reader expects)
LABEL_PLACES = [(1, 1, "left", "bottom"), (1, -1, "left", "top"), (-1, 1, "right", "bottom"),
                (-1, -1, "right", "top"), (1, 0, "left", "center"), (-1, 0, "right", "center"),
                (0, 1, "center", "bottom"), (0, -1, "center", "top")]


def _overlap_area(box, boxes):
    """Area of overlap of ``box`` (x0, y0, x1, y1) with each row of ``boxes``."""
    width = np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0])
    height = np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1])
    return np.clip(width, 0, None) * np.clip(height, 0, None)


def label_points(ax: "Axes", Z: ArrayLike, names: list[str], *, offset_pt: float = 3.0,
                 **kwargs: Any) -> list[Any]:
    """Label each point ``Z[i]`` of ``ax`` with ``names[i]``, beside it where the label covers
    the least of the other labels, the figure's other texts, the markers, the plotted lines and
    the space outside the axes.

    Each label tries the eight places around its point (``LABEL_PLACES``, ``offset_pt`` points
    off it) and takes the one whose box overlaps least, in display pixels, with the labels
    placed before it, the figure's texts (:func:`figure_texts`: titles, tick and axis labels),
    the squares of the axes' markers (:func:`data_marks`) and the area outside the axes; a line
    (:func:`data_segments`: curves, error bars) crossing the box counts its length inside it
    times the label's height, as much as a text over that stretch of the label would. Ties go
    to the earlier place. Greedy, so a crowded map may still collide (the
    formatter then warns, :class:`FigureTextOverlap`): label fewer points.

    Parameters
    ----------
    ax : matplotlib Axes
        The axes holding the points (a 3-D axes: give ``Z`` as projected by its drawing,
        ``proj3d.proj_transform(x, y, z, ax.M)``, and keep its view), laid out at the size it
        is shown at (call it after
        ``fig.tight_layout()``, on a figure no wider than ``MAX_FIGURE_WIDTH``): a figure the
        inline backend shrinks moves its points closer together, and the places are chosen for
        the current layout.
    Z : array-like of shape (N, 2)
        The points, in data coordinates.
    names : list of str, length N
    offset_pt : float, default 3.0
        How far a label sits from its point, in points, along each axis.
    **kwargs
        Passed to ``ax.annotate`` (``fontsize``, ``color``, ``weight``).

    Returns
    -------
    labels : list of matplotlib Annotation
    """
    Z = np.asarray(Z, dtype=float)
    fig = ax.figure
    fig.draw_without_rendering()  # the layout (and an equal aspect's limits) the places are for
    renderer = fig.canvas.get_renderer()
    frame = np.asarray(ax.get_window_extent(renderer).extents)
    marks = [np.column_stack([points - half[:, None], points + half[:, None]])
             for _, points, half in data_marks(ax, lines=False, projected=True)]
    # the figure's texts too (titles, tick and axis labels, labels placed before): a label
    # near the top of a panel must not run into its title
    marks += [np.array([_text_extents(text, renderer) for _, _, text in figure_texts(fig)])
              .reshape(-1, 4)]
    taken = np.concatenate(marks)
    segments = np.concatenate([pieces for _, pieces in data_segments(ax)] + [np.empty((0, 2, 2))])
    anchors = ax.transData.transform(Z)
    shift = offset_pt * fig.dpi / 72
    labels = []
    for point, (x, y), name in zip(Z, anchors, names, strict=True):
        label = ax.annotate(name, point, xytext=(0, 0), textcoords="offset points", **kwargs)
        extent = label.get_window_extent(renderer)
        width, height = extent.width, extent.height
        costs = []
        for dx, dy, _, _ in LABEL_PLACES:
            # the box of a label aligned away from its point in direction (dx, dy)
            left = x + dx * shift - (width if dx < 0 else width / 2 if dx == 0 else 0)
            bottom = y + dy * shift - (height if dy < 0 else height / 2 if dy == 0 else 0)
            box = np.array([left, bottom, left + width, bottom + height])
            outside = width * height - _overlap_area(box, frame[None, :])[0]
            crossed = segment_lengths_in_box(segments, box).sum() * height
            costs.append(_overlap_area(box, taken).sum() + outside + crossed)
        # the first of the cheapest, to a hundredth of a square pixel (the area outside the
        # axes is a difference of two areas: rounding errors must not pick a later place)
        best = int(np.argmin(np.round(costs, 2)))
        dx, dy, ha, va = LABEL_PLACES[best]
        label.set(position=(dx * offset_pt, dy * offset_pt), ha=ha, va=va)
        box = label.get_window_extent(renderer).extents
        taken = np.vstack([taken, box])
        labels.append(label)
    return labels


def plot_data_and_embeddings(X: ArrayLike, c: ArrayLike | str | None, embeddings: Mapping[str, ArrayLike], *,
                             view: tuple[float, float] = (10, -70), size: float = 3.0) -> "Figure":
    """The data in 3-D (or 2-D) and then each embedding in ``embeddings`` (a dict title ->
    ``Z``), all coloured by ``c``, two panels a row (``size`` inches square each): a phone's
    column holds two panels; three in a row are shrunk until their titles wrap word by word.
    Returns the figure."""
    plt = import_optional("matplotlib.pyplot", purpose="plot_data_and_embeddings()")

    n = 1 + len(embeddings)
    cols = min(n, 2)
    rows = -(-n // cols)
    fig = plt.figure(figsize=(size * cols, size * rows))
    if X.shape[1] >= 3:
        ax = fig.add_subplot(rows, cols, 1, projection="3d")
        ax.view_init(*view)
    else:
        ax = fig.add_subplot(rows, cols, 1)
    scatter(ax, X[:, :3], c, title="data")
    for i, (name, Z) in enumerate(embeddings.items(), start=2):
        scatter(fig.add_subplot(rows, cols, i), Z[:, :2], c, title=name)
    fig.tight_layout()
    return fig
