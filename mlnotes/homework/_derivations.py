"""Run as a script in a limited process: the derivation cells of one notebook, as JSON.

Reads the notebook's bytes from standard input and writes ``{"cells": [text, ...]}``: every
markdown cell whose text starts with :data:`MARKER` (the released notebook has one under each
question that asks for a derivation), each cut to :data:`MAX_CELL` characters, at most
:data:`MAX_CELLS` of them; ``{"error": why}`` if the file is not a notebook. Nothing here runs
the notebook's code.
"""

import json
import sys

MARKER = "**Your derivation"
MAX_NOTEBOOK_BYTES = 8 * 2**20
MAX_CELL, MAX_CELLS = 20_000, 40


def derivation_cells(data):
    nb = json.loads(data)
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook (no list of cells)")
    found = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        text = "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else (
            source if isinstance(source, str) else "")
        if text.lstrip().startswith(MARKER):
            found.append(text[:MAX_CELL])
        if len(found) >= MAX_CELLS:
            break
    return found


def main():
    data = sys.stdin.buffer.read(MAX_NOTEBOOK_BYTES + 1)
    try:
        if len(data) > MAX_NOTEBOOK_BYTES:
            raise ValueError("the notebook is larger than any assignment needs")
        out = {"cells": derivation_cells(data)}
    except (ValueError, RecursionError) as exc:
        out = {"error": str(exc)[:300]}
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
