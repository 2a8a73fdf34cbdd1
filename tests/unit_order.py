"""A pytest plugin for ``make test``'s unit phase: the slow test files first, and every test file
with a shared fixture on one worker.

The unit phase runs on two xdist workers (``-n 2``). With xdist's ``load`` mode the tests of one
file go to both workers in turn, so a module-scoped fixture (a wheel built, a class of homework
submissions graded) is built by both, and a class graded once per session (``graded_once`` in
``homework_fixtures``) is graded by one worker while the other waits for it on a lock, doing
nothing for up to a minute. This plugin

* gives xdist a scheduler (for ``--dist load``, the default) that hands out each test file
  that defines or shares such a fixture (:func:`kept_whole`) whole to one worker, and every
  other test alone, as ``load`` does;
* orders the tests: the files that hold a test marked ``slow`` first (a test of half a minute
  or more that came late could run alone at the end while the other worker waits), then the
  files kept whole, then the rest, each file whole and in its own order, so that the short
  tests fill in at the end.

Only where and in which order the tests run changes: every test is still run.
"""

import functools
import re
from pathlib import Path

import pytest

# A fixture built once per file or per session, or a class graded once per session.
_SHARED = re.compile(r"""scope\s*=\s*["'](?:module|session|package)["']|graded_once\(""")


@functools.cache
def kept_whole(path):
    """Whether the test file ``path`` runs whole on one worker: it defines a fixture of module,
    package or session scope, or grades a class once per session."""
    try:
        return bool(_SHARED.search(Path(path).read_text(encoding="utf-8")))
    except OSError:
        return False


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    # stable: the files and the tests in each keep their order
    items.sort(key=lambda item: (item.path not in slow_files, not kept_whole(item.path)))


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class WholeFiles(LoadScopeScheduling):
        """xdist's scope scheduling, a scope being a file kept whole or else one test, handed
        out in the order of the collection (never reordered by size)."""

        def __init__(self, config, log=None):
            super().__init__(config, log)
            self.root = Path(config.rootpath)

        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return path if kept_whole(self.root / path) else nodeid

        def schedule(self):
            self.config.option.loadscopereorder = False
            super().schedule()

    return WholeFiles(config, log)
