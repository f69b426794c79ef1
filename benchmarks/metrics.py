"""Metrics benchmark: the per-batch cost of a metric update, and of forward in each ``full_state_update`` mode.

Every figure is a ratio measured in the same run:

    python benchmarks/metrics.py

- ``MulticlassAccuracy(num_classes=10).update`` on 128x10 logits against the equivalent NumPy expression (argmax,
  then one bincount of ``target * C + pred`` into a confusion matrix and the per-class tp/fp/tn/fn the metric
  stores). Target: <= 3x. The bare ``(argmax == target).sum()`` is shown too for scale (it computes less).
- ``forward`` (batch value + accumulation) with ``full_state_update=False`` (one update, then a merge by each
  state's reduction) and ``True`` (two updates), relative to one ``update``.
"""
from __future__ import annotations

import timeit

import numpy as np

import ember as em
from ember.metrics import MeanSquaredError, MulticlassAccuracy


def best(fn, number, repeat=5):
    """Best time per call in seconds."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def _inputs(batch=128, classes=10):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((batch, classes)).astype(np.float32)
    target = rng.integers(0, classes, batch)
    return logits, target


def update_vs_numpy(number=3000):
    logits, target = _inputs()
    classes = logits.shape[1]
    state = {k: np.zeros(classes, np.int64) for k in ("tp", "fp", "tn", "fn")}

    def numpy_equivalent():
        pred = logits.argmax(1)
        confmat = np.bincount(target * classes + pred, minlength=classes * classes).reshape(classes, classes)
        tp = confmat.diagonal()
        fp = confmat.sum(0) - tp
        fn = confmat.sum(1) - tp
        state["tp"] += tp
        state["fp"] += fp
        state["fn"] += fn
        state["tn"] += target.size - (tp + fp + fn)

    def numpy_bare():
        return (logits.argmax(1) == target).sum()

    lt, tt = em.tensor(logits), em.tensor(target)
    metric = MulticlassAccuracy(num_classes=classes)
    unchecked = MulticlassAccuracy(num_classes=classes, validate_args=False)
    t_np = best(numpy_equivalent, number)
    t_bare = best(numpy_bare, number)
    t_metric = best(lambda: metric.update(lt, tt), number)
    t_unchecked = best(lambda: unchecked.update(lt, tt), number)
    return [
        ("numpy: argmax + bincount confmat + tp/fp/tn/fn", t_np * 1e6, 1.0, "-"),
        ("numpy: (argmax == target).sum() (less work)", t_bare * 1e6, t_bare / t_np, "-"),
        ("MulticlassAccuracy.update (validate_args=True)", t_metric * 1e6, t_metric / t_np, "<= 3x"),
        ("MulticlassAccuracy.update (validate_args=False)", t_unchecked * 1e6, t_unchecked / t_np, "-"),
    ]


def forward_modes(number=2000):
    logits, target = _inputs()
    lt, tt = em.tensor(logits), em.tensor(target)
    rows = []
    cases = [("MulticlassAccuracy", lambda: MulticlassAccuracy(num_classes=10), (lt, tt)),
             ("MeanSquaredError", MeanSquaredError, (em.tensor(logits[:, 0]), em.tensor(logits[:, 1])))]
    for name, make, args in cases:
        base = make()
        t_update = best(lambda: base.update(*args), number)
        rows.append((f"{name}.update", t_update * 1e6, 1.0, "-"))
        for mode in (False, True):
            metric = make()
            metric.__class__ = type(type(metric).__name__, (type(metric),), {"full_state_update": mode})
            t = best(lambda: metric(*args), number)
            rows.append((f"{name} forward, full_state_update={mode}", t * 1e6, t / t_update, "-"))
    return rows


def main():
    print(f"{'case':<52}{'time':>10}  {'ratio':>7}  target")
    print("-" * 82)
    print("update on 128x10 logits, ratio to numpy doing the same counting")
    for name, us, ratio, target in update_vs_numpy():
        print(f"  {name:<50}{us:>8.1f}us  {ratio:>6.2f}x  {target}")
    print("forward (batch value + accumulation), ratio to one update")
    for name, us, ratio, target in forward_modes():
        print(f"  {name:<50}{us:>8.1f}us  {ratio:>6.2f}x  {target}")


if __name__ == "__main__":
    main()
