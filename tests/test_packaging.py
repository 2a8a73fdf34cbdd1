"""What a reader installs and what publishes the book.

* The licence is in place everywhere it belongs: the files, the wheel's metadata, the README and
  the book's footer; third-party material is listed in one notices file.
* ``pip install`` gives numpy + scipy and each extra what it needs; an import of a missing extra
  names the extra (simulated by blocking the module in ``sys.modules``).
* The package builds as a wheel and an sdist that hold every module and data file the book
  imports, and a chapter runs against the wheel installed into a fresh virtual environment
  (that one installs from the package index, so it runs in ``make test-install``, not in
  ``make test``: ``MLNOTES_TEST_INSTALL=1``).
* The GitHub workflow is valid against the published GitHub-workflow schema (vendored by
  check-jsonschema: no network), and the validation can fail.
* The publishing setting drives the launch buttons and the install cell, and is never made up.
"""

import ast
import email.parser
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
# The chapter run against the installed wheel: it loads the vendored data files too.
CHAPTER = ROOT / "book" / "datasets.ipynb"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DISTRIBUTION = PYPROJECT["project"]["name"]
WHEEL_NAME = DISTRIBUTION.replace("-", "_")
LICENSE_FILES = ("LICENSE", "THIRD_PARTY_NOTICES.md")


def _tracked_files():
    """The repository's files as a release builds from them (git's list; the working tree's
    files where there is no git)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if listed.returncode == 0 and listed.stdout:
        return [name for name in listed.stdout.decode().split("\0") if name]
    return [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
            if p.is_file() and not {".venv", "_build", ".git", "__pycache__"} & set(p.parts)]


def _build(tmp_path):
    """Build wheel and sdist from a copy of the tracked sources, as a release does (the tree
    stays clean)."""
    src = tmp_path / "src"
    for name in _tracked_files():
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, src / name)
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist),
                    str(src)], check=True, capture_output=True, text=True)
    (wheel,) = dist.glob(f"{WHEEL_NAME}-*.whl")
    (sdist,) = dist.glob(f"{WHEEL_NAME}-*.tar.gz")
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
    # the sdist is the package, as the wheel is: no tests that cannot run without the book
    stray = sorted(n for n in in_sdist if n.split("/")[0] in {"tests", "book", "benchmarks", ".dev"})
    assert not stray, f"the sdist ships files that need the repository: {stray[:5]}"


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("MLNOTES_TEST_INSTALL") != "1",
                    reason="makes a virtual environment and installs from the package index "
                           "(about 40 s of CPU): make test-install")
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
    # --no-compile: byte-compiling every installed module costs more than the run that imports
    # a few of them
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "--no-compile", "-c", str(constraints), f"{wheel}[plot,widgets,sklearn]",
                    "nbclient", "ipykernel"],
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
    requirement = publish.install_requirement("https://github.com/a/b")
    assert requirement.endswith(" @ git+https://github.com/a/b.git@main")
    assert f"MLNOTES = {json.dumps(requirement)}" in "".join(filled)


def test_every_chapter_starts_with_the_install_cell():
    import nbformat

    sys.path.insert(0, str(ROOT / ".dev"))
    try:
        import add_setup_cell
    finally:
        sys.path.pop(0)
    toc = (ROOT / "_toc.yml").read_text()
    # The homework notebooks too (a student on Colab needs mlnotes for check()); the grader
    # runs none of the cell's `if` block (it holds no definition), so it changes no mark
    # (tests/test_homework_grader.py grades the instructor notebooks, which carry it too).
    chapters = [ROOT / f"{line.split('file:')[1].strip()}.ipynb" for line in toc.splitlines()
                if "file:" in line]
    chapters += sorted((ROOT / "book" / "homework" / "instructor").glob("*.ipynb"))
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


# --- licence -----------------------------------------------------------------------------------
def _metadata(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(zf.read(meta).decode()), names


def test_the_wheel_declares_the_licence_and_ships_the_notices(built):
    import mlnotes

    wheel, sdist = built
    meta, names = _metadata(wheel)
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert sorted(meta.get_all("License-File")) == sorted(LICENSE_FILES)
    for name in LICENSE_FILES:
        assert any(n.endswith(f".dist-info/licenses/{name}") for n in names), name
    # PEP 639: no licence classifier beside the expression
    assert not [c for c in meta.get_all("Classifier") if c.startswith("License ::")]
    assert meta["Name"] == DISTRIBUTION and DISTRIBUTION != "mlnotes"  # PyPI's mlnotes is taken
    assert meta["Version"] == mlnotes.__version__          # one version source
    assert meta["Author"] or meta["Author-email"]
    with tarfile.open(sdist) as tf:
        assert {f"{sdist.name[:-len('.tar.gz')]}/{n}" for n in LICENSE_FILES} <= set(tf.getnames())


def test_the_licence_files_say_what_they_cover():
    code = (ROOT / "LICENSE").read_text()
    assert code.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in code
    content = (ROOT / "LICENSE-CONTENT").read_text()
    assert "Creative Commons Attribution 4.0 International" in content
    assert "https://creativecommons.org/licenses/by/4.0/" in content
    # the legal code itself, all eight sections
    for n, title in enumerate(["Definitions", "Scope", "License Conditions", "Sui Generis Database",
                               "Disclaimer of Warranties", "Term and Termination", "Other Terms",
                               "Interpretation"], start=1):
        assert f"Section {n} -- {title}" in content
    readme = (ROOT / "README.md").read_text()
    assert "BSD-3-Clause" in readme and "CC BY 4.0" in readme and "LICENSE-CONTENT" in readme


def test_the_book_footer_states_the_licence():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    # sphinx.config.html_theme_options replaces the theme options Jupyter Book derives from
    # html:, so html.extra_footer would be dropped silently: the footer must be set here
    footer = config["sphinx"]["config"]["html_theme_options"]["extra_footer"]
    assert "extra_footer" not in config.get("html", {})
    assert "CC BY 4.0" in " ".join(footer.split())
    assert "https://creativecommons.org/licenses/by/4.0/" in footer
    assert "BSD-3-Clause" in footer and "THIRD_PARTY_NOTICES.md" in footer


def test_every_vendored_file_is_in_the_notices():
    notices = (ROOT / "THIRD_PARTY_NOTICES.md").read_text()
    # the project's own files there: the README and the scaling chapter's stored benchmark run
    own = ("README.md", "scaling_bench.json")
    vendored = [p.relative_to(ROOT).as_posix() for p in (ROOT / "mlnotes" / "data").iterdir()
                if p.is_file() and p.name not in own]
    # a folder of the book's static files that carries its own licence is third-party
    vendored += [p.parent.relative_to(ROOT).as_posix() + "/"
                 for p in (ROOT / "book" / "_static").glob("*/LICENSE*")]
    assert vendored
    missing = [v for v in vendored if f"`{v}" not in notices]
    assert not missing, f"not in THIRD_PARTY_NOTICES.md: {missing}"
    assert "Apache License" in notices and "Version 2.0, January 2004" in notices


# --- dependencies and extras -----------------------------------------------------------------
def _extra_requirements(name, seen=()):
    """The requirement names an extra installs, its references to other extras expanded."""
    names = set()
    for line in PYPROJECT["project"]["optional-dependencies"][name]:
        req = Requirement(line)
        if req.name == DISTRIBUTION:
            for extra in req.extras - set(seen):
                names |= _extra_requirements(extra, (*seen, name))
        else:
            names.add(req.name.lower())
    return names


def test_a_missing_extra_hint_names_the_extra_requirements_of_pyproject():
    """The hint's packages are the extra's own (recursively), with pyproject's bounds: a command
    that works from the package index today, where the distribution itself is not published."""
    from mlnotes import _optional

    extras = PYPROJECT["project"]["optional-dependencies"]

    def flatten(extra):
        out = []
        for text in extras[extra]:
            req = Requirement(text)
            if req.name == DISTRIBUTION:
                for inner in sorted(req.extras):
                    out += flatten(inner)
            else:
                out.append(str(req))
        return out

    for extra, requirements in _optional.REQUIREMENTS.items():
        assert sorted(requirements) == sorted(flatten(extra)), extra
    assert {e for _, e in _optional.EXTRAS.values()} <= set(_optional.REQUIREMENTS)
    for module in _optional.EXTRAS:
        assert f"{DISTRIBUTION}[" not in _optional.install_hint(module)[2]


def test_the_core_is_numpy_and_scipy_with_lower_bounds():
    deps = [Requirement(d) for d in PYPROJECT["project"]["dependencies"]]
    assert sorted(d.name for d in deps) == ["numpy", "scipy"]
    for d in deps:
        assert [s.operator for s in d.specifier] == [">="], d


def test_each_optional_package_comes_with_the_extra_its_error_names():
    from mlnotes import _optional

    assert _optional.DISTRIBUTION == DISTRIBUTION
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"plot", "widgets", "homework", "book", "all"} <= set(extras)
    for module, (package, extra) in _optional.EXTRAS.items():
        assert package in _extra_requirements(extra), (module, extra)
    everything = set().union(*(_extra_requirements(e) for e in extras if e != "all"))
    assert _extra_requirements("all") == everything
    assert {"matplotlib", "ipywidgets"} <= _extra_requirements("widgets")


def test_the_book_extra_installs_every_sphinx_extension_the_book_loads():
    import importlib.metadata

    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    extensions = config["sphinx"].get("extra_extensions", [])
    assert extensions
    owners = importlib.metadata.packages_distributions()
    book = {name.replace("_", "-") for name in _extra_requirements("book")}
    for extension in extensions:
        dists = {d.lower().replace("_", "-") for d in owners.get(extension.split(".")[0], [])}
        assert dists & book, f"{extension} ({dists}) is not in the [book] extra"


def _third_party_imports():
    found = {}
    for path in (ROOT / "mlnotes").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in {"numpy", "scipy", "mlnotes"}:
                    found.setdefault(top, path.relative_to(ROOT).as_posix())
    return found


def test_every_import_beyond_numpy_and_scipy_is_declared_in_an_extra():
    from mlnotes import _optional

    found = _third_party_imports()
    assert "matplotlib" in found and "sklearn" in found      # the scan sees lazy imports too
    undeclared = {m: p for m, p in found.items() if m not in _optional.EXTRAS}
    assert not undeclared, f"imported but in no extra (mlnotes/_optional.py): {undeclared}"


def test_a_missing_extra_names_the_extra_to_install(monkeypatch):
    from mlnotes import _optional, datasets

    monkeypatch.setitem(sys.modules, "sklearn", None)   # as if scikit-learn were not installed
    with pytest.raises(ImportError, match=re.escape(
            'load_digits needs scikit-learn, which is not installed. It comes with the '
            '\'sklearn\' extra: pip install "scikit-learn>=1.6" (from a clone of the '
            'repository, the whole extra: pip install -e ".[sklearn]")')):
        datasets.load_digits()
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    with pytest.raises(_optional.MissingExtraError, match=re.escape('pip install -e ".[widgets]"')):
        _optional.import_optional("ipywidgets", purpose="The live explorer")
    # an installed package is imported, a submodule too
    assert _optional.import_optional("matplotlib.colors", purpose="x").__name__ == "matplotlib.colors"
    with pytest.raises(ValueError, match="not an optional dependency"):
        _optional.import_optional("numpy", purpose="x")


def test_pandas_output_without_pandas_names_its_extra(monkeypatch):
    import mlnotes as ml

    monkeypatch.setitem(sys.modules, "pandas", None)
    pca = ml.PCA(n_components=1).set_output(transform="pandas")
    with pytest.raises(ImportError, match=re.escape('pip install "pandas>=2.2.2"')):
        pca.fit_transform(np.random.default_rng(0).normal(size=(10, 3)))


def test_a_module_missing_inside_an_installed_package_is_not_blamed_on_the_extra(monkeypatch):
    from mlnotes import _optional

    with pytest.raises(ModuleNotFoundError) as info:
        _optional.import_optional("matplotlib.no_such_module", purpose="x")
    assert not isinstance(info.value, _optional.MissingExtraError)


def test_the_explorers_without_matplotlib_name_the_widgets_extra():
    code = "import sys\nsys.modules['matplotlib'] = None\nimport mlnotes.widgets"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("mlnotes._optional.MissingExtraError: mlnotes.widgets needs matplotlib")
    assert '"ipywidgets>=8.0" "anywidget>=0.11" "traitlets>=5.9" "pillow>=10.0" (from a clone' \
        in last


def test_setup_notebook_warns_when_it_cannot_pin_blas(monkeypatch):
    import matplotlib as mpl

    from mlnotes import plotting

    monkeypatch.setitem(sys.modules, "threadpoolctl", None)
    with mpl.rc_context(), pytest.warns(RuntimeWarning, match=re.escape(
            "needs threadpoolctl, which is not installed. It comes with the 'plot' extra: "
            'pip install "matplotlib>=3.9"')):
        plotting.setup_notebook()


@pytest.mark.filterwarnings("ignore:TSNE made no progress")
def test_a_progress_bar_without_tqdm_warns_and_the_run_goes_on(monkeypatch):
    import mlnotes as ml

    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.warns(RuntimeWarning, match=re.escape('pip install "tqdm>=4.60"')):
        Z = ml.TSNE(perplexity=5, max_iter=260, progress=True, random_state=0).fit_transform(X)
    assert Z.shape == (30, 2)


# --- Python versions, Binder, the workflow matrix --------------------------------------------
# The Pythons the book is tested with; every pin of requirements.txt has a wheel for each
# (README, "Python versions"). The Makefile, pyproject.toml and the workflow must agree.
SUPPORTED_PYTHONS = ("3.11", "3.12", "3.13")
# What repo2docker's conda base can install (repo2docker/buildpacks/conda/
# supported_python_version.py, 2025 releases); mybinder.org runs the latest repo2docker.
REPO2DOCKER_PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")
# Colab's Python as of 2026 (an assumption: Colab states no schedule). The published notebooks'
# install cell pip-installs the package there, so that Python must be a supported and tested one.
COLAB_PYTHON = "3.12"
BINDER_PLATFORMS = [f"manylinux_2_{minor}_x86_64" for minor in range(35, 4, -1)] + [
    "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64"]


def test_the_supported_pythons_agree_everywhere():
    project = PYPROJECT["project"]
    assert project["requires-python"] == f">={SUPPORTED_PYTHONS[0]}"
    listed = [c.rsplit(":: ", 1)[1] for c in project["classifiers"]
              if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert listed == list(SUPPORTED_PYTHONS)
    makefile = (ROOT / "Makefile").read_text()
    assert f"SUPPORTED_PYTHONS := {' '.join(SUPPORTED_PYTHONS)}\n" in makefile
    readme = (ROOT / "README.md").read_text()
    assert "Python 3.11, 3.12 or 3.13" in readme


def repo2docker_python(runtime_txt):
    """The Python version repo2docker's Python buildpack takes from ``runtime.txt``, parsed as
    it parses it: the stripped text must start with ``python-``; ``X.Y[.Z]`` gives ``X.Y``;
    anything else is not a Python runtime (None: repo2docker would use its default)."""
    runtime = runtime_txt.read_text().strip()
    if not runtime.startswith("python-"):
        return None
    parts = runtime.split("-", 1)[1].split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else None


def test_binder_reads_a_supported_python_from_runtime_txt(tmp_path):
    runtime = ROOT / "runtime.txt"
    assert re.fullmatch(r"python-3\.\d+\n", runtime.read_text())
    version = repo2docker_python(runtime)
    assert version in SUPPORTED_PYTHONS and version in REPO2DOCKER_PYTHONS
    # repo2docker reads only binder/ (or .binder/) when such a folder exists: none may hide it
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()
    # the parser itself can fail
    for text, expected in [("python-3.10.4\n", "3.10"), ("3.12\n", None), ("r-4.3-2024-01-01", None)]:
        (tmp_path / "runtime.txt").write_text(text)
        assert repo2docker_python(tmp_path / "runtime.txt") == expected
    # Binder's environment branch gets the same file (book/_ext/publish.py), and the workflow
    # publishes that branch
    publish = _publish_module()
    folder = publish.write_binder_environment(tmp_path / "binder", ROOT)
    assert (folder / "runtime.txt").read_text() == runtime.read_text()
    workflow = (ROOT / ".github" / "workflows" / "book.yml").read_text()
    assert "publish_branch: binder" in workflow and "publish_dir: ./_build/binder" in workflow


def test_binder_builds_per_dependency_change_and_pulls_the_published_notebooks():
    """The environment holds no mlnotes and nothing that changes per commit; the Binder button
    opens that image and pulls the published notebook with nbgitpuller."""
    from urllib.parse import parse_qs, urlsplit

    publish = _publish_module()
    lines = publish.binder_requirements(ROOT / "requirements.txt").splitlines()
    assert all("==" in line for line in lines), lines           # pins only: no git reference
    assert not any(line.lower().startswith(("mlnotes", "-e")) for line in lines)
    assert any(line.startswith("nbgitpuller==") for line in lines)
    url = publish.binder_launch_url("https://github.com/a/b", "book/pca.ipynb")
    parts = urlsplit(url)
    assert parts.path == "/v2/gh/a/b/binder"
    inner = parse_qs(parts.query)["urlpath"][0]
    assert inner.startswith("git-pull?")
    pull = parse_qs(inner.partition("?")[2])
    assert pull == {"repo": ["https://github.com/a/b"], "branch": ["gh-pages"],
                    "urlpath": ["lab/tree/b/_sources/book/pca.ipynb"]}


def test_binder_on_main_installs_the_package_after_the_lock_file():
    """repo2docker installs requirements.txt, then runs an executable postBuild."""
    post_build = ROOT / "postBuild"
    assert os.access(post_build, os.X_OK)
    text = post_build.read_text()
    assert text.startswith("#!/bin/bash") and "set -euo pipefail" in text
    assert "pip install --no-deps --no-build-isolation -e ." in text
    # the lock pins a setuptools that builds the PEP 639 metadata without build isolation
    build_backend = Requirement(PYPROJECT["build-system"]["requires"][0])
    pins = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    assert build_backend.specifier.contains(pins["setuptools"])


def _binder_pins():
    publish = _publish_module()
    lines = publish.binder_requirements(ROOT / "requirements.txt")
    return [line for line in lines.splitlines() if "==" in line]


def test_every_pin_binder_installs_has_a_wheel_for_its_python(tmp_path):
    """pip's own resolver, metadata only (no download of the wheels): a few seconds."""
    version = repo2docker_python(ROOT / "runtime.txt")
    pins = _binder_pins()
    assert {p.split("==")[0].lower() for p in pins} >= {"numpy", "scipy", "matplotlib"}
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--no-deps",
               "--only-binary=:all:", "--disable-pip-version-check", "--ignore-installed",
               "--python-version", version, "--target", str(tmp_path / "target")]
    for platform in BINDER_PLATFORMS:
        command += ["--platform", platform]
    result = subprocess.run(command + pins, capture_output=True, text=True, timeout=300)
    if result.returncode != 0 and "No matching distribution" not in result.stderr:
        pytest.skip(f"PyPI not reachable: {result.stderr.strip().splitlines()[-1:]}")
    assert result.returncode == 0, f"no wheel for Python {version}: {result.stderr[-1500:]}"


def test_the_published_install_requirement_names_the_distribution():
    publish = _publish_module()
    requirement = Requirement(publish.install_requirement("https://github.com/a/b"))
    assert requirement.name == DISTRIBUTION


def _installed_closure(name, extras=()):
    """Distribution names that ``pip install name[extras]`` brings, read from the installed
    metadata (requirements whose markers hold, recursively, with their own extras)."""
    import importlib.metadata

    from packaging.utils import canonicalize_name

    seen, todo = set(), [(name, frozenset(extras))]
    while todo:
        dist, wanted = todo.pop()
        key = (canonicalize_name(dist), wanted)
        if key in seen:
            continue
        seen.add(key)
        try:
            requirements = importlib.metadata.requires(dist) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for text in requirements:
            req = Requirement(text)
            envs = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((req.name, frozenset(req.extras)))
    return {dist for dist, _ in seen}


def test_each_install_cell_installs_what_its_notebook_imports():
    """The published install cell (its requirement: the distribution with the notebook's own
    extras) brings every package the notebook's code imports: the UMAP chapter gets umap-learn,
    the homework notebooks the checker's IPython."""
    import importlib.metadata

    from packaging.utils import canonicalize_name

    publish = _publish_module()
    owners = importlib.metadata.packages_distributions()
    notebooks = sorted((ROOT / "book").rglob("*.ipynb"))
    checked = 0
    for path in notebooks:
        if "instructor" in path.parts or ".ipynb_checkpoints" in path.parts:
            continue
        nb = json.loads(path.read_text(encoding="utf-8"))
        requirement = Requirement(publish.install_requirement("https://github.com/a/b",
                                                              publish.notebook_extras(nb)))
        brings = _installed_closure(requirement.name, requirement.extras)
        missing = set()
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            for module in re.findall(r"^\s*(?:import|from)\s+([\w.]+)",
                                     "".join(cell["source"]), flags=re.MULTILINE):
                top = module.partition(".")[0]
                if top in sys.stdlib_module_names or top == "mlnotes":
                    continue
                dists = {canonicalize_name(d) for d in owners.get(top, [top])}
                if not dists & brings:
                    missing.add(top)
        assert not missing, f"{path.name}: its install cell does not bring {sorted(missing)}"
        checked += 1
    assert checked >= 15
    umap = json.loads((ROOT / "book" / "umap.ipynb").read_text(encoding="utf-8"))
    assert "umap" in publish.notebook_extras(umap).split(",")       # the check can fail


def test_the_workflow_tests_oldest_and_newest_python_on_linux_and_macos():
    import yaml

    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    test = workflow["jobs"]["test"]
    matrix = test["strategy"]["matrix"]
    combos = {(os_, py) for os_ in matrix["os"] for py in matrix["python"]}
    combos |= {(item["os"], item["python"]) for item in matrix.get("include", [])}
    for system in ("ubuntu", "macos"):
        for python in (SUPPORTED_PYTHONS[0], SUPPORTED_PYTHONS[-1]):
            assert any(o.startswith(system) and p == python for o, p in combos), (system, python)
    assert {p for _, p in combos} <= set(SUPPORTED_PYTHONS)
    # Colab's and Binder's Python are tested too (on Linux, where both run)
    for python in {COLAB_PYTHON, repo2docker_python(ROOT / "runtime.txt")}:
        assert any(o.startswith("ubuntu") and p == python for o, p in combos), python
    # macOS on arm64 (Apple silicon, Accelerate): macos-14 and later; macos-13 is Intel
    for os_ in {o for o, _ in combos if o.startswith("macos")}:
        assert os_ == "macos-latest" or int(os_.split("-")[1]) >= 14, os_
    assert test["runs-on"] == "${{ matrix.os }}"
    assert test["strategy"].get("fail-fast") is False
    runs = [step.get("run", "") for step in test["steps"]]
    assert any(r.startswith("make test") for r in runs)
    # publishing: once, on Linux, after every test job passed, without rewriting gh-pages
    publish = workflow["jobs"]["publish"]
    assert publish["needs"] == "test" and publish["runs-on"].startswith("ubuntu")
    deploys = [s for s in publish["steps"] if "actions-gh-pages" in s.get("uses", "")]
    assert {s["with"].get("publish_branch", "gh-pages") for s in deploys} == {"gh-pages", "binder"}
    assert not any(s["with"].get("force_orphan") for s in deploys)
    assert "push" in publish["if"] and "refs/heads/main" in publish["if"]


def test_build_outputs_are_ignored():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert {"build/", "dist/", "*.egg-info/", ".venv/"} <= set(ignored)


# --- the Makefile's .venv stamp -------------------------------------------------------------
# The Python the stamp test hands the Makefile (and finds first on PATH as python3): this one,
# except that ``-m venv`` makes the environment without ensurepip (4 s of CPU per environment,
# four times) and links this environment's pip into it, so the Makefile's own pip command
# still runs, with the real pip.
VENV_PYTHON = """#!/bin/sh
if [ "$1" = -m ] && [ "$2" = venv ]; then
  shift 2
  {python} -m venv --without-pip "$@" || exit
  for last; do :; done
  site="$("$last/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  exec ln -s {pip} "$site/pip"
fi
exec {python} "$@"
"""


def _make(work, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON", "MAKEFLAGS", "MAKELEVEL")}
    env["PATH"] = f"{work / 'bin'}:{env.get('PATH', '')}"  # python3: VENV_PYTHON
    return subprocess.run(["make", "--no-print-directory", "-C", str(work), *args], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_venv_is_rebuilt_when_its_python_or_lock_file_changes(tmp_path):
    """The stamp target alone (.venv/.installed), with an empty lock file: no network."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "requirements.txt").write_text("# empty lock for the test\n")
    stamp = tmp_path / ".venv" / ".installed"
    wrapper = tmp_path / "bin" / "python3"
    wrapper.parent.mkdir()
    pip = Path(importlib.util.find_spec("pip").origin).parent
    wrapper.write_text(VENV_PYTHON.format(python=shlex.quote(sys.executable),
                                          pip=shlex.quote(str(pip))))
    wrapper.chmod(0o755)
    python = f"PYTHON={wrapper}"
    version = ".".join(map(str, sys.version_info[:3]))

    first = _make(tmp_path, ".venv/.installed", python)
    assert first.returncode == 0, first.stdout + first.stderr
    assert stamp.read_text().startswith(f"python {version}, requirements.txt ")
    again = _make(tmp_path, ".venv/.installed")                 # nothing changed: nothing done
    assert again.returncode == 0 and "rebuilding" not in again.stdout
    (tmp_path / "requirements.txt").write_text("# another lock\n")
    changed = _make(tmp_path, ".venv/.installed")
    assert changed.returncode == 0 and "rebuilding .venv" in changed.stdout, changed.stdout
    stamp.write_text("python 3.0.0, requirements.txt 0\n")     # another Python built it
    other = _make(tmp_path, ".venv/.installed", python)
    assert "was built from: python 3.0.0" in other.stdout and other.returncode == 0
    stamp.unlink()                                               # an unfinished setup
    unfinished = _make(tmp_path, ".venv/.installed")
    assert "an unfinished setup" in unfinished.stdout and unfinished.returncode == 0
    # an unsupported Python is refused before anything is touched
    fake = tmp_path / "python3.10"
    fake.write_text("#!/bin/sh\necho 3.10.13\n")
    fake.chmod(0o755)
    kept = stamp.read_text()
    refused = _make(tmp_path, ".venv/.installed", f"PYTHON={fake}")
    assert refused.returncode != 0
    assert "Python 3.10.13 is not supported" in refused.stdout + refused.stderr
    assert stamp.read_text() == kept
