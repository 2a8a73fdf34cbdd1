"""Text drawn from kept glyph bitmaps: the live figures' titles at a fraction of their cost.

A live explorer redraws its titles and legends with every setting (:class:`._core.LiveFigure`),
and matplotlib's Agg renderer lays out every string and rasterises every glyph again each time:
about half of an update's drawing. The glyphs do not change, so :class:`GlyphCanvas` (the
canvas of every figure :func:`._core.new_figure` makes) keeps them:

* a string's layout (which glyph goes where, in the font's units) per string and font;
* a glyph's bitmap per glyph, size and sub-pixel position: FreeType rasterises a glyph
  moved by a whole number of pixels into the same bitmap, moved, so the bitmap of a glyph at
  ``x = 64 i + f`` (26.6 fixed point) is the one at ``f`` shifted by ``i`` pixels.

The pixels are the ones matplotlib draws (tests compare them). The renderer reaches into
matplotlib's Agg text path (``RendererAgg._draw_text_glyphs_and_boxes``,
``FT2Font._layout`` and ``_render_glyph``, matplotlib 3.11); a matplotlib without them draws
text its own way (:func:`glyph_cache_works`).
"""

import math

import numpy as np
from matplotlib.backends import backend_agg
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.ft2font import FT2Font

MAX_KEPT = 20_000  # glyph bitmaps (and as many layouts) kept, about 200 bytes each
_GLYPHS: dict = {}
_LAYOUTS: dict = {}


def glyph_cache_works() -> bool:
    """Whether this matplotlib has the text path the cache replaces."""
    return (hasattr(RendererAgg, "_draw_text_glyphs_and_boxes")
            and all(hasattr(FT2Font, name) for name in ("_layout", "_render_glyph",
                                                        "_set_transform"))
            and hasattr(backend_agg, "get_hinting_flag") and hasattr(backend_agg, "RenderMode"))


def _bounded(cache: dict) -> dict:
    if len(cache) >= MAX_KEPT:
        cache.clear()
    return cache


def _font_key(prop):
    return (tuple(prop.get_family()), prop.get_style(), prop.get_variant(), prop.get_weight(),
            prop.get_stretch(), prop.get_size_in_points(), prop.get_file(),
            prop.get_math_fontfamily())


class GlyphRenderer(RendererAgg):
    """Matplotlib's Agg renderer, drawing text from kept layouts and glyph bitmaps."""

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath:
            return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        flags = backend_agg.get_hinting_flag()
        features = mtext.get_fontfeatures() if mtext is not None else None
        language = mtext.get_language() if mtext is not None else None
        key = (s, _font_key(prop), self.dpi, flags, features, language)
        items = _LAYOUTS.get(key)
        if items is None:
            font = self._prepare_font(prop)
            items = tuple((item.ft_object, item.glyph_index, item.x, item.y) for item in
                          font._layout(s, flags=flags, features=features, language=language))
            _bounded(_LAYOUTS)[key] = items
        size = prop.get_size_in_points()
        self._draw_text_glyphs_and_boxes(
            gc, x, y, angle, ((font, size, index, 0, 1, dx, dy) for font, index, dx, dy in items),
            [])

    def _draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes):
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        flags = backend_agg.get_hinting_flag()
        antialiased = gc.get_antialiased()
        mode = backend_agg.RenderMode.NORMAL if antialiased else backend_agg.RenderMode.MONO
        for font, size, index, slant, extend, dx, dy in glyphs:  # dy is upwards
            tx = round(0x40 * (x + dx * cos - dy * sin))
            ty = round(0x40 * (self.height - y + dx * sin + dy * cos))  # FreeType's y: upwards
            key = (font, size, self.dpi, index, slant, extend, angle, tx & 0x3F, ty & 0x3F,
                   antialiased, flags)
            kept = _GLYPHS.get(key)
            if kept is None:  # rasterised at the sub-pixel offset alone
                font.set_size(size, self.dpi)
                font._set_transform(
                    (0x10000 * np.array([[cos, -sin], [sin, cos]])
                     @ [[extend, extend * slant], [0, 1]]).round().astype(int),
                    [tx & 0x3F, ty & 0x3F])
                bitmap = font._render_glyph(index, flags, mode)
                buffer = np.array(bitmap.buffer)
                if not antialiased:
                    buffer *= 0xFF
                kept = _bounded(_GLYPHS)[key] = (buffer, bitmap.left, bitmap.top)
            buffer, left, top = kept
            top += ty >> 6  # the whole pixels of the position
            self._renderer.draw_text_image(buffer, left + (tx >> 6),
                                           int(self.height) - top + buffer.shape[0], 0, gc)
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
