"""A rebuild of a book after a change to a static file alone carries the change
(book/_ext/selfcontained.py: Sphinx copies ``html_static_path`` only when it writes a page)."""

import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = """title: rebuild
execute:
  execute_notebooks: "off"
only_build_toc_files: true
sphinx:
  local_extensions:
    selfcontained: _ext
  config:
    html_static_path: ["_static"]
"""
TOC = "format: jb-book\nroot: intro\n"


def _build(src, out):
    jupyter_book = pathlib.Path(sys.executable).with_name("jupyter-book")
    done = subprocess.run([str(jupyter_book), "build", str(src), "--path-output", str(out),
                           "--warningiserror"], cwd=src, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return out / "_build" / "html" / "_static", done.stdout


def test_a_rebuild_after_a_static_file_changed_alone_serves_the_new_file(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "_ext").mkdir(parents=True)
    (src / "_static" / "deep").mkdir(parents=True)
    shutil.copy(ROOT / "book" / "_ext" / "selfcontained.py", src / "_ext")
    (src / "_config.yml").write_text(CONFIG)
    (src / "_toc.yml").write_text(TOC)
    (src / "intro.md").write_text("# Intro\n")
    (src / "_static" / "book.css").write_text("p { color: black; }\n")
    (src / "_static" / "deep" / "book.js").write_text("var a = 1;\n")
    # the page well older than its first build, so the rebuild finds it up to date whatever the
    # file system's time resolution (a new static file would make Sphinx write it again)
    past = time.time() - 60
    os.utime(src / "intro.md", (past, past))
    static, _ = _build(src, out)
    assert (static / "book.css").read_text() == "p { color: black; }\n"

    (src / "_static" / "book.css").write_text("p { color: navy; }\n")
    (src / "_static" / "deep" / "book.js").write_text("var a = 2;\n")
    static, printed = _build(src, out)
    assert "no targets are out of date" in printed, printed  # the case this test is about
    assert (static / "book.css").read_text() == "p { color: navy; }\n"
    assert (static / "deep" / "book.js").read_text() == "var a = 2;\n"
