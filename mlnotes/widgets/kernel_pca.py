r"""Kernel PCA explorer: circles and moons, a kernel, and its first components over the plane.

A kernel principal component is a function on the input space,
:math:`z_l(y) = \sum_i \tilde k(y, x_i)\, v_{il} / \sqrt{\lambda_l}` (:mod:`mlnotes.kernel_pca`);
drawing its level sets over the plane shows what the kernel can separate: circles with an RBF or
degree-2 polynomial kernel, not with the linear one.
"""

import functools

import matplotlib
import numpy as np

from .._validation import check_positive
from ..datasets import make_circles, make_moons
from ..kernel_pca import gram_embedding
from ..kernels import KERNELS, center_kernel, center_kernel_test, kernel_matrix
from ..plotting import scatter
from . import _static as st
from ._core import Choice, Explorer, LiveFigure, Slider, fit_view, frozen, set_points

DATASETS = {"circles": lambda n, noise, rs: make_circles(n, noise=noise, factor=0.4, random_state=rs),
            "moons": lambda n, noise, rs: make_moons(n, noise=noise, random_state=rs)}
GAMMAS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
DEGREES = (1, 2, 3, 4, 5)
GRID_SIZE = 48  # grid points per side for the contour plots
N_CONTOURS = 12
HELD_DEGREES = (2, 3)  # degrees of the polynomial kernel the static book holds
CONTOUR_CMAP = matplotlib.colormaps["RdBu_r"]  # looked up once (a name costs every contour 1 ms)


@functools.lru_cache(maxsize=8)
def kpca_data(dataset, n_samples, noise, random_state):
    """The 2-D data set and its labels (read-only)."""
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {', '.join(DATASETS)}, got {dataset!r}.")
    return frozen(*DATASETS[dataset](n_samples, noise, random_state))


@functools.lru_cache(maxsize=64)
def kpca_fit(dataset, kernel, gamma, degree, n_samples, noise, random_state):
    """Fit kernel PCA (2 components) and evaluate them on a grid over the plane.

    Returns ``(Z, eigenvalues, grid_x, grid_y, values)``, values of shape (2, GRID, GRID).
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {', '.join(KERNELS)}, got {kernel!r}.")
    check_positive(gamma, "gamma")
    check_positive(degree, "degree", integer=True)
    X, _ = kpca_data(dataset, n_samples, noise, random_state)
    params = dict(kernel=kernel, gamma=gamma, degree=degree)
    K = kernel_matrix(X, **params)
    Z, lam, V = gram_embedding(center_kernel(K), 2)
    lo, hi = X.min(axis=0) - 0.3, X.max(axis=0) + 0.3
    gx, gy = np.linspace(lo[0], hi[0], GRID_SIZE), np.linspace(lo[1], hi[1], GRID_SIZE)
    Y = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2)
    # z_l(y) = sum_i k~(y, x_i) v_il / sqrt(lambda_l)
    values = center_kernel_test(kernel_matrix(Y, X, **params), K) @ (V / np.sqrt(lam))
    return frozen(Z, lam, gx, gy, values.T.reshape(2, GRID_SIZE, GRID_SIZE))


def draw_kernel_pca(*, dataset="circles", kernel="rbf", gamma=3.0, degree=2, n_samples=300,
                    noise=0.05, random_state=0):
    r"""Kernel PCA of circles or moons: the first two components as contours, and the embedding.

    Parameters
    ----------
    dataset : {"circles", "moons"}
    kernel : {"linear", "poly", "rbf", "sigmoid"}
    gamma : float
        :math:`\gamma` of the RBF, polynomial and sigmoid kernels.
    degree : int
        Degree of the polynomial kernel (ignored by the others).

    Returns
    -------
    matplotlib.figure.Figure
        Panels: component 1 and component 2 over the input plane (filled contours, the data on
        top), and the embedding :math:`(z_1, z_2)` (gid ``"embedding"``).
    """
    return KernelPcaFigure(dataset=dataset, kernel=kernel, gamma=gamma, degree=degree,
                           n_samples=n_samples, noise=noise, random_state=random_state).fig


class KernelPcaFigure(LiveFigure):
    """:func:`draw_kernel_pca`'s figure; a kernel parameter changes the contours (drawn anew),
    the embedding and the titles; another data set changes the axes, so the figure is built
    again (the live explorer keeps one per data set)."""

    size = (10.0, 3.4)
    kept_per = ("dataset",)

    def build(self, **params):
        X, y = kpca_data(params["dataset"], params["n_samples"], params["noise"],
                         params["random_state"])
        Z, lam, gx, gy, values = _fit(**params)
        fig, changing = self.fig, self.changing
        axes = fig.subplots(1, 3)
        self._contours, self._titles = [], []
        for l, ax in enumerate(axes[:2]):
            self._contours.append(changing(_contours(ax, gx, gy, values[l])))
            changing(scatter(ax, X, y, s=5, edgecolors="k"))  # over the contours
            # the grid's extent, whatever the contours' (so that a kernel's change keeps them)
            ax.set(xlim=(gx[0], gx[-1]), ylim=(gy[0], gy[-1]))
            ax.set_aspect("equal", adjustable="box")
            for spine in ax.spines.values():  # the contours fill the frame: it goes on top
                changing(spine)
            self._titles.append(changing(ax.set_title("", fontsize=10)))
        self._embedding = changing(scatter(axes[2], Z, y, s=6, gid="embedding"))
        axes[2].set_title("embedding (z1, z2)", fontsize=10)
        for ax in axes:
            ax.set_xticks([])
            ax.set_yticks([])
        self._axes, self._dataset, self._values = axes, params["dataset"], values
        self._suptitle = changing(fig.suptitle("", fontsize=10))
        fig.subplots_adjust(left=0.01, right=0.99, bottom=0.02, top=0.84, wspace=0.08)
        self.update(**params)

    def update(self, **params):
        if params["dataset"] != self._dataset:
            self.fig.clear()
            self._changing.clear()
            self.build(**params)
            return False
        Z, lam, gx, gy, values = _fit(**params)
        for l, ax in enumerate(self._axes[:2]):
            if values is not self._values:  # (kpca_fit keeps its results)
                self._contours[l] = self.replace(self._contours[l],
                                                 _contours(ax, gx, gy, values[l]))
            self._titles[l].set_text(f"component {l + 1} over the plane (λ = {lam[l]:.3g})")
        self._values = values
        set_points(self._embedding, Z)
        fit_view(self._axes[2], Z)
        self._suptitle.set_text(_title(params["dataset"], params["kernel"], params["gamma"],
                                       params["degree"]))
        return True


def _fit(*, dataset, kernel, gamma, degree, n_samples, noise, random_state):
    return kpca_fit(dataset, kernel, float(gamma), int(degree), n_samples, noise, random_state)


def _contours(ax, gx, gy, values):
    return ax.contourf(gx, gy, values, N_CONTOURS, cmap=CONTOUR_CMAP, alpha=0.8)


def _title(dataset, kernel, gamma, degree):
    what = {"poly": f", degree {degree}", "linear": ""}.get(kernel, "")
    gamma_text = "" if kernel == "linear" else f", gamma {gamma:g}"
    return f"{dataset}: {kernel} kernel{gamma_text}{what}"


def scene_kernel_pca(*, dataset="circles", kernel="rbf", gamma=3.0, degree=2, n_samples=300,
                     noise=0.05, random_state=0):
    """:func:`draw_kernel_pca`'s panels as data for the static book (:mod:`._static`): each
    component's values over the plane as a colour image (matplotlib draws filled contours)."""
    X, y = kpca_data(dataset, n_samples, noise, random_state)
    Z, lam, gx, gy, values = kpca_fit(dataset, kernel, float(gamma), int(degree), n_samples,
                                      noise, random_state)
    extent = (gx[0], gx[-1], gy[0], gy[-1])
    panels = [st.panel(f"component {l + 1} over the plane (λ = {lam[l]:.3g})",
                       [st.grid_image(values[l], extent), st.points(X, y, size=1.8, edge="fg")],
                       xlim=extent[:2], ylim=extent[2:], equal=True)
              for l in range(2)]
    panels.append(st.panel("embedding (z1, z2)", [st.points(Z, y, size=2)], equal=True))
    return st.scene(_title(dataset, kernel, gamma, degree), panels)


def kernel_pca_unused(*, kernel="rbf", **params):
    """The controls with no effect for this kernel, with the reason: gamma for the linear
    kernel, the degree for every kernel but the polynomial one."""
    unused = {}
    if kernel == "linear":
        unused["gamma"] = "the linear kernel has no gamma"
    if kernel != "poly":
        unused["degree"] = f"only the poly kernel has a degree ({kernel} has none)"
    return unused


def kernel_pca_explorer(**defaults):
    """Explorer over :func:`draw_kernel_pca`: gamma, data set, kernel, degree. The static book
    holds every gamma, data set and kernel, and degrees 2 and 3 of the polynomial kernel."""
    controls = [
        Slider("gamma", GAMMAS, "gamma"),
        Choice("dataset", tuple(DATASETS), "data"),
        Choice("kernel", KERNELS, "kernel"),
        Slider("degree", DEGREES, "degree", held=HELD_DEGREES),
    ]
    return Explorer(draw_kernel_pca, controls, defaults, scene=scene_kernel_pca,
                    irrelevant=kernel_pca_unused, live=KernelPcaFigure)
