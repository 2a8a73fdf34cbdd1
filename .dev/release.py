"""Release checks: the tag, ``mlnotes.__version__`` and CHANGELOG.md name one version.

Usage::

    python .dev/release.py check v0.2.0     # exit 1, saying what disagrees, if they differ
    python .dev/release.py notes v0.2.0     # the changelog's entry for that version

The changelog follows "Keep a Changelog": ``## [X.Y.Z] - YYYY-MM-DD`` headings, newest first,
with an ``## [Unreleased]`` section above them for what has landed since.
"""

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?\s*$",
                     flags=re.MULTILINE)
VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def package_version():
    """``__version__`` as written in mlnotes/__init__.py (read, not imported)."""
    tree = ast.parse((ROOT / "mlnotes" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__version__"
                                                for t in node.targets):
            return node.value.value
    raise SystemExit("mlnotes/__init__.py defines no __version__")


def entries(text=None):
    """``[(version, date, body)]`` of CHANGELOG.md, in the file's order."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8") if text is None else text
    heads = list(HEADING.finditer(text))
    out = []
    for head, nxt in zip(heads, [*heads[1:], None], strict=True):
        body = text[head.end(): nxt.start() if nxt else len(text)].strip()
        out.append((head["version"], head["date"], body))
    return out


def problems(tag, text=None):
    """What disagrees between ``tag``, the package and the changelog (empty when all agree)."""
    found = []
    version = tag[1:] if tag.startswith("v") else tag
    if not tag.startswith("v") or not VERSION.match(version):
        found.append(f"the tag {tag!r} is not of the form vX.Y.Z")
    if package_version() != version:
        found.append(f"mlnotes.__version__ is {package_version()!r}, the tag says {version!r}: "
                     "set __version__ in mlnotes/__init__.py")
    released = [(v, d) for v, d, _ in entries(text) if v != "Unreleased"]
    if not released or released[0][0] != version:
        top = released[0][0] if released else "none"
        found.append(f"the newest release in CHANGELOG.md is {top!r}, the tag says {version!r}: "
                     "move the Unreleased entries under a heading '## [X.Y.Z] - date'")
    elif not released[0][1]:
        found.append(f"CHANGELOG.md's entry for {version} has no date")
    return found


def main(argv):
    if len(argv) != 2 or argv[0] not in {"check", "notes"}:
        raise SystemExit(__doc__)
    command, tag = argv
    if command == "check":
        found = problems(tag)
        for line in found:
            print(line, file=sys.stderr)
        return 1 if found else 0
    version = tag.removeprefix("v")
    for v, _, body in entries():
        if v == version:
            print(body)
            return 0
    raise SystemExit(f"CHANGELOG.md has no entry for {version}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
