"""Assignments: which questions, for how many points.

Each assignment matches a notebook in ``book/homework/`` (the student version) and
``book/homework/instructor/`` (with the solutions); the function names students define are the
questions' stub names (``Question.function``). The last questions of each assignment ask for
understanding (a derivation or an analysis with a checkable number, ``bank/understanding.py``).
"""

ASSIGNMENTS = {
    "spectral": {
        "kernels.double_center": 1,
        "kernels.center_kernel_test": 1,
        "mds.classical_mds": 2,
        "graphs.knn_graph": 1,
        "graphs.floyd_warshall": 2,
        "lle.weights": 2,
        "lle.alignment_matrix": 1,
        "eigenmaps.heat_kernel_weights": 1,
        "eigenmaps.laplacian": 1,
        "lle.null_vector": 1,
        "eigenmaps.trivial_eigenvectors": 2,
        "isomap.residual_variance": 1,
    },
    "sne": {
        "sne.conditional_affinities": 1,
        "sne.entropy_bits": 1,
        "sne.perplexity_search": 2,
        "sne.joint_affinities": 1,
        "sne.student_t_affinities": 1,
        "sne.kl_divergence": 1,
        "sne.tsne_gradient": 2,
        "sne.perplexity_limits": 1,
        "sne.tsne_forces": 2,
    },
    "embeddings": {
        "kernels.center_kernel": 1,
        "kernel_pca.transform": 2,
        "pca.reconstruction_error": 1,
        "pca.principal_subspace": 1,
        "eigenmaps.normalized_laplacian": 1,
        "lle.embedding": 1,
        "eigenmaps.embedding": 2,
        "autoencoder.step": 2,
        "kernel_pca.linear_scores": 1,
        "eigenmaps.dirichlet_energy": 1,
    },
}


def get_assignment(name):
    """``{question name: points}`` for an assignment, or a ``KeyError`` listing the names."""
    from .bank import get_question

    if name not in ASSIGNMENTS:
        raise KeyError(f"no assignment called {name!r}; the assignments are: "
                       f"{', '.join(sorted(ASSIGNMENTS))}")
    for question in ASSIGNMENTS[name]:
        get_question(question)
    return dict(ASSIGNMENTS[name])
