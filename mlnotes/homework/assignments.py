"""Assignments: which questions, for how many points.

Two sets, two products (as otter-grader and nbgrader keep a private master, and PrairieLearn
gives each student a variant):

* the **practice set** (:data:`ASSIGNMENTS`: ``spectral``, ``embeddings``, ``sne``): its key is
  public (``book/homework/instructor/``), a student's ``check`` compares with it and the
  solutions are one click away after an attempt; graded by the same grader, it is the demo and
  CI's exercise of every grader path;
* the **graded set** (:data:`GRADED`: ``spectral-graded``, ...): its key is encrypted
  (:mod:`~.keys`), its constants are a variant per student (:mod:`~.variants`), and a student's
  ``check`` tests only what needs no key;
* a **course's own format** (:data:`OWN`: ``ellipse-graded``): questions the folder itself
  defines (stub, inputs, properties, mistakes), with a variant per student and a student-side
  check declared in its ``assignment.toml``: the format's worked example.

Each assignment is a folder of ``shipped/`` in the package, in the format a course uses for its
own (:mod:`~.folder`: ``assignment.toml`` lists the questions and their points); its student
notebook is in ``book/homework/`` and the practice set's solutions in
``book/homework/instructor/``; the function names students define are the questions' stub
names (``Question.function``).

A graded question asks for work that neither the book's chapters (their solutions and hints)
nor the package hand over: variants (another kernel, another weighting or normalisation, another
objective), inputs where the plain formula breaks, closed forms brute force cannot reach, and
derivations with a checked number (:data:`UNDERSTANDING`); ``tests/test_homework_answers.py``
runs every function of the book and of the package against each one. A chapter exercise appears
only as an ungraded warm-up (0 points): its solution is in the book.
"""

from .folder import SHIPPED, load_assignment, read_spec, shipped_folder, shipped_names


def _shipped():
    """``{name: {question: points}}`` of the shipped folders, practice, graded (a folder with
    an encrypted key) and a course's own format (questions the folder defines), as their
    specifications list them (checked on use by :func:`get_assignment`)."""
    practice, graded, own = {}, {}, {}
    for name in shipped_names():
        spec = read_spec(SHIPPED / name)
        points = {q["name"]: q["points"] for q in spec["questions"]}
        kind = own if any("function" in q for q in spec["questions"]) else (
            graded if "key" in spec else practice)
        kind[name] = points
    return practice, graded, own


# OWN: shipped folders whose questions the folder defines (not the bank's): the worked example
# of a course's own assignment with a variant per student and a student-side check.
ASSIGNMENTS, GRADED, OWN = _shipped()

# The questions that ask for a derivation or a prediction (a number the derivation gives).
UNDERSTANDING = {
    "lle.null_vector", "eigenmaps.trivial_eigenvectors", "eigenmaps.path_spectrum",
    "eigenmaps.dirichlet_energy", "autoencoder.linear_optimum", "sne.perplexity_limits",
    "sne.tsne_forces", "umap.attraction_gradient",
}


ALL_ASSIGNMENTS = {**ASSIGNMENTS, **GRADED, **OWN}


def get_assignment(name):
    """``{question name: points}`` for a shipped assignment, read from its folder as any
    course's folder is (:func:`~.folder.load_assignment`), or a ``KeyError`` listing the names."""
    return dict(shipped(name).points)


def shipped(name):
    """The :class:`~.folder.Assignment` of shipped assignment ``name`` (a ``KeyError`` listing
    the names otherwise)."""
    if name not in ALL_ASSIGNMENTS:
        raise KeyError(f"no assignment called {name!r}; the assignments are: "
                       f"{', '.join(sorted(ALL_ASSIGNMENTS))}")
    return load_assignment(shipped_folder(name))
