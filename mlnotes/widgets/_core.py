"""The machinery every explorer shares: controls, the live widget, the static rendering.

An explorer is a drawing function ``draw(**params) -> Figure``, a list of controls and a scene
function ``scene(**params)`` (:mod:`mlnotes.widgets._static`), both fed by the same cached
computations. Live (a kernel behind a JupyterLab page) it is an ipywidgets box whose controls
redraw a PNG image; saved in a notebook it also carries a static rendering, chosen by the book's
HTML builder (``nb_mime_priority_overrides`` in ``_config.yml`` drops the widget view there):

* ``text/html``: the explorer's results over a grid of settings, as compact data that the
  book's ``explorer.js`` draws with working controls (:func:`~._static.explorer_html`);
* ``image/png``: the figure at the explorer's parameters, for renderers without JavaScript.

Live, an explorer given a :class:`LiveFigure` keeps one figure and, per new setting, draws only
the artists the setting changes over the kept pixels of the rest; every setting's PNG is kept,
and the page keeps every picture it was sent (:mod:`._kept`), so returning to a setting shows
its picture in the page at once, with no message to the kernel and back.

Figures are ``matplotlib.figure.Figure`` objects not managed by pyplot, so a drawing returned as
a cell's last value is displayed exactly once and never leaks into pyplot's figure list.
"""

import base64
import contextlib
import contextvars
import dataclasses
import functools
import html
import inspect
import io
import os
import threading
import time
import typing

import numpy as np
from matplotlib.figure import Figure

from .._optional import import_optional
from .._typing import ArrayLike
from ..plotting import FIG_DPI, LABEL_CMAP, _color_and_cmap
from ._glyphs import CANVAS
from ._kept import kept_figure_class, setting_key
from ._static import explorer_html, product_grid, star_grid, static_spec
from ._stream import Streaming, is_partial

if typing.TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.collections import PathCollection

# What "feels instant" means for one update (draw + PNG), checked by benchmarks/bench_widgets.py
# (CPU time of the update) and benchmarks/bench_lab_widgets.py (input to picture in JupyterLab).
UPDATE_BUDGET_S = 0.150
STATIC_COLORS = 256  # palette size of the static figure (a third of the bytes of full colour)
# zlib level of the PNGs sent to the browser: fast to encode, a little larger than the default 6
PNG_COMPRESSION = 1
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
PROGRESS_STEP = 5  # percent: the run's progress bar moves in these steps (one message each)
PLAY_INTERVAL_MS = 100  # the replay's pace: every snapshot is in the page before play starts
SEEN_STATUS = "<small>a setting seen before: the page's own copy of its figure</small>"
STALE_OPACITY = "0.35"  # a figure left from the last setting that worked, shown faded


# --- figures ------------------------------------------------------------------------------------
def new_figure(width, height):
    """A pyplot-free figure of ``width`` x ``height`` inches at the book's resolution (its
    canvas keeps the glyphs of its text, :mod:`._glyphs`)."""
    fig = Figure(figsize=(width, height), dpi=FIG_DPI)
    CANVAS(fig)
    return fig


def figure_rgba(fig):
    """The rendered figure as an ``(H, W, 4)`` uint8 array."""
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba()).copy()


@functools.lru_cache(maxsize=32)
def _painted(painter, args, width, height):
    fig = new_figure(width, height)
    painter(fig, *args)
    return frozen(figure_rgba(fig))


def static_panel(fig, painter, args, *, width):
    """Paste, at the figure's left edge, a panel that no control changes (the data set).

    ``painter(fig, *args)`` draws it once into a figure ``width`` inches wide and as tall as
    ``fig``; afterwards the pixels are reused (matplotlib's ``figimage``, no resampling), which
    spares every update the cost of a 3-D scatter. Leave that strip of ``fig`` free.
    """
    fig.figimage(_painted(painter, args, width, fig.get_figheight()), xo=0, yo=0,
                 origin="upper", zorder=-1)  # under the panels: a long title beside it shows


def figure_png(fig):
    """The figure as PNG bytes: the canvas drawn once and its pixels encoded (``savefig``
    would add a few milliseconds of bookkeeping to every update)."""
    return encode_png(figure_rgba(fig))


def encode_png(image):
    """An RGBA image (opaque) as the PNG the live widget sends: a palette of
    :data:`STATIC_COLORS` colours chosen by a fast octree, at zlib level
    :data:`PNG_COMPRESSION`. Half the bytes of full colour and half the encoding time; a plot
    has few colours, so only the edges of anti-aliased shapes move, by about 1/255 on average."""
    from PIL import Image

    buf = io.BytesIO()
    picture = Image.fromarray(np.ascontiguousarray(image[..., :3]))
    picture.quantize(colors=STATIC_COLORS, method=Image.Quantize.FASTOCTREE).save(
        buf, format="png", compress_level=PNG_COMPRESSION)
    return buf.getvalue()


def palette_png(image, colors=STATIC_COLORS):
    """An RGBA image as a small palette PNG (plots have few colours; about a quarter the size)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(image[..., :3]).quantize(colors=colors).save(buf, format="png", optimize=True)
    return buf.getvalue()


class LiveFigure:
    """A figure built once and then redrawn in place, setting after setting.

    A subclass draws the whole figure in :meth:`build` and names, with :meth:`changing`, the
    artists whose data, text or colours a control changes; :meth:`update` puts another setting
    on them (``set_offsets``, ``set_text`` ...). The live explorer then draws the rest of the
    figure once, keeps its pixels, and per setting pastes them back and draws only the changing
    artists over them: no axes, ticks or labels are built or drawn again (a fresh figure spends
    most of its time there). ``LiveFigure(**params).fig`` is the figure at ``params``, drawn
    whole: the explorer's drawing function.

    Parameters
    ----------
    **params
        The setting to draw (every parameter of the explorer's drawing function).

    Attributes
    ----------
    fig : matplotlib.figure.Figure
    params : dict
        The setting the figure shows.
    outdated : bool
        Whether the next picture must update the changing artists even at the setting shown
        (it showed a snapshot of a run under way, :mod:`._stream`).
    kept_per : tuple of str
        Class attribute: the controls whose change rebuilds the figure (``update`` returns
        False, say for a data set); the live explorer keeps a figure per value of them.
    """

    size: typing.ClassVar[tuple[float, float]] = (10.0, 3.3)  # inches
    # controls whose change redraws the whole figure (a data set: other axes); the explorer
    # keeps one figure per value of them, so that returning to a value updates its figure
    kept_per: typing.ClassVar[tuple[str, ...]] = ()

    def __init__(self, **params: typing.Any) -> None:
        self.fig = new_figure(*self.size)
        self._changing: list = []
        self._background = None  # the pixels of everything but the changing artists
        self._held_labels: list = []  # axes whose axis labels stay where first drawn
        self.outdated = False  # True: the next picture updates the artists, setting or not
        self.build(**params)
        self.params = dict(params)

    def build(self, **params: typing.Any) -> None:
        """Draw the figure at ``params`` into :attr:`fig`, registering the changing artists."""
        raise TypeError(f"{type(self).__name__} must define build(**params).")

    def update(self, **params: typing.Any) -> bool:
        """Put the setting ``params`` on the changing artists; return whether only they changed
        (False: the rest of the figure changed too, say an axis range, and is drawn again)."""
        raise TypeError(f"{type(self).__name__} must define update(**params).")

    def changing(self, artist: "Artist") -> "Artist":
        """Register ``artist`` as one that :meth:`update` changes (drawn over the kept pixels,
        after the rest, in order of zorder); returns it."""
        self._changing.append(artist)
        return artist

    def hold_labels(self, ax: "Axes") -> "Axes":
        """Keep the axis labels of ``ax`` (a changing axes, drawn whole) where the figure's
        first drawing put them: matplotlib places an axis label clear of its tick labels
        by measuring them at every drawing, which is a third of the cost of drawing a small
        axes. Only for axes whose labels cannot move: an x label under tick labels that are
        all as tall (plain numbers, no exponents), a y label that is empty (or beside tick
        labels all as wide). Returns ``ax``."""
        self._held_labels.append(ax)
        return ax

    def _hold_label_positions(self) -> None:
        for ax in self._held_labels:
            for axis in (ax.xaxis, ax.yaxis):
                x, y = axis.label.get_position()  # as placed by the drawing just done
                axis.set_label_coords(x, y, transform=axis.label.get_transform())
        self._held_labels = []

    def replace(self, old: "Artist", new: "Artist") -> "Artist":
        """Swap a changing artist for a new one (one that cannot be updated in place, such as
        filled contours): ``old`` leaves the figure. Returns ``new``."""
        self._changing[self._changing.index(old)] = new  # drawn where ``old`` was
        old.remove()
        return new

    def rgba(self, **params: typing.Any) -> np.ndarray:
        """The figure at ``params`` as an ``(H, W, 4)`` uint8 array (a view of the canvas, valid
        until the next call), drawing only what changed since the last call."""
        if self.outdated or params != self.params:
            if not self.update(**params):
                self._background = None
            self.params, self.outdated = dict(params), False
        canvas = self.fig.canvas
        for artist in self._changing:
            artist.set_animated(True)  # left out of canvas.draw(), drawn below
        if self._background is None:
            canvas.draw()
            self._background = canvas.copy_from_bbox(self.fig.bbox)
        else:
            canvas.restore_region(self._background)
        for artist in sorted(self._changing, key=lambda a: a.get_zorder()):
            self.fig.draw_artist(artist)
        if self._held_labels:  # placed by this first drawing: kept there from now on
            self._hold_label_positions()
        return np.asarray(canvas.buffer_rgba())


def fit_view(ax: "Axes", points: ArrayLike) -> None:
    """Set ``ax``'s view to ``points`` as a fresh scatter of them would (data limits, margins,
    an equal aspect adjusted through the limits)."""
    ax.ignore_existing_data_limits = True
    ax.update_datalim(np.asarray(points)[:, :2])
    ax.autoscale_view()
    ax.apply_aspect()


def set_points(collection: "PathCollection", points: ArrayLike,
               values: ArrayLike | None = None) -> None:
    """Move a scatter's points to ``points`` and, given ``values``, recolour them as
    :func:`mlnotes.plotting.scatter` colours by them (labels on their fixed scale, coordinates
    on a scale spanning them)."""
    collection.set_offsets(np.asarray(points)[:, :2])
    if values is not None:
        values, cmap = _color_and_cmap(values)
        collection.set_array(values)
        if cmap != LABEL_CMAP:
            collection.norm.autoscale(values)


# --- progress of a long computation -------------------------------------------------------------
_PROGRESS = contextvars.ContextVar("mlnotes_widgets_progress", default=None)


@contextlib.contextmanager
def reporting_progress(hook):
    """Within the block, :func:`report_progress` calls ``hook(done, total)``."""
    token = _PROGRESS.set(hook)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def report_progress(done, total):
    """Tell whoever is listening (a live progress bar) how far a computation has got."""
    hook = _PROGRESS.get()
    if hook is not None:
        hook(done, total)


def frozen(*arrays):
    """Mark cached arrays read-only, so that no caller can corrupt the cache."""
    for a in arrays:
        a.flags.writeable = False
    return arrays if len(arrays) > 1 else arrays[0]


def snapshot_index(frame, n, *, of_run=True):
    """Snapshot ``frame`` (negative counts from the end) of ``n`` as an index in ``0 .. n-1``;
    a clear error outside ``-n .. n-1``."""
    if not -n <= frame < n:
        where = " for this run" if of_run else ""
        raise ValueError(f"frame must be between {-n} and {n - 1}{where}, got {frame}.")
    return frame % n


# --- controls -----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Slider:
    """A slider stepping through hand-picked values (e.g. perplexities 2, 5, 30, 50, 100)."""

    kind: typing.ClassVar[str] = "slider"  # how the static book shows it
    name: str
    values: tuple
    description: str = ""
    held: tuple = ()  # the values the static book holds (default: all of ``values``)

    def build(self, value):
        w = import_optional("ipywidgets", purpose="The live explorer")

        values = tuple(sorted(set(self.values) | {value}))
        return w.SelectionSlider(
            options=[(_label(v), v) for v in values], value=value, continuous_update=False,
            description=self.description or self.name, style={"description_width": "initial"},
        )


@dataclasses.dataclass(frozen=True)
class Choice:
    """Buttons for a few named options (a data set, a kernel, a dissimilarity)."""

    kind: typing.ClassVar[str] = "choice"  # how the static book shows it
    name: str
    values: tuple
    description: str = ""
    held: tuple = ()  # the values the static book holds (default: all of ``values``)

    def build(self, value):
        w = import_optional("ipywidgets", purpose="The live explorer")

        values = self.values if value in self.values else (*self.values, value)
        style = {"description_width": "initial"}
        if len(values) > 4:
            return w.Dropdown(options=list(values), value=value, style=style,
                              description=self.description or self.name)
        return w.ToggleButtons(options=list(values), value=value, style={**style, "button_width": "auto"},
                               description=self.description or self.name)


def _label(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def held_values(control, value):
    """The values of a control the static book holds: its ``held`` values (else all), and the
    explorer's current value."""
    return tuple(dict.fromkeys((*(control.held or control.values), value)))


# --- explorers ----------------------------------------------------------------------------------
# A reader's kernel draws, while idle, the pictures of the settings a reader is likely to ask
# for next (:meth:`Explorer.next_settings`): this many after each move (the same control one
# more step the same way: a second would still be drawing when a reader moves on), starting this
# long after the move's own picture is sent
PREFETCHED = 1
PREFETCH_DELAY_S = 0.1
PNG_CACHE_SIZE = 256  # settings (or snapshots) whose PNG an explorer keeps (about 45 KB each)
# snapshots a replay explorer keeps, in the kernel and in the page: about 20 runs of t-SNE's 51
# (about 15 KB each), so that a reader's return to a run seen a while ago is still the page's
REPLAY_PICTURES = 1024


def _cache_key(params):
    return tuple(sorted((name, repr(value)) for name, value in params.items()))


def in_jupyter_server():
    """Whether this kernel was started by a Jupyter server for a reader (JupyterLab, Notebook,
    Binder): the server names the session in ``JPY_SESSION_NAME``. A headless run (nbclient,
    ``make notebooks``, the book's build) has no such session: there the explorer also computes
    the static book's grid."""
    return bool(os.environ.get("JPY_SESSION_NAME"))


# "0" in the environment: an explorer shown in a headless run skips the static book's grid too
# (make test's nbval pass, which compares no explorer output; `make notebooks` computes it)
STATIC_GRID_VARIABLE = "MLNOTES_STATIC_GRID"


def computes_static_grid():
    """Whether showing an explorer computes the static book's grid (every held setting): in a
    headless run that writes the book's notebooks, not in a reader's kernel
    (:func:`in_jupyter_server`) nor where ``MLNOTES_STATIC_GRID=0`` (a run whose outputs are not
    kept, such as ``make test``'s nbval pass)."""
    return not in_jupyter_server() and os.environ.get(STATIC_GRID_VARIABLE, "1") != "0"


def draw_defaults(draw):
    """The keyword defaults of a drawing function."""
    return {
        name: p.default for name, p in inspect.signature(draw).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


class Explorer:
    """Controls wired to ``draw(**params)``; live in a notebook, working controls in the book.

    Parameters
    ----------
    draw : callable
        ``draw(**params) -> matplotlib.figure.Figure``.
    controls : list of Slider or Choice
        The parameters the reader can change; every other parameter of ``draw`` stays fixed.
    params : dict
        Overrides of ``draw``'s defaults (unknown names raise a ``TypeError``).
    scene : callable
        ``scene(**params)``: what ``draw`` shows, as data for the static book
        (:mod:`mlnotes.widgets._static`); computed from the same cached results as ``draw``.
    grid : {"product", "star"}
        The settings the static book holds: every combination of the controls' held values, or
        the current setting and each control moved alone (:func:`~._static.star_grid`).
    irrelevant : callable, optional
        ``irrelevant(**params) -> set of control names`` that have no effect at a setting (the
        degree of a kernel that has none): the static book holds them only at their current
        value there, and disables them.
    live : type, optional
        A :class:`LiveFigure` subclass drawing what ``draw`` draws: the live widget keeps one
        and redraws only its changing artists per setting, instead of a new figure.

    Attributes
    ----------
    params : dict
        The current value of every parameter of ``draw``.
    last_update_s : float
        Wall-clock time of the last redraw (draw + PNG encoding), in seconds.
    """

    png_cache_size: typing.ClassVar[int] = PNG_CACHE_SIZE  # PNGs kept (kernel and page)

    def __init__(self, draw, controls, params, *, scene, grid="product", irrelevant=None,
                 live=None):
        defaults = draw_defaults(draw)
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise TypeError(
                f"{draw.__name__} has no parameter(s) {', '.join(unknown)}; "
                f"choose among {', '.join(sorted(defaults))}."
            )
        if grid not in ("product", "star"):
            raise ValueError(f"grid must be 'product' or 'star', got {grid!r}.")
        self.draw, self.controls, self.scene = draw, list(controls), scene
        self.grid, self.irrelevant = grid, irrelevant
        self.live, self._live = live, None  # the LiveFigure class and the one in use
        self._lives: dict = {}  # the kept figures, by their values of ``live.kept_per``
        self._live_lock = threading.RLock()  # one drawing at a time in the kept figure
        self.params = {**defaults, **params}
        self.last_update_s = float("nan")
        self._widget = None
        self._pngs = {}  # setting -> PNG, in order of use (render's cache)
        self._prefetching = 0  # counts the reader's moves: a newer move stops a prefetch
        self._image = self.render()  # fail here, with the draw function's message, on bad input

    def render(self, **changes):
        """Redraw with ``changes`` applied to the current parameters; return PNG bytes.

        The PNGs of the last :attr:`png_cache_size` settings are kept, so returning to a setting
        (or replaying a run) sends the stored image without drawing it again."""
        start = time.perf_counter()
        params = {**self.params, **changes}
        png = self._png(params)
        self.params = params
        self.last_update_s = time.perf_counter() - start
        return png

    def _png(self, params):
        """The PNG of a setting: the kept one, or drawn (and kept, most recent last)."""
        key = _cache_key(params)
        png = self._pngs.pop(key, None)
        if png is None:
            png = encode_png(self._rgba(params))
        self._pngs[key] = png
        while len(self._pngs) > self.png_cache_size:
            del self._pngs[next(iter(self._pngs))]
        return png

    def _rgba(self, params, *, partial=False):
        """The pixels of a setting: the kept live figure updated (a new one if a parameter
        that no control sets has changed), or a new figure drawn. ``partial``: a snapshot of
        a run under way, drawn by updating the kept figure however it was last set (and the
        setting's final picture, after, updates it again)."""
        if self.live is None:
            return figure_rgba(self.draw(**params))
        controlled = self._controlled()
        with self._live_lock:  # (widget messages may come on another thread than the cell's)
            if self._live is not None and any(self._live.params[k] != v
                                              for k, v in params.items() if k not in controlled):
                self._lives.clear()
            key = tuple(repr(params[name]) for name in self.live.kept_per)
            self._live = self._lives.get(key)
            try:
                if self._live is None:
                    self._live = self._lives[key] = self.live(**params)
                self._live.outdated |= partial  # (updated whatever setting it shows)
                rgba = self._live.rgba(**params).copy()
                self._live.outdated = partial  # the setting's next picture updates it again
                return rgba
            except BaseException:
                self._lives.pop(key, None)  # possibly half updated: the next builds a new one
                self._live = None
                raise

    def is_kept(self, **changes):
        """Whether the PNG of the current parameters with ``changes`` is kept (sent at once)."""
        return _cache_key({**self.params, **changes}) in self._pngs

    # static renderings
    def static_settings(self):
        """The settings (control values) the static book holds."""
        held = {c.name: held_values(c, self.params[c.name]) for c in self.controls}
        current = {c.name: self.params[c.name] for c in self.controls}
        grid = star_grid(held, current) if self.grid == "star" else product_grid(held)
        if self.irrelevant is None:
            return grid
        return [g for g in grid if all(g[name] == current[name]
                                       for name in self.irrelevant(**{**self.params, **g}))]

    def static_spec(self):
        """The static explorer's data: the scene of every held setting."""
        return static_spec(self, self.static_settings(), scene_of=self.scene,
                           star=self.grid == "star", irrelevant=self.irrelevant)

    def static_bundle(self):
        """The MIME bundle the static book shows (no kernel, no JavaScript widgets): the
        explorer drawn by the book's script from precomputed results (``text/html``), and the
        figure at the current parameters as a palette PNG for renderers without JavaScript."""
        png = palette_png(self._rgba(self.params))  # the kept figure, if any
        return {"text/html": explorer_html(self.static_spec()),
                "image/png": base64.b64encode(png).decode("ascii")}

    def __repr__(self):
        shown = ", ".join(f"{c.name}={self.params[c.name]!r}" for c in self.controls)
        return f"{self.draw.__name__.replace('draw_', '')} explorer ({shown})"

    def _repr_mimebundle_(self, include=None, exclude=None):
        if not computes_static_grid():
            # A reader's kernel (JupyterLab, Notebook), or a run whose outputs are not kept: the
            # live widget, which shows the figure at once, and that figure as a PNG for a saved
            # copy; no grid for the static book.
            png = palette_png(self._rgba(self.params))  # the kept figure, if any
            bundle = {"image/png": base64.b64encode(png).decode("ascii")}
        else:
            bundle = self.static_bundle()
        bundle.update(self.widget._repr_mimebundle_())
        bundle["text/plain"] = repr(self) + " (run the notebook to interact)"
        return bundle

    # the live widget
    @property
    def widget(self):
        """The ipywidgets box (built on first use)."""
        if self._widget is None:
            self._widget = self._build_widget()
        return self._widget

    def _build_widget(self):
        w = import_optional("ipywidgets", purpose="The live explorer")

        self._controls = {c.name: c.build(self.params[c.name]) for c in self.controls}
        self._image_widget = self._figure_widget()
        self._status = w.HTML(layout=w.Layout(min_height="1.5em"))
        for control in self._controls.values():
            control.observe(self._on_change, names="value")
        self._why_disabled = w.HTML(layout=w.Layout(min_height="0"))
        self._mark_inapplicable(self.params)
        box = w.HBox(list(self._controls.values()), layout=w.Layout(flex_flow="row wrap"))
        return w.VBox([box, self._why_disabled, *self._extra_widgets(), self._image_widget,
                       self._status])

    def _extra_widgets(self):
        return []

    def _figure_widget(self):
        figure = kept_figure_class()(controls=[c.model_id for c in self._controls.values()])
        figure.put(self._image, setting_key(self._controls, self.params), self._fixed_params())
        return figure

    def _controlled(self):
        """The names of the parameters the page's controls set."""
        return {c.name for c in self.controls}

    def _fixed_params(self):
        """The parameters no control sets (the page's kept pictures hold only while they do)."""
        controlled = self._controlled()
        return _cache_key({k: v for k, v in self.params.items() if k not in controlled})

    def inapplicable(self, params=None):
        """``{control name: reason}`` for the controls that have no effect at ``params``
        (default: the current parameters); the live widget disables them and shows the reason."""
        if self.irrelevant is None:
            return {}
        unused = self.irrelevant(**{**self.params, **(params or {})})
        if isinstance(unused, dict):
            return dict(unused)
        return {name: "no effect at this setting" for name in unused}

    def _mark_inapplicable(self, params):
        reasons = self.inapplicable(params)
        for name, control in self._controls.items():
            with control.hold_sync():  # one message, and none if nothing changed
                control.disabled = name in reasons
                control.tooltip = reasons.get(name, "")
        self._why_disabled.value = "".join(
            f"<small>{html.escape(self._controls[name].description)} is disabled: "
            f"{html.escape(reason)}.</small><br>" for name, reason in reasons.items())

    def _on_change(self, change=None):
        values = {name: c.value for name, c in self._controls.items()}
        self._prefetching += 1  # a prefetch under way stops at its next step
        self._mark_inapplicable(values)
        # (while the kernel draws a new setting, the page marks the figure as pending itself)
        with self._reporting_errors():
            self._show(self.render(**values))
        self._prefetch(change)

    def next_settings(self, name: str | None = None, step: int = 1) -> list[dict]:
        """The settings a reader is likely to ask for next: control ``name`` (the one just
        moved) one more value in the direction ``step`` (+1 or -1) and one back, then every
        other applicable control one value either way; a choice's next options instead, in
        their order after the current one (round to the first). Each is the current
        parameters with one control changed; settings already kept are left out.

        Parameters
        ----------
        name : str, optional
            The control the reader moved last (first in the list).
        step : int
            The direction it moved: +1 to a later value among its options, -1 to an earlier.

        Returns
        -------
        list of dict
            Parameter sets, most likely first.
        """
        unused = self.inapplicable()
        order = sorted((c for c in self.controls if c.name not in unused),
                       key=lambda c: c.name != name)
        out = []
        for control in order:
            values = list(control.values)
            if self.params[control.name] not in values:
                continue
            i = values.index(self.params[control.name])
            if isinstance(control, Slider):
                ahead = step if control.name == name else 1
                near = [values[j] for j in (i + ahead, i - ahead) if 0 <= j < len(values)]
            else:
                near = [values[(i + j) % len(values)] for j in range(1, len(values))]
            for value in near:
                setting = {**self.params, control.name: value}
                if _cache_key(setting) not in self._pngs and setting not in out:
                    out.append(setting)
        return out

    def _prefetch(self, change=None):
        """In a reader's kernel, draw the pictures of the :meth:`next_settings` (at most
        :data:`PREFETCHED`) while the kernel is idle, one per event-loop turn, after
        :data:`PREFETCH_DELAY_S` (the picture just sent leaves first); a control moved
        meanwhile stops it at the next picture. The next step of a slider then costs the
        kernel no computing: its picture is kept (:meth:`render`)."""
        loop = Streaming._event_loop()
        if loop is None:
            return
        name, step = None, 1
        owner = getattr(change, "owner", None) if not isinstance(change, dict) \
            else change.get("owner")
        for control_name, control in self._controls.items():
            if control is owner:
                name = control_name
                values = [o[1] if isinstance(o, tuple) else o for o in control.options]
                old, new = change["old"], change["new"]
                if old in values and new in values:
                    step = 1 if values.index(new) >= values.index(old) else -1
        todo = self.next_settings(name, step)[:PREFETCHED]
        run = self._prefetching

        def next_picture():
            if run != self._prefetching or not todo:
                return
            params = todo.pop(0)
            with self._live_lock, contextlib.suppress(ValueError, FloatingPointError):
                if _cache_key(params) not in self._pngs:
                    self._png(params)  # kept; a setting the method refuses is left for later
            loop.call_later(0.001, next_picture)

        loop.call_later(PREFETCH_DELAY_S, next_picture)

    @contextlib.contextmanager
    def _reporting_errors(self):
        """A setting the method cannot handle (say, a diverging run) leaves the last figure and
        says why in the status line, instead of a traceback in the kernel's log."""
        try:
            yield
        except (ValueError, FloatingPointError) as exc:
            self._image_widget.layout.opacity = STALE_OPACITY  # the figure is the last good one
            self._status.value = f"<small style='color: #b00'>cannot draw this setting: " \
                                 f"{html.escape(str(exc))} (the faded figure is the last " \
                                 f"setting that worked)</small>"

    def _show(self, png):
        """Show the picture of the current setting: sent to the page, unless the page keeps it
        (it has shown it already, from its own controls, when they moved there)."""
        self._image = png
        sent = self._image_widget.put(png, setting_key(self._controls, self.params),
                                      self._fixed_params())
        self._image_widget.layout.opacity = "1"
        self._status.value = (f"<small>updated in {1000 * self.last_update_s:.0f} ms</small>"
                              if sent else SEEN_STATUS)


class ReplayExplorer(Streaming, Explorer):
    """An explorer for an iterative method: a run (with a progress bar) and a replay of it.

    ``draw`` takes a ``frame`` parameter (index into the recorded snapshots, -1 = the last);
    ``n_frames(**params)`` runs (or fetches from its cache) the optimisation for ``params`` and
    returns how many snapshots it recorded, calling :func:`report_progress` as it goes. The
    static book replays the recorded snapshots of every held setting.

    Live, the figure keeps in the page a picture per snapshot of every run it has shown
    (:mod:`._kept`, keyed by the run's controls and the snapshot slider), which the snapshot
    slider and "play" switch in the page alone (no round trip to the kernel), so that play
    shows every frame at its own pace however busy the kernel is, and a run seen before is
    back at once. With ``stream``
    (``stream(**params)`` steps the run, :class:`._stream.Streaming`) a new run shows itself as
    it goes: its start at once, its later snapshots between chunks of the run, a control moved
    meanwhile abandons it; without, the run goes to its end first. Then the run's last snapshot
    is shown and the kernel draws the others between its messages (a control moved meanwhile
    is answered after at most one snapshot's drawing), and the slider and play wait, disabled,
    until every snapshot is in the page. With ``redraw`` (``redraw(fig, **params)`` shows
    another snapshot of the same run in a figure ``draw`` drew) the snapshots are drawn into
    one figure, its artists updated, rather than each built anew; with ``figure_of`` too
    (``figure_of(**params)``: a key, equal for settings whose snapshots ``redraw`` can show in
    one another's figure, say every run on one data set) a new run's snapshots, as it goes
    and after, are drawn into the last run's figure; with ``live`` too (a
    :class:`LiveFigure` whose ``update`` calls ``redraw``) the live explorer draws only the
    artists a snapshot changes over the kept pixels of the rest. JupyterLab may send the
    widgets' messages to another thread of the kernel (a subshell) than the one that ran the
    cell: a lock keeps a run's snapshots and a new run from crossing.
    """

    png_cache_size: typing.ClassVar[int] = REPLAY_PICTURES  # (every snapshot is a picture)

    def __init__(self, draw, controls, params, *, n_frames, stream=None, redraw=None,
                 figure_of=None, **kwargs):
        self.n_frames, self.stream, self.redraw = n_frames, stream, redraw
        self.figure_of = figure_of
        self._live_steps = None  # the steps of a run under way (``stream``)
        self._replay_run = 0  # which run the snapshots being sent belong to
        self._replay_lock = threading.RLock()
        self._held = None  # (run, figure): the last snapshot drawn, which ``redraw`` updates
        super().__init__(draw, controls, params, **kwargs)
        if redraw is not None:
            self.draw = self._reusing(self.draw)

    def _reusing(self, draw):
        """``draw``, but a snapshot of the run last drawn is drawn by updating that figure's
        artists (``redraw(fig, **params)``: the same picture, without building the figure)."""
        @functools.wraps(draw)
        def drawing(**params):
            run = (_cache_key({k: v for k, v in params.items() if k != "frame"})
                   if self.figure_of is None else self.figure_of(**params))
            with self._replay_lock:
                held, self._held = self._held, None
                if is_partial() and self.figure_of is None:  # a run under way: drawn anew
                    self._held = held
                    return draw(**params)
                if held is not None and held[0] == run:
                    self.redraw(held[1], **params)
                    fig = held[1]
                else:
                    fig = draw(**params)
                self._held = (run, fig)
                return fig
        return drawing

    def _run_params(self):
        return {k: v for k, v in self.params.items() if k != "frame"}

    def static_spec(self):
        """The static explorer's data: every snapshot of the run of every held setting."""
        return static_spec(self, self.static_settings(), scene_of=self.scene,
                           frames_of=self.n_frames, star=self.grid == "star",
                           irrelevant=self.irrelevant)

    def _figure_widget(self):
        # its controls: the run's and the snapshot slider (below)
        figure = kept_figure_class()(kept=self.png_cache_size)
        figure.on_lost = self._resend_run
        return figure

    def _resend_run(self):
        """The page lost the run's snapshots (a page opened again): send them again."""
        with self._replay_lock:
            if self._live_steps is None:  # (a run under way sends its own)
                self._show_run(self._run_n, self.params["frame"])

    def _controlled(self):
        return super()._controlled() | {"frame"}  # (the snapshot slider)

    def _snapshot_key(self, frame):
        """The page's key of snapshot ``frame`` of the run in the page."""
        return f"{self._replay_key},{frame}"

    def _in_page(self, frame):
        """Whether snapshot ``frame`` of the run is in the page: sent, or kept there from
        before (a run seen before; then counted as sent, with no message)."""
        if frame not in self._sent and self._image_widget.keeps(self._snapshot_key(frame)):
            self._sent.add(frame)
        return frame in self._sent

    def _extra_widgets(self):
        w = import_optional("ipywidgets", purpose="The live explorer")

        n = self.n_frames(**self._run_params())
        frame = self.params["frame"] % n
        self._frame = w.IntSlider(value=frame, min=0, max=n - 1, description="snapshot",
                                  continuous_update=True)
        self._play = w.Play(value=frame, min=0, max=n - 1, interval=PLAY_INTERVAL_MS,
                            description="play")
        w.jslink((self._play, "value"), (self._frame, "value"))
        self._image_widget.controls = [c.model_id for c in self._controls.values()] + \
            [self._frame.model_id]  # the page shows the picture these say
        self._progress = w.IntProgress(value=100, min=0, max=100, description="run",
                                       bar_style="success")
        self._frame.observe(self._on_frame, names="value")
        self._show_run(n, frame, self._image)
        return [w.HBox([self._play, self._frame, self._progress])]

    def _picture(self, frame, png=None):
        """Put snapshot ``frame`` (``png``, or drawn now) of the run in the page, unless it is
        there already (the explorer's parameters stay as they are)."""
        with self._replay_lock:
            if not self._in_page(frame):
                if png is None:
                    png = self._png({**self._replay_params, "frame": frame})
                self._image_widget.put(png, self._snapshot_key(frame), self._fixed_params())
                self._sent.add(frame)

    def _show_run(self, n, frame, png=None):
        """Put the run's snapshot ``frame`` on screen, then send the other snapshots (none
        that the page keeps from before)."""
        with self._replay_lock:
            self._replay_run += 1
            self._replay_params = self._run_params()
            self._replay_key = setting_key(self._controls, self._replay_params)
            self._run_n, self._sent = n, set()
            self._picture(frame, png)
            with self._frame.hold_trait_notifications():
                self._frame.max = self._play.max = n - 1
                self._frame.value = frame
            self._image_widget.layout.opacity = "1"
            self.params["frame"] = frame
            self._send_snapshots(self._replay_run, n)

    def _send_snapshots(self, run, n):
        """Draw and send the run's snapshots one at a time, between the kernel's messages (in
        a reader's kernel), or none until asked (elsewhere: tests, a headless run)."""
        loop = self._event_loop()
        if loop is None:
            self._frame.disabled = self._play.disabled = False
            return
        self._frame.disabled = self._play.disabled = True
        shown = self._status.value

        def next_snapshot():
            with self._replay_lock:
                if run != self._replay_run:  # a newer run took over
                    return
                missing = [f for f in range(n) if not self._in_page(f)]
                if not missing:
                    self._frame.disabled = self._play.disabled = False
                    self._status.value = shown
                    return
                with self._reporting_errors():
                    self._picture(missing[0])
                if missing[0] not in self._sent:  # it failed (said so): the rest on demand
                    self._frame.disabled = self._play.disabled = False
                    return
                self._status.value = f"{shown} <small>(replay: {n - len(missing) + 1} of {n} " \
                                     f"snapshots in the page; snapshot and play wait for the " \
                                     f"rest)</small>"
            loop.call_later(0.001, next_snapshot)  # messages waiting go first

        loop.call_later(0.001, next_snapshot)

    def _on_frame(self, change):
        # The page switches the picture itself (its kept pictures); the kernel only draws a
        # snapshot not sent yet, and never moves the slider here: a busy kernel answering late
        # would send the page back to a snapshot it has already left.
        frame = int(change["new"])
        with self._replay_lock, self._reporting_errors():
            if 0 <= frame < self._run_n:
                self._picture(frame)
                self.params["frame"] = frame

    def _show(self, png):
        self._image = png
        self._image_widget.layout.opacity = "1"
        self._status.value = f"<small>updated in {1000 * self.last_update_s:.0f} ms</small>"

    def _set_progress(self, value, style):
        with self._progress.hold_sync():  # one message
            self._progress.value, self._progress.bar_style = value, style

    def _on_change(self, change=None):
        values = {name: c.value for name, c in self._controls.items()}
        self._set_progress(0, "info")
        self._status.value = "<small>running…</small>"

        def hook(done, total):  # in steps of PROGRESS_STEP percent: fewer messages
            self._progress.value = PROGRESS_STEP * int(100 * done / max(total, 1) / PROGRESS_STEP)

        with self._replay_lock:
            if self.stream is None:
                self._new_run(values, hook)
            else:
                self._replay_run += 1  # the snapshots of the last run still to send are not sent
                self._stream_run(values, hook)

    def _new_run(self, values, hook):
        n = None
        start = time.perf_counter()
        with self._reporting_errors(), reporting_progress(hook):
            n = self.n_frames(**{**self._run_params(), **values})
        if n is None:  # the run failed (said so in the status line): keep showing the last one
            self._progress.bar_style = "danger"
            return
        self._end_run(values, n, start)

    def _end_run(self, values, n, start, first_s=None):
        self._set_progress(100, "success")
        self.params.update(values)
        with self._reporting_errors():  # the end of the new run; "play" replays it from the start
            self._mark_inapplicable(values)
            self.render(frame=n - 1)
            self.last_update_s = time.perf_counter() - start
            self._show(self._pngs[_cache_key(self.params)])
            if first_s is not None:
                self._status.value = (f"<small>first picture in {1000 * first_s:.0f} ms, the "
                                      f"run's end in {1000 * self.last_update_s:.0f} ms</small>")
            self._show_run(n, n - 1, self._image)

    # a new run shown as it goes (``stream``; the steps are :class:`._stream.Streaming`'s)
    def _stream_began(self):
        self._frame.disabled = self._play.disabled = True

    def _stream_failed(self):
        """Back to the last run's pictures, faded (the status line says why)."""
        self._progress.bar_style = "danger"
        self._show_run(self._run_n, self.params["frame"])
        self._image_widget.layout.opacity = STALE_OPACITY

    def _stream_ended(self, values, start, first_s):
        n = None
        with self._reporting_errors():
            n = self.n_frames(**{**self._run_params(), **values})  # cached now
        if n is None:
            return False
        self._end_run(values, n, start, first_s)
        return True

    def _live_params(self, values):
        return {**self.params, **values, "frame": -1}

    def _show_live(self, png):
        """Show a picture of the run under way (not one of the replay's: not kept)."""
        self._image_widget.put(png, "")
        self._image_widget.layout.opacity = "1"

