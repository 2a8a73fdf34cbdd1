"""Optional dependencies: which extra installs each, and an import that says so when it is missing.

The estimators need numpy and scipy only. Everything else is an extra of the distribution
(``pyproject.toml``). The distribution is not on the package index, so a missing extra's message
names commands that work today: the extra's own packages from the index, or the extra from a
clone::

    pip install "matplotlib>=3.9" "matplotlib-inline>=0.1.6" "threadpoolctl>=3.1"   # plot
    pip install -e ".[widgets]"             # the explorers, from a clone

:func:`import_optional` imports a module of an extra and, when it is missing, raises
:class:`MissingExtraError` (an ``ImportError``) naming what needs it and the extra to install.
"""

from importlib import import_module

DISTRIBUTION = "mlnotes-nldr"

# Top-level import name -> (the package pip installs, the extra that brings it).
EXTRAS = {
    "matplotlib": ("matplotlib", "plot"),
    "mpl_toolkits": ("matplotlib", "plot"),  # mplot3d ships with matplotlib
    "matplotlib_inline": ("matplotlib-inline", "plot"),
    "threadpoolctl": ("threadpoolctl", "plot"),
    "ipywidgets": ("ipywidgets", "widgets"),
    "anywidget": ("anywidget", "widgets"),
    "traitlets": ("traitlets", "widgets"),
    "PIL": ("pillow", "widgets"),
    "IPython": ("ipython", "homework"),
    "cryptography": ("cryptography", "homework"),
    "sklearn": ("scikit-learn", "sklearn"),
    "pandas": ("pandas", "pandas"),
    "tqdm": ("tqdm", "progress"),
}


class MissingExtraError(ModuleNotFoundError):
    """An optional package is missing; the message names the extra that installs it."""


# What each extra installs, with the lower bounds of pyproject.toml (a test keeps them equal).
REQUIREMENTS = {
    "plot": ("matplotlib>=3.9", "matplotlib-inline>=0.1.6", "threadpoolctl>=3.1"),
    "widgets": ("matplotlib>=3.9", "matplotlib-inline>=0.1.6", "threadpoolctl>=3.1",
                "ipywidgets>=8.0", "anywidget>=0.11", "traitlets>=5.9", "pillow>=10.0"),
    "homework": ("ipython>=8.12", "cryptography>=42"),
    "sklearn": ("scikit-learn>=1.6",),
    "pandas": ("pandas>=2.2.2",),
    "progress": ("tqdm>=4.60",),
}


def install_hint(module, extra=None):
    """``(package, extra, 'pip install ...')`` for the top-level module ``module``.

    The command installs the extra's packages from the package index (``mlnotes-nldr`` itself is
    not published there), and names the extra for a clone of the repository.
    """
    package, default_extra = EXTRAS[module]
    extra = extra or default_extra
    packages = " ".join(f'"{r}"' for r in REQUIREMENTS[extra])
    return package, extra, (f'pip install {packages} (from a clone of the repository, the '
                            f'whole extra: pip install -e ".[{extra}]")')


def missing_message(module, purpose, extra=None):
    """The sentence a missing ``module`` gives: what needs it and how to install it."""
    package, extra, command = install_hint(module, extra)
    return (f"{purpose} needs {package}, which is not installed. It comes with the "
            f"'{extra}' extra: {command}.")


def import_optional(name, *, purpose, extra=None):
    """Import ``name`` (dotted names allowed) from an optional package.

    Parameters
    ----------
    name : str
        The module, e.g. ``"matplotlib.pyplot"``; its top-level package must be in ``EXTRAS``.
    purpose : str
        What needs it, for the message (``"mlnotes.widgets"``, ``"load_digits"``).
    extra : str, optional
        The extra to name when the package belongs to several (matplotlib comes with ``plot``
        and with ``widgets``); default: the one in ``EXTRAS``.

    Raises
    ------
    MissingExtraError
        If the package is not installed. A module missing *inside* an installed package (a
        broken installation) is re-raised unchanged.
    """
    top = name.partition(".")[0]
    if top not in EXTRAS:
        raise ValueError(f"{top!r} is not an optional dependency of mlnotes; "
                         f"known: {sorted(EXTRAS)}.")
    try:
        import_module(top)  # first: a submodule already imported would hide a missing package
    except ModuleNotFoundError as exc:
        if exc.name != top:
            raise
        raise MissingExtraError(missing_message(top, purpose, extra), name=top) from None
    return import_module(name)
