"""Record what a model executes: a tree of op calls and module calls, built on :mod:`ember.core.observe`.

Every public op the model calls becomes a :class:`Call` (nested calls become its children, e.g. ``linear`` around
``matmul``), and every module call becomes a :class:`Call` too (through the global module forward hooks), so the
exporter can map a whole module (``LSTM``) or a whole op (``linear``) and fall back to what it called inside when it
has no mapping for it.
"""
from __future__ import annotations

import gc
import inspect

from ..nn.modules import module as _module
from ..observe import observe_ops
from ..tensor import Tensor

__all__ = ["Call", "trace"]

_SIGNATURES: dict = {}


def _signature(fn):
    sig = _SIGNATURES.get(fn)
    if sig is None:
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = False
        _SIGNATURES[fn] = sig
    return sig


class Call:
    """One op call or module call seen while tracing: what was called, with what, what it returned, where.

    ``scope`` is the dotted path of the innermost module whose forward made the call (``""`` for the model itself);
    ``module`` is the module for a module call, None for an op call.
    """

    __slots__ = ("name", "fn", "args", "kwargs", "result", "scope", "module", "children", "probe", "_bound", "keep",
                 "existing")

    def __init__(self, name, fn, args, kwargs, scope, module=None):
        self.name, self.fn, self.args, self.kwargs = name, fn, args, kwargs
        self.scope, self.module = scope, module
        self.result = None
        self.children: list = []
        self.probe = None  # the same call in the probe trace (run at other sizes of the dynamic axes)
        self._bound = None
        self.keep = None
        self.existing = None

    def bound(self) -> dict:
        """The arguments by parameter name, defaults filled in; ``self`` is called ``input``."""
        if self._bound is None:
            sig = _signature(self.fn)
            if not sig:
                out = {f"arg{i}": a for i, a in enumerate(self.args)}
                out.update(self.kwargs)
            else:
                try:
                    ba = sig.bind(*self.args, **self.kwargs)
                except TypeError:
                    ba = None
                if ba is None:
                    out = {f"arg{i}": a for i, a in enumerate(self.args)}
                    out.update(self.kwargs)
                else:
                    ba.apply_defaults()
                    out = dict(ba.arguments)
                    if "self" in out:  # Tensor methods written with ``self``: the same argument as ``input``
                        out["input"] = out.pop("self")
            self._bound = out
        return self._bound

    def arg(self, name, default=None):
        """The argument bound to parameter ``name`` (see :meth:`bound`), or ``default``."""
        return self.bound().get(name, default)

    def where(self) -> str:
        """The module path where the call happened, for error messages."""
        return f"module '{self.scope}'" if self.scope else "the model's own forward"

    def __repr__(self) -> str:
        return f"Call({self.name!r} in {self.where()}, {len(self.children)} children)"


class _Recorder:
    """The op observer and module hooks that build the call tree."""

    def __init__(self, model):
        # reflected operators (``1 - x`` runs ``x.__rsub__(1)``) are recorded with their operands in written order
        self.reflected = {getattr(v, "__wrapped__", v) for attr, v in vars(Tensor).items()
                          if attr.startswith("__r") and attr.endswith("__") and callable(v)}
        self.paths = {id(m): name for name, m in model.named_modules()}
        self.root = Call("<model>", None, (), {}, "")
        self.stack = [self.root]
        self.keep: list = []  # every result stays alive, so no id() is reused while the graph is built

    def _scope(self) -> str:
        for call in reversed(self.stack):
            if call.module is not None:
                return self.paths.get(id(call.module), type(call.module).__name__)
        return ""

    def enter(self, name, fn, args, kwargs):
        if fn in self.reflected and len(args) == 2:
            args = (args[1], args[0])
        call = Call(name, fn, args, kwargs, self._scope())
        self.stack[-1].children.append(call)
        self.stack.append(call)
        return call

    def exit(self, token, result):
        while len(self.stack) > 1 and self.stack.pop() is not token:
            pass
        token.result = result
        self.keep.append(result)

    def pre_hook(self, module, args):
        scope = self._scope()
        call = Call(f"module:{type(module).__name__}", type(module), args, {}, scope, module)
        self.stack[-1].children.append(call)
        self.stack.append(call)

    def hook(self, module, args, result):
        while len(self.stack) > 1:
            call = self.stack.pop()
            if call.module is module:
                call.result = result
                self.keep.append(result)
                break


def trace(model, args):
    """Run ``model(*args)`` and return ``(root call, outputs)``; the root's children are the top-level calls."""
    rec = _Recorder(model)
    # tensors alive before the run: constants the model may use (anything else not made by an op was computed
    # behind the exporter's back)
    rec.root.existing = {id(o): o for o in gc.get_objects() if isinstance(o, Tensor)}
    pre = _module.register_module_forward_pre_hook(rec.pre_hook)
    post = _module.register_module_forward_hook(rec.hook, always_call=True)
    try:
        with observe_ops(rec):
            outputs = model(*args)
    finally:
        pre.remove()
        post.remove()
    rec.root.result = outputs
    rec.root.keep = rec.keep
    return rec.root, outputs


def walk(call):
    """Yield ``call`` and every call under it, depth first, in execution order."""
    yield call
    for child in call.children:
        yield from walk(child)
