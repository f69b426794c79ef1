"""``ember.version``: the build's version and the GPU toolkits it was built against (``torch.version``).

ember is pure Python on NumPy, built against no CUDA, ROCm or XPU toolkit, so those are None, as in a CPU-only
PyTorch: ``if em.version.cuda is not None`` is how scripts ask whether the build has GPU support.
"""
__version__ = "0.1.0"  # the package's version (``ember.__version__`` is this one)
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"  # not built from a git checkout by a release process

__all__ = ["__version__", "cuda", "hip", "rocm", "xpu", "debug", "git_version"]
