"""The array-level convolution kernels behind :mod:`._conv`'s differentiable ops (arrays in, arrays out).

The forward kernel is im2col + GEMM, walked in cache-sized blocks of output positions: each block's windows are
copied into a small reused buffer and multiplied by the weight in one GEMM, and the block's result is moved to NCHW
while still in cache. Keeping the column buffer in cache is what makes this faster than one huge im2col matrix.

* Wide layers run channels-last: the zero-padded input is copied once to NHWC, so a window (``kh x kw x C``
  values) is ``kh`` runs of ``kw*C`` contiguous numbers. The copy is kept for the weight gradient.
* Layers with few input channels (``kw*C < 16``, e.g. the first layer of a network) copy whole kernel taps of the
  NCHW image instead (Chainer's im2col), whose runs are output rows. Their columns are image-major, so the GEMMs
  run per image on NCHW data as it is (no transposes of the output or the gradient).

Backward: for stride 1 the input gradient is itself a convolution (of the padded gradient with the flipped,
transposed kernel) and runs on the forward kernel; otherwise it is ``grad @ weight^T`` scattered back with ``kh*kw``
strided ``+=`` (Chainer's col2im), never ``np.add.at``. With stride 1 col2im works on flattened planes, one
contiguous ``+=`` per tap and image (:func:`_input_grad_flat`); otherwise channels-last col2im is tap-major (one GEMM
per kernel tap), so each ``+=`` moves runs of ``ow*C`` numbers. The weight gradient is ``cols^T @ grad`` summed over
blocks. The choice between the full convolution and col2im is made per layer shape (:func:`_full_conv_cheaper`).
Work is split over images on ember's threads (:mod:`ember.core.threads`).

Private to :mod:`._conv` and :mod:`._pooling`.
"""
from __future__ import annotations

from ... import threads
from ...device import array_module as _xp_of  # the one array-module lookup (core/device.py)

__all__ = []

# Bytes of im2col columns processed per GEMM: small enough to stay in L2/L3, large enough for an efficient GEMM.
_BLOCK_BYTES = 1 << 22


def _as_strided(xp, a, shape, strides):
    return xp.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)


# ------------------------------------------------------------------------------------------------------- geometry
class ConvGeometry:
    """Everything the kernels need about a 2-D convolution, in one immutable record.

    ``in_size`` is the (H, W) of the convolution's input (the output of a transposed convolution), ``out_size``
    the (oh, ow) of its output, ``pad`` the zero padding as ``(top, bottom, left, right)``.
    """

    __slots__ = ("stride", "dilation", "pad", "groups", "kernel", "in_size", "out_size")

    def __init__(self, stride, dilation, pad, groups, kernel, in_size, out_size):
        self.stride, self.dilation, self.pad, self.groups = stride, dilation, pad, groups
        self.kernel, self.in_size, self.out_size = kernel, in_size, out_size

    @property
    def padded_size(self):
        (H, W), (pt, pb, pl, pr) = self.in_size, self.pad
        return H + pt + pb, W + pl + pr


def _out_len(size, pad_lo, pad_hi, k, s, d):
    return (size + pad_lo + pad_hi - d * (k - 1) - 1) // s + 1


# ------------------------------------------------------------------------------------------------- NumPy kernels
# Two layouts. Channels-last (NHWC) windows copy runs of ``kw * C/G`` contiguous numbers, which is efficient for the
# wide layers that dominate compute. With few input channels those runs are too short, so the NCHW path copies whole
# kernel taps instead (``kh * kw`` strided copies whose runs are output rows), as Chainer's im2col does.
_MIN_RUN = 16


def channels_last(cg, kw) -> bool:
    """Whether the channels-last kernel is used for ``cg`` channels per group and kernel width ``kw``."""
    return cg * kw >= _MIN_RUN


def _block_plan(n, oh, row_bytes):
    """``(images, rows)`` per block: whole images when one fits in half of ``_BLOCK_BYTES``, else rows of one image.
    Blocks are balanced, so there is no small leftover block (a GEMM on a few rows is inefficient).

    Channels-last blocks take half the budget of the NCHW path's: their GEMM result is transposed to NCHW while
    still in cache too (measured 4% faster on VGG-like layers than full-size blocks; LeNet's NCHW path is faster
    with the full size)."""
    budget = max(1, _BLOCK_BYTES // 2)
    image_bytes = max(row_bytes * oh, 1)
    if image_bytes <= budget:
        count = -(-n // max(1, budget // image_bytes))
        return -(-n // count), oh
    count = -(-image_bytes // budget)
    return 1, -(-oh // count)


def _blocks(n, oh, row_bytes):
    """Yield ``(n0, n1, h0, h1)`` blocks of output rows whose im2col columns fit the budget of :func:`_block_plan`."""
    images, rows = _block_plan(n, oh, row_bytes)
    for n0 in range(0, n, images):
        for h0 in range(0, oh, rows):
            yield n0, min(n, n0 + images), h0, min(oh, h0 + rows)


def _block_rows(n, oh, ow, row_bytes):
    """The largest number of output positions in a block of :func:`_blocks`."""
    images, rows = _block_plan(n, oh, row_bytes)
    return images * rows * ow


def _tap_slices(g: ConvGeometry, h0=0, h1=None):
    """``(i, j, row_slice, col_slice)`` of every kernel tap over output rows ``h0:h1``, in the padded input."""
    (kh, kw), (s1, s2), (d1, d2), (oh, ow) = g.kernel, g.stride, g.dilation, g.out_size
    h1 = oh if h1 is None else h1
    for i in range(kh):
        r0 = h0 * s1 + i * d1
        rs = slice(r0, r0 + (h1 - h0 - 1) * s1 + 1, s1)
        for j in range(kw):
            yield i, j, rs, slice(j * d2, j * d2 + (ow - 1) * s2 + 1, s2)


def padded_nhwc(x, g: ConvGeometry):
    """The input as a C-contiguous, zero-padded NHWC array (only the frame is zeroed; the transposed copy and the
    frame are split over the batch across ember's threads)."""
    xp = _xp_of(x)
    n, c, h, w = x.shape
    pt, pb, pl, pr = g.pad
    hp, wp = g.padded_size
    out = xp.empty((n, hp, wp, c), dtype=x.dtype)

    def part(a, b):
        o = out[a:b]
        if pt:
            o[:, :pt] = 0
        if pb:
            o[:, hp - pb:] = 0
        if pl:
            o[:, pt:pt + h, :pl] = 0
        if pr:
            o[:, pt:pt + h, wp - pr:] = 0
        _to_nhwc(o[:, pt:pt + h, pl:pl + w], x[a:b])
    threads.parallel_for(n, part, grain=max(1, threads.ELEMENTWISE_GRAIN // max(1, out[:1].size)))
    return out


# Bytes between rows of a cache way: a transposed copy whose source rows (channel planes) are a multiple of this
# apart makes every read of a destination row fall into the same cache set.
_ALIAS_BYTES = 4096


def _to_nhwc(dst, src):
    """``dst[...] = src.transpose(0, 2, 3, 1)`` for an NCHW ``src``.

    When a channel plane is a multiple of 4 KiB (32x32 float32 images), reading across channels at that stride
    thrashes the L1 cache; each image then goes through a small buffer whose rows are 64 bytes longer (1.7x faster
    on a 64x32x32x32 batch).
    """
    n, c, h, w = src.shape
    plane = h * w
    if c < 8 or (plane * src.itemsize) % _ALIAS_BYTES or not src.flags.c_contiguous:
        dst[...] = src.transpose(0, 2, 3, 1)
        return
    buf = _xp_of(src).empty((c, plane + 64 // src.itemsize), dtype=src.dtype)
    rows = buf[:, :plane]
    flat = src.reshape(n, c, plane)
    for i in range(n):
        rows[...] = flat[i]
        dst[i] = rows.T.reshape(h, w, c)


def _copy_images(dst, src, copy=None):
    """``dst[...] = src`` (or ``copy(dst, src)``), split over the batch across ember's threads when large."""
    def part(a, b):
        if copy is None:
            dst[a:b] = src[a:b]
        else:
            copy(dst[a:b], src[a:b])
    n = dst.shape[0]
    threads.parallel_for(n, part, grain=max(1, threads.ELEMENTWISE_GRAIN // max(1, dst[:1].size)))


# Multiply-adds per part below which a convolution stays on one thread: a part also copies its columns, so it is
# worth a hand-off at a quarter of a plain GEMM's threshold (LeNet's 5x5 layers split at batch 64).
_CONV_GRAIN = threads.GEMM_GRAIN // 4


def _over_images(n, macs_per_image, fn):
    """``fn(a, b)`` over parts of the batch ``range(n)``, in parallel when each part is a big enough GEMM."""
    threads.parallel_for(n, fn, grain=max(1, _CONV_GRAIN // max(1, macs_per_image)))


def _padded_nchw(x, g: ConvGeometry):
    xp = _xp_of(x)
    n, c, h, w = x.shape
    pt, pb, pl, pr = g.pad
    if not (pt or pb or pl or pr):
        return x
    hp, wp = g.padded_size
    out = xp.zeros((n, c, hp, wp), dtype=x.dtype)
    out[:, :, pt:pt + h, pl:pl + w] = x
    return out


def _windows(xh, g: ConvGeometry):
    """A strided view ``(N, oh, ow, G, kh, kw, C/G)`` of the padded NHWC input: every window, no copy."""
    n, _, _, c = xh.shape
    sn, sh_, sw_, sc = xh.strides
    (kh, kw), (oh, ow), (s1, s2), (d1, d2), grp = g.kernel, g.out_size, g.stride, g.dilation, g.groups
    view = _as_strided(_xp_of(xh), xh, (n, oh, ow, kh, kw, grp, c // grp),
                       (sn, s1 * sh_, s2 * sw_, d1 * sh_, d2 * sw_, (c // grp) * sc, sc))
    return view.transpose(0, 1, 2, 5, 3, 4, 6)


def _weight_nhwc(w, grp):
    """Weight ``(F, C/G, kh, kw)`` as ``(G, kh*kw*C/G, F/G)``, matching the column layout of :func:`_windows`."""
    f, cg, kh, kw = w.shape
    return _xp_of(w).ascontiguousarray(w.reshape(grp, f // grp, cg, kh, kw).transpose(0, 3, 4, 2, 1)).reshape(
        grp, kh * kw * cg, f // grp)


def _forward_nhwc(xh, w, g: ConvGeometry, bias=None):
    """im2col + GEMM over cache-sized blocks of the padded NHWC input ``xh``; returns NCHW output."""
    xp = _xp_of(xh)
    n = xh.shape[0]
    wmat = _weight_nhwc(w, g.groups)
    grp, k, fg = wmat.shape
    f = grp * fg
    (kh, kw), (oh, ow) = g.kernel, g.out_size
    cg = xh.shape[3] // grp
    win = _windows(xh, g)
    out = xp.empty((n, f, oh, ow), dtype=xh.dtype)
    grouped = out.reshape(n, grp, fg, oh, ow)
    row_bytes = ow * grp * k * xh.itemsize

    def part(a, b):  # images a:b, with this thread's own column and result buffers
        max_rows = _block_rows(b - a, oh, ow, row_bytes)
        buf = xp.empty(max_rows * grp * k, dtype=xh.dtype)
        res = xp.empty(max_rows * f, dtype=xh.dtype)
        for n0, n1, h0, h1 in _blocks(b - a, oh, row_bytes):
            n0, n1 = n0 + a, n1 + a
            nb, hb = n1 - n0, h1 - h0
            rows = nb * hb * ow
            cols = buf[:rows * grp * k].reshape(nb, hb, ow, grp, kh, kw, cg)
            cols[...] = win[n0:n1, h0:h1]
            # the block's result gets its bias and moves to NCHW while it is still in cache
            if grp == 1:
                blk = res[:rows * f].reshape(rows, f)
                xp.matmul(cols.reshape(rows, k), wmat[0], out=blk)
                if bias is not None:
                    blk += bias
                out[n0:n1, :, h0:h1] = blk.reshape(nb, hb, ow, f).transpose(0, 3, 1, 2)
            else:
                blk = res[:rows * f].reshape(grp, rows, fg)
                xp.matmul(cols.reshape(rows, grp, k).transpose(1, 0, 2), wmat, out=blk)
                if bias is not None:
                    blk += bias.reshape(grp, 1, fg)
                grouped[n0:n1, :, :, h0:h1] = blk.reshape(grp, nb, hb, ow, fg).transpose(1, 0, 4, 2, 3)
    _over_images(n, oh * ow * k * f, part)
    return out


def _tap_columns(xpad, n0, n1, g: ConvGeometry, buf):
    """im2col of images ``n0:n1`` as ``(nb, C, kh, kw, oh, ow)``: one strided copy per kernel tap.

    Image-major: each image's columns are one ``(C*kh*kw, oh*ow)`` matrix, so the GEMMs run per image (a batched
    ``matmul``) and read and write NCHW directly, with no transposes of the output or of the gradient. One GEMM over
    all images instead would have a huge inner dimension for the weight gradient, which BLAS runs several times
    slower.
    """
    c = xpad.shape[1]
    (kh, kw), (oh, ow) = g.kernel, g.out_size
    cols = buf[:(n1 - n0) * c * kh * kw * oh * ow].reshape(n1 - n0, c, kh, kw, oh, ow)
    for i, j, rs, cs in _tap_slices(g):
        cols[:, :, i, j] = xpad[n0:n1, :, rs, cs]
    return cols


def _flat_planes(x, g: ConvGeometry):
    """The zero-padded input as flat planes ``(N, C, hp*wp + (kw-1)*d2)`` for stride-1 columns on a wide grid
    (:func:`_flat_columns`); the zero tail keeps the last tap's run inside the array."""
    xp = _xp_of(x)
    n, c, h, w = x.shape
    pt, _, pl, _ = g.pad
    hp, wp = g.padded_size
    flat = xp.zeros((n, c, hp * wp + (g.kernel[1] - 1) * g.dilation[1]), dtype=x.dtype)
    flat[:, :, :hp * wp].reshape(n, c, hp, wp)[:, :, pt:pt + h, pl:pl + w] = x
    return flat


def _flat_offsets(g: ConvGeometry):
    """Offset of each kernel tap (row-major) in a flat padded plane: ``i*d1*wp + j*d2``."""
    (kh, kw), (d1, d2), (_, wp) = g.kernel, g.dilation, g.padded_size
    return [i * d1 * wp + j * d2 for i in range(kh) for j in range(kw)]


def _flat_columns(flat, n0, n1, g: ConvGeometry, buf):
    """Stride-1 im2col of images ``n0:n1`` on a grid as wide as the padded input, ``(nb, C, kh*kw, oh*wp)``: each
    tap is one contiguous run of ``oh*wp`` numbers per image and channel (no per-row copies). The extra
    ``(kw-1)*d2`` columns of each row are garbage the callers drop (or multiply by a zero gradient)."""
    c = flat.shape[1]
    span = g.out_size[0] * g.padded_size[1]
    offsets = _flat_offsets(g)
    cols = buf[:(n1 - n0) * c * len(offsets) * span].reshape(n1 - n0, c, len(offsets), span)
    for t, off in enumerate(offsets):
        cols[:, :, t] = flat[n0:n1, :, off:off + span]
    return cols


def _image_step(n, per_image_bytes):
    """Images per block for the NCHW path (balanced, at least one)."""
    count = -(-n // max(1, _BLOCK_BYTES // max(per_image_bytes, 1)))
    return -(-n // count)


def _forward_nchw(x, w, g: ConvGeometry, bias=None):
    """The few-channels path: tap-wise im2col over blocks of images, then ``W (F, K) @ cols (K, oh*ow)`` per image,
    written straight into the NCHW output. With stride 1 the columns are wide (:func:`_flat_columns`) and each
    block's result drops its extra columns as it is copied out."""
    xp = _xp_of(x)
    n, c = x.shape[:2]
    f, cg, kh, kw = w.shape
    grp, (oh, ow) = g.groups, g.out_size
    k = cg * kh * kw
    wide = g.stride == (1, 1)
    span = oh * g.padded_size[1] if wide else oh * ow
    src = _flat_planes(x, g) if wide else _padded_nchw(x, g)
    wg = w.reshape(grp, f // grp, k)
    bg = None if bias is None else bias.reshape(grp, f // grp, 1)
    out = xp.empty((n, f, oh, ow), dtype=x.dtype)
    step = _image_step(n, c * kh * kw * span * x.itemsize)

    def part(a, b):
        buf = xp.empty(c * kh * kw * min(step, b - a) * span, dtype=x.dtype)
        res = xp.empty(min(step, b - a) * f * span, dtype=x.dtype) if wide else None
        for n0 in range(a, b, step):
            n1 = min(b, n0 + step)
            nb = n1 - n0
            if wide:
                cols = _flat_columns(src, n0, n1, g, buf).reshape(nb, grp, k, span)
                y = res[:nb * f * span].reshape(nb, grp, f // grp, span)
            else:
                cols = _tap_columns(src, n0, n1, g, buf).reshape(nb, grp, k, span)
                y = out[n0:n1].reshape(nb, grp, f // grp, span)
            xp.matmul(wg, cols, out=y)
            if bg is not None:
                y += bg
            if wide:
                out[n0:n1] = y.reshape(nb, f, oh, -1)[..., :ow]
    _over_images(n, oh * ow * k * f, part)
    return out


def conv_forward_array(x, w, g: ConvGeometry, xh=None, bias=None):
    """``y = conv(x, w) + bias`` on arrays: x ``(N, C, H, W)``, w ``(F, C/G, kh, kw)`` -> y ``(N, F, oh, ow)``.

    ``xh`` is the padded NHWC copy of ``x`` if the caller already has it (channels-last path only).
    """
    n = (x if x is not None else xh).shape[0]
    if n == 0:
        return _xp_of(w).zeros((0, w.shape[0]) + tuple(g.out_size), dtype=w.dtype)
    if not channels_last(w.shape[1], w.shape[3]):
        return _forward_nchw(x, w, g, bias)
    return _forward_nhwc(padded_nhwc(x, g) if xh is None else xh, w, g, bias)


def _input_grad_as_conv(g: ConvGeometry):
    """For stride 1, the input gradient is a plain convolution of the gradient padded by ``d*(k-1) - pad``; its
    geometry, or None when that padding would be negative."""
    if g.stride != (1, 1):
        return None
    (kh, kw), (d1, d2), (pt, pb, pl, pr) = g.kernel, g.dilation, g.pad
    eh, ew = d1 * (kh - 1), d2 * (kw - 1)
    pad = (eh - pt, eh - pb, ew - pl, ew - pr)
    if min(pad) < 0:
        return None
    return ConvGeometry((1, 1), g.dilation, pad, g.groups, g.kernel, g.out_size, g.in_size)


def _full_conv_cheaper(g: ConvGeometry, f, c) -> bool:
    """Whether the input gradient is cheaper as a padded full convolution than as ``gy @ W`` plus col2im.

    Both do about the same multiply-adds. The full convolution copies ``H*W*F*kh*kw`` numbers into its columns
    and runs a GEMM with only ``C`` output columns; col2im writes ``oh*ow*C*kh*kw`` numbers twice (the GEMM result,
    then the strided adds). So a layer that widens (``F > 2C``, e.g. LeNet's 6 -> 16) takes col2im, a layer that
    keeps its width takes the convolution (measured on LeNet and VGG-like layers, with both col2im kernels).
    """
    (h, w), (oh, ow) = g.in_size, g.out_size
    return h * w * f <= 2 * oh * ow * c


def _flipped_transposed_weight(w, grp):
    """``(F, C/G, kh, kw)`` -> ``(C, F/G, kh, kw)`` with the kernel rotated by 180 degrees."""
    f, cg, kh, kw = w.shape
    wt = w.reshape(grp, f // grp, cg, kh, kw).transpose(0, 2, 1, 3, 4).reshape(grp * cg, f // grp, kh, kw)
    return wt[:, :, ::-1, ::-1]


def conv_backward_arrays(gy, w, x, g: ConvGeometry, need_input=True, need_weight=True, w_shape=None, xh=None):
    """Gradients of ``conv(x, w)`` given ``gy``: ``(grad_input or None, grad_weight or None)`` as arrays.

    ``grad_input`` alone is the transposed convolution of ``gy`` (``x`` may be None then); ``grad_weight`` alone
    needs only ``w_shape`` (``w`` may be None then). ``xh`` is the padded NHWC input if the caller kept it.
    """
    f, cg, kh, kw = w.shape if w is not None else w_shape
    if gy.shape[0] == 0:  # an empty batch: zero gradients of the right shapes
        xp = _xp_of(gy)
        return (xp.zeros((0, cg * g.groups) + tuple(g.in_size), dtype=gy.dtype) if need_input else None,
                xp.zeros((f, cg, kh, kw), dtype=gy.dtype) if need_weight else None)
    gx = gw = gh = None
    as_conv = _input_grad_as_conv(g) if need_input else None
    if as_conv is not None and not _full_conv_cheaper(g, f, cg * g.groups):
        as_conv = None
    if as_conv is not None:
        # stride 1: the input gradient is a forward convolution, which runs at the forward kernel's speed
        wt = _flipped_transposed_weight(w, g.groups)
        if channels_last(wt.shape[1], kw):
            ghp = padded_nhwc(gy, as_conv)
            gx = _forward_nhwc(ghp, wt, as_conv)
            lo_h, lo_w = as_conv.pad[0], as_conv.pad[2]
            gh = ghp[:, lo_h:lo_h + gy.shape[2], lo_w:lo_w + gy.shape[3]]  # reused by the weight gradient
        else:
            gx = _forward_nchw(gy, wt, as_conv)
        need_input = False
    elif need_input and _flat_col2im_applies(g):
        gx = _input_grad_flat(gy, w, g)
        need_input = False
    if need_input or need_weight:
        backward = _backward_nhwc if channels_last(cg, kw) else _backward_nchw
        gx2, gw = backward(gy, w, x, g, need_input, need_weight, (f, cg, kh, kw), xh, gh)
        gx = gx if gx2 is None else gx2
    return gx, gw


def _flat_col2im_applies(g: ConvGeometry) -> bool:
    """Whether :func:`_input_grad_flat` computes this layer's col2im input gradient (stride 1, one group)."""
    return g.stride == (1, 1) and g.groups == 1 and _FLAT_COL2IM


# Switch for the flat col2im (tests compare it with the other kernels).
_FLAT_COL2IM = True


def _input_grad_flat(gy, w, g: ConvGeometry):
    """The stride-1 input gradient by col2im on flattened image planes.

    With stride 1, output position ``(y, x)`` and kernel tap ``(i, j)`` meet at padded input position
    ``(y + i*d1, x + j*d2)``. Computing the columns on a grid as wide as the padded input (``oh x wp``, the extra
    columns fed zero gradient) makes that position ``p + i*d1*wp + j*d2`` for the flat grid index ``p``: each tap's
    columns then add into the flat padded plane as one contiguous run of ``oh*wp`` numbers per image and channel,
    instead of ``oh`` runs of ``ow`` (the per-row copies of an NCHW col2im). The GEMMs run per image on NCHW data.
    """
    xp = _xp_of(gy)
    n, f, oh, ow = gy.shape
    _, c, kh, kw = w.shape
    (d1, d2), (pt, _, pl, _), (h, wd) = g.dilation, g.pad, g.in_size
    hp, wp = g.padded_size
    span, k = oh * wp, c * kh * kw
    wt = w.reshape(f, k).T
    # the zero contributions of the extra columns of the last rows run past the plane by (kw-1)*d2 at most
    flat = xp.zeros((n, c, hp * wp + (kw - 1) * d2), dtype=gy.dtype)
    offsets = [i * d1 * wp + j * d2 for i in range(kh) for j in range(kw)]
    step = _image_step(n, k * span * gy.itemsize)

    def part(a, b):
        wide = xp.zeros((min(step, b - a), f, oh, wp), dtype=gy.dtype)  # columns ow: stay zero
        buf = xp.empty(min(step, b - a) * k * span, dtype=gy.dtype)
        for n0 in range(a, b, step):
            n1 = min(b, n0 + step)
            nb = n1 - n0
            wide[:nb, :, :, :ow] = gy[n0:n1]
            cols = buf[:nb * k * span].reshape(nb, k, span)
            xp.matmul(wt, wide[:nb].reshape(nb, f, span), out=cols)
            cols = cols.reshape(nb, c, kh * kw, span)
            for t, off in enumerate(offsets):
                flat[n0:n1, :, off:off + span] += cols[:, :, t]
    _over_images(n, oh * ow * k * f, part)
    planes = flat[:, :, :hp * wp].reshape(n, c, hp, wp)
    return xp.ascontiguousarray(planes[:, :, pt:pt + h, pl:pl + wd])


def _backward_nhwc(gy, w, x, g: ConvGeometry, need_input, need_weight, w_shape, xh, gh):
    xp = _xp_of(gy)
    n, _, oh, ow = gy.shape
    f, cg, kh, kw = w_shape
    grp = g.groups
    fg, k, c = f // grp, kh * kw * cg, cg * grp
    if gh is None:
        gh = xp.empty((n, oh, ow, f), dtype=gy.dtype)
        _copy_images(gh, gy, _to_nhwc)
    row_bytes = ow * grp * k * gy.itemsize
    win = dxh = wmat_t = wtap = None
    if need_weight:
        win = _windows(padded_nhwc(x, g) if xh is None else xh, g)
    if need_input:
        hp, wp = g.padded_size
        dxh = xp.zeros((n, hp, wp, grp, cg), dtype=gy.dtype)
        if grp == 1:  # (kh*kw, F, C): the weight of each kernel tap
            wtap = xp.ascontiguousarray(w.transpose(2, 3, 0, 1)).reshape(kh * kw, f, cg)
        else:
            wmat_t = xp.ascontiguousarray(_weight_nhwc(w, grp).transpose(0, 2, 1))
    partial_gw = []  # one weight-gradient sum per thread, added at the end

    def part(a, b):  # images a:b; col2im writes only these images, so parts never overlap
        buf = xp.empty(_block_rows(b - a, oh, ow, row_bytes) * grp * k, dtype=gy.dtype)
        dbuf = xp.empty_like(buf) if need_input else None
        gw = xp.zeros((grp, k, fg), dtype=gy.dtype) if need_weight else None
        for n0, n1, h0, h1 in _blocks(b - a, oh, row_bytes):
            n0, n1 = n0 + a, n1 + a
            nb, hb = n1 - n0, h1 - h0
            rows = nb * hb * ow
            gblk = gh[n0:n1, h0:h1].reshape(rows, grp, fg)
            if need_weight:
                cols = buf[:rows * grp * k].reshape(nb, hb, ow, grp, kh, kw, cg)
                cols[...] = win[n0:n1, h0:h1]
                if grp == 1:
                    gw[0] += cols.reshape(rows, k).T @ gblk.reshape(rows, f)
                else:
                    gw += xp.matmul(cols.reshape(rows, grp, k).transpose(1, 2, 0), gblk.transpose(1, 0, 2))
            if need_input and grp == 1:
                # tap-major: one GEMM per kernel tap gives a (nb, hb, ow, C) slab, which col2im adds into the padded
                # image in runs of ow*C contiguous numbers (stride 1) rather than runs of C
                dcols = dbuf[:rows * k].reshape(kh * kw, rows, cg)
                xp.matmul(gblk.reshape(rows, f), wtap, out=dcols)
                for t, (i, j, rs, cs) in enumerate(_tap_slices(g, h0, h1)):
                    dxh[n0:n1, rs, cs] += dcols[t].reshape(nb, hb, ow, 1, cg)
            elif need_input:
                dcols = xp.matmul(gblk.transpose(1, 0, 2), wmat_t).reshape(grp, nb, hb, ow, kh, kw, cg)
                dcols = dcols.transpose(1, 2, 3, 4, 5, 0, 6)
                # col2im: each kernel tap adds its column slice into a strided slice of the padded image
                for i, j, rs, cs in _tap_slices(g, h0, h1):
                    dxh[n0:n1, rs, cs] += dcols[:, :, :, i, j]
        if need_weight:
            partial_gw.append(gw)
    _over_images(n, oh * ow * k * f, part)
    gx = gwt = None
    if need_input:
        (h, w_), (pt, _, pl, _) = g.in_size, g.pad
        gx = xp.empty((n, c, h, w_), dtype=gy.dtype)
        _copy_images(gx, dxh.reshape(n, hp, wp, c)[:, pt:pt + h, pl:pl + w_].transpose(0, 3, 1, 2))
    if need_weight:
        gw = _sum_parts(partial_gw)
        gwt = xp.ascontiguousarray(gw.reshape(grp, kh, kw, cg, fg).transpose(0, 4, 3, 1, 2)).reshape(f, cg, kh, kw)
    return gx, gwt


def _sum_parts(parts):
    """The sum of the per-thread partial weight gradients (in the order they finished)."""
    total = parts[0]
    for p in parts[1:]:
        total += p
    return total


def _backward_nchw(gy, w, x, g: ConvGeometry, need_input, need_weight, w_shape, xh, gh):
    """The few-channels path of :func:`conv_backward_arrays`: image-major tap-wise im2col and col2im (see
    :func:`_tap_columns`), GEMMs per image on the NCHW gradient as it is."""
    xp = _xp_of(gy)
    n, _, oh, ow = gy.shape
    f, cg, kh, kw = w_shape
    grp = g.groups
    fg, k, c = f // grp, kh * kw * cg, cg * grp
    # the weight gradient alone (stride-1 input gradients go to _input_grad_flat) runs on wide columns, with the
    # gradient copied into a zero-padded wide grid so the garbage columns meet zeros
    wide = need_weight and not need_input and g.stride == (1, 1)
    span = oh * g.padded_size[1] if wide else oh * ow
    step = _image_step(n, c * kh * kw * span * gy.itemsize)
    xpad = dxpad = wgt = None
    if need_weight:
        xpad = _flat_planes(x, g) if wide else _padded_nchw(x, g)
    if need_input:
        hp, wp = g.padded_size
        dxpad = xp.zeros((n, c, hp, wp), dtype=gy.dtype)
        wgt = w.reshape(grp, fg, k).transpose(0, 2, 1)
    partial_gw = []

    def part(a, b):  # images a:b (col2im writes only these)
        buf = xp.empty(c * kh * kw * min(step, b - a) * span, dtype=gy.dtype)
        gw = xp.zeros((grp, fg, k), dtype=gy.dtype) if need_weight else None
        gwide = xp.zeros((min(step, b - a), f, oh, g.padded_size[1]), dtype=gy.dtype) if wide else None
        for n0 in range(a, b, step):
            n1 = min(b, n0 + step)
            nb = n1 - n0
            if wide:
                gwide[:nb, :, :, :ow] = gy[n0:n1]
                gblk = gwide[:nb].reshape(nb, grp, fg, span)
                cols = _flat_columns(xpad, n0, n1, g, buf).reshape(nb, grp, k, span)
            else:
                gblk = gy[n0:n1].reshape(nb, grp, fg, span)
                cols = _tap_columns(xpad, n0, n1, g, buf).reshape(nb, grp, k, span) if need_weight else None
            if need_weight:
                gw += xp.matmul(gblk, cols.transpose(0, 1, 3, 2)).sum(axis=0)
            if need_input:
                dcols = buf[:nb * grp * k * oh * ow].reshape(nb, grp, k, oh * ow)
                xp.matmul(wgt, gblk, out=dcols)
                dcols = dcols.reshape(nb, c, kh, kw, oh, ow)
                for i, j, rs, cs in _tap_slices(g):
                    dxpad[n0:n1, :, rs, cs] += dcols[:, :, i, j]
        if need_weight:
            partial_gw.append(gw)
    _over_images(n, oh * ow * k * f, part)
    gx = gwt = None
    if need_input:
        (h, w_), (pt, _, pl, _) = g.in_size, g.pad
        gx = xp.ascontiguousarray(dxpad[:, :, pt:pt + h, pl:pl + w_])
    if need_weight:
        gwt = _sum_parts(partial_gw).reshape(f, cg, kh, kw)
    return gx, gwt
