"""No import cycle inside ``ember.core`` (DESIGN: "when two modules need each other, the shared piece moves down").

A static check of core's own import graph. Every ``import`` statement of every module counts, including those inside
functions: a lazy import only hides a cycle from the interpreter, not from the reader. Blocks that never run on
import (``if __name__ == "__main__":`` and ``if TYPE_CHECKING:``) are skipped. An edge goes to the module named by
the import (``from .ops import shape`` -> ``ops.shape``; ``from .ops import add`` -> the ``ops`` package itself).
"""
import ast
import os

import pytest

import ember.core as core

CORE_DIR = os.path.dirname(core.__file__)


def _module_name(path, root):
    rel = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
    parts = ["ember", "core"] + [p for p in rel.split(".") if p != "__init__"]
    return ".".join(parts)


def core_modules(root=CORE_DIR):
    """``{dotted module name: file path}`` for every module of ``ember.core`` (or of a package laid out like it)."""
    mods = {}
    for folder, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                mods[_module_name(path, root)] = path
    return mods


def _skipped_block(node):
    """``if __name__ == "__main__":`` / ``if TYPE_CHECKING:`` bodies do not run when the module is imported."""
    if not isinstance(node, ast.If):
        return False
    test = ast.dump(node.test)
    return "'__main__'" in test or "TYPE_CHECKING" in test


def _import_nodes(tree):
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if _skipped_block(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def import_graph(mods):
    """``{module: set of core modules it imports}``."""
    graph = {}
    for name, path in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        targets = set()
        for node in _import_nodes(tree):
            if isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    base = ".".join(base + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                candidates = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for target in candidates:
                while target and target not in mods:  # `import ember.core.x.y` -> the deepest core module named
                    target = target.rpartition(".")[0]
                if target and target != name:
                    targets.add(target)
        graph[name] = targets
    return graph


def find_cycle(graph):
    """One import cycle as a list ``[a, b, ..., a]``, or None (iterative depth-first search)."""
    state = {}  # 1: on the current path, 2: done
    for root in sorted(graph):
        if root in state:
            continue
        path, iters = [root], [iter(sorted(graph[root]))]
        state[root] = 1
        while path:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(sorted(graph.get(nxt, ()))))
    return None


def test_core_has_no_import_cycle():
    cycle = find_cycle(import_graph(core_modules()))
    assert cycle is None, "import cycle inside ember.core: " + " -> ".join(cycle)


def test_tensor_imports_nothing_from_autograd():
    # Tensor.backward / register_hook are bound by autograd, as ops bind their methods
    graph = import_graph(core_modules())
    assert not {m for m in graph["ember.core.tensor"] if m.startswith("ember.core.autograd")}


def test_ops_import_nothing_from_the_packages_built_on_them():
    # linalg and nn.functional are built from ops: ops reach linalg only through the table linalg fills
    # (ops/_linalg_table.py), and softmax's kernels live in ops
    graph = import_graph(core_modules())
    upward = {(m, t) for m, targets in graph.items() if m.startswith("ember.core.ops")
              for t in targets if t.startswith(("ember.core.linalg", "ember.core.nn", "ember.core.fft"))}
    assert upward == set()


def test_check_finds_a_cycle(tmp_path):
    # the check itself can fail: two modules importing each other, one of them lazily
    pkg = tmp_path / "core"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import f\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    (pkg / "c.py").write_text("if __name__ == '__main__':\n    from . import a\n")
    graph = import_graph(core_modules(str(pkg)))
    assert graph["ember.core.c"] == set()
    assert find_cycle(graph) in (["ember.core.a", "ember.core.b", "ember.core.a"],
                                 ["ember.core.b", "ember.core.a", "ember.core.b"])


@pytest.mark.parametrize("graph, expected", [({"x": {"y"}, "y": set()}, None),
                                             ({"x": {"x2"}, "x2": {"x"}}, ["x", "x2", "x"])])
def test_find_cycle(graph, expected):
    assert find_cycle(graph) == expected
