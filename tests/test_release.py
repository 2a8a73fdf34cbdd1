"""Releases: the tag, ``mlnotes.__version__`` and CHANGELOG.md name one version, and the check
that says so can fail (.dev/release.py, run by .github/workflows/release.yml on a tag)."""

import importlib.util
from pathlib import Path

import mlnotes

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("release", ROOT / ".dev" / "release.py")
release = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(release)


def test_the_package_version_is_the_newest_release_of_the_changelog():
    assert release.package_version() == mlnotes.__version__
    assert release.problems(f"v{mlnotes.__version__}") == []
    versions = [v for v, _, _ in release.entries()]
    assert versions[0] == "Unreleased"
    assert all(release.VERSION.match(v) for v in versions[1:]), versions


def test_the_release_check_rejects_a_disagreeing_tag_or_changelog():
    version = mlnotes.__version__
    major, minor, patch = (int(x) for x in version.split("."))
    other = f"v{major}.{minor}.{patch + 1}"
    assert any("mlnotes.__version__" in p for p in release.problems(other))
    assert any("not of the form" in p for p in release.problems(version))       # no leading v
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    undated = text.replace(f"## [{version}] - ", f"## [{version}]\n<!-- ", 1)
    assert any("has no date" in p for p in release.problems(f"v{version}", undated))
    unreleased = text.replace(f"## [{version}]", "## [9.9.9]", 1)
    assert any("newest release in CHANGELOG.md" in p
               for p in release.problems(f"v{version}", unreleased))


def test_the_release_notes_are_the_changelog_entry(capsys):
    assert release.main(["notes", f"v{mlnotes.__version__}"]) == 0
    assert capsys.readouterr().out.strip() == release.entries()[1][2]
