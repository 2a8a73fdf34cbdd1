"""Build-time pieces of the phone edition (issue 32): no raw TeX in the bibliography, images
that load lazily but keep their box."""

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_ext(name):
    spec = importlib.util.spec_from_file_location(f"book_ext_{name}_32",
                                                  ROOT / "book" / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bibliography_maths_is_set_as_text():
    citations = _load_ext("citations")
    assert citations.tex_as_text(r"O(N \log N)") == "O(N log N)"
    assert citations.tex_as_text(r"\sigma_i") == "σi"
    assert citations.tex_as_text(r"N^{2}\,\times\,D") == "N^2 × D"
    assert "\\" not in citations.tex_as_text(r"\mathcal{O}(\sqrt{N})")


def test_images_load_lazily_and_keep_their_shape():
    surface = _load_ext("surface")
    page = ('<p><img alt="a" src="a.png" style="width: 539px; height: 302px;" />'
            '<img loading="eager" src="b.png"></p>')
    once = surface.lazy_images(page)
    first = re.search(r"<img [^>]*a\.png[^>]*>", once).group(0)
    assert 'loading="lazy"' in first and "aspect-ratio: 539 / 302" in first
    # an image that says how it loads keeps it; a second pass changes nothing
    assert '<img loading="eager" src="b.png">' in once
    assert surface.lazy_images(once) == once
