"""The fused recurrence of ``nn.RNN``, ``nn.LSTM`` and ``nn.GRU``: array-level time-loop kernels and their node.

:func:`_recurrence` runs one layer in one direction as a single autograd op: a forward kernel loops over time in
plain NumPy on preallocated buffers and saves the gate activations, and :class:`RecurrenceBackward0` runs the
matching hand-written backpropagation-through-time kernel. Packed (variable-length) batches compute only the active
rows of each step. Under ``create_graph=True`` the backward instead recomputes the loop from differentiable ember
ops (:func:`_composed_recurrence`) so that higher-order gradients are right.

Private to the recurrent layers in :mod:`ember.core.nn.modules.rnn`: nothing here is public API.
"""
from __future__ import annotations

from ... import threads
from ...autograd.graph import Node
from ...ops._base import GRAD_ENABLED, record_multi, wrap
from ...ops._bounds import clamped
from ._sums import sum_leading

__all__ = []

# ------------------------------------------------------------------------------------------ recurrence kernels
# One fused op runs the whole time loop of one layer in one direction. Its input ``xg`` is the input projection
# ``x @ W_ih^T + b_ih`` for every time step (for LSTM with b_hh folded in and scaled, see below), computed beforehand
# with a single matmul. The loop itself does one small matmul (``h @ W_hh^T``) and a few in-place elementwise NumPy
# calls per step, with no allocation, and saves the gate activations; the backward loop does the same, and the
# weight gradients are large matmuls after the loop. With several threads, blocks of batch rows run the loop in
# parallel (:func:`_by_rows`).

def _sigmoid_halved_(a, out, xp):
    """``out = sigmoid(2 a)`` for an ``a`` already halved: ``sigmoid(x) = (tanh(x / 2) + 1) / 2``, which cannot
    overflow. One contiguous pass each, so it is as fast as the textbook ``1 / (1 + exp(-x))``."""
    xp.tanh(a, out=out)
    out *= 0.5
    out += 0.5
    return out


def _steps(T: int, reverse: bool):
    return range(T - 1, -1, -1) if reverse else range(T)


def _shifted(seq, first, reverse, xp):
    """The state entering each step: ``first`` then ``seq`` shifted by one step in the direction of travel."""
    out = xp.empty_like(seq)
    if reverse:
        out[-1] = first
        out[:-1] = seq[1:]
    else:
        out[0] = first
        out[1:] = seq[:-1]
    return out


def _weight_grads(dpre, ys, h0, reverse, b_hh, xp):
    """``dW_hh`` and ``db_hh`` from the gate pre-activation gradients of all steps, after the loop: step t's
    previous state is ``ys`` shifted by one step (``h0`` at the first step), so one big GEMM over the other steps
    plus one small GEMM for the first, with no shifted copy of ``ys``."""
    T, B, G = dpre.shape
    first = T - 1 if reverse else 0
    if T > 1:
        d_rest, y_rest = (dpre[:-1], ys[1:]) if reverse else (dpre[1:], ys[:-1])
        dw = threads.matmul(xp, d_rest.reshape((T - 1) * B, G).T, y_rest.reshape((T - 1) * B, ys.shape[-1]))
        dw += dpre[first].T @ h0
    else:
        dw = dpre[first].T @ h0
    db = sum_leading(xp, dpre.reshape(T * B, G), 1) if b_hh is not None else None
    return dw, db


# Packed (variable-length) batches: ``bs[t]`` sequences, sorted by decreasing length, are active at step t, so the
# active rows are always a prefix ``[:n]``. Only they are computed; the other rows carry their state unchanged
# (a finished sequence keeps its final state, a reverse-direction sequence that has not started keeps h0), which
# makes ``ys`` shifted by one step the correct previous state for backward, and the last row of ``ys`` the h_n.

def _active(bs, t, B):
    return B if bs is None else int(bs[t])


def _local(bs, lo, hi):
    """The active-row counts of batch rows ``[lo, hi)``: a packed batch's active rows are a prefix."""
    return None if bs is None else (bs.clip(lo, hi) - lo)


# Batch rows are independent in the time loop (they only meet in the weight gradients, summed after it), so with
# several threads each takes a block of rows through the whole loop. NumPy releases the GIL inside its calls; blocks
# of at least _ROW_GRAIN rows (multiples of 8) keep the per-step GEMM efficient, smaller batches run on one thread.
# Measured on the lstm job's layers (B=64, H=128, 2 threads, lightly loaded machine): forward 1.2x, backward 1.45x
# faster; the per-step Python work holds the GIL, which caps the gain. On a loaded machine it can lose (a thread
# that lost its core is slow to take the GIL back). A block is a generator that runs one time step per ``next()``
# under the block's lock, and a thread that has finished its own block goes on to advance the others step by step,
# so a worker preempted inside its block does not hold the loop up; a block's steps still run in order, so the
# results do not depend on which thread ran them.
_ROW_GRAIN = 16


def _by_rows(B, bs, block):
    """Run ``block(lo, hi)`` (a generator yielding once per time step) over blocks of batch rows, on ember's
    threads when the batch is large enough."""
    parts = threads.chunks(B, _ROW_GRAIN, align=8)
    if len(parts) == 1:
        for _ in block(0, B):
            pass
        return
    import threading
    gens = [block(lo, hi) for lo, hi in parts]
    locks = [threading.Lock() for _ in parts]
    done = [False] * len(parts)

    def drive(first):
        """Advance every block to its end, starting with block ``first``."""
        for k in [*range(first, len(parts)), *range(first)]:
            while not done[k]:
                with locks[k]:
                    if not done[k]:
                        done[k] = next(gens[k], StopIteration) is StopIteration
    threads.parallel_for(len(parts), lambda lo, hi: [drive(k) for k in range(lo, hi)], grain=1)


def _carry(dh_new, dht, n, B):
    """The gradient entering the previous step: computed for the active rows, passed through for the others."""
    if n == B:
        return dh_new
    out = dht.copy()
    out[:n] = dh_new
    return out


# LSTM: gates i, f, g, o. One tanh over the whole (B, 4H) gate block per step: the op's input ``xg`` is the
# *scaled* pre-activation ``s * (x W_ih^T + b_ih + b_hh)`` with ``s = [1/2, 1/2, 1, 1/2]`` per gate (the caller
# folds both biases and the scale into its input projection, :func:`lstm_input_scale`), and W_hh is scaled the
# same way, so the block holds tanh(a/2) for i, f, o (sigmoid(a) = (tanh(a/2) + 1) / 2) and tanh(a) for g. Strided
# (B, H) gate slices cost ~2x a contiguous call, so the whole-block calls come first.
# Saved: U = the tanh block, A = (U + 1) / 2 (the sigmoids; its g part unused), both gate-major (T, 4, B, H), c and
# tanh(c) per step, and the unprojected h with a projection. Inactive rows of a packed batch are zero in U, A, tanh(c).

def lstm_input_scale(G, dtype, xp):
    """The per-column scale ``[1/2, 1/2, 1, 1/2]`` (per gate i, f, g, o) of the LSTM op's input (see above)."""
    s = xp.full((G,), 0.5, dtype=dtype)
    s[G // 2:3 * G // 4] = 1
    return s


def _forward_lstm(xg, h, c, w_hh, b_hh, w_hr, reverse, xp, bs=None):
    T, B, G = xg.shape
    H = G // 4
    dtype = xg.dtype
    s = lstm_input_scale(G, dtype, xp)
    if b_hh is not None:  # callers normally fold it into xg
        xg = xg + b_hh * s
    ws = xp.empty((w_hh.shape[1], G), dtype=dtype)
    xp.multiply(w_hh.T, s, out=ws)  # C-contiguous: a transposed view runs ~25% slower in the per-step GEMM
    U = xp.empty((T, 4, B, H), dtype=dtype)
    A = xp.empty((T, 4, B, H), dtype=dtype)
    cs = xp.empty((T, B, H), dtype=dtype)
    tc = xp.empty((T, B, H), dtype=dtype)
    ys = xp.empty((T, B, h.shape[1]), dtype=dtype)
    h_raw = xp.empty((T, B, H), dtype=dtype) if w_hr is not None else None
    w_hr_t = w_hr.T.copy() if w_hr is not None else None

    def rows(lo, hi):
        return _lstm_forward_rows(xg[:, lo:hi], U[:, :, lo:hi], A[:, :, lo:hi], cs[:, lo:hi], tc[:, lo:hi],
                                  ys[:, lo:hi], None if h_raw is None else h_raw[:, lo:hi], h[lo:hi], c[lo:hi], ws,
                                  w_hr_t, _steps(T, reverse), _local(bs, lo, hi), xp)
    _by_rows(B, bs, rows)
    if T == 0:  # an empty sequence leaves the state as it was
        return ys, h.copy(), c.copy(), (U, A, cs, tc, h_raw)
    last = 0 if reverse else T - 1
    return ys, ys[last].copy(), cs[last].copy(), (U, A, cs, tc, h_raw)


def _lstm_forward_rows(xg, U, A, cs, tc, ys, h_raw, h, c, ws, w_hr_t, steps, bs, xp):
    """The forward time loop over one block of batch rows (every argument is that block's view), as a generator
    that yields after each step (see :func:`_by_rows`). The GEMM and the input add run on a row-major (B, 4H)
    scratch block that stays in cache; the tanh writes it gate-major into ``U[t]`` (4, B, H), so every later
    per-step call runs on contiguous (B, H) parts."""
    B = xg.shape[1]
    H = cs.shape[2]
    tmp = xp.empty((B, H), dtype=xg.dtype)
    pre = xp.empty((B, 4 * H), dtype=xg.dtype)
    multiply, add, tanh, matmul = xp.multiply, xp.add, xp.tanh, xp.matmul
    for t in steps:
        n = B if bs is None else int(bs[t])
        u, a, cn, th, p = U[t, :, :n], A[t, :, :n], cs[t, :n], tc[t, :n], pre[:n]
        matmul(h[:n], ws, out=p)
        add(p, xg[t, :n], out=p)
        tanh(p.reshape(n, 4, H).transpose(1, 0, 2), out=u)
        multiply(u, 0.5, out=a)
        add(a, 0.5, out=a)
        multiply(a[1], c[:n], out=cn)  # c' = f c + i g
        multiply(a[0], u[2], out=tmp[:n])
        add(cn, tmp[:n], out=cn)
        tanh(cn, out=th)
        if w_hr_t is None:
            multiply(a[3], th, out=ys[t, :n])
        else:
            multiply(a[3], th, out=h_raw[t, :n])
            matmul(h_raw[t, :n], w_hr_t, out=ys[t, :n])
        if n < B:  # inactive rows keep their state
            U[t, :, n:] = 0
            A[t, :, n:] = 0
            tc[t, n:] = 0
            cs[t, n:] = c[n:]
            ys[t, n:] = h[n:]
            if h_raw is not None:
                h_raw[t, n:] = 0
        h, c = ys[t], cs[t]
        yield


def _backward_lstm(cache, ys, h0, c0, dys, dh, dc, w_hh, b_hh, w_hr, reverse, xp, bs=None):
    """Backward of :func:`_forward_lstm`. The loop carries ``2 dh`` and ``2 dc`` (with W_hh scaled by
    ``2 s = [1, 1, 2, 1]``): then the gradient of the scaled input needs no per-gate factors in the loop."""
    U, A, cs, tc, h_raw = cache
    T, _, B, H = U.shape
    G = 4 * H
    s = lstm_input_scale(G, U.dtype, xp)
    w2 = w_hh * (2 * s)[:, None]
    dh = dh * 2  # fresh arrays: the running gradients are updated in place
    dc = dc * 2
    dz = xp.empty((T, B, G), dtype=U.dtype)
    dh_proj = xp.zeros_like(ys) if w_hr is not None else None

    def rows(lo, hi):
        return _lstm_backward_rows(U[:, :, lo:hi], A[:, :, lo:hi], cs[:, lo:hi], tc[:, lo:hi], c0[lo:hi],
                                   None if dys is None else dys[:, lo:hi], dh[lo:hi], dc[lo:hi], dz[:, lo:hi], w2,
                                   w_hr, None if dh_proj is None else dh_proj[:, lo:hi], reverse,
                                   _local(bs, lo, hi), xp)
    _by_rows(B, bs, rows)
    dw_hh, db_hh = _weight_grads(dz, ys, h0, reverse, b_hh, xp)
    dw_hh *= s[:, None]  # dL/dW_hh from dL/d(s W_hh)
    if db_hh is not None:
        db_hh *= s
    dh *= 0.5
    dc *= 0.5
    grads = {"xg": dz, "h0": dh, "c0": dc, "w_hh": dw_hh, "b_hh": db_hh}
    if w_hr is not None:
        dw_hr = threads.matmul(xp, dh_proj.reshape(T * B, dh_proj.shape[-1]).T, h_raw.reshape(T * B, H))
        dw_hr *= 0.5
        grads["w_hr"] = dw_hr
    return grads


def _lstm_backward_rows(U, A, cs, tc, c0, dys, dh, dc, dz, w2, w_hr, dh_proj, reverse, bs, xp):
    """The backward time loop over one block of batch rows (a generator yielding after each step), on ``dh`` and
    ``dc`` doubled. Per step:
    ``dc += dh * o (1 - tanh(c)^2)``, then ``dz = [dc, dc, dc, dh] * K`` where ``K`` (gate-major, computed for all
    steps first) holds each gate's local derivative, ``dc *= f`` and ``dh = dz (2 s W_hh)``."""
    T, _, B, H = U.shape
    multiply, add, matmul = xp.multiply, xp.add, xp.matmul
    K = xp.subtract(1, A)
    K *= A  # sigmoid' = s (1 - s) for i, f, o; for g, s(1 - s) of s = (1 + g) / 2 is (1 - g^2) / 4
    K[:, 0] *= U[:, 2]  # i: g s'
    Kf = K[:, 1]  # f: c_prev s'
    if reverse:
        Kf[:-1] *= cs[1:]
        Kf[-1] *= c0
    else:
        Kf[1:] *= cs[:-1]
        Kf[0] *= c0
    Kg = K[:, 2]  # g: i (1 - g^2) / 2 = (1 - g^2) / 4 * (1 + u_i)
    Kg += Kg * U[:, 0]
    K[:, 3] *= tc  # o: tanh(c) s'
    Kc = xp.multiply(tc, tc)  # dc from dh: o (1 - tanh(c)^2)
    xp.subtract(1, Kc, out=Kc)
    Kc *= A[:, 3]
    if dys is not None:
        dys = dys * 2
    tmp = xp.empty((B, H), dtype=U.dtype)
    for t in _steps(T, not reverse):
        n = B if bs is None else int(bs[t])
        if dys is not None:
            add(dh, dys[t], out=dh)
        dhr = dh[:n]
        if w_hr is not None:
            dh_proj[t, :n] = dhr
            dhr = dhr @ w_hr
        dcn = dc[:n]
        multiply(dhr, Kc[t, :n], out=tmp[:n])
        add(dcn, tmp[:n], out=dcn)
        d = dz[t, :n]
        dg = d.reshape(n, 4, H).transpose(1, 0, 2)  # gate-major view of the (n, 4H) rows the GEMM reads
        multiply(dcn, K[t, :3, :n], out=dg[:3])
        multiply(dhr, K[t, 3, :n], out=dg[3])
        multiply(dcn, A[t, 1, :n], out=dcn)
        if n < B:  # inactive rows pass dh and dc through unchanged
            dz[t, n:] = 0
        matmul(d, w2, out=dh[:n])
        yield


# GRU: gates r, z, n.  Saved: activated gates (T, B, 3H) and W_hn h + b_hn (T, B, H), the part r multiplies.
def _forward_gru(xg, h, c, w_hh, b_hh, w_hr, reverse, xp, bs=None):
    T, B, G = xg.shape
    H = G // 3
    gates = xp.empty((T, B, G), dtype=xg.dtype)
    hn = xp.empty((T, B, H), dtype=xg.dtype)
    ys = xp.empty((T, B, H), dtype=xg.dtype)
    w_hh_t = w_hh.T
    for t in _steps(T, reverse):
        n = _active(bs, t, B)
        hp = h[:n]
        hg = hp @ w_hh_t
        if b_hh is not None:
            hg += b_hh
        g = gates[t, :n]
        rz = xg[t, :n, :2 * H] + hg[:, :2 * H]
        rz *= 0.5
        _sigmoid_halved_(rz, rz, xp)
        g[:, :2 * H] = rz
        hn[t, :n] = hg[:, 2 * H:]
        new = rz[:, :H] * hg[:, 2 * H:]
        new += xg[t, :n, 2 * H:]
        xp.tanh(new, out=new)
        g[:, 2 * H:] = new
        h_new = ys[t]
        xp.subtract(hp, new, out=h_new[:n])  # h' = n + z * (h - n)
        h_new[:n] *= rz[:, H:]
        h_new[:n] += new
        if n < B:
            gates[t, n:] = 0
            hn[t, n:] = 0
            h_new[n:] = h[n:]
        h = h_new
    return ys, h.copy(), None, (gates, hn)


def _backward_gru(cache, ys, h0, c0, dys, dh, dc, w_hh, b_hh, w_hr, reverse, xp, bs=None):
    gates, hn = cache
    T, B, G = gates.shape
    H = G // 3
    r, z, n_gate = gates[..., :H], gates[..., H:2 * H], gates[..., 2 * H:]
    h_prev = _shifted(ys, h0, reverse, xp)
    coef_n = (1 - z) * (1 - n_gate * n_gate)  # dn_pre = dh * coef_n
    coef_z = (h_prev - n_gate) * (z * (1 - z))  # dz_pre = dh * coef_z
    coef_r = hn * (r * (1 - r))  # dr_pre = dn_pre * coef_r
    dxg = xp.empty((T, B, G), dtype=gates.dtype)
    dhg = xp.empty((T, B, G), dtype=gates.dtype)
    for t in _steps(T, not reverse):
        n = _active(bs, t, B)
        dht = dh if dys is None else dh + dys[t]
        dha = dht[:n]
        dx, dhh = dxg[t], dhg[t]
        dn_pre = dx[:n, 2 * H:]
        xp.multiply(dha, coef_n[t, :n], out=dn_pre)
        xp.multiply(dn_pre, coef_r[t, :n], out=dhh[:n, :H])
        xp.multiply(dha, coef_z[t, :n], out=dhh[:n, H:2 * H])
        xp.multiply(dn_pre, r[t, :n], out=dhh[:n, 2 * H:])
        if n < B:
            dx[n:] = 0
            dhh[n:] = 0
        dh_new = dha * z[t, :n]
        dh_new += dhh[:n] @ w_hh
        dh = _carry(dh_new, dht, n, B)
    dxg[..., :2 * H] = dhg[..., :2 * H]  # r and z see the same gradient from both projections
    dw_hh, db_hh = _weight_grads(dhg, ys, h0, reverse, b_hh, xp)
    return {"xg": dxg, "h0": dh, "w_hh": dw_hh, "b_hh": db_hh}


# Elman RNN: the outputs are the activations, nothing else is saved.
def _forward_rnn(xg, h, c, w_hh, b_hh, w_hr, reverse, xp, bs=None, relu=False):
    T, B, _ = xg.shape
    ys = xg + b_hh if b_hh is not None else xg.copy()  # pre-activations, activated in place
    w_hh_t = w_hh.T
    for t in _steps(T, reverse):
        n = _active(bs, t, B)
        h_new = ys[t]
        a = h_new[:n]
        a += h[:n] @ w_hh_t
        if relu:
            clamped(a, 0, out=a)
        else:
            xp.tanh(a, out=a)
        if n < B:
            h_new[n:] = h[n:]
        h = h_new
    return ys, h.copy(), None, ()


def _backward_rnn(cache, ys, h0, c0, dys, dh, dc, w_hh, b_hh, w_hr, reverse, xp, bs=None, relu=False):
    T, B, _ = ys.shape
    dact = (ys > 0).astype(ys.dtype) if relu else 1 - ys * ys
    dpre = xp.empty_like(ys)
    for t in _steps(T, not reverse):
        n = _active(bs, t, B)
        dht = dh if dys is None else dh + dys[t]
        d = dpre[t]
        xp.multiply(dht[:n], dact[t, :n], out=d[:n])
        if n < B:
            d[n:] = 0
        dh = _carry(d[:n] @ w_hh, dht, n, B)
    dw_hh, db_hh = _weight_grads(dpre, ys, h0, reverse, b_hh, xp)
    return {"xg": dpre, "h0": dh, "w_hh": dw_hh, "b_hh": db_hh}


def _forward_kernel(mode, *args, bs=None):
    if mode == "LSTM":
        return _forward_lstm(*args, bs=bs)
    if mode == "GRU":
        return _forward_gru(*args, bs=bs)
    return _forward_rnn(*args, bs=bs, relu=(mode == "RNN_RELU"))


def _backward_kernel(mode, *args, bs=None):
    if mode == "LSTM":
        return _backward_lstm(*args, bs=bs)
    if mode == "GRU":
        return _backward_gru(*args, bs=bs)
    return _backward_rnn(*args, bs=bs, relu=(mode == "RNN_RELU"))


class RecurrenceBackward0(Node):
    """Backward of one layer's fused time loop: inputs ``(xg, h0, c0, w_hh, b_hh, w_hr)``, outputs
    ``(output, h_n, c_n)``. Without ``create_graph`` it runs the NumPy backpropagation-through-time loop; with it,
    the loop is recomputed from differentiable ember ops and differentiated, so higher-order gradients are right."""

    __slots__ = ()
    n_outputs = 3

    def apply(self, d_out, d_hn=None, d_cn=None):
        inputs = self.saved_tensors
        mode, reverse, cache, bs = self._ctx
        if GRAD_ENABLED[0]:
            return _composed_backward(mode, reverse, bs, inputs, (d_out, d_hn, d_cn), self.next_functions)
        ys = self.saved_output()._data  # checks that the output was not modified in place
        xg, h0, c0, w_hh, b_hh, w_hr = inputs
        xp = xg._xp
        dtype = xg._data.dtype
        dh = d_hn._data if d_hn is not None else xp.zeros(h0._data.shape, dtype=dtype)
        dc = None
        if mode == "LSTM":
            dc = d_cn._data if d_cn is not None else xp.zeros(c0._data.shape, dtype=dtype)
        grads = _backward_kernel(mode, cache, ys, h0._data, None if c0 is None else c0._data,
                                 None if d_out is None else d_out._data, dh, dc, w_hh._data,
                                 None if b_hh is None else b_hh._data, None if w_hr is None else w_hr._data,
                                 reverse, xp, bs=bs)
        return tuple(None if e is None or grads.get(k) is None else wrap(grads[k])
                     for k, e in zip(("xg", "h0", "c0", "w_hh", "b_hh", "w_hr"), self.next_functions))

    def _release(self):
        Node._release(self)
        self._ctx = None  # the saved activations are the big buffers: free them with the graph


def _recurrence(mode, xg, h0, c0, w_hh, b_hh, w_hr, reverse, batch_sizes=None):
    """Run one layer in one direction. ``xg``: (T, B, G) input projections (for LSTM scaled by
    :func:`lstm_input_scale`, best with ``b_hh`` folded in and ``b_hh=None``); ``batch_sizes``: optional NumPy array
    of the number of active (length-sorted) sequences per step. Returns ``(output, h_n, c_n)``."""
    xp = xg._xp
    ys, hn, cn, cache = _forward_kernel(
        mode, xg._data, h0._data, None if c0 is None else c0._data, w_hh._data,
        None if b_hh is None else b_hh._data, None if w_hr is None else w_hr._data, reverse, xp, bs=batch_sizes)
    outs = (wrap(ys), wrap(hn), None if cn is None else wrap(cn))
    ins = (xg, h0, c0, w_hh, b_hh, w_hr)
    if GRAD_ENABLED[0] and any(t is not None and t._requires_grad for t in ins):
        node = RecurrenceBackward0()
        node.save(*ins)
        node._ctx = (mode, reverse, cache, batch_sizes)
        record_multi(node, tuple(o for o in outs if o is not None), *ins)
        node.save_output(outs[0])  # the outputs are the hidden states backward needs: saved, not copied
    return outs


# ---------------------------------------------------------------------------- composed version (double backward)
def _composed_recurrence(mode, xg, h, c, w_hh, b_hh, w_hr, reverse, bs=None):
    """The same recurrence from differentiable ember ops, one step at a time (slow; used for create_graph)."""
    from ... import ops
    T, B = xg.shape[0], xg.shape[1]
    H = w_hh.shape[0] // {"LSTM": 4, "GRU": 3}.get(mode, 1)
    ys = [None] * T
    if mode == "LSTM":
        inv_s = wrap(1 / lstm_input_scale(xg.shape[2], xg._data.dtype, xg._xp))
    for t in _steps(T, reverse):
        n = _active(bs, t, B)
        h_all, c_all = h, c
        x = xg[t, :n]
        h = h[:n]
        c = c[:n] if c is not None else None
        hg = h @ w_hh.mT
        if b_hh is not None:
            hg = hg + b_hh
        if mode == "LSTM":
            gates = x * inv_s + hg  # the op's input is scaled (lstm_input_scale)
            i, f = gates[:, :H].sigmoid(), gates[:, H:2 * H].sigmoid()
            g, o = gates[:, 2 * H:3 * H].tanh(), gates[:, 3 * H:].sigmoid()
            c = f * c + i * g
            h = o * c.tanh()
            if w_hr is not None:
                h = h @ w_hr.mT
        elif mode == "GRU":
            r = (x[:, :H] + hg[:, :H]).sigmoid()
            z = (x[:, H:2 * H] + hg[:, H:2 * H]).sigmoid()
            cand = (x[:, 2 * H:] + r * hg[:, 2 * H:]).tanh()
            h = cand + z * (h - cand)
        else:
            pre = x + hg
            h = pre.relu() if mode == "RNN_RELU" else pre.tanh()
        if n < B:  # inactive rows carry their state
            h = ops.cat([h, h_all[n:]], 0)
            c = ops.cat([c, c_all[n:]], 0) if c is not None else None
        ys[t] = h
    return ops.stack(ys), h, c


def _composed_backward(mode, reverse, bs, inputs, grad_outputs, next_functions):
    from ...autograd.engine import grad as autograd_grad
    outs = _composed_recurrence(mode, *inputs, reverse, bs)
    pairs = [(o, g) for o, g in zip(outs, grad_outputs) if o is not None and g is not None and o._requires_grad]
    wanted = [i for i, (t, e) in enumerate(zip(inputs, next_functions)) if t is not None and e is not None]
    result = [None] * len(inputs)
    if not pairs or not wanted:
        return tuple(result)
    grads = autograd_grad([o for o, _ in pairs], [inputs[i] for i in wanted], [g for _, g in pairs],
                          create_graph=True, allow_unused=True)
    for i, g in zip(wanted, grads):
        result[i] = g
    return tuple(result)
