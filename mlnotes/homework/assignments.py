"""Assignments: which questions, for how many points.

Two sets, two products (as otter-grader and nbgrader keep a private master, and PrairieLearn
gives each student a variant):

* the **practice set** (:data:`ASSIGNMENTS`: ``spectral``, ``embeddings``, ``sne``): its key is
  public (``book/homework/instructor/``), a student's ``check`` compares with it and the
  solutions are one click away after an attempt; graded by the same grader, it is the demo and
  CI's exercise of every grader path;
* the **graded set** (:data:`GRADED`: ``spectral-graded``, ...): its key is encrypted
  (:mod:`~.keys`), its constants are a variant per student (:mod:`~.variants`), and a student's
  ``check`` tests only what needs no key.

Each assignment matches a notebook in ``book/homework/`` (the student version) and
``book/homework/instructor/`` (with the solutions); the function names students define are the
questions' stub names (``Question.function``).

A graded question asks for work that neither the book's chapters (their solutions and hints)
nor the package hand over: variants (another kernel, another weighting or normalisation, another
objective), inputs where the plain formula breaks, closed forms brute force cannot reach, and
derivations with a checked number (:data:`UNDERSTANDING`); ``tests/test_homework_answers.py``
runs every function of the book and of the package against each one. A chapter exercise appears
only as an ungraded warm-up (0 points): its solution is in the book.
"""

ASSIGNMENTS = {
    "spectral": {
        "kernels.double_center": 0,
        "eigenmaps.laplacian": 0,
        "kernels.weighted_double_center": 2,
        "eigenmaps.cauchy_weights": 1,
        "lle.null_vector": 1,
        "eigenmaps.trivial_eigenvectors": 2,
        "eigenmaps.path_spectrum": 2,
    },
    "embeddings": {
        "pca.weighted_subspace": 2,
        "kernel_pca.feature_space_error": 2,
        "autoencoder.tied_step": 2,
        "eigenmaps.dirichlet_energy": 1,
        "autoencoder.linear_optimum": 1,
    },
    "sne": {
        "sne.laplace_affinities": 1,
        "sne.laplace_bandwidths": 2,
        "sne.reverse_kl_gradient": 2,
        "sne.tsne_forces": 2,
        "sne.perplexity_limits": 1,
        "umap.attraction_gradient": 1,
    },
}

# The questions that ask for a derivation or a prediction (a number the derivation gives).
UNDERSTANDING = {
    "lle.null_vector", "eigenmaps.trivial_eigenvectors", "eigenmaps.path_spectrum",
    "eigenmaps.dirichlet_energy", "autoencoder.linear_optimum", "sne.perplexity_limits",
    "sne.tsne_forces", "umap.attraction_gradient",
}


# The graded set: every question's key is encrypted and its constants are the student's variant.
GRADED = {
    "spectral-graded": {
        "graded.circulant_spectrum": 2,
        "graded.grid_spectrum": 2,
        "graded.anchored_gram": 1,
        "graded.path_eigenvector": 2,
        "graded.cycle_resistance": 2,
        "graded.star_spectrum": 1,
    },
    "embeddings-graded": {
        "graded.equicorrelated_spectrum": 2,
        "graded.linear_ae_loss": 1,
        "graded.poly_feature_dim": 1,
        "graded.simplex_mds_spectrum": 1,
        "graded.ring_gram_spectrum": 2,
        "graded.grid_pca_spectrum": 2,
    },
    "sne-graded": {
        "graded.two_level_perplexity": 2,
        "graded.two_cluster_q": 2,
        "graded.geometric_entropy": 2,
        "graded.ball_in_cube": 1,
    },
}

ALL_ASSIGNMENTS = {**ASSIGNMENTS, **GRADED}


def get_assignment(name):
    """``{question name: points}`` for an assignment, or a ``KeyError`` listing the names."""
    from .bank import get_question

    if name not in ALL_ASSIGNMENTS:
        raise KeyError(f"no assignment called {name!r}; the assignments are: "
                       f"{', '.join(sorted(ALL_ASSIGNMENTS))}")
    for question in ALL_ASSIGNMENTS[name]:
        get_question(question)
    return dict(ALL_ASSIGNMENTS[name])
