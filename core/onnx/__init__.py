"""``ember.onnx``: export a model to ONNX, as ``torch.onnx`` does (``em.onnx.export(model, args, "model.onnx")``).

The exporter traces the ops a model runs through :mod:`ember.core.observe` and maps each to ONNX nodes; the
``onnx`` package is imported only when an export runs (install it with ``pip install "ember[export]"``).

Layout: ``_trace.py`` records the call tree, ``_probe.py`` re-runs the model with the dynamic axes resized,
``_graph.py`` builds the ONNX graph, ``_convert.py`` walks the tree, ``_ops_*.py`` map each op family (registered
in ``_registry.py``), ``_export.py`` is the entry point.
"""
from ._export import export
from ._registry import OnnxExporterError, UnsupportedOperatorError

__all__ = ["export", "OnnxExporterError", "UnsupportedOperatorError"]
