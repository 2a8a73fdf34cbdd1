"""Figure defaults for phones (mlnotes.plotting): readable text when a figure fills a phone."""

import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from mlnotes import plotting


@pytest.fixture
def phone_defaults():
    with matplotlib.rc_context():
        plotting.setup_notebook()
        yield
    plt.close("all")


def test_tick_labels_stay_readable_at_phone_width():
    # pixels of a tick label when the widest inline figure is shrunk into a phone's column
    shown = (plotting.TICK_SIZE * plotting.FIG_DPI / 72
             * plotting.PHONE_COLUMN_PX / (plotting.MAX_FIGURE_WIDTH * plotting.FIG_DPI))
    assert shown >= plotting.PHONE_MIN_TEXT_PX - 0.05


def test_setup_sets_the_phone_font_sizes(phone_defaults):
    assert matplotlib.rcParams["xtick.labelsize"] == plotting.TICK_SIZE
    assert matplotlib.rcParams["font.size"] == plotting.FONT_SIZE
    assert matplotlib.rcParams["figure.figsize"][0] <= plotting.MAX_FIGURE_WIDTH


def test_wide_figure_is_scaled_to_the_maximum_width_keeping_its_shape(phone_defaults):
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    fig.tight_layout()
    scale = plotting.fit_to_width(fig)
    width, height = fig.get_size_inches()
    assert width == pytest.approx(plotting.MAX_FIGURE_WIDTH)
    assert height == pytest.approx(3.4 * scale)
    narrow, _ = plt.subplots(figsize=(4, 3))
    assert plotting.fit_to_width(narrow) == 1.0
    assert tuple(narrow.get_size_inches()) == (4, 3)


def test_scaled_panels_do_not_overlap_their_neighbours_labels(phone_defaults):
    rng = np.random.default_rng(0)
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    for ax in axes:
        ax.scatter(*rng.normal(size=(2, 100)) * 1000, s=4)
        ax.set_title("an embedding")
        ax.set_xlabel("z1")
    fig.tight_layout()  # laid out for 12 in, then shrunk: the layout must be redone
    plotting.fit_to_width(fig)
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_tightbbox(renderer) for ax in axes]
    for left, right in zip(boxes[:-1], boxes[1:], strict=True):
        assert left.x1 <= right.x0 + 1, "tick labels of one panel run into the next"


def _saved_png(fig):
    """The inline backend's PNG of ``fig`` (as a notebook stores it): (width, height) in CSS
    pixels, and the figure after it was fitted."""
    import base64
    import io

    from PIL import Image

    data, meta = plotting._phone_width_png(fig)
    png = Image.open(io.BytesIO(base64.b64decode(data)))
    return png.size, meta


def test_saved_figure_with_outside_labels_fits_the_phone_width(phone_defaults):
    # a legend outside the figure made saved figures up to 610 px wide (tick labels
    # 7.8 px on a phone): what is saved, not the figure, must fit MAX_FIGURE_WIDTH
    rng = np.random.default_rng(0)
    fig, axes = plt.subplots(1, 3, figsize=(6.6, 2.4))
    for ax in axes:
        art = ax.scatter(*rng.normal(size=(2, 50)) * 1e4, c=rng.normal(size=50), s=4)
        ax.set_ylabel("a long y label")
    fig.colorbar(art, ax=axes[-1], label="colour")
    fig.tight_layout()
    # beyond the figure's right edge and left out of its layout: the saved image grows to the
    # right (anchored to the narrow last panel, it covered the colour bar's labels: a collision)
    legend = axes[-1].legend(["points"], loc="center left", bbox_to_anchor=(1.0, 0.5),
                             bbox_transform=fig.transFigure)
    legend.set_in_layout(False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", plotting.FigureTextOverlap)
        (width, _), meta = _saved_png(fig)
    css_width = width / plotting.PIXEL_RATIO
    assert css_width <= plotting.MAX_FIGURE_WIDTH * plotting.FIG_DPI + 2
    shown_tick_px = (plotting.TICK_SIZE * plotting.FIG_DPI / 72
                     * min(1.0, plotting.PHONE_COLUMN_PX / css_width))
    assert shown_tick_px >= plotting.PHONE_MIN_TEXT_PX - 0.05


def test_long_panel_titles_wrap_instead_of_colliding(phone_defaults):
    fig, axes = plt.subplots(1, 3, figsize=(9, 3))
    for ax in axes:
        ax.plot([0, 1], [0, 1])
        ax.set_title(r"a rather long title with $\sigma_i$ in it, per panel")
    fig.tight_layout()
    _saved_png(fig)
    renderer = fig.canvas.get_renderer()
    boxes = [ax.title.get_window_extent(renderer) for ax in axes]
    for left, right in zip(boxes[:-1], boxes[1:], strict=True):
        assert left.x1 <= right.x0, "the titles of neighbouring panels overlap"
    assert all("\n" in ax.title.get_text() for ax in axes)
    # mathtext is never cut in two
    assert all(line.count("$") % 2 == 0 for ax in axes for line in ax.title.get_text().split("\n"))


def test_tick_labels_of_a_shrunk_panel_do_not_touch(phone_defaults):
    fig, axes = plt.subplots(1, 3, figsize=(10, 3))
    for ax in axes:
        ax.plot([-0.0213, 0.0217], [-0.02, 0.02])
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=6))
    fig.tight_layout()
    _saved_png(fig)
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        low, high = ax.get_xlim()
        boxes = sorted((t.get_window_extent(renderer) for loc, t in
                        zip(ax.get_xticks(), ax.get_xticklabels(), strict=True)
                        if low <= loc <= high and t.get_text()), key=lambda b: b.x0)
        assert len(boxes) >= 2
        for left, right in zip(boxes[:-1], boxes[1:], strict=True):
            assert right.x0 >= left.x1 + plotting.TICK_GAP_PT * fig.dpi / 72 - 0.5


def _crowded_ticks_figure(locator):
    """Three panels whose x tick labels (long numbers, many ticks) run into each other."""
    fig, axes = plt.subplots(1, 3, figsize=(6.25, 2.5))
    for ax in axes:
        ax.plot([-0.0213, 0.0217], [0, 1])
        ax.xaxis.set_major_locator(locator())
        ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.4f"))
    fig.tight_layout()
    return fig


def test_overlapping_tick_labels_are_detected_and_a_clean_figure_is_not(phone_defaults):
    fig = _crowded_ticks_figure(lambda: matplotlib.ticker.MaxNLocator(nbins=8))
    pairs = plotting.find_text_overlaps(fig)
    assert pairs and all("x tick label" in a and "x tick label" in b for a, b in pairs)
    clean, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1])
    ax.set_title("a title")
    ax.set_xlabel("x")
    clean.tight_layout()
    assert plotting.find_text_overlaps(clean) == []


def test_side_by_side_labels_on_one_row_are_not_an_overlap(phone_defaults):
    # mutant of the check: boxes compared along one axis only would call every row of tick
    # labels (same height, side by side) an overlap
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot([0, 10], [0, 10])
    fig.tight_layout()
    assert plotting.find_text_overlaps(fig) == []
    # and neighbours closer than the tolerance only (the text boxes' padding) are no collision
    fig2, ax2 = plt.subplots(figsize=(5, 3))
    ax2.plot([0, 10], [0, 10])
    fig2.tight_layout()
    assert plotting.find_text_overlaps(fig2, tolerance_pt=0.0) == []


def test_colliding_titles_and_a_colour_bar_are_detected(phone_defaults):
    fig, axes = plt.subplots(1, 2, figsize=(4, 2.5))
    for ax in axes:
        ax.set_title("a title much wider than its own small panel")
    art = axes[1].scatter([0, 1], [0, 1], c=[0, 1])
    fig.colorbar(art, ax=axes[1], label="colour")
    fig.subplots_adjust(wspace=0.05)
    pairs = plotting.find_text_overlaps(fig)
    assert ("the title of panel 1 ('a title much wider than its own small panel')",
            "the title of panel 2 ('a title much wider than its own small panel')") in pairs


def test_formatter_thins_crowded_ticks_and_warns_about_what_remains(phone_defaults):
    fig = _crowded_ticks_figure(lambda: matplotlib.ticker.MaxNLocator(nbins=8))
    with warnings.catch_warnings():
        warnings.simplefilter("error", plotting.FigureTextOverlap)
        _saved_png(fig)  # thinned: nothing left to warn about
    assert plotting.find_text_overlaps(fig) == []
    # ticks the author named cannot be thinned: the formatter warns, naming the two texts
    named, axes = plt.subplots(1, 3, figsize=(6.25, 2.5))
    for ax in axes:
        ax.set_xticks(range(6), [f"label {i}" for i in range(6)])
    named.tight_layout()
    with pytest.warns(plotting.FigureTextOverlap, match="x tick label 'label 0' of panel 1"):
        _saved_png(named)


def test_crowded_3d_tick_labels_and_fixed_numeric_ticks_are_thinned(phone_defaults):
    fig = plt.figure(figsize=(3, 3))
    ax = fig.add_subplot(projection="3d")
    ax.scatter([0, 1], [0, 1], [0, 1])
    ax.zaxis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=30))
    flat, ax2 = plt.subplots(figsize=(2, 2))
    ax2.plot([0, 1000], [0, 1])
    ax2.set_xticks(np.linspace(0, 1000, 9))
    barred, ax3 = plt.subplots(figsize=(3, 1.5))  # a colour bar's ticks, set by number
    barred.colorbar(ax3.scatter([0, 1], [0, 1], c=[0, 9]), ax=ax3, ticks=range(10))
    for figure in (fig, flat, barred):
        assert plotting.find_text_overlaps(figure)
        assert plotting.thin_crowded_ticks(figure) >= 1
        assert plotting.find_text_overlaps(figure) == []


def test_flattened_equal_aspect_panels_get_more_height(phone_defaults):
    rng = np.random.default_rng(0)
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    for ax in axes:
        ax.scatter(*rng.normal(size=(2, 100)) * 0.02, s=4)
        ax.set_aspect("equal")
    fig.tight_layout()
    plotting.fit_to_width(fig)
    width, height = fig.get_size_inches()
    assert plotting._grow_for_fixed_aspect(fig)
    assert fig.get_size_inches()[0] == width and fig.get_size_inches()[1] > height
    with warnings.catch_warnings():
        warnings.simplefilter("error", plotting.FigureTextOverlap)
        _saved_png(fig)
    assert plotting.find_text_overlaps(fig) == []
    free, ax = plt.subplots(figsize=(4, 3))  # an auto-aspect panel fills its slot: no growth
    ax.plot([0, 1], [0, 1])
    assert not plotting._grow_for_fixed_aspect(free)


# Point labels and legends: what hides other text or the data

def _labelled_points(offset_pt):
    """Four points in a row, 0.3 apart on a 4 in wide axes, each labelled ``offset_pt`` points
    to its upper right."""
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.array([0.0, 0.3, 0.6, 0.9])
    ax.scatter(x, np.zeros(4), s=16)
    ax.set(xlim=(-1, 2), ylim=(-1, 1))
    for i, point in enumerate(x):
        ax.annotate(f"a long city name {i}", (point, 0), xytext=(offset_pt, offset_pt),
                    textcoords="offset points", fontsize=9)
    fig.tight_layout()
    return fig, ax


def test_point_labels_that_cover_each_other_or_a_marker_are_detected(phone_defaults):
    fig, _ = _labelled_points(3)  # each label runs over its right neighbours' labels and dots
    pairs = plotting.find_text_overlaps(fig)
    assert ("the label 'a long city name 0' of panel 1",
            "the label 'a long city name 1' of panel 1") in pairs
    alone, ax = plt.subplots(figsize=(4, 3))
    ax.scatter([0, 1], [0, 1], s=16)
    ax.text(0, 0, "on its own dot", fontsize=9)  # anchored at the point: covers its marker
    ax.annotate("beside it", (1, 1), xytext=(4, 4), textcoords="offset points", fontsize=9)
    alone.tight_layout()
    assert plotting.find_text_overlaps(alone) == [
        ("the label 'on its own dot' of panel 1", "1 marker of the points of panel 1")]


def test_label_points_places_names_where_nothing_collides(phone_defaults):
    # two pairs of points 7 px apart: labels all to the upper right (as the detector's test
    # above) would cover each other
    fig, ax = plt.subplots(figsize=(4, 3))
    Z = np.array([[0.0, 0.0], [0.05, 0.0], [0.0, 0.3], [0.05, 0.3]])
    ax.scatter(*Z.T, s=16)
    ax.set(xlim=(-1, 1), ylim=(-1, 1))
    fig.tight_layout()
    labels = plotting.label_points(ax, Z, ["north-west"] * 4, fontsize=9)
    assert len(labels) == 4 and {label.get_text() for label in labels} == {"north-west"}
    assert plotting.find_text_overlaps(fig) == []
    for label in labels:  # the mutant: every label to the upper right
        label.set_position((3, 3))
        label.set_horizontalalignment("left")
        label.set_verticalalignment("bottom")
    assert plotting.find_text_overlaps(fig)
    for label in labels:
        label.remove()
    labels = plotting.label_points(ax, Z, ["north-west"] * 4, fontsize=9)
    # each label stays next to its own point
    renderer = fig.canvas.get_renderer()
    for label, point in zip(labels, ax.transData.transform(Z), strict=True):
        box = label.get_window_extent(renderer)
        gap = max(box.x0 - point[0], point[0] - box.x1, box.y0 - point[1], point[1] - box.y1)
        assert 0 < gap <= 4 * fig.dpi / 72
    # a point with room all round: its label takes the first place, to the upper right
    lone = plotting.label_points(ax, [[0.6, -0.6]], ["alone"], fontsize=9)[0]
    assert lone.get_position() == (3.0, 3.0) and lone.get_horizontalalignment() == "left"


def test_label_points_keeps_off_the_figures_other_texts(phone_defaults):
    """A panel letter (or an annotation, a title) already on the axes is a text like the labels:
    a name whose first choice, its upper right, would run over it goes elsewhere."""
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.scatter([0.1], [0.5], s=16)
    ax.set(xlim=(0, 1), ylim=(0, 1))
    fig.tight_layout()
    letter = ax.text(0.13, 0.53, "(a) the panel", fontsize=12)  # just above-right of the dot
    label = plotting.label_points(ax, [[0.1, 0.5]], ["Paris"], fontsize=12)[0]
    assert (label.get_horizontalalignment(), label.get_verticalalignment()) != ("left", "bottom")
    assert plotting.find_text_overlaps(fig) == []
    letter.remove()
    again = plotting.label_points(ax, [[0.1, 0.5]], ["Lyon"], fontsize=12)[0]
    assert again.get_position() == (3.0, 3.0)  # nothing there now: the upper right
    plt.close(fig)


def _labelled_point_by_a_line(errorbars):
    """A labelled dot at (0, 0) and, to its upper right, a line rising from it (or, with
    ``errorbars``, the upward error bar of a point beside it): the label's first place, its
    upper right, is crossed; its lower right is free."""
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.scatter([0.0], [0.0], s=16)
    if errorbars:
        ax.errorbar([0.3], [0.0], yerr=[[0.0], [0.6]], fmt="o", ms=3)
    else:
        ax.plot([0.0, 1.0], [0.0, 1.0])
    ax.set(xlim=(-1, 2), ylim=(-1, 1.5))
    fig.tight_layout()
    return fig, ax


@pytest.mark.parametrize("errorbars", [False, True])
def test_label_points_keeps_off_the_plotted_lines(phone_defaults, monkeypatch, errorbars):
    """A label is placed where no line (a curve, an error bar) crosses it; placed as if the
    lines were not there (the mutant), the line crosses it and the check says so."""
    fig, ax = _labelled_point_by_a_line(errorbars)
    label = plotting.label_points(ax, [[0.0, 0.0]], ["a long name here"], fontsize=10)[0]
    box = label.get_window_extent(fig.canvas.get_renderer()).extents
    assert sum(plotting.segment_lengths_in_box(segments, box).sum()
               for _, segments in plotting.data_segments(ax)) == 0
    assert plotting.find_text_overlaps(fig) == []
    label.remove()
    segments = plotting.data_segments
    monkeypatch.setattr(plotting, "data_segments", lambda ax: [])  # the mutant: lines ignored
    label = plotting.label_points(ax, [[0.0, 0.0]], ["a long name here"], fontsize=10)[0]
    monkeypatch.setattr(plotting, "data_segments", segments)
    assert (label.get_horizontalalignment(), label.get_verticalalignment()) == ("left", "bottom")
    series = "the lines" if errorbars else "the line"
    assert plotting.find_text_overlaps(fig) == [("the label 'a long name here' of panel 1",
                                                 f"{series} of panel 1")]
    plt.close(fig)


def test_segment_lengths_in_a_box_are_the_clipped_lengths():
    box = (0.0, 0.0, 10.0, 10.0)
    segments = np.array([[[-5, 5], [15, 5]],    # across: 10 inside
                         [[2, 2], [5, 6]],      # wholly inside: 5 long
                         [[-5, -5], [5, 5]],    # half in, diagonally
                         [[20, 0], [20, 10]],   # parallel to a side, outside
                         [[3, 0], [3, 20]],     # vertical, from the bottom edge out of the top
                         [[11, -1], [-1, 11]]])  # crosses a corner region: 10 sqrt 2 inside
    lengths = plotting.segment_lengths_in_box(segments, box)
    np.testing.assert_allclose(lengths, [10, 5, 5 * np.sqrt(2), 0, 10, 10 * np.sqrt(2)])


def _legend_over(loc):
    fig, ax = plt.subplots(figsize=(4, 3))
    rng = np.random.default_rng(0)
    ax.scatter(*rng.uniform(size=(2, 200)), s=6, label="uniform points")
    ax.plot([0, 1], [0.5, 0.5], label="a line across")
    ax.axhline(0.2, color="k", lw=0.5)  # a guide, not data
    ax.legend(**loc)
    fig.tight_layout()
    return fig


def test_a_legend_over_the_data_is_detected_and_one_outside_is_not(phone_defaults):
    covering = plotting.find_covering_legends(_legend_over({"loc": "center"}))
    assert [(legend, series) for legend, series, _ in covering] == [
        ("the legend of panel 1", "the points 'uniform points' of panel 1"),
        ("the legend of panel 1", "the line 'a line across' of panel 1")]
    # the uniform points under a box of about a sixth of the axes
    assert 0.05 < covering[0][2] < 0.4
    outside = _legend_over({"loc": "upper left", "bbox_to_anchor": (1.02, 1)})
    assert plotting.find_covering_legends(outside) == []
    # "best" still covers points spread over the whole axes: the formatter says so
    with pytest.warns(plotting.FigureTextOverlap, match="the legend of panel 1 hides"):
        _saved_png(_legend_over({"loc": "best"}))
    # the share allowed is the caller's: above the largest share found, nothing is reported
    largest = max(fraction for _, _, fraction in covering)
    assert plotting.find_covering_legends(_legend_over({"loc": "center"}),
                                          max_fraction=largest) == []


def _figure_legend_below(layout):
    """Two panels with a figure legend below them: kept clear of the axis labels by a layout
    that knows about it, or by a rect that a later bare ``tight_layout()`` gives back (the
    formatter's own layout pass keeps a rect: ``test_the_layout_pass_keeps_the_rect_a_notebook_gave``)."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.5), layout=layout)
    for ax in axes:
        for k in range(6):
            ax.scatter([k], [k], label=f"series {k}")
        ax.set(xlabel="$z_1$", ylabel="$z_2$")
    handles, labels = axes[0].get_legend_handles_labels()
    if layout == "constrained":
        fig.legend(handles, labels, loc="outside lower center", ncol=3)
    else:
        fig.legend(handles, labels, loc="lower center", ncol=3)
        fig.tight_layout(rect=(0, 0.2, 1, 1))
        fig.tight_layout()  # a later layout without the rect: the room is given back
    return fig


def test_a_legend_over_axis_labels_is_an_overlap_and_one_laid_out_below_is_not(phone_defaults):
    pairs = plotting.find_text_overlaps(_figure_legend_below(None))
    assert ("the x label '$z_1$' of panel 1", "the figure's legend") in pairs
    assert plotting.find_text_overlaps(_figure_legend_below("constrained")) == []
    with pytest.warns(plotting.FigureTextOverlap, match="the figure's legend"):
        _saved_png(_figure_legend_below(None))


def _three_panels(shape, figsize):
    fig = plt.figure(figsize=figsize)
    for k in range(3):
        ax = fig.add_subplot(*shape, k + 1, projection="3d" if k == 1 else None)
        ax.plot([0, 1], [0, 1])
        ax.set_title(f"panel {k}: a title of a few words, as a chapter writes it")
    fig.tight_layout()
    return fig


def test_a_row_of_panels_too_narrow_for_its_titles_is_reported_and_a_column_is_not(
        phone_defaults):
    # a 3-D panel's small tick labels limit the saved width to a phone's (5.2 in): a row of
    # three 12 in wide is shrunk until each title wraps onto a line a word or two wide
    with pytest.warns(plotting.FigureTextOverlap, match=r"too narrow for its title: the title "
                      r"of panel 1 \('panel 0: a title"):
        _saved_png(_three_panels((1, 3), (12, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", plotting.FigureTextOverlap)
        _saved_png(_three_panels((3, 1), (5, 12)))


def _wide_key(ncol):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), layout="constrained")
    for k, name in enumerate(["breast", "cns", "colon", "leukemia", "melanoma", "nsclc",
                              "ovarian", "prostate", "renal", "unknown"]):
        axes[0].scatter([k], [k], label=name)
    axes[1].plot([0, 1], [0, 1])
    fig.legend(fontsize=9, ncol=ncol, loc="outside lower center")
    return fig


def test_a_legend_too_wide_for_a_phone_is_reported_and_a_narrower_one_is_not(phone_defaults):
    # its text raised for the saved width widens the figure again: ten entries in five columns
    # end wider than a phone's column shows at 9 px (PCA's NCI60 figure did)
    with pytest.warns(plotting.FigureTextOverlap, match=r"Text too small on a phone: .* shows "
                      r"at [0-8]\.\d px"):
        _saved_png(_wide_key(5))
    import base64
    import io

    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("error", plotting.FigureTextOverlap)
        data, _ = plotting._phone_width_png(_wide_key(4))
    png = Image.open(io.BytesIO(base64.b64decode(data)))
    # what the browser test measures in the built page
    shown = (float(png.info[plotting.MIN_TICK_KEY]) * plotting.FIG_DPI / 72
             * min(1.0, plotting.PHONE_COLUMN_PX / (png.size[0] / plotting.PIXEL_RATIO)))
    assert shown >= plotting.PHONE_MIN_TEXT_PX - 0.05


@pytest.mark.parametrize("where", ["axes", "figure"])
def test_a_small_legend_is_shown_at_least_9_px_on_a_phone(phone_defaults, where):
    """Legends follow the tick labels' rule: a notebook's ``legend(fontsize=6)`` (an axes' or
    the figure's) is raised, and the figure saved narrow enough that its legend text is at
    least ``PHONE_MIN_TEXT_PX`` pixels when the picture fills a phone's column; the PNG records
    that size for the browser tests."""
    import base64
    import io

    from PIL import Image

    # ("outside" places a figure legend clear of the axes only with the constrained layout)
    fig, axes = plt.subplots(1, 2, figsize=(8, 3),
                             layout="constrained" if where == "figure" else None)
    for k, ax in enumerate(axes):
        ax.plot([0, 1], [k, 1 - k], label=f"series {k}")
    if where == "axes":
        legend = axes[0].legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
    else:
        legend = fig.legend(fontsize=6, loc="outside lower center", ncol=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", plotting.FigureTextOverlap)
        data, _ = plotting._phone_width_png(fig)
    png = Image.open(io.BytesIO(base64.b64decode(data)))
    css_width = png.size[0] / plotting.PIXEL_RATIO
    smallest = min(t.get_fontsize() for t in legend.get_texts())
    shown_px = smallest * plotting.FIG_DPI / 72 * min(1.0, plotting.PHONE_COLUMN_PX / css_width)
    assert shown_px >= plotting.PHONE_MIN_TEXT_PX - 0.05
    # the smallest text of the figure: the raised legend's or the tick labels'
    assert float(png.info[plotting.MIN_TICK_KEY]) == pytest.approx(
        min(smallest, plotting.TICK_SIZE), abs=0.01)


def test_a_default_size_legend_of_a_wide_figure_is_raised_not_the_figure_narrowed(
        phone_defaults):
    """A legend at the default ``SMALL_SIZE`` in a figure saved at the widest would be 8.3 px
    on a phone: its text is raised (to 12 pt there), and the figure keeps its width (narrowing
    it would move labels placed for its layout)."""
    fig, ax = plt.subplots(figsize=(9, 3))
    ax.plot([0, 1], [0, 1], label="a line")
    legend = ax.legend()
    assert legend.get_texts()[0].get_fontsize() == plotting.SMALL_SIZE
    (width, _), _ = _saved_png(fig)
    css_width = width / plotting.PIXEL_RATIO
    # not narrowed to the width at which 11 pt would be 9 px on a phone
    assert css_width > plotting.phone_width_limit(plotting.SMALL_SIZE) * plotting.FIG_DPI + 10
    shown_px = (legend.get_texts()[0].get_fontsize() * plotting.FIG_DPI / 72
                * min(1.0, plotting.PHONE_COLUMN_PX / css_width))
    assert shown_px >= plotting.PHONE_MIN_TEXT_PX - 0.05


def test_the_label_check_finds_each_axes_marks_once(monkeypatch):
    """Point labels over markers: the marks of an axes are found once for all its labels (a
    figure with many labels paid for every label), and a label on a dot is still caught."""
    calls = []
    marks = plotting.data_marks
    monkeypatch.setattr(plotting, "data_marks", lambda ax, **kw: calls.append(ax) or marks(ax, **kw))
    fig, axes = plt.subplots(1, 2, figsize=(6, 3))
    for ax in axes:
        ax.scatter(np.arange(6), np.arange(6), s=20)
        for k in range(6):
            ax.text(k, k, f"on {k}", fontsize=9)
    pairs = plotting.find_text_overlaps(fig)
    assert sorted(calls, key=id) == sorted(axes, key=id)
    assert sum("marker" in second for _, second in pairs) == 12
    plt.close(fig)


def test_labels_on_a_3d_axes_are_checked_where_they_are_drawn():
    """A label at a 3-D point (``ax.text(x, y, z, name)``) is boxed at its projection: one
    sitting on its dot is reported, one moved off every dot is not, and two labels drawn over
    each other are a colliding pair."""
    rng = np.random.default_rng(0)
    P = rng.normal(size=(30, 3))
    fig = plt.figure(figsize=(4, 4))
    ax = fig.add_subplot(projection="3d")
    ax.scatter(*P.T, s=14)
    ax.view_init(20, 10)
    on_dot = ax.text(*P[0], "on its dot", fontsize=9)
    pairs = plotting.find_text_overlaps(fig)
    assert [first for first, second in pairs if "marker" in second] == ["the label 'on its dot' "
                                                                       "of panel 1"]
    on_dot.set_position_3d((0.0, 0.0, 9.0))  # above every dot (the view looks down 20°)
    assert not plotting.find_text_overlaps(fig)
    ax.text(0.0, 0.0, 9.0, "twin", fontsize=9)
    assert plotting.find_text_overlaps(fig) == [("the label 'on its dot' of panel 1",
                                                 "the label 'twin' of panel 1")]
    plt.close(fig)


def test_a_labels_leader_line_across_a_dot_is_not_a_label_over_it():
    """A label standing off with a line to its point (``arrowprops``) is checked by its text:
    the thin line may cross a dot, the text may not."""
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.scatter([0, 1, 2], [0, 1, 2], s=20)
    ax.set(xlim=(-1, 3), ylim=(-1, 3))
    label = ax.annotate("far", (0, 0), xytext=(2, 2), textcoords="data", fontsize=9,
                        ha="left", va="bottom", arrowprops=dict(arrowstyle="-", lw=0.5))
    label.set_position((2.2, 2.2))
    assert not plotting.find_text_overlaps(fig)  # the line crosses the dot at (1, 1)
    label.set_position((0.9, 0.9))  # the text itself over the dot at (1, 1)
    assert any("marker" in second for _, second in plotting.find_text_overlaps(fig))
    plt.close(fig)


# Every text a reader must read, not only tick labels and legends, is 9 px on a phone

def _png_and_warnings(fig):
    """The inline PNG of ``fig`` (its PIL image) and the FigureTextOverlap messages it raised."""
    import base64
    import io

    from PIL import Image

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data, _ = plotting._phone_width_png(fig)
    messages = [str(w.message) for w in caught if issubclass(w.category, plotting.FigureTextOverlap)]
    return Image.open(io.BytesIO(base64.b64decode(data))), messages


def _one_small_text(kind, size):
    """A figure saved at the widest (6.25 in: a phone shows it at 338/500 of its size) with one
    text of ``kind`` set at ``size`` points and everything else at the book's sizes."""
    fig, ax = plt.subplots(figsize=(plotting.MAX_FIGURE_WIDTH, 3.2))
    art = ax.scatter([0.0, 1.0, 2.0], [0.0, 1.0, 0.5], c=[0.0, 1.0, 2.0], s=16)
    ax.set(xlim=(-0.5, 3.5), ylim=(-0.5, 1.5))
    colorbar = fig.colorbar(art, ax=ax)
    fig.tight_layout()
    if kind == "point label":
        plotting.label_points(ax, [[2.0, 0.5]], ["Sydney"], fontsize=size)
    elif kind == "annotation":
        ax.annotate("classical start", (1.0, 1.0), xytext=(-60, -30),
                    textcoords="offset points", fontsize=size,
                    arrowprops=dict(arrowstyle="-", lw=0.5))
    elif kind == "panel letter":
        ax.text(0.02, 0.95, "(a)", transform=ax.transAxes, va="top", fontsize=size)
    elif kind == "colour-bar label":
        colorbar.set_label("depth", fontsize=size)
    elif kind == "title":
        ax.set_title("a map", fontsize=size)
    elif kind == "suptitle":
        fig.suptitle("a figure", fontsize=size)
    fig.tight_layout()
    return fig


READ_KINDS = ["point label", "annotation", "panel letter", "colour-bar label", "title",
              "suptitle"]


@pytest.mark.parametrize("kind", READ_KINDS)
def test_any_small_text_on_a_wide_figure_warns_and_is_recorded(phone_defaults, kind):
    """8 pt in a figure saved 6.25 in wide shows at 6 px on a phone: the formatter says so,
    naming the text, and writes 8 pt into the PNG for the browser test (before, only tick labels
    and legends were measured: these showed as 7.4 px with no warning)."""
    png, messages = _png_and_warnings(_one_small_text(kind, 8))
    small = [m for m in messages if m.startswith("Text too small on a phone")]
    assert len(small) == 1 and "its 8 pt text" in small[0], messages
    assert float(png.info[plotting.MIN_TICK_KEY]) == pytest.approx(8.0)
    shown = 8.0 * plotting.FIG_DPI / 72 * plotting.PHONE_COLUMN_PX / (png.size[0]
                                                                   / plotting.PIXEL_RATIO)
    assert shown < plotting.PHONE_MIN_TEXT_PX  # (what the browser test then reports)


@pytest.mark.parametrize("kind", READ_KINDS)
def test_text_large_enough_for_the_width_passes(phone_defaults, kind):
    """The same figures with that text at 13 pt (9 px on a phone needs 12.2 pt at 6.25 in): no
    warning at all; the PNG records the tick labels' 12 pt as its smallest text."""
    png, messages = _png_and_warnings(_one_small_text(kind, 13))
    assert messages == []
    assert float(png.info[plotting.MIN_TICK_KEY]) == pytest.approx(plotting.TICK_SIZE)


def test_a_narrow_figure_may_have_smaller_text():
    """What counts is the size shown: 8.5 pt labels on a figure narrower than a phone's column
    (shown at its own size) are 9.4 px, and pass; on one saved 6.25 in wide they do not."""
    def labelled(width):
        fig, ax = plt.subplots(figsize=(width, 3))
        ax.scatter([0, 1], [0, 1], s=16)
        ax.set(xlim=(-1, 2), ylim=(-1, 2), xticks=[], yticks=[])
        fig.tight_layout()
        plotting.label_points(ax, [[0, 1], [1, 0]], ["north", "south"], fontsize=8.5)
        return fig

    with matplotlib.rc_context():
        plotting.setup_notebook()
        assert _png_and_warnings(labelled(4.0))[1] == []
        assert any(m.startswith("Text too small") for m in _png_and_warnings(labelled(6.25))[1])
    plt.close("all")


# The formatter's layout pass keeps what the figure's author asked for

def _legend_below_with_rect(rect):
    """Two panels 10 in wide with a figure legend at the bottom, room reserved for it by
    ``fig.tight_layout(rect=rect)``; the formatter shrinks it to 6.25 in and lays it out again."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax in axes:
        for k in range(4):
            ax.scatter([k], [k], label=f"series {k}")
        ax.set(xlabel="$z_1$", ylabel="$z_2$")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=4)
    fig.tight_layout(rect=rect)
    return fig, axes


def test_the_layout_pass_keeps_the_rect_a_notebook_gave(phone_defaults):
    """The old pass ran ``tight_layout()`` bare: the panels took the room kept for the legend,
    which then covered their x labels (a FigureTextOverlap)."""
    fig, axes = _legend_below_with_rect((0, 0.22, 1, 1))
    assert plotting.fit_to_width(fig) < 1
    assert min(ax.get_position().y0 for ax in axes) >= 0.22
    png, messages = _png_and_warnings(fig)
    assert messages == []
    assert not plotting.find_text_overlaps(fig)
    assert min(ax.get_position().y0 for ax in axes) >= 0.22


def test_the_layout_pass_keeps_a_pad_and_constrained_settings(phone_defaults):
    fig, axes = plt.subplots(1, 2, figsize=(10, 3))
    fig.tight_layout(pad=4.0)  # 4 font sizes of white space around the panels
    plotting.fit_to_width(fig)
    renderer = fig.canvas.get_renderer()
    left = min(ax.get_tightbbox(renderer).x0 for ax in axes)
    font_px = matplotlib.rcParams["font.size"] * fig.dpi / 72
    assert left > 3.5 * font_px  # (a bare tight_layout() leaves 1.08 font sizes)
    settled, _ = plt.subplots(1, 2, figsize=(10, 3), layout="constrained")
    settled.get_layout_engine().set(w_pad=0.3, wspace=0.2)
    plotting._phone_width_png(settled)
    assert settled.get_layout_engine().get()["w_pad"] == pytest.approx(0.3)
    assert settled.get_layout_engine().get()["wspace"] == pytest.approx(0.2)


def test_recording_the_layout_settings_wraps_tight_layout_once(phone_defaults):
    from matplotlib.figure import Figure

    wrapped = Figure.tight_layout
    plotting.setup_notebook()
    assert Figure.tight_layout is wrapped
    fig, _ = plt.subplots()
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    assert getattr(fig, plotting.TIGHT_LAYOUT_ATTRIBUTE) == {"rect": (0, 0.1, 1, 1)}
