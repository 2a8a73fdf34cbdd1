# ruff: noqa
# Adapted from openTSNE 1.0.4 (tag v1.0.4), tests/test_sklearn_wrapper.py,
# https://github.com/pavlin-policar/openTSNE. Copyright (c) 2018, Pavlin Poličar. BSD-3-Clause
# licence: see THIRD_PARTY_NOTICES.md. Changes: only the import line; the tests are upstream's.
# Mapping (tests/peers/_shim.py): openTSNE.sklearn.TSNE -> mlnotes.TSNE (n_iter ->
#   max_iter - exaggeration_iter, early_exaggeration_iter -> exaggeration_iter,
#   initialization -> init, negative_gradient_method 'bh' -> mlnotes' approximate gradient
#   'fft'); transform of new points -> mlnotes.TSNE.transform.
# Deliberate differences: tests/peers/README.md.

import unittest
import numpy as np

from _shim import OpenTSNE as TSNE


class TestTSNECorrectness(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tsne = TSNE(
            early_exaggeration_iter=20,
            n_iter=100,
            neighbors="exact",
            negative_gradient_method="bh",
        )
        # Set up two modalities, if we want to viually inspect test results
        random_state = np.random.RandomState(0)
        cls.x = np.vstack(
            (random_state.normal(+1, 1, (100, 4)), random_state.normal(-1, 1, (100, 4)))
        )
        cls.x_test = random_state.normal(0, 1, (25, 4))

    def test_fit(self):
        retval = self.tsne.fit(self.x)
        self.assertIs(type(retval), TSNE)

    def test_fit_transform(self):
        retval = self.tsne.fit_transform(self.x)
        self.assertIs(type(retval), np.ndarray)

    def test_transform(self):
        self.tsne.fit(self.x)
        retval = self.tsne.transform(self.x_test)
        self.assertIs(type(retval), np.ndarray)
