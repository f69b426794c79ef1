"""The NumPy floors of ``benchmarks/jobs.py``: the mlp and cnn jobs' arithmetic written by hand in NumPy.

Each floor does exactly what the ember model does (same layers, same loss, same Adam update), with the NumPy a
practitioner would write: GEMMs through ``@``, im2col as one strided copy per kernel tap (Chainer's way), col2im as
one ``+=`` per kernel tap, 2x2 max-pool as the maximum of four strided taps. ``tests/core/test_bench_floors.py``
checks their gradients against ember's, so the floor cannot drift from the job it stands for.

Parameters are kept in PyTorch's layouts (``Linear.weight`` is ``(out, in)``, ``Conv2d.weight`` is
``(F, C, kh, kw)``), so they can be copied from an ember model.
"""
from __future__ import annotations

import numpy as np

__all__ = ["MlpFloor", "LeNetFloor", "Adam"]


class Adam:
    """Adam (PyTorch's defaults, no weight decay) updating a list of arrays in place."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.b1, self.b2, self.eps = params, lr, betas[0], betas[1], eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads):
        """One update with ``grads`` (same order as the parameters)."""
        self.t += 1
        c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * (g * g)
            denom = np.sqrt(v / c2)
            denom += self.eps
            p -= (self.lr / c1) * m / denom


def _cross_entropy(logits, target):
    """Mean cross-entropy and its gradient with respect to the logits."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    n = logits.shape[0]
    loss = float(np.log(s[:, 0]).mean() - z[np.arange(n), target].mean())
    g = e / s
    g[np.arange(n), target] -= 1
    g /= n
    return loss, g


class MlpFloor:
    """784-256-128-10 ReLU MLP with cross-entropy, as NumPy arrays."""

    def __init__(self, params):
        self.params = [np.array(p, dtype=np.float32) for p in params]  # w1, b1, w2, b2, w3, b3

    def grads(self, x, target):
        """Loss and gradients (same order as ``params``) for one batch."""
        w1, b1, w2, b2, w3, b3 = self.params
        z1 = x @ w1.T
        z1 += b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2.T
        z2 += b2
        h2 = np.maximum(z2, 0)
        out = h2 @ w3.T
        out += b3
        loss, g = _cross_entropy(out, target)
        gw3, gb3 = g.T @ h2, g.sum(0)
        g = g @ w3
        g *= z2 > 0
        gw2, gb2 = g.T @ h1, g.sum(0)
        g = g @ w2
        g *= z1 > 0
        gw1, gb1 = g.T @ x, g.sum(0)
        return loss, [gw1, gb1, gw2, gb2, gw3, gb3]


def _conv_forward(x, w, b, pad):
    """im2col by kernel taps (one strided copy per tap, Chainer's way), then one GEMM; returns the output and the
    columns kept for backward."""
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    f, _, k, _ = w.shape
    oh, ow = h - k + 1, wd - k + 1
    cols = np.empty((c, k, k, n, oh, ow), dtype=x.dtype)
    xt = x.transpose(1, 0, 2, 3)
    for i in range(k):
        for j in range(k):
            cols[:, i, j] = xt[:, :, i:i + oh, j:j + ow]
    cols = cols.reshape(c * k * k, n * oh * ow)
    y = w.reshape(f, -1) @ cols
    y += b[:, None]
    return np.ascontiguousarray(y.reshape(f, n, oh, ow).transpose(1, 0, 2, 3)), cols


def _conv_backward(gy, cols, w, x_shape, pad, need_input=True):
    """Weight, bias and input gradients of :func:`_conv_forward` (col2im: one ``+=`` per kernel tap)."""
    n, c, h, wd = x_shape
    f, _, k, _ = w.shape
    oh, ow = gy.shape[2:]
    g2 = np.ascontiguousarray(gy.transpose(1, 0, 2, 3)).reshape(f, -1)
    gw = (g2 @ cols.T).reshape(w.shape)
    gb = g2.sum(1)
    if not need_input:
        return gw, gb, None
    dcols = (w.reshape(f, -1).T @ g2).reshape(c, k, k, n, oh, ow)
    dx = np.zeros((c, n, h + 2 * pad, wd + 2 * pad), dtype=gy.dtype)
    for i in range(k):
        for j in range(k):
            dx[:, :, i:i + oh, j:j + ow] += dcols[:, i, j]
    dx = dx.transpose(1, 0, 2, 3)
    if pad:
        dx = dx[:, :, pad:-pad, pad:-pad]
    return gw, gb, np.ascontiguousarray(dx)


def _pool_forward(x):
    """2x2 max-pool, stride 2: the maximum of the four strided taps."""
    return np.maximum(np.maximum(x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2]),
                      np.maximum(x[:, :, 1::2, 0::2], x[:, :, 1::2, 1::2]))


def _pool_backward(gy, x, y):
    """Each tap equal to its window's maximum gets the gradient (ties only occur at ReLU's zeros, whose gradient
    the ReLU backward then drops)."""
    gx = np.empty_like(x)
    for i in (0, 1):
        for j in (0, 1):
            np.multiply(gy, x[:, :, i::2, j::2] == y, out=gx[:, :, i::2, j::2])
    return gx


class LeNetFloor:
    """LeNet-5 on 28x28 (conv5 pad 2 - ReLU - pool - conv5 - ReLU - pool - 120 - 84 - 10), as NumPy arrays."""

    def __init__(self, params):
        self.params = [np.array(p, dtype=np.float32) for p in params]  # c1w c1b c2w c2b f1w f1b f2w f2b f3w f3b

    def grads(self, x, target):
        """Loss and gradients (same order as ``params``) for one batch."""
        c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b, f3w, f3b = self.params
        z1, cols1 = _conv_forward(x, c1w, c1b, 2)
        a1 = np.maximum(z1, 0)
        p1 = _pool_forward(a1)
        z2, cols2 = _conv_forward(p1, c2w, c2b, 0)
        a2 = np.maximum(z2, 0)
        p2 = _pool_forward(a2)
        flat = p2.reshape(p2.shape[0], -1)
        z3 = flat @ f1w.T
        z3 += f1b
        h3 = np.maximum(z3, 0)
        z4 = h3 @ f2w.T
        z4 += f2b
        h4 = np.maximum(z4, 0)
        out = h4 @ f3w.T
        out += f3b
        loss, g = _cross_entropy(out, target)
        gf3w, gf3b = g.T @ h4, g.sum(0)
        g = g @ f3w
        g *= z4 > 0
        gf2w, gf2b = g.T @ h3, g.sum(0)
        g = g @ f2w
        g *= z3 > 0
        gf1w, gf1b = g.T @ flat, g.sum(0)
        g = (g @ f1w).reshape(p2.shape)
        g = _pool_backward(g, a2, p2)
        g *= z2 > 0
        gc2w, gc2b, g = _conv_backward(g, cols2, c2w, p1.shape, 0)
        g = _pool_backward(g, a1, p1)
        g *= z1 > 0
        gc1w, gc1b, _ = _conv_backward(g, cols1, c1w, x.shape, 2, need_input=False)
        return loss, [gc1w, gc1b, gc2w, gc2b, gf1w, gf1b, gf2w, gf2b, gf3w, gf3b]
