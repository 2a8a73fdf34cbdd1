"""book/README.md, the page ``make lab`` opens first, lists the table of contents in order."""

import importlib.util
import re

from browser_support import ROOT

_spec = importlib.util.spec_from_file_location("reading_order", ROOT / ".dev" / "reading_order.py")
reading_order = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reading_order)


def test_the_reading_order_page_is_current():
    assert reading_order.main(["--check"]) == 0, "run python .dev/reading_order.py"


def test_the_reading_order_links_every_toc_file_in_order():
    links = re.findall(r"\]\(([^)]+)\)", (ROOT / "book" / "README.md").read_text())
    toc = re.findall(r"file:\s*book/(\S+)", (ROOT / "_toc.yml").read_text())
    root = re.search(r"root:\s*book/(\S+)", (ROOT / "_toc.yml").read_text()).group(1)
    assert [link.rsplit(".", 1)[0] for link in links] == [root, *toc]
    assert all((ROOT / "book" / link).exists() for link in links)


def test_make_lab_opens_the_reading_order_rendered():
    makefile = (ROOT / "Makefile").read_text()
    assert "--LabApp.default_url=/lab/tree/README.md" in makefile
    overrides = (ROOT / ".dev" / "lab" / "overrides.json").read_text()
    assert '"markdown": "Markdown Preview"' in overrides


def test_the_check_fails_on_a_stale_page(tmp_path, monkeypatch):
    monkeypatch.setattr(reading_order, "README", tmp_path / "README.md")
    (tmp_path / "README.md").write_text("# an old order\n")
    assert reading_order.main(["--check"]) == 1
    assert reading_order.main([]) == 0 and reading_order.main(["--check"]) == 0
