"""Named-tuple results print as PyTorch's ``torch.return_types`` do, under ember's module name."""
import pytest

import ember as em

X = em.tensor([[3., 1., 2.], [0., 5., 4.]])


@pytest.mark.parametrize("name, call, fields", [
    ("topk", lambda: em.topk(X, 2), ("values", "indices")),
    ("sort", lambda: em.sort(X), ("values", "indices")),
    ("kthvalue", lambda: em.kthvalue(X, 1), ("values", "indices")),
    ("mode", lambda: em.mode(X), ("values", "indices")),
    ("median", lambda: em.median(X, 1), ("values", "indices")),
    ("nanmedian", lambda: em.nanmedian(X, 1), ("values", "indices")),
    ("cummax", lambda: em.cummax(X, 1), ("values", "indices")),
    ("cummin", lambda: em.cummin(X, 1), ("values", "indices")),
    ("max", lambda: em.max(X, 1), ("values", "indices")),
    ("min", lambda: X.min(1), ("values", "indices")),
    ("aminmax", lambda: em.aminmax(X), ("min", "max")),
    ("histogram", lambda: em.histogram(X, bins=2), ("hist", "bin_edges")),
    ("linalg_slogdet", lambda: em.linalg.slogdet(em.eye(2)), ("sign", "logabsdet")),
    ("slogdet", lambda: em.slogdet(em.eye(2)), ("sign", "logabsdet")),
])
def test_named_results_print_like_torch_return_types(name, call, fields):
    res = call()
    assert type(res) is getattr(em.return_types, name)
    assert type(res).__module__ == "ember.return_types" and res._fields == fields
    lines = [f"{f}={v!r}" for f, v in zip(fields, res)]
    assert repr(res) == f"ember.return_types.{name}(\n" + ",\n".join(lines) + ")"
    a, b = res  # still a plain tuple
    assert a is res[0] and b is getattr(res, fields[1])


def test_exact_topk_text():
    assert repr(em.topk(em.tensor([1., 5., 3.]), 2)) == (
        "ember.return_types.topk(\nvalues=tensor([5., 3.]),\nindices=tensor([1, 2]))")


def test_histogram_defaults_to_100_bins():
    hist, edges = em.histogram(em.tensor([0., 1.]))
    assert hist.shape == (100,) and edges.shape == (101,) and hist.sum().item() == 2.0
