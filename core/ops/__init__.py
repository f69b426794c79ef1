"""Differentiable ops by family. Importing this package binds every op as a Tensor method too.

Each module lists its public functions in ``__all__``; the union is re-exported as the ``ember`` tensor API.
"""
from ._out import add_out_argument
from . import (arithmetic, clamp_where, compare, complex, conversion, creation, diagonals, exp_log,  # noqa
               gamma, gather_scatter, grids, index, inplace, products, reduce, reducing_writes, rounding, sampling,
               scaled_products, shape, softmax, sorting, special, statistics, strided, tensor_only, trig, windows)

# (``math`` is not listed: it only re-exports the elementwise families clamp_where, exp_log, rounding, special, trig)
_MODULES = (arithmetic, clamp_where, compare, complex, conversion, creation, diagonals, exp_log, gamma, gather_scatter,
            grids, index, inplace, products, reduce, reducing_writes, rounding, sampling, scaled_products, shape,
            softmax, sorting, special, statistics, strided, tensor_only, trig, windows)

__all__ = []
for _m in _MODULES:
    for _name in _m.__all__:
        globals()[_name] = getattr(_m, _name)
        __all__.append(_name)

# The functions that take ``out=`` in PyTorch (the Tensor methods never do). One helper gives them all its rules.
_OUT = """
add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow neg negative abs absolute
matmul mm bmm dot vdot outer mv addmm
clamp clip clamp_min clamp_max maximum minimum fmax fmin where lerp nan_to_num
eq ne gt ge lt le greater greater_equal less less_equal not_equal logical_and logical_or logical_xor logical_not
bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift isposinf isneginf
angle conj_physical
zeros ones empty full eye arange linspace logspace rand randn randint randperm multinomial
exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square reciprocal sigmoid logit xlogy logaddexp logaddexp2
gather scatter scatter_add index_select index_add index_copy masked_select nonzero take take_along_dim
tensordot kron inverse cholesky cholesky_solve cholesky_inverse matrix_power cross chain_matmul svd qr
sum mean prod max min amax amin aminmax argmax argmin var std logsumexp cumsum cumprod norm all any nansum nanmean
floor ceil round trunc fix frac sign sgn
cat concat concatenate stack hstack vstack row_stack dstack column_stack tril triu
sort msort topk kthvalue median nanmedian mode histc histogram searchsorted bucketize cummax cummin diff diag
erf erfc erfinv lgamma digamma polygamma mvlgamma i0 sinc
addmv addr baddbmm addbmm inner ger logcumsumexp scatter_reduce index_reduce heaviside ldexp frexp
sin cos tan asin acos atan arcsin arccos arctan atan2 arctan2 hypot sinh cosh tanh asinh acosh atanh arcsinh
arccosh arctanh
""".split()
_FACTORIES = {"zeros", "ones", "empty", "full", "eye", "arange", "linspace", "logspace", "rand", "randn", "randint",
              "randperm"}
add_out_argument(globals(), _OUT, _FACTORIES)
