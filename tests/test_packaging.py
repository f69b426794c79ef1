"""The package list in pyproject.toml covers every package folder, so a non-editable install is complete."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = {"tests", "examples", "benchmarks", "build", "dist", ".git", ".ci", ".ci-venv", ".venv"}


def _package_folders():
    found = set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        top = rel.split(os.sep)[0]
        if top in SKIP or top.endswith(".egg-info") or "__pycache__" in rel:
            dirnames[:] = []
            continue
        if "__init__.py" in filenames:
            found.add("ember" if rel == "." else "ember." + rel.replace(os.sep, "."))
    return found


def test_every_package_folder_is_listed_in_pyproject():
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    block = re.search(r"packages = \[(.*?)\]", text, re.S).group(1)
    listed = set(re.findall(r'"([\w.]+)"', block))
    assert _package_folders() == listed
