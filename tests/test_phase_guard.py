"""make test's browser phase collects only its own files (tests/phase_guard.py): the guard that
no test marked for it lives elsewhere, where neither phase would run it."""

import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from tests import phase_guard

TESTS = Path(__file__).resolve().parent


def _item(name, *marks):
    return types.SimpleNamespace(path=TESTS / name, nodeid=f"tests/{name}::test_x", parent=name,
                                 get_closest_marker=lambda m: m if m in marks else None)


def test_a_browser_test_outside_the_browser_phase_files_adds_a_failing_test(monkeypatch):
    made = []
    monkeypatch.setattr(pytest.Function, "from_parent",
                        lambda parent, name, callobj: made.append((parent, name, callobj)) or name)
    placed = [_item("test_browser_book.py", "browser"), _item("test_built_book.py", "built_book"),
              _item("test_pdf.py", "browser"), _item("test_pca.py"), _item("test_pca.py", "slow")]
    items = list(placed)
    phase_guard.pytest_collection_modifyitems(None, None, items)
    assert items == placed and not made  # none misplaced: nothing added
    items = [*placed, _item("test_pca.py", "browser"), _item("test_homework_check.py", "built_book")]
    phase_guard.pytest_collection_modifyitems(None, None, items)
    assert items[-1] == "browser_phase_guard" and len(made) == 1 and made[0][0] == "test_pca.py"
    with pytest.raises(pytest.fail.Exception, match=r"2 test\(s\) .* tests/test_pca.py::test_x, "
                       r"tests/test_homework_check.py::test_x\. .*BROWSER_PHASE_FILES"):
        made[0][2]()


def test_every_file_that_marks_a_test_for_the_browser_phase_is_collected_by_it():
    # read the sources, not the collected items: a second way to the same answer
    marking = {f"tests/{p.name}" for p in TESTS.glob("test_*.py")
               if p.name != Path(__file__).name
               and re.search(r"mark\.(browser|built_book)\b", p.read_text(encoding="utf-8"))}
    assert marking, "no test file marks a browser test: the pattern above is wrong"
    listed = subprocess.run([sys.executable, "-m", "tests.phase_guard"], cwd=TESTS.parent,
                            capture_output=True, text=True, check=True).stdout.split()
    assert marking <= set(listed), sorted(marking - set(listed))
    assert listed == phase_guard.browser_phase_files() and "tests/test_pdf.py" in listed
