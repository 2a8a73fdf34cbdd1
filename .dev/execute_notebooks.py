"""Execute notebooks in place, top to bottom, the way nbval will re-run them.

Usage: .venv/bin/python .dev/execute_notebooks.py book/chapter.ipynb [...]

Runs each notebook in a fresh kernel with BLAS threads pinned to 1 (as `make test` does), from
the notebook's own folder, and saves it with its outputs. Fails loudly on the first error.
Prints each notebook's wall-clock time and its kernel's CPU time (user + system, read when the
kernel has ended): the CPU time is the run time on an idle machine, whatever the load.
"""

import os
import resource
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402


def _children_cpu():
    """CPU seconds (user + system) of the ended child processes: the kernels run so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(paths):
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        t0 = time.perf_counter()
        cpu0 = _children_cpu()
        client = NotebookClient(
            nb, timeout=300, kernel_name="python3",
            resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
        )
        client.execute()
        # Widget state would make the static book load widget JavaScript from a CDN; the
        # explorers show a static figure instead, so drop it.
        nb.metadata.pop("widgets", None)
        nbformat.write(nb, path)
        print(f"{path}: {time.perf_counter() - t0:.1f} s wall, "
              f"{_children_cpu() - cpu0:.1f} s kernel CPU")


if __name__ == "__main__":
    main(sys.argv[1:])
