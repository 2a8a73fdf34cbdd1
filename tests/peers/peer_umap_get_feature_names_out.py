# ruff: noqa
# Adapted from umap-learn 0.5.12 (tag release-0.5.12, commit cdb0eeb236f5d6759e0c3dd1fe132aef4db9e7b1),
# umap/tests/test_umap_get_feature_names_out.py, https://github.com/lmcinnes/umap. Copyright (c) 2017, Leland McInnes.
# BSD-3-Clause licence: see THIRD_PARTY_NOTICES.md. Changes: only the import lines, as listed
# here; every test body, assertion and tolerance is upstream's. The fixtures (iris, nn_data,
# iris_model, ...) are umap-learn's conftest's, in tests/peers/conftest.py.
# Mapping (tests/peers/_shim.py): umap.UMAP -> mlnotes.UMAP (n_neighbors, n_components,
#   metric and metric_kwds (the metrics of mlnotes.umap_metrics, callables, 'precomputed'),
#   min_dist, spread, n_epochs, learning_rate, negative_sample_rate, init, target_weight,
#   precomputed_knn, random_state; embedding_, graph_, a_, b_; fit(X, y) with categorical
#   labels, transform, inverse_transform; sparse input with euclidean, cosine, correlation or
#   precomputed distances); umap-learn's metrics mlnotes does not offer, output_metric, other
#   target metrics, update, densMAP, set_op_mix_ratio / local_connectivity /
#   repulsion_strength, a / b, transform_mode='graph', unique / disconnection_distance
#   -> skip with the reason; umap-learn's helper functions -> skip.
#   sklearn's trustworthiness stays the judge (scikit-learn's, not mlnotes').
# Deliberate differences: tests/peers/README.md.
import numpy as np
from sklearn.datasets import make_classification
from sklearn.pipeline import Pipeline, FeatureUnion

from _shim import UMAP


def test_get_feature_names_out():
    X, _ = make_classification(n_samples=30, n_features=10, random_state=42)
    umap = UMAP(
        n_neighbors=10,
        min_dist=0.01,
        n_epochs=200,
        random_state=42,
        n_components=3,
    ).fit(X)
    # get_feature_names_out should not care about passed features.
    features_names_in = [f"feature{i}" for i in range(10)]
    feature_names_out = umap.get_feature_names_out(input_features=features_names_in)
    expected = ["umap0", "umap1", "umap2"]
    np.testing.assert_array_equal(feature_names_out, expected)


def test_get_feature_names_out_default():
    X, _ = make_classification(n_samples=30, n_features=10, random_state=42)
    umap = UMAP(
        n_neighbors=10,
        min_dist=0.01,
        n_epochs=200,
        random_state=42,
        n_components=3,
    ).fit(X)
    # get_feature_names_out should generate feature names in a certain format if no names are passed.
    default_result = umap.get_feature_names_out()
    expected_default_result = ["umap0", "umap1", "umap2"]
    np.testing.assert_array_equal(default_result, expected_default_result)


def test_get_feature_names_out_multicomponent():
    # The output length should be equal to the number of components UMAP generates.
    X, _ = make_classification(n_samples=30, n_features=10, random_state=42)
    umap = UMAP(
        n_neighbors=10,
        min_dist=0.01,
        n_epochs=200,
        random_state=42,
        n_components=9,
    ).fit(X)
    result_umap = umap.get_feature_names_out()
    expected_umap_result = [f"umap{i}" for i in range(9)]
    assert len(result_umap) == 9
    np.testing.assert_array_equal(result_umap, expected_umap_result)



def test_get_feature_names_out_featureunion():
    X, _ = make_classification(n_samples=30, n_features=10, random_state=42)
    pipeline = Pipeline(
        [
            (
                "umap_pipeline",
                FeatureUnion(
                    [
                        ("umap1", UMAP(n_components=2)),
                        ("umap2", UMAP(n_components=3)),
                    ]
                ),
            )
        ]
    )

    pipeline.fit(X)
    feature_names = pipeline.get_feature_names_out()
    expected_feature_names = np.array(
        [
            "umap1__umap0",
            "umap1__umap1",
            "umap2__umap0",
            "umap2__umap1",
            "umap2__umap2",
        ]
    )
    np.testing.assert_array_equal(feature_names, expected_feature_names)
