"""The scikit-learn face of mlnotes' estimators, without needing scikit-learn.

Every public estimator derives from :class:`Estimator`, which gives it what scikit-learn's
tools (``clone``, ``Pipeline``, ``GridSearchCV``, ``check_estimator``) expect of an estimator:

* ``get_params`` / ``set_params`` read from the ``__init__`` signature (every argument is
  stored unchanged under its own name, so the signature *is* the list of parameters);
* a ``repr`` that shows the parameters that differ from their defaults;
* ``n_features_in_`` (and ``feature_names_in_`` for a data frame with string column names),
  recorded after every successful ``fit`` / ``fit_transform``; ``transform`` compares the
  column names of its input with them as scikit-learn does (:func:`check_feature_names`:
  different names raise a ``ValueError``, names on one side only warn);
* float32 preserved (``float32`` in, ``float32`` out) by the estimators that set
  ``_preserves_float32`` (those whose scikit-learn counterpart does: PCA, KernelPCA,
  Isomap), computed in float64;
* ``get_feature_names_out``: ``"isomap0", "isomap1", ...``, one name per embedding coordinate;
* ``set_output(transform="default" | "pandas" | "polars")``: ``transform`` and
  ``fit_transform`` return a data frame with those column names when asked (per estimator, or
  through scikit-learn's global ``transform_output`` setting);
* ``__sklearn_tags__``: the estimator's tags, built from :meth:`Estimator._tags`.

scikit-learn is imported lazily, only where its own objects are needed: to build the tags
(only scikit-learn asks for them) and to read its global output setting (only if scikit-learn
has already been imported, since nobody can have changed that setting otherwise). Fitting never
imports it.

The recording of ``n_features_in_`` and the output container are added to ``fit``,
``fit_transform`` and ``transform`` when a subclass is defined (:meth:`Estimator.__init_subclass__`),
so that the algorithm modules stay free of this bookkeeping.
"""

import functools
import inspect
import sys
import warnings

import numpy as np

from ._optional import EXTRAS as OPTIONAL_EXTRAS
from ._optional import import_optional
from ._typing import ArrayLike
from ._validation import check_is_fitted

OUTPUT_CONTAINERS = ("default", "pandas", "polars")
MAX_NAMES_SHOWN = 10  # a feature-name mismatch lists at most this many names of each kind


def _same(value, default):
    """Whether a parameter value is its default (arrays never are; NaN equals NaN)."""
    if value is default:
        return True
    if isinstance(value, np.ndarray) or isinstance(default, np.ndarray):
        return False
    if type(value) is not type(default):
        return False
    try:
        equal = value == default
        if isinstance(value, float) and value != value and default != default:
            return True
        return bool(equal)
    except Exception:  # an object whose comparison is not a plain truth value
        return False


def _feature_names(X):
    """The column names of a data frame whose columns are all strings, else None."""
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray):
        return None
    columns = list(columns)
    if columns and all(isinstance(c, str) for c in columns):
        return np.asarray(columns, dtype=object)
    return None


def _record_input(estimator, X):
    """Set ``n_features_in_`` (and ``feature_names_in_`` for a frame with string columns)."""
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.asarray(X).shape  # a list, or an object with only __array__
    if len(shape) == 2:
        estimator.n_features_in_ = int(shape[1])
    names = _feature_names(X)
    if names is not None:
        estimator.feature_names_in_ = names
    else:
        estimator.__dict__.pop("feature_names_in_", None)


def _listed(names):
    return "".join(f"- {name}\n" for name in names[:MAX_NAMES_SHOWN]) + (
        "- ...\n" if len(names) > MAX_NAMES_SHOWN else ""
    )


def check_feature_names(estimator: "Estimator", X: ArrayLike) -> None:
    """Compare the column names of ``X`` with those seen in ``fit``, as scikit-learn does.

    Both named and different (unseen, missing or reordered names): ``ValueError`` ("The
    feature names should match those that were passed during fit.", scikit-learn's words,
    then the names and what to do). Only one side named: a ``UserWarning`` (scikit-learn's
    two warnings), since the columns may still be the right ones.
    """
    fitted = getattr(estimator, "feature_names_in_", None)
    names = _feature_names(X)
    who = type(estimator).__name__
    if fitted is None and names is None:
        return
    if fitted is None:
        warnings.warn(f"X has feature names, but {who} was fitted without feature names",
                      UserWarning, stacklevel=3)
        return
    if names is None:
        warnings.warn(f"X does not have valid feature names, but {who} was fitted with feature "
                      "names", UserWarning, stacklevel=3)
        return
    if len(names) == len(fitted) and (names == fitted).all():
        return
    unseen = [n for n in names if n not in set(fitted)]
    missing = [n for n in fitted if n not in set(names)]
    message = "The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + _listed(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + _listed(missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    message += (f"{who} was fitted on the columns {list(fitted)}; pass a data frame with these "
                f"columns, e.g. X[{who.lower()}.feature_names_in_].")
    raise ValueError(message)


def _input_dtype(X):
    dtype = getattr(X, "dtype", None)
    if dtype is None and hasattr(X, "dtypes"):  # a data frame: the columns' common type
        try:
            dtype = np.result_type(*list(X.dtypes))
        except TypeError:
            return None
    return dtype


def _wrap_fit(method):
    @functools.wraps(method)
    def fit(self, X, *args, **kwargs):
        out = method(self, X, *args, **kwargs)
        _record_input(self, X)
        return out

    return fit


def _wrap_fit_transform(method):
    @functools.wraps(method)
    def fit_transform(self, X, *args, **kwargs):
        Z = method(self, X, *args, **kwargs)
        _record_input(self, X)
        return self._wrap_output(self._match_dtype(Z, X), X)

    return fit_transform


def _wrap_transform(method):
    @functools.wraps(method)
    def transform(self, X, *args, **kwargs):
        if "n_features_in_" in vars(self):
            check_feature_names(self, X)
        return self._wrap_output(self._match_dtype(method(self, X, *args, **kwargs), X), X)

    return transform


_WRAPPERS = {"fit": _wrap_fit, "fit_transform": _wrap_fit_transform, "transform": _wrap_transform}


class Estimator:
    """Base class of mlnotes' estimators: parameters, repr, feature names, output, tags.

    Subclasses store every ``__init__`` argument unchanged as an attribute of the same name
    and do all validation in ``fit`` (scikit-learn's convention, which ``clone`` and
    ``set_params`` rely on).

    Exemptions from scikit-learn's ``check_estimator`` are declared in the class attribute
    ``_expected_failed_checks``, a dict ``{check name: reason}``; each exemption must be one
    that scikit-learn's own counterpart of the method also has, and the reason says why.
    """

    _expected_failed_checks = {}
    # float32 in, float32 out (scikit-learn's ``preserves_dtype``): set by the estimators whose
    # scikit-learn counterpart preserves float32. The computation stays in float64 (see
    # :meth:`_match_dtype`).
    _preserves_float32 = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, wrap in _WRAPPERS.items():
            method = cls.__dict__.get(name)
            if inspect.isfunction(method):
                setattr(cls, name, wrap(method))

    # --- parameters ---------------------------------------------------------------------------
    @classmethod
    def _get_param_names(cls):
        """Names of the ``__init__`` parameters (no ``*args`` / ``**kwargs`` allowed)."""
        init = cls.__init__
        if init is object.__init__:
            return []
        params = list(inspect.signature(init).parameters.values())[1:]
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(
                    f"{cls.__name__}.__init__ must list its parameters explicitly (no *args or "
                    "**kwargs), so that get_params can find them."
                )
        return sorted(p.name for p in params)

    def get_params(self, deep=True):
        """The estimator's parameters, ``{name: value}``, from its ``__init__`` signature.

        With ``deep=True``, parameters that are themselves estimators contribute their own
        parameters as ``"<name>__<param>"``.
        """
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params):
        """Set parameters (``"<name>__<param>"`` reaches into a nested estimator); returns self."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested = {}
        for key, value in params.items():
            name, sep, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {self!r}. Valid parameters are: "
                    f"{sorted(self._get_param_names())!r}."
                )
            if sep:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self):
        """``Name(param=value, ...)`` with the parameters that differ from their defaults."""
        signature = inspect.signature(type(self).__init__).parameters
        shown = []
        for name in self._get_param_names():
            value = getattr(self, name, None)
            default = signature[name].default
            if default is inspect.Parameter.empty or not _same(value, default):
                text = repr(value)
                if isinstance(value, np.ndarray):
                    text = f"<array of shape {value.shape}>"
                shown.append(f"{name}={text}")
        return f"{type(self).__name__}({', '.join(shown)})"

    # --- outputs ------------------------------------------------------------------------------
    @property
    def _n_features_out(self):
        """Number of output coordinates (the embedding dimension)."""
        return self.embedding_.shape[1]

    def get_feature_names_out(self, input_features=None):
        """Names of the output coordinates: the lower-case class name followed by 0, 1, ...

        Parameters
        ----------
        input_features : array-like of str, optional
            Only checked against the features seen in ``fit`` (the output names do not
            depend on them).

        Returns
        -------
        ndarray of str objects, shape (n_components,)
        """
        check_is_fitted(self, "n_features_in_")
        if input_features is not None:
            input_features = np.asarray(input_features, dtype=object)
            seen = getattr(self, "feature_names_in_", None)
            if seen is not None and not np.array_equal(input_features, seen):
                raise ValueError(
                    "input_features is not equal to feature_names_in_ (the column names seen "
                    "in fit); pass the same names, or None."
                )
            if len(input_features) != self.n_features_in_:
                raise ValueError(
                    f"input_features has {len(input_features)} names but the model was fitted "
                    f"on {self.n_features_in_} features; pass one name per feature, or None."
                )
        prefix = type(self).__name__.lower()
        return np.asarray([f"{prefix}{i}" for i in range(self._n_features_out)], dtype=object)

    def set_output(self, *, transform=None):
        """Choose the container ``transform`` and ``fit_transform`` return.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"} or None
            ``"default"``: numpy arrays; ``"pandas"`` / ``"polars"``: a data frame whose
            columns are :meth:`get_feature_names_out` (and, for pandas, whose index is the
            input's); None leaves the setting unchanged.

        Returns
        -------
        self
        """
        if transform is None:
            return self
        if transform not in OUTPUT_CONTAINERS:
            raise ValueError(
                f"transform must be one of {', '.join(map(repr, OUTPUT_CONTAINERS))} or None, "
                f"got {transform!r}."
            )
        self._sklearn_output_config = {"transform": transform}
        return self

    def _output_container(self):
        config = getattr(self, "_sklearn_output_config", {}).get("transform")
        if config is not None:
            return config
        if "sklearn" in sys.modules:  # the global setting exists only once sklearn is imported
            return sys.modules["sklearn"].get_config().get("transform_output", "default")
        return "default"

    def _match_dtype(self, Z, X):
        """``Z`` as float32 when the input ``X`` was float32 and the estimator preserves it.

        Only the returned coordinates change type: the computation (and the fitted
        attributes) stay in float64, as eigenproblems of covariance or Gram matrices lose
        about half their digits in single precision.
        """
        if (self._preserves_float32 and isinstance(Z, np.ndarray) and Z.dtype == np.float64
                and _input_dtype(X) == np.float32):
            return Z.astype(np.float32)
        return Z

    def _wrap_output(self, Z, X):
        container = self._output_container()
        if container == "default" or not isinstance(Z, np.ndarray) or Z.ndim != 2:
            return Z
        columns = list(self.get_feature_names_out())
        if container == "pandas":
            pd = _import_frame_library("pandas")
            index = X.index if isinstance(X, pd.DataFrame) else None
            return pd.DataFrame(Z, index=index, columns=columns, copy=False)
        pl = _import_frame_library("polars")
        return pl.DataFrame(Z, schema=columns, orient="row")

    # --- scikit-learn tags --------------------------------------------------------------------
    def _tags(self):
        """Overrides of scikit-learn's default transformer tags, as ``{"group.field": value}``.

        E.g. ``{"input_tags.pairwise": True}`` for an estimator fitted on a precomputed matrix.
        """
        return {}

    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        tags = Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=TransformerTags(),
            input_tags=InputTags(),
        )
        if self._preserves_float32:
            tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        for key, value in self._tags().items():
            group, _, field = key.rpartition(".")
            setattr(getattr(tags, group) if group else tags, field, value)
        return tags


def expected_failed_checks(estimator: "Estimator") -> dict[str, str]:
    """The scikit-learn checks ``estimator`` is declared exempt from: ``{check: reason}``.

    For ``sklearn.utils.estimator_checks.parametrize_with_checks(...,
    expected_failed_checks=expected_failed_checks)``.
    """
    return dict(getattr(estimator, "_expected_failed_checks", {}))


def _import_frame_library(name):
    if name in OPTIONAL_EXTRAS:  # pandas: the message names the extra that installs it
        return import_optional(name, purpose=f'set_output(transform="{name}")')
    try:
        return __import__(name)
    except ImportError:
        raise ImportError(
            f'set_output(transform="{name}") needs {name}, which is not installed; install it '
            '(pip install ' + name + ') or use set_output(transform="default").'
        ) from None
