"""Shared set-up of the test suite: one BLAS thread per process; xdist groups that group; the
browser tests' served book and Chromium.

One BLAS thread
    ``make test`` runs the unit tests on two xdist workers on a two-core machine. OpenBLAS starts
    as many threads as there are cores in each worker, so two workers run four BLAS threads on
    two cores, and an idle OpenBLAS thread spins for a long while before it sleeps: a loop of
    small products (ARPACK's thousands of matrix-vector products, an optimiser's gradient
    steps) then spends most of its time waiting for a core. Measured on
    ``test_a_psd_precomputed_kernel_above_arpacks_size_fits_with_every_solver[arpack]`` beside
    another worker: 11 s of CPU with the default threads, 0.6 s with one.

    This file is imported before the xdist workers start (it sits in the ``tests`` folder given
    on the command line), so the variables reach the workers, every subprocess they start (the
    homework grader, JupyterLab's kernels) and numpy's first import. A variable already set in
    the environment is kept (set ``OPENBLAS_NUM_THREADS=2`` to run the tests with two).

xdist groups
    ``--dist loadgroup`` (the browser phase) sends the tests marked ``xdist_group(name)`` to one
    worker, so a module fixture they share is built once (``test_browser_explorers``' small
    book). pytest-xdist 3.8 marks them by appending ``@name`` to ``item._nodeid``, which pytest 9
    no longer reads (the node id lives in ``item._id``): every such test was sent alone and each
    worker built the fixture. The hook below appends the group where xdist's did not take.

Long tests first
    Under ``--dist loadgroup`` xdist hands out its queue in collection order (groups first, the
    larger first), so a long test collected last runs alone on one worker while the others wait.
    The hook sends the browser phase's longest tests (``LONG_FIRST``) out first; a test not
    named there keeps its place, so a new test costs at most its own time at the end.
"""

import os

import pytest

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")


# The browser phase's longest tests (CPU seconds on the two-core machine, roughly: the phone
# equations 80, the first screen of t-SNE's maths at a link 15-30, each chapter of the JupyterLab
# MyST pass 2-7, costliest chapter first, the header boxes 30 a test), sent out first under
# --dist loadgroup: xdist hands the queue out in collection order (a group before single tests),
# so a long test collected last runs alone on one worker while the others wait. The MyST pass's
# smaller tests follow its chapters, so they run on a worker that already holds that JupyterLab.
# (The live and replay JupyterLab tests are xdist groups: each group shares one JupyterLab.)
LONG_FIRST = (
    "test_display_equations_fit_a_phone",
    "test_first_screen_of_maths_typeset_quickly_and_tex_never_shown",
    "test_every_chapter_renders_its_myst_in_jupyterlab_and_opens_unmodified",
    "test_batched_rendering_shows_what_jupyterlab_myst_shows",
    "test_the_myst_checks_fail_on_mutants",
    "test_the_books_markdown_pages_show_no_reference_not_found",
    "test_header_boxes_and_outputs",
    "test_moving_a_slider_redraws_the_explorer_in_jupyterlab",
    "test_every_control_of_a_live_explorer_redraws_or_is_disabled_with_its_reason",
)


def _long_rank(item):
    name = item.originalname if isinstance(item, pytest.Function) else item.name
    return LONG_FIRST.index(name) if name in LONG_FIRST else len(LONG_FIRST)


def _group_names(item):
    return sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                   for m in item.iter_markers("xdist_group")})


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """On an xdist worker under ``--dist loadgroup``: give each grouped test its ``@group``, and
    put the long tests first."""
    if not getattr(config.option, "loadgroup", False):
        return
    items.sort(key=_long_rank)  # stable: the others keep their order
    for item in items:
        names = _group_names(item)
        if not names or "@" in item.nodeid.rpartition("]")[2]:
            continue
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(names)}")


# --- the browser tests' shared fixtures (a test file may define its own of the same name) ----
@pytest.fixture(scope="module")
def site():
    """The built book (``_build/html``) served over HTTP, for one test file."""
    from browser_support import BOOK_HTML, serve_directory

    if not (BOOK_HTML / "index.html").exists():
        pytest.fail(f"no built book at {BOOK_HTML}: `make book` runs before the browser tests")
    with serve_directory(BOOK_HTML) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def browser():
    """One Chromium for one test file (tests/browser_support.py: the Debian build, no network);
    it fails (in CI) or skips before a test starts any server."""
    from browser_support import launch_chromium

    with launch_chromium() as b:
        yield b
