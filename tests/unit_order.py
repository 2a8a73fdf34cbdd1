"""A pytest plugin for ``make test``'s unit phase: the test files with a slow test first.

The unit phase runs on two xdist workers (``-n 2``, xdist's ``load`` mode: each worker takes
the next tests in collection order when it is free). A test of a minute or more that comes
late in that order (``test_tsne_fft.py``'s 3000 points, the class of 50 in
``test_homework_class.py``) can run alone at the end while the other worker waits. This plugin
moves every test file that holds a test marked ``slow`` to the front, whole and in its own
order (so a module-scoped fixture is still built once per worker), so the short tests fill in
at the end. Only the order changes: every test is still run.
"""

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: files stay in order
