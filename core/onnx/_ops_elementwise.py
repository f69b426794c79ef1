"""Elementwise arithmetic, math, comparisons and selection (``add``, ``exp``, ``eq``, ``where``, ``clamp``...)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._common import promoted, result_np_dtype
from ._registry import op

__all__ = []


def _binary(onnx_op):
    def mapping(g, call):
        dtype = result_np_dtype(call)
        a, b = call.arg("input"), call.arg("other")
        alpha = call.arg("alpha", 1)
        b_name = g.value(b, dtype)
        if alpha != 1:
            b_name = g.op("Mul", [b_name, g.const(alpha, dtype)])
        return g.op(onnx_op, [g.value(a, dtype), b_name])
    return mapping


for _name, _onnx in (("add", "Add"), ("sub", "Sub"), ("mul", "Mul"), ("multiply", "Mul"), ("subtract", "Sub"),
                     ("maximum", "Max"), ("minimum", "Min"), ("fmax", "Max"), ("fmin", "Min")):
    op(_name, _name + "_")(_binary(_onnx))


@op("rsub")
def _rsub(g, call):
    dtype = result_np_dtype(call)
    other = g.value(call.arg("other"), dtype)
    alpha = call.arg("alpha", 1)
    x = g.value(call.arg("input"), dtype)
    if alpha != 1:
        x = g.op("Mul", [x, g.const(alpha, dtype)])
    return g.op("Sub", [other, x])


@op("div", "div_", "divide", "true_divide", "floor_divide", "floor_divide_")
def _div(g, call):
    dtype = result_np_dtype(call)
    mode = call.arg("rounding_mode")
    if call.name.startswith("floor_divide"):
        mode = "floor"
    a, b = call.arg("input"), call.arg("other")
    if mode is None:
        return g.op("Div", [g.value(a, dtype), g.value(b, dtype)])
    if np.issubdtype(dtype, np.integer) and mode == "trunc":
        return g.op("Div", [g.value(a, dtype), g.value(b, dtype)])  # ONNX integer Div truncates
    work = dtype if np.issubdtype(dtype, np.floating) else np.float64
    q = g.op("Div", [g.value(a, work), g.value(b, work)])
    q = g.op("Floor", [q]) if mode == "floor" else _trunc(g, q)
    return q if work == dtype else g.cast(q, dtype)


def _trunc(g, x):
    # trunc(x) = sign(x) * floor(|x|)
    return g.op("Mul", [g.op("Sign", [x]), g.op("Floor", [g.op("Abs", [x])])])


@op("remainder", "remainder_", "fmod")
def _remainder(g, call):
    dtype = result_np_dtype(call)
    a, b = g.value(call.arg("input"), dtype), g.value(call.arg("other"), dtype)
    fmod = int(call.name == "fmod" or np.issubdtype(dtype, np.floating))
    r = g.op("Mod", [a, b], fmod=fmod)
    if call.name == "fmod" or not fmod:
        return r  # integer Mod with fmod=0 already takes the divisor's sign, as Python's % does
    # Python's remainder takes the divisor's sign: add b where r and b differ in sign and r != 0
    zero = g.const(0, dtype)
    differ = g.op("Xor", [g.op("Less", [r, zero]), g.op("Less", [b, zero])])
    fix = g.op("And", [differ, g.op("Not", [g.op("Equal", [r, zero])])])
    return g.op("Where", [fix, g.op("Add", [r, b]), r])


@op("pow", "pow_", "float_power")
def _pow(g, call):
    dtype = result_np_dtype(call)
    base = call.arg("input")
    exponent = call.arg("exponent", call.arg("other"))
    if not isinstance(base, Tensor):  # pow(scalar, tensor)
        return g.op("Pow", [g.const(base, dtype), g.value(exponent, dtype)])
    if not isinstance(exponent, Tensor) and exponent == 2:
        x = g.value(base, dtype)
        return g.op("Mul", [x, x])
    return g.op("Pow", [g.value(base, dtype), g.value(exponent, dtype)])


@op("square", "square_")
def _square(g, call):
    x = g.value(call.arg("input"), result_np_dtype(call))
    return g.op("Mul", [x, x])


_UNARY = {
    "neg": "Neg", "negative": "Neg", "abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "sin": "Sin",
    "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh",
    "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh", "tanh": "Tanh", "sigmoid": "Sigmoid", "erf": "Erf",
    "reciprocal": "Reciprocal", "sign": "Sign", "floor": "Floor", "ceil": "Ceil", "round": "Round",
    "logical_not": "Not", "bitwise_not": "Not", "isnan": "IsNaN", "relu": "Relu",
}


def _unary(onnx_op):
    def mapping(g, call):
        x = call.arg("input")
        dtype = x._data.dtype if onnx_op in ("IsNaN", "Not") else result_np_dtype(call)
        if onnx_op == "Not" and dtype != np.bool_:
            return NotImplemented  # bitwise not of integers has no ONNX op before opset 18's BitwiseNot
        return g.op(onnx_op, [g.value(x, dtype)])
    return mapping


for _name, _onnx in _UNARY.items():
    op(_name, _name + "_")(_unary(_onnx))


@op("positive")
def _positive(g, call):
    return g.value(call.arg("input"))


@op("rsqrt", "rsqrt_")
def _rsqrt(g, call):
    return g.op("Reciprocal", [g.op("Sqrt", [g.value(call.arg("input"), result_np_dtype(call))])])


@op("log2", "log10", "log1p", "expm1", "exp2")
def _log_family(g, call):
    dtype = result_np_dtype(call)
    x = g.value(call.arg("input"), dtype)
    one = g.const(1, dtype)
    if call.name == "log1p":
        return g.op("Log", [g.op("Add", [x, one])])
    if call.name == "expm1":
        return g.op("Sub", [g.op("Exp", [x]), one])
    if call.name == "exp2":
        return g.op("Pow", [g.const(2, dtype), x])
    base = 2.0 if call.name == "log2" else 10.0
    return g.op("Div", [g.op("Log", [x]), g.const(np.log(base), dtype)])


@op("trunc", "trunc_", "fix")
def _trunc_map(g, call):
    dtype = result_np_dtype(call)
    x = g.value(call.arg("input"), dtype)
    return x if np.issubdtype(dtype, np.integer) else _trunc(g, x)


@op("isinf")
def _isinf(g, call):
    return g.op("IsInf", [g.value(call.arg("input"))])


@op("isfinite")
def _isfinite(g, call):
    x = g.value(call.arg("input"))
    return g.op("Not", [g.op("Or", [g.op("IsInf", [x]), g.op("IsNaN", [x])])])


_COMPARE = {"eq": ("Equal", False), "ne": ("Equal", True), "lt": ("Less", False), "le": ("LessOrEqual", False),
            "gt": ("Greater", False), "ge": ("GreaterOrEqual", False), "equal_elementwise": ("Equal", False),
            "not_equal": ("Equal", True), "less": ("Less", False), "greater": ("Greater", False),
            "less_equal": ("LessOrEqual", False), "greater_equal": ("GreaterOrEqual", False)}


def _compare(onnx_op, negate):
    def mapping(g, call):
        a, b = call.arg("input"), call.arg("other")
        dtype = promoted(a, b)
        out = g.op(onnx_op, [g.value(a, dtype), g.value(b, dtype)])
        return g.op("Not", [out]) if negate else out
    return mapping


for _name, (_onnx, _neg) in _COMPARE.items():
    op(_name)(_compare(_onnx, _neg))


def _logical(onnx_op):
    def mapping(g, call):
        a, b = call.arg("input"), call.arg("other")
        return g.op(onnx_op, [g.value(a, np.bool_), g.value(b, np.bool_)])
    return mapping


for _name, _onnx in (("logical_and", "And"), ("logical_or", "Or"), ("logical_xor", "Xor")):
    op(_name, _name + "_")(_logical(_onnx))


def _bitwise(onnx_op):
    def mapping(g, call):
        if result_np_dtype(call) != np.bool_:
            return NotImplemented
        return g.op(onnx_op, [g.value(call.arg("input"), np.bool_), g.value(call.arg("other"), np.bool_)])
    return mapping


for _name, _onnx in (("bitwise_and", "And"), ("bitwise_or", "Or"), ("bitwise_xor", "Xor")):
    op(_name, _name + "_")(_bitwise(_onnx))


@op("where")
def _where(g, call):
    cond, a, b = call.arg("condition"), call.arg("input"), call.arg("other")
    if "y" in call.bound():  # the method form: x.where(condition, y)
        b = call.arg("y")
    if a is None and b is None:
        return NotImplemented  # where(condition) is nonzero(as_tuple=True)
    dtype = result_np_dtype(call)
    return g.op("Where", [g.value(cond, np.bool_), g.value(a, dtype), g.value(b, dtype)])


@op("masked_fill", "masked_fill_")
def _masked_fill(g, call):
    dtype = result_np_dtype(call)
    return g.op("Where", [g.value(call.arg("mask"), np.bool_), g.value(call.arg("value"), dtype),
                          g.value(call.arg("input"), dtype)])


@op("clamp", "clamp_", "clip", "clip_", "clamp_min", "clamp_min_", "clamp_max", "clamp_max_")
def _clamp(g, call):
    dtype = result_np_dtype(call)
    lo, hi = call.arg("min"), call.arg("max")
    if call.name.startswith("clamp_max"):
        lo = None
    x = g.value(call.arg("input"), dtype)
    if lo is not None:
        x = g.op("Max", [x, g.value(lo, dtype)])
    if hi is not None:
        x = g.op("Min", [x, g.value(hi, dtype)])
    return x


@op("lerp", "lerp_")
def _lerp(g, call):
    dtype = result_np_dtype(call)
    a, b = g.value(call.arg("input"), dtype), g.value(call.arg("end"), dtype)
    w = g.value(call.arg("weight"), dtype)
    return g.op("Add", [a, g.op("Mul", [w, g.op("Sub", [b, a])])])


@op("addcmul", "addcdiv", "addcmul_", "addcdiv_")
def _addc(g, call):
    dtype = result_np_dtype(call)
    t1, t2 = g.value(call.arg("tensor1"), dtype), g.value(call.arg("tensor2"), dtype)
    prod = g.op("Mul" if call.name.startswith("addcmul") else "Div", [t1, t2])
    value = call.arg("value", 1)
    if value != 1:
        prod = g.op("Mul", [prod, g.const(value, dtype)])
    return g.op("Add", [g.value(call.arg("input"), dtype), prod])
