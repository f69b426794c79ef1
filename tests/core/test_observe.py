"""The op/node observation seam shared by the profiler, the ONNX exporter and anomaly mode."""
import ember as em
from ember.core.observe import observe_nodes, observe_ops, op_name


class Recorder:
    def __init__(self):
        self.events, self.depth = [], 0

    def enter(self, name, fn, args, kwargs):
        self.events.append(("  " * self.depth) + name)
        self.depth += 1
        return name

    def exit(self, token, result):
        self.depth -= 1
        self.events.append(f"/{token}:{type(result).__name__}")

    def enter_node(self, node, grads):
        self.events.append("B:" + type(node).__name__)
        return node

    def exit_node(self, token, node, grads):
        self.events.append(f"/B:{len(grads)}")


def test_ops_and_nodes_are_observed_in_order_and_originals_restored():
    lin = em.nn.Linear(3, 2)
    x = em.randn(4, 3)
    add, getitem, relu = em.Tensor.__add__, em.Tensor.__getitem__, em.relu
    rec = Recorder()
    with observe_ops(rec), observe_nodes(rec):
        y = (lin(x).relu() + 1).sum()
        y.backward()
        x[0]
    assert rec.events == [
        "linear", "/linear:Tensor", "relu", "/relu:Tensor", "add", "/add:Tensor", "sum", "/sum:Tensor",
        "B:SumBackward0", "/B:1", "B:AddBackward0", "/B:2", "B:ReluBackward0", "/B:1", "B:AddmmBackward0", "/B:3",
        "index", "/index:Tensor"]
    assert em.Tensor.__add__ is add and em.Tensor.__getitem__ is getitem and em.relu is relu
    rec.events.clear()
    x + 1
    assert rec.events == []


def test_an_op_that_raises_still_exits_with_none():
    rec = Recorder()
    a, b = em.randn(2, 3), em.randn(4, 5)
    with observe_ops(rec):
        try:
            a @ b
        except RuntimeError:
            pass
    assert rec.events == ["matmul", "/matmul:NoneType"]


def test_op_names_follow_pytorch():
    assert [op_name(n) for n in ("__radd__", "__imul__", "__truediv__", "__getitem__", "conv2d")] == [
        "add", "mul_", "div", "index", "conv2d"]


def test_node_observers_see_the_gradients_a_node_receives():
    seen = []

    class Grads:
        def enter_node(self, node, grads):
            seen.append((type(node).__name__, [g.tolist() for g in grads]))

        def exit_node(self, token, node, grads):
            pass

    x = em.tensor([1.0, 2.0], requires_grad=True)
    with observe_nodes(Grads()):
        (x * 3).backward(em.tensor([10.0, 20.0]))
    assert seen == [("MulBackward0", [[10.0, 20.0]])]
