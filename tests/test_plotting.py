"""Figure defaults for phones (mlnotes.plotting): readable text when a figure fills a phone."""

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
