"""Question on autoencoders: one gradient-descent step of a one-hidden-layer tanh autoencoder."""

import numpy as np

from ...autoencoder import loss_gradient as _loss_gradient
from ..compare import tol_direct
from ..core import Mistake, Property, Question
from ._common import compare_close, register

ACTIVATIONS = ("tanh", "identity")


def _inputs(rng):
    N, D, H = int(rng.integers(10, 30)), int(rng.integers(3, 6)), int(rng.integers(2, 5))
    X = rng.normal(size=(N, D))
    return {"X": X,
            "W1": rng.normal(size=(D, H)) / np.sqrt(D), "b1": 0.1 * rng.normal(size=H),
            "W2": rng.normal(size=(H, D)) / np.sqrt(H), "b2": 0.1 * rng.normal(size=D),
            "learning_rate": float(rng.uniform(0.01, 0.1))}


def _reference(X, W1, b1, W2, b2, learning_rate):
    loss, grads = _loss_gradient([(W1, b1), (W2, b2)], X, ACTIVATIONS)
    (dW1, db1), (dW2, db2) = grads
    return (loss, W1 - learning_rate * dW1, b1 - learning_rate * db1,
            W2 - learning_rate * dW2, b2 - learning_rate * db2)


def _mutant(X, W1, b1, W2, b2, learning_rate, *, scale=1.0, loss_scale=1.0, sign=1.0,
            derivative="tanh", biases=True):
    """Back-propagation written out, with one deliberate slip."""
    N = len(X)
    A1 = np.tanh(X @ W1 + b1)                # hidden layer
    R = A1 @ W2 + b2 - X                     # reconstruction minus data
    loss = loss_scale * (R**2).sum() / (2 * N)
    delta2 = scale * R / N                   # dLoss / d(output)
    dW2, db2 = A1.T @ delta2, delta2.sum(0)
    slope = {"tanh": 1 - A1**2, "one-minus-a": 1 - A1, "none": 1.0}[derivative]
    delta1 = (delta2 @ W2.T) * slope
    dW1, db1 = X.T @ delta1, delta1.sum(0)
    step = sign * learning_rate
    keep = 1.0 if biases else 0.0
    return (loss, W1 - step * dW1, b1 - keep * step * db1, W2 - step * dW2,
            b2 - keep * step * db2)


def _decreases(answer, inputs, tol):
    X = inputs["X"]
    before, _ = _loss_gradient([(inputs["W1"], inputs["b1"]), (inputs["W2"], inputs["b2"])], X,
                               ACTIVATIONS)
    try:
        after, _ = _loss_gradient([(answer[1], answer[2]), (answer[3], answer[4])], X,
                                  ACTIVATIONS)
    except ValueError:
        return False, "the new parameters do not fit together"
    return after < before, f"the loss went from {before:.6g} to {after:.6g}"


register(Question(
    name="autoencoder.step",
    function="autoencoder_step",
    signature="def autoencoder_step(X, W1, b1, W2, b2, learning_rate):",
    docstring=r"""One gradient-descent step of a one-hidden-layer autoencoder.

Encoder a = tanh(X W1 + b1), decoder X_hat = a W2 + b2 (one sample per row), loss
(1 / 2N) sum_n ||x_n - x_hat_n||^2. X : (N, p); W1 : (p, h); b1 : (h,); W2 : (h, p);
b2 : (p,); learning_rate : float.
Returns (loss, W1_new, b1_new, W2_new, b2_new): the loss BEFORE the step and the parameters
after one step theta <- theta - learning_rate * dloss/dtheta (back-propagation).""",
    make_inputs=_inputs,
    reference=_reference,
    compare=compare_close,
    tolerance=lambda inputs, expected: tol_direct(len(inputs["X"])),
    outputs=("loss", "W1_new", "b1_new", "W2_new", "b2_new"),
    properties=(Property("the step lowers the loss", _decreases),),
    mistakes=(
        Mistake("no 1/2", lambda **kw: _mutant(**kw, scale=2.0, loss_scale=2.0),
                "the step is twice too large and so is the loss: the loss is "
                "(1/2N) sum ||x - x_hat||^2, whose gradient has no factor 2."),
        Mistake("no 1/N", lambda **kw: _mutant(**kw, scale=kw["X"].shape[0],
                                               loss_scale=kw["X"].shape[0]),
                "summed over samples: the loss (and so the gradient) is a mean, divide by N."),
        Mistake("ascent", lambda **kw: _mutant(**kw, sign=-1.0),
                "the step goes uphill: subtract learning_rate x gradient."),
        Mistake("tanh'", lambda **kw: _mutant(**kw, derivative="one-minus-a"),
                "wrong derivative of tanh: d tanh(u)/du = 1 - tanh(u)^2 = 1 - a^2."),
        Mistake("no tanh'", lambda **kw: _mutant(**kw, derivative="none"),
                "the derivative of tanh is missing when back-propagating into the hidden "
                "layer: multiply by 1 - a^2."),
        Mistake("biases", lambda **kw: _mutant(**kw, biases=False),
                "the biases were not updated: their gradients are the column sums of the "
                "layer's delta."),
    ),
))
