"""Text drawn from kept glyph bitmaps: the live figures' titles at a fraction of their cost.

A live explorer redraws its titles and legends with every setting (:class:`._core.LiveFigure`),
and matplotlib's Agg renderer lays out every string and rasterises every glyph again each time:
about half of an update's drawing. The glyphs do not change, so :class:`GlyphCanvas` (the
canvas of every figure :func:`._core.new_figure` makes) keeps them:

* a string's layout (which glyph goes where), per string and font (matplotlib gives each
  thread its own fonts, so this is per thread too);
* a glyph's bitmap and its place, per glyph, font, size, angle and sub-pixel position:
  FreeType rasterises a glyph moved by a whole number of pixels into the same bitmap, moved,
  so the bitmap of a glyph at ``x = 64 i + f`` (26.6 fixed point) is the one at ``f``,
  ``i`` pixels further. A glyph not kept yet is drawn by matplotlib itself, and its bitmap
  and place are recorded on the way.

The pixels are the ones matplotlib draws (tests compare them). The renderer hooks into
matplotlib's Agg text path (``RendererAgg._prepare_font`` and
``_draw_text_glyphs_and_boxes``, matplotlib 3.11); with a matplotlib without them it draws
text matplotlib's way (:func:`glyph_cache_works`).
"""

import inspect
import math
import threading
import typing

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg

MAX_KEPT = 20_000  # glyph bitmaps (and as many layouts) kept, about 200 bytes each
_GLYPHS: dict = {}
_LAYOUTS: dict = {}


def glyph_cache_works() -> bool:
    """Whether this matplotlib has the text path the cache hooks into, and the cache draws
    its pixels there: a small probe (rotated text at sub-pixel places and mathtext, drawn
    twice, the second time from the kept glyphs) must equal matplotlib's own canvas. A
    matplotlib whose private text path changed shape or meaning draws text its own way."""
    draw = getattr(RendererAgg, "_draw_text_glyphs_and_boxes", None)
    if (draw is None or not hasattr(RendererAgg, "_prepare_font")
            or list(inspect.signature(draw).parameters)
            != ["self", "gc", "x", "y", "angle", "glyphs", "boxes"]):
        return False
    try:
        want = _probe(FigureCanvasAgg)[0]
        return all(np.array_equal(got, want) for got in _probe(GlyphCanvas))
    except Exception:  # any failure of the hooks: matplotlib's own drawing instead
        return False


def _probe(canvas: type) -> list[np.ndarray]:
    """The pixels of a small figure of text drawn twice on ``canvas``."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2.4, 0.6), dpi=100)  # 240 x 60 pixels
    for i, angle in enumerate([0.0, 0.0, 17.0, 17.0, 90.0]):
        fig.text(0.01 + 0.19 * i + 0.0023 * i * i, 0.2 + 0.0031 * i * i, "Wq $x^2_k$",
                 fontsize=8, rotation=angle)
    # the same text moved by whole pixels along one axis and half a pixel along the other:
    # each glyph at the same sub-pixel offset on one axis only (a key that ignores either
    # offset draws one of them from the other's bitmap)
    for dx, dy in [(0.0, 0.0), (30.5, 10.0), (61.0, 20.5)]:
        fig.text((150.25 + dx) / 240, (5.25 + dy) / 60, "Wg", fontsize=7, rotation=17.0)
    canvas(fig)
    drawn = []
    for _ in range(2):
        fig.canvas.draw()
        drawn.append(np.asarray(fig.canvas.buffer_rgba()).copy())
    return drawn


def _kept(cache: dict, key: typing.Hashable, value: typing.Any) -> typing.Any:
    if len(cache) >= MAX_KEPT:
        cache.clear()
    cache[key] = value
    return value


class _KeptLayouts:
    """A font whose ``_layout`` of a string is computed once (the rest is the font's)."""

    def __init__(self, font, key):
        self._font, self._key = font, key

    def _layout(self, text, **options):
        key = (self._key, text, tuple(sorted(options.items())))
        items = _LAYOUTS.get(key)
        if items is None:
            items = _kept(_LAYOUTS, key, self._font._layout(text, **options))
        return items

    def __getattr__(self, name):
        return getattr(self._font, name)


def _subpixel(tx: int, ty: int) -> tuple[int, int]:
    """A glyph origin's offset within its pixel, on both axes (in 64ths): its bitmap's key."""
    return tx & 0x3F, ty & 0x3F


class _Recorder:
    """Stands in for the Agg drawing surface while matplotlib rasterises one glyph: records
    the bitmap and where it goes, draws nothing."""

    def __init__(self):
        self.drawn = []

    def draw_text_image(self, image, x, y, angle, gc):
        self.drawn.append((np.array(image), x, y, angle))


class GlyphRenderer(RendererAgg):
    """Matplotlib's Agg renderer, drawing text from kept layouts and glyph bitmaps."""

    def _prepare_font(self, font_prop):
        font = super()._prepare_font(font_prop)
        return _KeptLayouts(font, (threading.get_ident(), font, font_prop.get_size_in_points(),
                                   self.dpi))

    def _draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes):
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        antialiased = gc.get_antialiased()
        for glyph in glyphs:
            font, size, index, slant, extend, dx, dy = glyph  # dy is upwards
            # the glyph's origin in FreeType's 26.6 fixed point (its y upwards)
            tx = round(0x40 * (x + dx * cos - dy * sin))
            ty = round(0x40 * (self.height - y + dx * sin + dy * cos))
            key = (font, size, self.dpi, index, slant, extend, angle, *_subpixel(tx, ty),
                   antialiased)
            kept = _GLYPHS.get(key)
            if kept is None:  # matplotlib draws it; its bitmap and place, relative, are kept
                recorder = _Recorder()
                renderer, self._renderer = self._renderer, recorder
                try:
                    super()._draw_text_glyphs_and_boxes(gc, x, y, angle, [glyph], [])
                finally:
                    self._renderer = renderer
                kept = _kept(_GLYPHS, key, [(image, left - (tx >> 6), bottom + (ty >> 6), turn)
                                            for image, left, bottom, turn in recorder.drawn])
            for image, left, bottom, turn in kept:
                self._renderer.draw_text_image(image, left + (tx >> 6), bottom - (ty >> 6),
                                               turn, gc)
        boxes = list(boxes)
        if boxes:  # (mathtext's rules: matplotlib's own)
            super()._draw_text_glyphs_and_boxes(gc, x, y, angle, (), boxes)


class GlyphCanvas(FigureCanvasAgg):
    """An Agg canvas whose renderer is a :class:`GlyphRenderer` (the same pixels)."""

    def get_renderer(self):
        renderer = super().get_renderer()
        if type(renderer) is RendererAgg:
            renderer.__class__ = GlyphRenderer
        return renderer


CANVAS = GlyphCanvas if glyph_cache_works() else FigureCanvasAgg
