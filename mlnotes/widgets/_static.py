"""The static form of an explorer: its results over a grid of settings, drawn by the browser.

Where no kernel runs (the HTML book), an explorer still moves: the results for a grid of
settings are computed when the notebook runs, by the same cached functions the live widget
draws from, and shipped as compact data that ``book/_static/explorer.js`` (a few KB, no
framework) draws on canvas. What a setting shows is a *scene*: a list of panels, each a list of
layers (points, segments, lines, bars, images, text) in data coordinates, plus the titles.

Format of the data (JSON, gzip-compressed, base64 in a ``<script type="application/gzip">``)::

    {"title", "note", "cmaps": {name: [hex, ...]},
     "controls": [{"name", "label", "kind": "slider" | "choice", "values": [label, ...],
                   "index": current}],
     "replay": {"label"} or null,
     "arrays": {id: {"shape", "lo", "hi", "log", "q": [int, ...]}},  # quantised, see _encode
     "states": {key: scene}, "frames": {run key: number of frames},
     "inert": {key: [indices of the controls that change nothing at that setting]}}

A state's key is the index of each control's value, joined by commas, and for a replay
``/frame``. A scene refers to its arrays by id (``"@id"``), so an array that many settings share
(the data set, a loss curve) is stored once.
"""

import base64
import gzip
import hashlib
import html
import itertools
import json

import matplotlib
import numpy as np

COORD_LEVELS = 1023  # coordinates and curves: 10 bits, under a pixel on any panel the book shows
IMAGE_LEVELS = 255  # images and heat maps: 8 bits, what a screen shows anyway
PALETTE_SIZE = 64  # colours of a continuous colour map (indices quantised to this many)
LISTED_VALUES = 12  # a note lists at most this many values of a control
MAX_REPLAY_FRAMES = 60  # snapshots of one run kept for the replay
DATA_BUDGET_BYTES = 1_500_000  # explorer data of one chapter page, all explorers together
# What a setting the method cannot handle raises (bad input, a diverging run, an eigensolver that
# does not converge): stored as that setting's message instead of failing the whole export.
SETTING_ERRORS = (ValueError, FloatingPointError, np.linalg.LinAlgError, RuntimeError)
PALETTES = {"coord": "viridis", "label": "tab10", "diverging": "RdBu_r", "gray": "gray_r"}

# The inline loader: loads explorer.js and explorer.css once per page, from the directory of
# the page's own Sphinx scripts (``.../_static/``), whatever the page's depth; does nothing when
# the book's extension has already put them on the page.
_LOADER = """(function () {
  if (window.MLNotesExplorers) { window.MLNotesExplorers.scan(); return; }
  if (document.querySelector('script[src*="explorer.js"]')) return;
  var ref = document.querySelector('script[src*="_static/"]');
  if (!ref) return;
  var base = ref.getAttribute("src").replace(/_static\\/.*$/, "_static/");
  var css = document.createElement("link");
  css.rel = "stylesheet"; css.href = base + "explorer.css"; document.head.appendChild(css);
  var js = document.createElement("script");
  js.src = base + "explorer.js"; js.async = true; document.head.appendChild(js);
})();"""


# --- arrays -------------------------------------------------------------------------------------
class Data:
    """An array to ship: quantised to ``levels`` steps between its minimum and maximum (per
    column for point sets), or kept exact for integers (indices, counts)."""

    def __init__(self, a, *, levels=COORD_LEVELS, per_column=False, log=False):
        a = np.asarray(a)
        if np.issubdtype(a.dtype, np.integer) or a.dtype == bool:
            self.encoded = {"shape": list(a.shape), "q": a.astype(np.int64).ravel().tolist()}
        else:
            self.encoded = _quantise(np.asarray(a, dtype=float), levels, per_column, log)
        text = json.dumps(self.encoded, separators=(",", ":"))
        self.key = hashlib.sha1(text.encode()).hexdigest()[:12]


def _quantise(a, levels, per_column, log):
    """Integers 0..levels between ``lo`` and ``hi`` (per column, if asked); NaN becomes -1.
    ``log``: the base-10 logarithm is quantised (for a curve drawn on a log scale)."""
    v = np.log10(a) if log else a
    axis = 0 if per_column else None
    finite = np.isfinite(v)
    if not finite.any():
        lo = hi = np.zeros(v.shape[1] if per_column else ())
    else:
        lo = np.nanmin(np.where(finite, v, np.nan), axis=axis)
        hi = np.nanmax(np.where(finite, v, np.nan), axis=axis)
    span = np.where(hi > lo, hi - lo, 1.0)
    q = np.where(finite, np.rint((np.nan_to_num(v) - lo) / span * levels), -1).astype(np.int64)
    return {"shape": list(a.shape), "lo": np.atleast_1d(lo).tolist(),
            "hi": np.atleast_1d(hi).tolist(), "levels": levels, "log": bool(log),
            "q": q.ravel().tolist()}


def decode_array(encoded):
    """The array the browser reconstructs from :class:`Data`'s encoding (tests use it)."""
    q = np.asarray(encoded["q"], dtype=float).reshape(encoded["shape"])
    if "lo" not in encoded:
        return q.astype(np.int64)
    lo, hi = np.asarray(encoded["lo"]), np.asarray(encoded["hi"])
    if len(lo) == 1:
        lo, hi = lo[0], hi[0]
    v = np.where(q < 0, np.nan, lo + q / encoded["levels"] * (hi - lo))
    return 10.0 ** v if encoded["log"] else v


def unit_colours(c):
    """Colour values as palette indices: labels (integers) as they are, coordinates scaled to
    0..PALETTE_SIZE-1 between their minimum and maximum (matplotlib's normalisation)."""
    c = np.asarray(c)
    if c.ndim == 2:
        c = c[:, 0]
    if np.issubdtype(c.dtype, np.integer):
        return "label", Data(c)
    span = c.max() - c.min()
    unit = (c - c.min()) / (span if span > 0 else 1.0)
    return "coord", Data(np.rint(unit * (PALETTE_SIZE - 1)).astype(np.int64))


# --- layers: what a panel draws, in data coordinates --------------------------------------------
def points(xy, c=None, *, size=2.0, color="fg", edge=None):
    """Points ``xy`` (N x 2) coloured by ``c`` (coordinates or labels, as
    :func:`mlnotes.plotting.scatter`) or all in ``color``."""
    layer = {"t": "pts", "xy": Data(xy, per_column=True), "size": size, "color": color}
    if c is not None:
        layer["cmap"], layer["c"] = unit_colours(c)
    if edge:
        layer["edge"] = edge
    return layer


def segments(xy, pairs, *, color="muted", width=0.5, count=None):
    """Segments between points ``xy[i]`` and ``xy[j]`` for the rows (i, j) of ``pairs`` (the
    first ``count`` rows only, if given)."""
    layer = {"t": "seg", "xy": Data(xy, per_column=True), "pairs": Data(np.asarray(pairs)),
             "color": color, "width": width}
    if count is not None:
        layer["count"] = int(count)
    return layer


def line(x, y, *, color="C0", width=1.5, dash=False, log=False, marker=False):
    """A polyline through (x, y)."""
    return {"t": "line", "x": Data(x), "y": Data(y, log=log), "color": color, "width": width,
            "dash": dash, "marker": marker}


def dot(x, y, *, color="C3"):
    """One marker at (x, y)."""
    return {"t": "dot", "x": float(x), "y": float(y), "color": color}


def rule(axis, value, *, color="fg", dash=True, width=1.0):
    """A vertical (``axis="x"``) or horizontal (``axis="y"``) line across the panel."""
    return {"t": "rule", "axis": axis, "v": float(value), "color": color, "dash": dash,
            "width": width}


def span(x0, x1, *, color="shade"):
    """A shaded band between x0 and x1, the panel's full height."""
    return {"t": "span", "x0": float(x0), "x1": float(x1), "color": color}


def stems(x, y, *, color="C0", width=1.5):
    """Vertical lines from 0 to y at each x (a spectrum)."""
    return {"t": "stem", "x": Data(x), "y": Data(y), "color": color, "width": width}


def bars(x, y, colors, *, width=0.8):
    """Bars of height y at x, one colour name each."""
    return {"t": "bars", "x": Data(x), "y": Data(y), "colors": list(colors), "width": width}


def grid_image(z, extent, *, cmap="diverging", vmin=None, vmax=None):
    """A grid of values (rows from bottom to top) over ``extent`` = (x0, x1, y0, y1), coloured
    by ``cmap`` between ``vmin`` and ``vmax`` (default: its minimum and maximum); NaN cells are
    left empty."""
    layer = {"t": "img", "z": Data(z, levels=IMAGE_LEVELS), "ext": [float(e) for e in extent],
             "cmap": cmap}
    if vmin is not None:
        layer["vmin"], layer["vmax"] = float(vmin), float(vmax)
    return layer


def text(x, y, s, *, color="fg", align="left", baseline="middle"):
    """A label at (x, y) in data coordinates."""
    return {"t": "text", "x": float(x), "y": float(y), "s": s, "color": color, "align": align,
            "baseline": baseline}


def panel(title, layers, *, xlim=None, ylim=None, equal=False, xticks=None, yticks=None,
          xlabel="", ylabel="", ylog=False, axes=True, ytick_labels=None, wide=False):
    """One panel of a scene. Limits default to the points' extent (with a margin); ``xticks``
    and ``yticks`` are a list of values, ``"auto"``, or None for none; ``axes=False`` draws no
    frame (a 3-D view, a map); ``wide=True`` gives the panel a whole row (a mosaic)."""
    out = {"title": title, "layers": layers, "equal": equal, "axes": axes, "xlabel": xlabel,
           "ylabel": ylabel, "ylog": ylog, "wide": wide}
    for name, value in (("xlim", xlim), ("ylim", ylim), ("xticks", xticks), ("yticks", yticks),
                        ("yticklabels", ytick_labels)):
        if value is not None:
            out[name] = value if isinstance(value, str) else [
                v if isinstance(v, str) else float(v) for v in value]
    return out


def scene(suptitle, panels):
    """What one setting shows: a title over the panels."""
    return {"suptitle": suptitle, "panels": panels}


# --- grids of settings ------------------------------------------------------------------------
def product_grid(values):
    """Every combination of the controls' values (``values``: name -> tuple)."""
    names = list(values)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values.values())]


def star_grid(values, current):
    """The current setting and every setting that changes one control only: for controls whose
    effects are best seen one at a time (and whose product would be too large to ship)."""
    grid = [dict(current)]
    for name, vals in values.items():
        grid += [{**current, name: v} for v in vals if v != current[name]]
    return grid


# --- the whole static explorer ------------------------------------------------------------------
def _label(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def _register(obj, arrays):
    """Replace every :class:`Data` in a scene by ``"@id"``, collecting the arrays."""
    if isinstance(obj, Data):
        arrays.setdefault(obj.key, obj.encoded)
        return "@" + obj.key
    if isinstance(obj, dict):
        return {k: _register(v, arrays) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_register(v, arrays) for v in obj]
    if isinstance(obj, float) and not np.isfinite(obj):
        return None  # JSON has no NaN; the page skips what it cannot place
    return obj


def _held_in_grid(controls, params, grid):
    """Per control, the values the grid holds, in the control's order (the current one
    included)."""
    held = {}
    for c in controls:
        seen = {g[c.name] for g in grid}
        held[c.name] = tuple(v for v in (*c.values, params[c.name]) if v in seen)
        held[c.name] = tuple(dict.fromkeys(held[c.name]))
    return held


def static_spec(explorer, grid, *, scene_of, frames_of=None, star=False, irrelevant=None):
    """Compute every setting of ``grid`` (a list of control values) with ``scene_of(**params)``
    and collect them; for a replay, ``frames_of(**params)`` gives the run's number of frames and
    each frame is a setting of its own. A setting the method cannot handle is stored with its
    error message, which the page shows as the live widget's status line would.
    ``irrelevant(**params)`` names the controls that have no effect at a setting (the page
    disables them there)."""
    controls = explorer.controls
    held = _held_in_grid(controls, explorer.params, grid)
    arrays, states, frames, unused = {}, {}, {}, {}
    for setting in grid:
        params = {**explorer.params, **setting}
        key = ",".join(str(held[c.name].index(params[c.name])) for c in controls)
        if key in states or key in frames:
            continue
        names = irrelevant(**params) if irrelevant else set()
        unused[key] = [j for j, c in enumerate(controls) if c.name in names]
        try:
            if frames_of is None:
                states[key] = _register(scene_of(**params), arrays)
                continue
            n = frames_of(**params)
            kept = sorted(set(np.linspace(0, n - 1, min(n, MAX_REPLAY_FRAMES)).round().astype(int)))
            frames[key] = len(kept)
            for i, f in enumerate(kept):
                states[f"{key}/{i}"] = _register(scene_of(**{**params, "frame": int(f)}), arrays)
        except SETTING_ERRORS as exc:
            states[key] = {"error": str(exc)}
            frames.pop(key, None)
    inert = _inert_controls(states, frames, unused)
    controls_out = [{
        "name": c.name, "label": c.description or c.name,
        "kind": c.kind,
        "values": [_label(v) for v in held[c.name]],
        "index": held[c.name].index(explorer.params[c.name]),
    } for c in controls]
    cmaps = {}
    for name, cmap in PALETTES.items():
        colormap = matplotlib.colormaps[cmap]
        n = colormap.N if name == "label" else PALETTE_SIZE
        cmaps[name] = [matplotlib.colors.to_hex(colormap(i / (n - 1) if name != "label" else i))
                       for i in range(n)]
    note = describe_grid(controls, held, explorer.params, star=star)
    return {"title": repr(explorer), "note": note, "cmaps": cmaps, "controls": controls_out,
            "replay": {"label": "snapshot"} if frames_of else None, "arrays": arrays,
            "states": states, "frames": frames, "inert": inert}


def _inert_controls(states, frames, unused):
    """Per setting, the controls that change nothing there: those ``unused`` names (the degree
    of a kernel that has none), and those whose other held values all show the same (the
    radius of a kNN graph). The page disables them."""
    def run(key):  # everything a setting shows: its scene, or all its snapshots
        if key in frames:
            return [states[f"{key}/{i}"] for i in range(frames[key])]
        return states[key]

    by_key = {k: tuple(int(i) for i in k.split(",")) for k in unused}
    inert = {}
    for key, idx in by_key.items():
        out = list(unused[key])
        for j in range(len(idx)):
            others = [k for k, o in by_key.items()  # the settings that differ in control j only
                      if o[j] != idx[j] and sum(a != b for a, b in zip(o, idx, strict=True)) == 1]
            if j not in out and others and all(run(k) == run(key) for k in others):
                out.append(j)
        if out:
            inert[key] = sorted(out)
    return inert


def describe_grid(controls, held, params, *, star=False):
    """One sentence saying which settings the page holds."""
    parts = []
    for c in controls:
        vals = held[c.name]
        listed = [_label(v) for v in vals]
        if len(listed) > LISTED_VALUES:  # a long regular range: its ends and its size
            listed = [*listed[:2], "…", listed[-1] + f" ({len(listed)} values)"]
        parts.append(f"{c.description or c.name} " + (
            f"{listed[0]} only" if len(vals) == 1 else ", ".join(listed)))
    moved = [c for c in controls if len(held[c.name]) > 1]
    how = (" (one at a time, the others at " + ", ".join(
        f"{c.description or c.name} {_label(params[c.name])}" for c in moved) + ")") if star else ""
    return ("This page holds " + "; ".join(parts) + how +
            ". Run the notebook to try any other setting.")


def encode_spec(spec):
    """The spec as gzip-compressed JSON in base64 (gzip's time stamp zeroed: the same results
    give the same bytes, so a re-executed notebook changes only where the results do)."""
    raw = json.dumps(spec, separators=(",", ":"), allow_nan=False).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def decode_spec(html_text):
    """The spec carried by an explorer's HTML (what the browser decodes; tests use it)."""
    start = html_text.index('<script type="application/gzip"')
    start = html_text.index(">", start) + 1
    end = html_text.index("</script>", start)
    return json.loads(gzip.decompress(base64.b64decode(html_text[start:end])))


def explorer_html(spec):
    """The explorer's static HTML: a no-JavaScript fallback of the right size, the data, and the loader.
    explorer.js replaces that fallback by the controls and the panels when the explorer comes
    near the screen; nothing here delays the page's first paint."""
    title = html.escape(spec["title"])
    return (
        f'<div class="mlnotes-explorer" role="group" aria-label="{title}">\n'
        f'<p class="mlx-fallback">Interactive explorer ({title}): in a notebook, run this '
        f"cell to use it; on a web page it needs JavaScript.</p>\n"
        f'<p class="mlx-note">{html.escape(spec["note"])}</p>\n'
        f'<script type="application/gzip" class="mlx-data">{encode_spec(spec)}</script>\n'
        f"<script>{_LOADER}</script>\n</div>"
    )
