"""Write ``book/README.md``: the book's reading order, the page JupyterLab opens first.

JupyterLab's file browser lists the chapters alphabetically; ``make lab`` opens this page
instead (``--LabApp.default_url``), which lists every file of ``_toc.yml`` in the book's order,
by part, each linked (a click opens the notebook) under its own title. Run it after changing
the table of contents; ``tests/test_reading_order.py`` checks that the page is current.

    python .dev/reading_order.py            # (re)write book/README.md
    python .dev/reading_order.py --check    # exit 1 if book/README.md is not current
"""

import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "book" / "README.md"
INTRO = """\
# Start here: the reading order

This folder is the book *Nonlinear dimensionality reduction, executed* as notebooks. The file
browser lists them alphabetically; read them in this order (each link opens the chapter).
Run a chapter top to bottom (Run ▸ Run All Cells) to use its explorer: the sliders redraw
the figure in the notebook's kernel.
"""


def title(path):
    """The first level-1 heading of a notebook or Markdown file."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem.replace("_", " ")


def _file(entry, root):
    stem = root / entry["file"]
    for suffix in (".ipynb", ".md"):
        if stem.with_suffix(suffix).exists():
            return stem.with_suffix(suffix)
    raise FileNotFoundError(f"_toc.yml lists {entry['file']}, which has no .ipynb or .md")


def _items(entries, root, depth):
    lines = []
    for entry in entries:
        path = _file(entry, root)
        link = path.relative_to(root / "book").as_posix()
        lines.append(f"{'   ' * depth}1. [{title(path)}]({link})")
        lines += _items(entry.get("sections", []), root, depth + 1)
    return lines


def reading_order(root=ROOT):
    """The text of ``book/README.md`` for the table of contents in ``root/_toc.yml``."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    intro = _file({"file": toc["root"]}, root)
    lines = [INTRO, f"1. [{title(intro)}]({intro.relative_to(root / 'book').as_posix()})", ""]
    for part in toc.get("parts", []):
        lines += [f"## {part['caption']}", ""]
        lines += _items(part["chapters"], root, 0)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(argv):
    text = reading_order()
    if "--check" in argv:
        current = README.exists() and README.read_text(encoding="utf-8") == text
        if not current:
            print(f"{README} is not current: run python .dev/reading_order.py")
        return 0 if current else 1
    README.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
