"""Which test files ``make test``'s browser phase collects, and a guard that none is missed.

Collecting the whole ``tests`` folder imports every test module (scikit-learn, umap-learn,
hypothesis, nbformat...): about 14 s of CPU in each of the browser phase's three xdist workers
(each collects), to keep 93 of 3 500 tests; its own files cost about 6 s. The browser phase
therefore collects only the files that hold its tests: ``python -m tests.phase_guard`` prints
them, and the Makefile hands them to pytest.

A test marked ``browser`` or ``built_book`` in any other file would then run in neither phase
(the unit phase deselects those marks). The unit phase loads this module as a plugin
(``-p tests.phase_guard``), which collects every file anyway, and adds a failing test naming any
marked test that lives outside ``BROWSER_PHASE_FILES``.
"""

from fnmatch import fnmatch
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
# The browser phase's files: the browser tests, the tests of the built book without a browser,
# and the PDF module (its quick tests run in the browser phase, its printing in `make test-pdf`).
BROWSER_PHASE_FILES = ("test_browser_*.py", "test_built_*.py", "test_pdf.py")
BROWSER_PHASE_MARKS = ("browser", "built_book")


def in_browser_phase(path):
    """Whether the browser phase collects the test file at ``path``."""
    path = Path(path)
    return path.parent.resolve() == TESTS and any(fnmatch(path.name, p)
                                                  for p in BROWSER_PHASE_FILES)


def browser_phase_files():
    """The files the browser phase collects, relative to the checkout, in name order."""
    return sorted(f"tests/{p.name}" for p in TESTS.glob("test_*.py") if in_browser_phase(p))


def _message(lost):
    return (f"{len(lost)} test(s) marked {' or '.join(BROWSER_PHASE_MARKS)} live in a file that "
            f"make test's browser phase does not collect (it collects tests/"
            f"{', tests/'.join(BROWSER_PHASE_FILES)}), so no phase would run them: "
            f"{', '.join(lost[:5])}. Move them to such a file, or add their file's pattern to "
            f"BROWSER_PHASE_FILES in tests/phase_guard.py.")


@pytest.hookimpl(tryfirst=True)  # before -m deselects the marked tests
def pytest_collection_modifyitems(session, config, items):
    """Add a failing test that names the misplaced tests (a failing test rather than a usage
    error: under xdist a worker's usage error reaches the terminal without its message)."""
    lost = [item for item in items
            if any(item.get_closest_marker(m) for m in BROWSER_PHASE_MARKS)
            and not in_browser_phase(item.path)]
    if lost:
        message = _message([item.nodeid for item in lost])

        def browser_phase_guard():
            pytest.fail(message, pytrace=False)

        items.append(pytest.Function.from_parent(lost[0].parent, name="browser_phase_guard",
                                                 callobj=browser_phase_guard))


if __name__ == "__main__":
    print(" ".join(browser_phase_files()))
