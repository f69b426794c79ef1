"""``ember.func``: the part of ``torch.func`` that ember has, which is :func:`functional_call` only.

``torch.func``'s transforms (``vmap``, ``grad``, ``jacrev``, ``jacfwd``, ``hessian``, ...) are out of scope: ember
has no vmap or forward-mode AD. For Jacobians and Hessians use :mod:`ember.autograd.functional`; for gradients w.r.t.
the tensors given to ``functional_call``, use :func:`ember.autograd.grad` on its result.
"""
from .nn.utils.stateless import _func_functional_call as functional_call

# this namespace is its public home, as torch.func's is for torch's (its __module__ is "torch.func")
functional_call.__module__ = __name__
functional_call.__name__ = functional_call.__qualname__ = "functional_call"

__all__ = ["functional_call"]
