"""``ember.return_types``: the named tuples ops return, printed as PyTorch prints ``torch.return_types``.

``em.topk(x, 2)`` gives ``ember.return_types.topk(values=..., indices=...)``: a tuple that unpacks as
``values, indices = ...`` and also names its fields. Every op with a named result builds its type here, so they all
print alike (one field per line, as PyTorch does).
"""
from __future__ import annotations

import collections

__all__ = ["return_type"]


def return_type(name: str, fields, doc: str = None):
    """Create (once) and register the named-tuple type ``ember.return_types.<name>`` with ``fields``."""
    existing = globals().get(name)
    if existing is not None:
        return existing
    fields = tuple(fields)
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"ember.return_types.{name}(\n{body})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "ember.return_types",
                               "__doc__": doc or f"``({', '.join(fields)})`` returned by ``{name}``."})
    globals()[name] = cls
    return cls


for _name in ("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin"):
    return_type(_name, ("values", "indices"), f"``(values, indices)`` returned by ``{_name}`` along a dim.")
return_type("aminmax", ("min", "max"))
return_type("histogram", ("hist", "bin_edges"))
return_type("svd", ("U", "S", "V"))
return_type("qr", ("Q", "R"))
return_type("slogdet", ("sign", "logabsdet"))
return_type("linalg_slogdet", ("sign", "logabsdet"))
return_type("linalg_qr", ("Q", "R"))
return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
return_type("linalg_svd", ("U", "S", "Vh"))
return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
return_type("linalg_inv_ex", ("inverse", "info"))
return_type("linalg_cholesky_ex", ("L", "info"))
return_type("linalg_solve_ex", ("result", "info"))
