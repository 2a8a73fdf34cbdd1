"""Store every notebook with the kernelspec JupyterLab writes, so opening one does not modify it.

JupyterLab rewrites a notebook's ``metadata.kernelspec`` to the running kernel's spec
(``python3``, display name "Python 3 (ipykernel)") as soon as the kernel connects; a notebook
stored with another display name is then "modified" and closing it untouched asks "Save
changes?". This script sets that spec and nothing else, writes a file only when it changes, and
keeps nbformat's layout (one-space indent, sorted keys, UTF-8, final newline), so running it twice
changes nothing the second time.

    python .dev/set_kernelspec.py             # every notebook under book/
    python .dev/set_kernelspec.py book/pca.ipynb ...
    python .dev/set_kernelspec.py --check     # list the notebooks it would change; exit 1 if any
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def book_notebooks(root=ROOT):
    """Every notebook under ``root/book``, checkpoints and build output excluded."""
    return sorted(p for p in (root / "book").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)


def dumps(nb):
    """``nb`` serialised as nbformat writes it."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def fixed(text):
    """The notebook text ``text`` with JupyterLab's kernelspec (unchanged when it has it)."""
    nb = json.loads(text)
    if nb.get("metadata", {}).get("kernelspec") == KERNELSPEC:
        return text
    nb.setdefault("metadata", {})["kernelspec"] = dict(KERNELSPEC)
    return dumps(nb)


def main(argv):
    check = "--check" in argv
    paths = [pathlib.Path(a) for a in argv if a != "--check"] or book_notebooks()
    changed = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        new = fixed(text)
        if new != text:
            changed.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    verb = "would change" if check else "changed"
    for path in changed:
        print(f"{verb}: {path}")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
