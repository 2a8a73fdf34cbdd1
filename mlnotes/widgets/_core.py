"""The machinery every explorer shares: controls, the live widget, the static rendering.

An explorer is a drawing function ``draw(**params) -> Figure`` plus a list of controls. Live (a
kernel behind a JupyterLab page) it is an ipywidgets box whose controls redraw a PNG image; saved
in a notebook it also carries a static rendering of the same drawing, chosen by the book's HTML
builder (``nb_mime_priority_overrides`` in ``_config.yml`` drops the widget view there):

* ``image/png``: the figure at the explorer's parameters, or a small-multiples sweep of its main
  parameter (one row per value);
* ``text/html``: for iterative methods, a self-contained JavaScript replay of the recorded
  optimisation (:func:`replay_html`: play, pause and a slider over embedded PNG frames).

Figures are ``matplotlib.figure.Figure`` objects not managed by pyplot, so a drawing returned as
a cell's last value is displayed exactly once and never leaks into pyplot's figure list.
"""

import base64
import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import html
import inspect
import io
import itertools
import json
import time

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..plotting import FIG_DPI

# What "feels instant" means for one update (draw + PNG), checked by benchmarks/bench_widgets.py.
UPDATE_BUDGET_S = 0.150
# Frames of a static (JavaScript) animation: enough to see the motion, few enough to keep the
# notebook small (each frame is an embedded PNG).
STATIC_ANIMATION_FRAMES = 20
REPLAY_FPS = 5
REPLAY_COLORS = 64  # palette size of the replay's frames
STATIC_COLORS = 256  # palette size of the static figures (a third of the bytes of full colour)
# zlib level of the PNGs sent to the browser: fast to encode, a little larger than the default 6
PNG_COMPRESSION = 1
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"


# --- figures ------------------------------------------------------------------------------------
def new_figure(width, height):
    """A pyplot-free figure of ``width`` x ``height`` inches at the book's resolution."""
    fig = Figure(figsize=(width, height), dpi=FIG_DPI)
    FigureCanvasAgg(fig)
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
                 origin="upper")


def figure_png(fig):
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=FIG_DPI, pil_kwargs={"compress_level": PNG_COMPRESSION})
    return buf.getvalue()


def stack_rows(images):
    """Stack RGBA images vertically, padding narrower ones with white on the right."""
    width = max(im.shape[1] for im in images)
    rows = []
    for im in images:
        pad = np.full((im.shape[0], width - im.shape[1], 4), 255, dtype=np.uint8)
        rows.append(np.concatenate([im, pad], axis=1))
    return np.concatenate(rows, axis=0)


def palette_png(image, colors=REPLAY_COLORS):
    """An RGBA image as a small palette PNG (plots have few colours; about a quarter the size)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(image[..., :3]).quantize(colors=colors).save(buf, format="png", optimize=True)
    return buf.getvalue()


_REPLAY_TEMPLATE = """<div class="mlnotes-replay" id="{id}">
<img src="{last}" alt="{alt}" style="max-width: 100%">
<div style="display: flex; gap: 0.5em; align-items: center">
<button type="button" data-act="play" title="play from the start">&#x25B6; play</button>
<button type="button" data-act="pause" title="pause">pause</button>
<input type="range" min="0" max="{top}" value="{top}" aria-label="snapshot" style="flex: 1">
<span>{n} / {n}</span>
</div>
<script>
(function () {{
  var root = document.getElementById("{id}");
  var frames = {frames};
  var img = root.querySelector("img"), slider = root.querySelector("input");
  var label = root.querySelector("span"), timer = null;
  function show(i) {{
    img.src = frames[i]; slider.value = i; label.textContent = (i + 1) + " / " + frames.length;
  }}
  function stop() {{ clearInterval(timer); timer = null; }}
  slider.addEventListener("input", function () {{ stop(); show(+slider.value); }});
  root.querySelector("[data-act=pause]").addEventListener("click", stop);
  root.querySelector("[data-act=play]").addEventListener("click", function () {{
    if (timer) return;
    var i = +slider.value >= frames.length - 1 ? -1 : +slider.value;
    timer = setInterval(function () {{ i += 1; show(i); if (i >= frames.length - 1) stop(); }},
                        {interval});
  }});
}})();
</script>
</div>"""
_replays = itertools.count()


def replay_html(images, *, alt="animation", fps=REPLAY_FPS):
    """A self-contained HTML player (play, pause, a slider) for a list of RGBA frames.

    The same idea as matplotlib's ``Animation.to_jshtml``, with palette-PNG frames (a quarter
    of the size) and no icon font fetched from a CDN: the book makes no request to another host.
    """
    frames = ["data:image/png;base64," + base64.b64encode(palette_png(im)).decode("ascii")
              for im in images]
    digest = hashlib.sha1("".join(frames).encode()).hexdigest()[:10]
    return _REPLAY_TEMPLATE.format(
        id=f"mlnotes-replay-{digest}-{next(_replays)}", last=frames[-1], alt=html.escape(alt),
        top=len(frames) - 1, n=len(frames), frames=json.dumps(frames), interval=round(1000 / fps),
    )


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


# --- controls -----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Slider:
    """A slider stepping through hand-picked values (e.g. perplexities 2, 5, 30, 50, 100)."""

    name: str
    values: tuple
    description: str = ""

    def build(self, value):
        import ipywidgets as w

        values = tuple(sorted(set(self.values) | {value}))
        return w.SelectionSlider(
            options=[(_label(v), v) for v in values], value=value, continuous_update=False,
            description=self.description or self.name, style={"description_width": "initial"},
        )


@dataclasses.dataclass(frozen=True)
class Choice:
    """Buttons for a few named options (a data set, a kernel, a dissimilarity)."""

    name: str
    values: tuple
    description: str = ""

    def build(self, value):
        import ipywidgets as w

        values = self.values if value in self.values else (*self.values, value)
        style = {"description_width": "initial"}
        if len(values) > 4:
            return w.Dropdown(options=list(values), value=value, style=style,
                              description=self.description or self.name)
        return w.ToggleButtons(options=list(values), value=value, style={**style, "button_width": "auto"},
                               description=self.description or self.name)


def _label(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


# --- explorers ----------------------------------------------------------------------------------
def draw_defaults(draw):
    """The keyword defaults of a drawing function."""
    return {
        name: p.default for name, p in inspect.signature(draw).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


class Explorer:
    """Controls wired to ``draw(**params)``; live in a notebook, a static figure in the book.

    Parameters
    ----------
    draw : callable
        ``draw(**params) -> matplotlib.figure.Figure``.
    controls : list of Slider or Choice
        The parameters the reader can change; every other parameter of ``draw`` stays fixed.
    params : dict
        Overrides of ``draw``'s defaults (unknown names raise a ``TypeError``).
    sweep : tuple, optional
        Values of the first control drawn one below the other as the static rendering; empty
        (the default) for the figure at ``params`` alone.

    Attributes
    ----------
    params : dict
        The current value of every parameter of ``draw``.
    last_update_s : float
        Wall-clock time of the last redraw (draw + PNG encoding), in seconds.
    """

    def __init__(self, draw, controls, params, *, sweep=()):
        defaults = draw_defaults(draw)
        unknown = sorted(set(params) - set(defaults))
        if unknown:
            raise TypeError(
                f"{draw.__name__} has no parameter(s) {', '.join(unknown)}; "
                f"choose among {', '.join(sorted(defaults))}."
            )
        self.draw, self.controls = draw, list(controls)
        self.params = {**defaults, **params}
        self.sweep = tuple(sweep)
        self.last_update_s = float("nan")
        self._widget = None
        self._image = self.render()  # fail here, with the draw function's message, on bad input

    def render(self, **changes):
        """Redraw with ``changes`` applied to the current parameters; return PNG bytes."""
        start = time.perf_counter()
        params = {**self.params, **changes}
        png = figure_png(self.draw(**params))
        self.params = params
        self.last_update_s = time.perf_counter() - start
        return png

    # static renderings
    def static_bundle(self):
        """The MIME bundle the static book shows (no kernel, no JavaScript widgets): the figure
        at the current parameters, or one row per value of the sweep, as a palette PNG."""
        name = self.controls[0].name
        rows = [figure_rgba(self.draw(**{**self.params, name: v}))
                for v in (self.sweep or (self.params[name],))]
        png = palette_png(stack_rows(rows), colors=STATIC_COLORS)
        return {"image/png": base64.b64encode(png).decode("ascii")}

    def __repr__(self):
        shown = ", ".join(f"{c.name}={self.params[c.name]!r}" for c in self.controls)
        return f"{self.draw.__name__.replace('draw_', '')} explorer ({shown})"

    def _repr_mimebundle_(self, include=None, exclude=None):
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
        import ipywidgets as w

        self._controls = {c.name: c.build(self.params[c.name]) for c in self.controls}
        self._image_widget = w.Image(value=self._image, format="png")
        self._status = w.HTML(layout=w.Layout(min_height="1.5em"))
        for control in self._controls.values():
            control.observe(self._on_change, names="value")
        box = w.HBox(list(self._controls.values()), layout=w.Layout(flex_flow="row wrap"))
        return w.VBox([box, *self._extra_widgets(), self._image_widget, self._status])

    def _extra_widgets(self):
        return []

    def _on_change(self, change=None):
        values = {name: c.value for name, c in self._controls.items()}
        self._status.value = "<small>computing…</small>"  # a new setting may take a moment
        with self._reporting_errors():
            self._show(self.render(**values))

    @contextlib.contextmanager
    def _reporting_errors(self):
        """A setting the method cannot handle (say, a diverging run) leaves the last figure and
        says why in the status line, instead of a traceback in the kernel's log."""
        try:
            yield
        except (ValueError, FloatingPointError) as exc:
            self._status.value = f"<small style='color: #b00'>cannot draw this setting: " \
                                 f"{html.escape(str(exc))}</small>"

    def _show(self, png):
        self._image = png
        self._image_widget.value = png
        self._status.value = f"<small>updated in {1000 * self.last_update_s:.0f} ms</small>"


class ReplayExplorer(Explorer):
    """An explorer for an iterative method: a run (with a progress bar) and a replay of it.

    ``draw`` takes a ``frame`` parameter (index into the recorded snapshots, -1 = the last);
    ``n_frames(**params)`` runs (or fetches from its cache) the optimisation for ``params`` and
    returns how many snapshots it recorded, calling :func:`report_progress` as it goes. The
    static rendering is a JavaScript animation of the run.
    """

    def __init__(self, draw, controls, params, *, n_frames):
        self.n_frames = n_frames
        super().__init__(draw, controls, params)

    def frames(self):
        """The frames shown by the static animation (at most STATIC_ANIMATION_FRAMES)."""
        n = self.n_frames(**self._run_params())
        return sorted(set(np.linspace(0, n - 1, min(n, STATIC_ANIMATION_FRAMES)).round().astype(int)))

    def _run_params(self):
        return {k: v for k, v in self.params.items() if k != "frame"}

    def static_bundle(self):
        images = [figure_rgba(self.draw(**{**self.params, "frame": int(f)})) for f in self.frames()]
        bundle = super().static_bundle()  # the last frame, for renderers without JavaScript
        bundle["text/html"] = replay_html(images, alt=f"replay of {self!r}")
        return bundle

    def _extra_widgets(self):
        import ipywidgets as w

        n = self.n_frames(**self._run_params())
        frame = self.params["frame"] % n
        self._frame = w.IntSlider(value=frame, min=0, max=n - 1, description="snapshot",
                                  continuous_update=True)
        self._play = w.Play(value=frame, min=0, max=n - 1, interval=150, description="play")
        w.jslink((self._play, "value"), (self._frame, "value"))
        self._progress = w.IntProgress(value=100, min=0, max=100, description="run",
                                       bar_style="success")
        self._frame.observe(self._on_frame, names="value")
        return [w.HBox([self._play, self._frame, self._progress])]

    def _on_frame(self, change):
        with self._reporting_errors():
            self._show(self.render(frame=int(change["new"])))

    def _on_change(self, change=None):
        values = {name: c.value for name, c in self._controls.items()}
        self._progress.bar_style = "info"
        self._status.value = "<small>running…</small>"

        def hook(done, total):
            self._progress.value = int(100 * done / max(total, 1))

        n = None
        with self._reporting_errors(), reporting_progress(hook):
            n = self.n_frames(**{**self._run_params(), **values})
        if n is None:  # the run failed (said so in the status line): keep showing the last one
            self._progress.bar_style = "danger"
            return
        self._progress.value, self._progress.bar_style = 100, "success"
        # Show the end of the new run, then let "play" replay it from the start.
        with self._frame.hold_trait_notifications():
            self._frame.max = self._play.max = n - 1
        self.params.update(values)
        if self._frame.value == n - 1:
            self._show(self.render(frame=n - 1))
        else:
            self._frame.value = n - 1
