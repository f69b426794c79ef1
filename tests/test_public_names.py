"""A public function carries its public name: ``F.softmax.__name__ == "softmax"``, as in PyTorch.

Tracebacks, ``repr`` of a function, the profiler's op names and ``help()`` show ``__name__``, so a kernel published
under another name (``_softmax`` re-exported as ``softmax``) confuses all of them. The one exception is an alias
that PyTorch documents as "Alias for torch.X()": ember publishes the very same function object under both names,
(underneath its ``out=`` wrapper), so it cannot carry both; each alias is listed here with the name it is an alias of.
"""
import inspect
import types

import pytest

import ember
import ember.nn.functional as F

# alias -> the public name of the function it is (PyTorch's "Alias for torch.<name>()" functions)
ALIASES = {
    "subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div", "negative": "neg",
    "absolute": "abs", "clip": "clamp", "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
    "not_equal": "ne", "fix": "trunc", "swapaxes": "transpose", "swapdims": "transpose", "concat": "cat",
    "concatenate": "cat", "row_stack": "vstack", "moveaxis": "movedim", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "arctan2": "atan2", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
}

NAMESPACES = {"ember": ember, "ember.nn.functional": F}


def _plain_functions(module):
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for name in names:
        obj = getattr(module, name)
        if isinstance(obj, types.FunctionType):
            yield name, obj


@pytest.mark.parametrize("namespace", sorted(NAMESPACES))
def test_public_functions_carry_their_public_names(namespace):
    module = NAMESPACES[namespace]
    wrong = {name: fn.__name__ for name, fn in _plain_functions(module)
             if fn.__name__ != name and name not in ALIASES}
    assert wrong == {}, f"public name -> __name__ in {namespace}"


def test_each_listed_alias_is_the_function_of_its_public_name():
    for alias, name in ALIASES.items():
        fn = getattr(ember, alias)
        # the same function underneath (each public name gets its own ``out=`` wrapper)
        assert inspect.unwrap(fn) is inspect.unwrap(getattr(ember, name)), alias
        assert fn.__name__ == name, alias


def test_softmax_and_log_softmax_of_nn_functional_are_documented_under_their_names():
    for name in ("softmax", "log_softmax"):
        fn = getattr(F, name)
        assert (fn.__name__, fn.__qualname__) == (name, name)
        assert fn.__module__ == "ember.core.nn.functional._activation"
        assert "dim" in fn.__doc__ and "dtype" in fn.__doc__
