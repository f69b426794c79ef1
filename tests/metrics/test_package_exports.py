"""The classification packages re-export their files without repeating the names (issue 20): each package's
``__all__`` is exactly the union of its files' ``__all__``, and every name is reachable from the package."""
import importlib
import pkgutil

import pytest


@pytest.mark.parametrize("package", ["ember.metrics.classification", "ember.metrics.functional.classification"])
def test_package_all_is_the_union_of_its_files(package):
    pkg = importlib.import_module(package)
    files = sorted(info.name for info in pkgutil.iter_modules(pkg.__path__) if not info.name.startswith("_"))
    expected = [name for f in files for name in importlib.import_module(f"{package}.{f}").__all__]
    assert pkg.__all__ == expected and len(expected) == 66
    for f in files:
        module = importlib.import_module(f"{package}.{f}")
        for name in module.__all__:
            assert getattr(pkg, name) is getattr(module, name), name


def test_the_top_level_metrics_namespace_keeps_every_classification_name():
    import ember.metrics as metrics
    import ember.metrics.classification as classification
    import ember.metrics.functional as functional
    import ember.metrics.functional.classification as functional_classification
    assert set(classification.__all__) <= set(metrics.__all__)
    assert {"Accuracy", "BinaryAUROC", "MulticlassF1Score", "MultilabelStatScores"} <= set(classification.__all__)
    assert all(hasattr(functional, n) for n in functional_classification.__all__)
