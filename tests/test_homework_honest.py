"""Honest code runs in the sandbox as in Jupyter and gets full marks (issue 36's controls).

Each passed ``check()`` as a Jupyter kernel runs it and lost marks in the old sandbox: numba
and threadpoolctl (ctypes' ``dlopen`` refused), a thread pool and ``multiprocessing`` (no
thread, no process), a folder submission reading a data file or importing a module shipped
beside the notebook (neither visible), an import under ``if __name__ == "__main__":``.
"""

import numpy as np
import pytest
from homework_fixtures import points_of, submission, write

from mlnotes.homework.grader import grade_folder
from mlnotes.homework.sandbox import can_isolate, run_functions

needs_root = pytest.mark.skipif(not can_isolate(), reason="the full sandbox needs root on Linux")
ASSIGNMENT = {"kernels.double_center": 1, "eigenmaps.laplacian": 1}

CONTROLS = {
    "numba": ("import numba\n@numba.njit(cache=False)\ndef _twice(x):\n"
              "    s = 0.0\n    for _ in range(2):\n        s += x\n    return s\n"
              "def f(x):\n    return _twice(x)\n"),
    "threadpoolctl": ("from threadpoolctl import threadpool_info, threadpool_limits\n"
                      "def f(x):\n    with threadpool_limits(limits=1, user_api='blas'):\n"
                      "        found = len(threadpool_info()) > 0\n"
                      "    return 2 * x if found else -1.0\n"),
    "thread pool": ("from concurrent.futures import ThreadPoolExecutor\ndef f(x):\n"
                    "    with ThreadPoolExecutor(4) as pool:\n"
                    "        return sum(pool.map(lambda v: v, [x, x]))\n"),
    "multiprocessing": ("import multiprocessing as mp\ndef half(v):\n    return v / 2\n"
                        "def f(x):\n    with mp.Pool(64) as pool:\n"
                        "        return sum(pool.map(half, [x] * 4))\n"),
    "process pool": ("from concurrent.futures import ProcessPoolExecutor\n"
                     "def half(v):\n    return v / 2\ndef f(x):\n"
                     "    with ProcessPoolExecutor() as pool:\n"
                     "        return sum(pool.map(half, [x] * 4))\n"),
    "__main__": ("if __name__ == '__main__':\n    import math\n"
                 "def f(x):\n    return math.sqrt(4.0) * x\n"),
    "scratch file": ("import os, tempfile\nimport numpy as np\ndef f(x):\n"
                     "    path = os.path.join(tempfile.gettempdir(), 'x.npy')\n"
                     "    np.save(path, np.array([x, x]))\n    return float(np.load(path).sum())\n"),
}


@needs_root
@pytest.mark.parametrize("name", list(CONTROLS))
def test_honest_code_runs_as_in_jupyter(name):
    if name == "numba":
        pytest.importorskip("numba", reason="numba is not installed here")
    if name == "threadpoolctl":
        pytest.importorskip("threadpoolctl", reason="threadpoolctl is not installed here")
    statements = [{"cell": 1, "line": 1, "code": "import numpy as np", "names": ["np"],
                   "kind": "import"},
                  {"cell": 2, "line": 1, "code": CONTROLS[name], "names": ["f"],
                   "kind": "definition"}]
    reported, results, _ = run_functions(statements, [("f", [[1.5]])], timeout=10)
    assert "answers" in results[0], (results, reported)
    answer = results[0]["answers"][0]
    assert "value" in answer, (answer, reported)
    assert float(answer["value"]) == 3.0


HELPER = """import numpy as np

HALF = float(np.load("data/half.npy"))  # read from the working directory, as Jupyter does


def double_center(D2):
    N = len(D2)
    C = np.eye(N) - 1 / N
    return HALF * C @ D2 @ C
"""


@needs_root
def test_files_shipped_beside_a_folder_submission(tmp_path):
    """A folder submission sees its own folder (read-only, its working directory, first on
    sys.path): a module and a data file beside the notebook, as in Jupyter."""
    nb = submission("spectral", replace={"double_center": "from helper import double_center\n"})
    folder = tmp_path / "subs" / "alice"
    write(folder / "homework.ipynb", nb)
    (folder / "helper.py").write_text(HELPER)
    (folder / "data").mkdir()
    np.save(folder / "data" / "half.npy", np.array(-0.5))
    results = grade_folder(tmp_path / "subs", ASSIGNMENT, tmp_path / "out" / "g.csv",
                           timeout=5, seed=2)
    assert points_of(results) == {"alice": {"kernels.double_center": 1,
                                            "eigenmaps.laplacian": 1}}
