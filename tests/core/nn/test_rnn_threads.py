"""The LSTM time loops split the batch rows across ember's threads: the results must equal one thread's, bit for bit.

Batch rows only meet in the weight gradients, which are summed after the loop, so each block of rows runs the
same arithmetic as in a single-threaded run (the per-step GEMMs of a row block compute each row the same way).
"""
import numpy as np
import pytest

import ember as em
import ember.nn as nn
from ember.core.nn.functional import _rnn


@pytest.fixture
def row_blocks(monkeypatch):
    """Split batches of 24 rows into blocks of 16 and 8 (the blocks are multiples of 8 rows), and record them."""
    monkeypatch.setattr(_rnn, "_ROW_GRAIN", 4)
    seen = []
    for name, cs_arg in (("_lstm_forward_rows", 3), ("_lstm_backward_rows", 2)):
        original = getattr(_rnn, name)

        def spy(*args, _original=original, _name=name, _cs=cs_arg):
            seen.append((_name, args[_cs].shape[1]))  # the block's cell states: (T, rows, H)
            return _original(*args)
        monkeypatch.setattr(_rnn, name, spy)
    before = em.get_num_threads()
    yield seen
    em.set_num_threads(before)


def _train_step(module, x, hx, threads, packed_lengths=None):
    """Outputs, final states and every gradient of one forward/backward at ``threads`` threads."""
    from ember.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    em.set_num_threads(threads)
    module.zero_grad()
    x = x.detach().requires_grad_()
    inp = pack_padded_sequence(x, packed_lengths, enforce_sorted=False) if packed_lengths else x
    out, (h, c) = module(inp, hx)
    if packed_lengths:
        out = pad_packed_sequence(out)[0]
    rng = np.random.default_rng(7)
    weights = [em.tensor(rng.standard_normal(t.shape).astype(t.detach().numpy().dtype)) for t in (out, h, c)]
    loss = sum((t * w).sum() for t, w in zip((out, h, c), weights))
    loss.backward()
    return [t.detach().numpy().copy() for t in (out, h, c, x.grad)] + \
        [p.grad.numpy().copy() for p in module.parameters()]


CASES = {
    "two-layers": dict(num_layers=2),
    "bidirectional": dict(bidirectional=True),
    "projection": dict(proj_size=3),
}


@pytest.mark.parametrize("dtype", [em.float32, em.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_lstm_threaded_equals_single_thread(row_blocks, case, dtype):
    em.manual_seed(0)
    module = nn.LSTM(5, 6, **CASES[case], dtype=dtype)
    x = em.randn(7, 24, 5, dtype=dtype)
    layers = module.num_layers * (2 if module.bidirectional else 1)
    hx = (em.randn(layers, 24, module.proj_size or 6, dtype=dtype), em.randn(layers, 24, 6, dtype=dtype))
    one = _train_step(module, x, hx, 1)
    assert set(row_blocks) == {("_lstm_forward_rows", 24), ("_lstm_backward_rows", 24)}
    row_blocks.clear()
    two = _train_step(module, x, hx, 2)
    assert sorted(set(row_blocks)) == [("_lstm_backward_rows", 8), ("_lstm_backward_rows", 16),
                                       ("_lstm_forward_rows", 8), ("_lstm_forward_rows", 16)]
    for a, b in zip(one, two):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_lstm_packed_threaded_equals_single_thread(row_blocks):
    """Variable lengths: each row block sees its own share of the active prefix (some blocks none at a step)."""
    em.manual_seed(1)
    module = nn.LSTM(4, 5, bidirectional=True)
    lengths = [6, 1, 3, 6, 2, 5, 4, 1, 2, 3, 6, 5, 4, 1, 1, 2, 6, 3, 2, 1, 5, 4, 3, 2]
    x = em.randn(6, 24, 4)
    hx = (em.randn(2, 24, 5), em.randn(2, 24, 5))
    one = _train_step(module, x, hx, 1, lengths)
    row_blocks.clear()
    two = _train_step(module, x, hx, 2, lengths)
    assert ("_lstm_forward_rows", 8) in row_blocks
    for a, b in zip(one, two):
        assert np.array_equal(a, b)


def test_small_batches_stay_on_one_block(row_blocks):
    em.set_num_threads(2)
    nn.LSTM(3, 4)(em.randn(2, 7, 3))  # 7 rows < two blocks of _ROW_GRAIN rows aligned to 8
    assert row_blocks == [("_lstm_forward_rows", 7)]


def test_a_thread_finishes_the_blocks_of_a_thread_that_never_runs(monkeypatch):
    """A block is advanced step by step by whichever thread is free: if the other thread never gets a core, the
    caller runs every block to its end, each block's steps in order."""
    from ember.core import threads
    monkeypatch.setattr(_rnn, "_ROW_GRAIN", 4)
    before = em.get_num_threads()
    em.set_num_threads(2)
    calls = []

    def caller_only(total, fn, grain=1, align=1):  # the pool hands the caller only the first driver
        calls.append(total)
        fn(0, 1)
    monkeypatch.setattr(threads, "parallel_for", caller_only)
    steps = []

    def block(lo, hi):
        for t in range(3):
            steps.append((lo, t))
            yield
    try:
        _rnn._by_rows(24, None, block)
    finally:
        em.set_num_threads(before)
    assert calls == [2]
    assert steps == [(0, 0), (0, 1), (0, 2), (16, 0), (16, 1), (16, 2)]

