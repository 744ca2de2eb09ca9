"""The structured-trace event kinds a torch source tree writes, read off its call sites (no torch imported).

    python tests/torch_trace_kinds.py [TORCH_PACKAGE_DIR]

prints each kind with where torch writes it, and those ``engine/trace/model/torch_kinds.py`` does not know.  A
call site is a ``trace_structured``/``dtrace_structured`` call (its first argument; for ``"artifact"`` the
``"name"`` of the dict its metadata function returns) or a ``trace_structured_artifact`` call (its first
argument).  A name torch makes at run time (an f-string, a variable) is listed as ``<…>`` with its expression:
``torch_kinds.TORCH_WRITES_PATTERNS`` is what covers those.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

_CALLS = ("trace_structured", "dtrace_structured")


def _literals(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return [f"<{ast.unparse(node)}>"]


def _artifact_name(metadata: ast.AST) -> list[str]:
    for sub in ast.walk(metadata):
        if isinstance(sub, ast.Dict):
            for key, value in zip(sub.keys, sub.values):
                if isinstance(key, ast.Constant) and key.value == "name" and value is not None:
                    return _literals(value)
    return []


def written_kinds(torch_dir: Path) -> dict[str, list[str]]:
    """Each kind the source tree writes -> its call sites (``path:line``); run-time names as ``<expr>``."""
    found: dict[str, list[str]] = {}
    for path in sorted(torch_dir.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "trace_structured" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            kinds: list[str] = []
            if name in _CALLS:
                for event in _literals(node.args[0]):
                    if event != "artifact":
                        kinds.append(event)
                        continue
                    metadata = node.args[1] if len(node.args) > 1 else None
                    metadata = metadata or next((k.value for k in node.keywords if k.arg == "metadata_fn"), None)
                    kinds += _artifact_name(metadata) if metadata is not None else []
            elif name == "trace_structured_artifact":
                kinds = _literals(node.args[0])
            for kind in kinds:
                found.setdefault(kind, []).append(f"{path.relative_to(torch_dir)}:{node.lineno}")
    return found


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernel_side"))
    from compile_profile.engine.trace.log_import import is_known_kind

    if len(sys.argv) > 1:
        root = Path(sys.argv[1])
    else:
        import importlib.util

        spec = importlib.util.find_spec("torch")
        assert spec is not None and spec.origin is not None
        root = Path(spec.origin).parent
    for kind, sites in sorted(written_kinds(root).items()):
        known = "" if kind.startswith("<") or is_known_kind(kind) else "   NOT KNOWN"
        print(f"{kind}  {sites[0]}{known}")
