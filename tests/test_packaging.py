"""What a reader installs and what publishes the book.

* The package builds as a wheel and an sdist that hold every module and data file the book
  imports, and a chapter runs against the wheel installed into a fresh virtual environment.
* The GitHub workflow is valid against the published GitHub-workflow schema (vendored by
  check-jsonschema: no network), and the validation can fail.
* The publishing setting drives the launch buttons and the install cell, and is never made up.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
# The chapter run against the installed wheel: it loads the vendored data files too.
CHAPTER = ROOT / "book" / "datasets.ipynb"


def _build(tmp_path):
    """Build wheel and sdist from a copy of the sources (the tree stays clean)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "mlnotes", src / "mlnotes",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist),
                    str(src)], check=True, capture_output=True, text=True)
    (wheel,) = dist.glob("mlnotes-*.whl")
    (sdist,) = dist.glob("mlnotes-*.tar.gz")
    return wheel, sdist


def _package_files():
    """Every file of the package that must ship (modules and data)."""
    files = set()
    for path in (ROOT / "mlnotes").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files.add(path.relative_to(ROOT).as_posix())
    return files


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("build"))


def test_wheel_and_sdist_hold_every_module_and_data_file(built):
    wheel, sdist = built
    with zipfile.ZipFile(wheel) as zf:
        in_wheel = {name for name in zf.namelist() if name.startswith("mlnotes/")}
    with tarfile.open(sdist) as tf:
        prefix = sdist.name[: -len(".tar.gz")] + "/"
        in_sdist = {m.name[len(prefix):] for m in tf.getmembers() if m.isfile()}
    expected = _package_files()
    assert expected - in_wheel == set(), "missing from the wheel"
    assert expected - in_sdist == set(), "missing from the sdist"
    assert "pyproject.toml" in in_sdist


@pytest.mark.slow
def test_a_chapter_runs_against_the_installed_wheel(built, tmp_path):
    wheel, _ = built
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The chapter's other imports, at the versions the book pins.
    pins = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
            if "==" in line and not line.startswith("#")]
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("\n".join(pins) + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "-c", str(constraints), str(wheel), "nbclient", "ipykernel", "scikit-learn"],
                   check=True, capture_output=True, text=True)
    work = tmp_path / "reader"
    work.mkdir()
    shutil.copy(CHAPTER, work / CHAPTER.name)
    script = f"""
import os, nbformat
from nbclient import NotebookClient
nb = nbformat.read({CHAPTER.name!r}, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell("import mlnotes; print(mlnotes.__file__)"))
NotebookClient(nb, timeout=300, kernel_name="python3",
               resources={{"metadata": {{"path": os.getcwd()}}}}).execute()
print("kernel imported", nb.cells[-1].outputs[0]["text"].strip())
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    # Only the fresh environment's own kernel (no user or system kernelspec).
    env["JUPYTER_DATA_DIR"] = str(tmp_path / "jupyter-data")
    env["JUPYTER_PATH"] = str(venv / "share" / "jupyter")
    result = subprocess.run([str(python), "-c", script], cwd=work, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"kernel imported {venv}" in result.stdout, result.stdout


def _check_workflow(path):
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                           "vendor.github-workflows", str(path)], capture_output=True, text=True)


def test_the_workflow_is_valid_against_the_github_schema():
    assert WORKFLOWS, "no workflow in .github/workflows"
    for path in WORKFLOWS:
        result = _check_workflow(path)
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_workflow_check_can_fail(tmp_path):
    text = WORKFLOWS[0].read_text()
    broken = tmp_path / "broken.yml"
    broken.write_text(text.replace("runs-on:", "runs_on:", 1))
    assert _check_workflow(broken).returncode != 0


def test_the_workflow_runs_make_test_and_publishes_the_html():
    text = (ROOT / ".github" / "workflows" / "book.yml").read_text()
    assert "make test" in text
    assert "publish_dir: ./_build/html" in text
    assert "MLNOTES_REPOSITORY_URL:" in text


def _publish_module():
    spec = importlib.util.spec_from_file_location("publish", ROOT / "book" / "_ext" / "publish.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_repository_setting_is_validated(monkeypatch):
    publish = _publish_module()
    monkeypatch.setenv(publish.ENV_VAR, "")
    assert publish.repository_url() == ""
    monkeypatch.setenv(publish.ENV_VAR, "https://github.com/someone/mlnotes.git/")
    assert publish.repository_url() == "https://github.com/someone/mlnotes"
    monkeypatch.setenv(publish.ENV_VAR, "not a url")
    with pytest.raises(ValueError, match="https://github.com/<owner>/<repo>"):
        publish.repository_url()


def test_the_install_cell_is_filled_only_in_the_published_copies(tmp_path):
    publish = _publish_module()
    sys.path.insert(0, str(ROOT / ".dev"))
    try:
        import add_setup_cell
    finally:
        sys.path.pop(0)
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# T"),
                                         nbformat.v4.new_code_cell("x = 1")])
    assert add_setup_cell.add_setup_cell(nb)
    assert not add_setup_cell.add_setup_cell(nb)        # idempotent
    assert nb.cells[1].metadata["tags"] == ["remove-cell"]
    assert 'MLNOTES = ""' in nb.cells[1].source
    path = tmp_path / "_sources" / "book" / "t.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    assert publish.fill_install_cells(tmp_path / "_sources", "https://github.com/a/b") == 1
    filled = json.loads(path.read_text())["cells"][1]["source"]
    assert 'MLNOTES = "mlnotes @ git+https://github.com/a/b.git@main"' in "".join(filled)


def test_every_chapter_starts_with_the_install_cell():
    import nbformat

    sys.path.insert(0, str(ROOT / ".dev"))
    try:
        import add_setup_cell
    finally:
        sys.path.pop(0)
    toc = (ROOT / "_toc.yml").read_text()
    # Homework notebooks are left out: the grader runs a submission's top-level code in a
    # sandbox without mlnotes or a network, where an install cell has nothing to do.
    chapters = [ROOT / f"{line.split('file:')[1].strip()}.ipynb" for line in toc.splitlines()
                if "file:" in line and "homework/" not in line]
    missing = []
    for path in chapters:
        if not path.exists():
            continue
        nb = nbformat.read(path, as_version=4)
        first = next(c for c in nb.cells if c.cell_type == "code")
        if first.source != add_setup_cell.SOURCE or "remove-cell" not in first.metadata.get(
                "tags", []):
            missing.append(path.name)
    assert not missing, f"run .dev/add_setup_cell.py on: {missing}"
