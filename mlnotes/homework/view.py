"""The file system graded code sees: an allow-list, built by the child as a fresh root.

The grader's child (``_child.py``, as root in a mount namespace of its own) builds a new root
from bind mounts and moves into it (``pivot_root``): only what this module lists exists there.

* the system's programs and libraries (``/usr``, and ``/bin``, ``/lib`` ... as the machine has
  them: folders, or links into ``/usr``) and a few files of ``/etc`` the dynamic loader and the
  clock read, read-only;
* Python, its standard library and its installed packages (the grader's ``sys.prefix`` and
  ``sys.base_prefix``, the ``sysconfig`` folders, numpy's folder), read-only, at their own
  paths; a blocked package's folder, mlnotes and any folder of the instructor's inside them
  are covered by empty ones (``--block`` is enforced by the file system, outside the process
  it restricts);
* ``/dev/null``, ``/dev/zero``, ``/dev/full``, ``/dev/random``, ``/dev/urandom``;
* the submission's own folder (a folder submission: the notebook with the data files and
  modules shipped beside it; where the assignment has data files, a private copy of it, or of
  nothing for a lone notebook, with those files beside the notebook:
  :func:`mlnotes.homework.sandbox.stage`), read-only at :data:`SUBMISSION`, the working
  directory and the first entry of ``sys.path`` as in a Jupyter kernel;
* a private writable scratch (the child's temporary folder, also its home) and ``/dev/shm``,
  small file systems in memory that no other process sees.

Nothing else: not the grader's working directory (``python -m`` puts it on the grader's
``sys.path``, which is therefore NOT consulted), the checkout and its ``.git``, ``_build`` or
caches, the instructor's folders, the other submissions, home folders, shell and IPython
histories, ``PYTHONPYCACHEPREFIX`` caches, ``/proc``, ``/sys``, ``/run`` or ``/tmp``.
"""

import importlib.util
import os
import sys
import sysconfig

# Where a folder submission appears in the sandbox: a name that says nothing of the
# instructor's layout.
SUBMISSION = "/submission"
# The system's folders (a folder, or a link into /usr on a merged-/usr system).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What of /etc the dynamic loader and the C library read; nothing else of it is needed.
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


def _within(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def python_dirs():
    """The folders Python and its installed packages live in, resolved; never ``sys.path``
    (it holds the grader's working directory under ``python -m``, and whatever a ``.pth``
    file added: an editable checkout)."""
    import numpy as np

    wanted = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(np.__file__), os.path.dirname(os.path.realpath(sys.executable))}
    wanted.update(v for k, v in sysconfig.get_paths().items()
                  if k in ("stdlib", "platstdlib", "purelib", "platlib"))
    found = sorted({os.path.realpath(p) for p in wanted if p and os.path.isdir(p)})
    return [d for d in found if not any(d != e and _within(d, e) for e in found)]


def package_paths(names):
    """The folders (or single files) of the packages ``names``, as this Python finds them;
    a name that is not installed has none."""
    out = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            out += [os.path.realpath(p) for p in spec.submodule_search_locations]
        elif spec.origin and os.path.isfile(spec.origin):
            out.append(os.path.realpath(spec.origin))
    return out


def fresh_view(root, scratch, *, covers=(), submission=None, cwd=None):
    """The allow-list for :func:`mlnotes.homework._child._fresh_root` (plain JSON data).

    Parameters
    ----------
    root : str
        An empty folder the child builds the new root in.
    scratch : str
        The child's own temporary folder: writable in the new root (nothing of it is kept).
    covers : sequence of str
        Folders or files that must not be readable though they lie inside a bound folder
        (blocked packages, mlnotes, the instructor's folders inside Python's own).
    submission : str, optional
        The submitted folder (resolved, not a link), bound read-only at :data:`SUBMISSION`.
    cwd : str, optional
        The notebook's folder relative to ``submission`` (the working directory).
    """
    links, binds = [], []
    for path in SYSTEM:
        if os.path.islink(path):
            links.append([path, os.readlink(path)])
        elif os.path.isdir(path):
            binds.append(path)
    for path in ETC:
        if os.path.islink(path):
            links.append([path, os.readlink(path)])
        elif os.path.exists(path):
            binds.append(path)
    system = [p for p in binds if p in SYSTEM]
    binds += [d for d in python_dirs() if not any(_within(d, s) for s in system)]
    bound = [b for b in binds if os.path.isdir(b)]
    shown = [os.path.realpath(c) for c in covers]
    covered = sorted({c for c in shown if any(_within(c, b) and c != b for b in bound)})
    return {
        "root": root, "scratch": scratch, "links": links, "binds": binds,
        "devices": [d for d in DEVICES if os.path.exists(d)], "covers": covered,
        "submission": [submission, SUBMISSION] if submission else None,
        "cwd": os.path.normpath(os.path.join(SUBMISSION, cwd or ".")) if submission else None,
    }
