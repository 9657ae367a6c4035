"""No input, event or command type is written as a string literal outside ``rulebook/``.

The words of the protocol are the rulebook's enums (``rulebook.vocab``: ``InputType``,
``EventType``, ``CommandType``; StrEnums, so the JSON is the same); a type written as a plain
string is one a typo or a renamed word breaks without mypy noticing. This test reads the source
(``ast``) of the packages that speak to the table and fails naming ``file:line`` wherever such a
word is a string literal used as a type:

* the value of an ``"input"``, ``"type"`` or ``"cmd"`` key in a dict literal, or of an ``input=`` /
  ``type=`` / ``cmd=`` keyword (``{"input": "double"}``, ``j.add(input="tick")``);
* compared with such a field (``event.get("type") == "cmd_done"``, ``line["input"] in ("a", "b")``),
  with a name that holds one (``kind = event.get("type")`` … ``kind == "assign"``), or listed in a
  module constant such a field is compared with (``event.get("cmd") in CLEARING_COMMANDS``);
* assigned to a name that is then sent as a type (``kind = "take"`` … ``{"input": kind}``).

Other uses of the same words are not types and stay plain: a dialog named ``"pass"``, a clock
button named ``"pause"``, an MQTT topic ``"cmd"``, a JSON field read by its name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebook.vocab import CommandType, EventType, InputType

ROOT = Path(__file__).resolve().parents[1]
WORDS = frozenset(str.__str__(w) for w in (*InputType, *EventType, *CommandType))
#: the fields whose value is an input, event or command type
KEYS = frozenset({"input", "type", "cmd"})
#: the packages checked: everything that speaks to a table, apart from the rulebook itself
PACKAGES = ("kiosk", "drivers", "demo", "hub")
#: packages still being moved to the vocabulary (none now); one listed here must still fail
KNOWN_EXCEPTIONS: frozenset[str] = frozenset()


def _is_field_read(node: ast.AST) -> bool:
    """``x["type"]``, ``x.get("type")``, ``x.get("type", default)`` (also ``input``, ``cmd``)."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value in KEYS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        key = node.args[0]
        return node.func.attr in ("get", "pop") and isinstance(key, ast.Constant) and key.value in KEYS
    return False


def _words(node: ast.AST | None) -> Iterator[ast.Constant]:
    """The string literals of the vocabulary in an expression that yields a value (or values)."""
    if node is None:
        return
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str) and node.value in WORDS:
            yield node
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        for element in node.elts:
            yield from _words(element)
    elif isinstance(node, ast.IfExp):
        yield from _words(node.body)
        yield from _words(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _words(value)
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id
        in (
            "frozenset",
            "set",
            "tuple",
            "list",
        )
    ):
        for arg in node.args:
            yield from _words(arg)


def _scopes(tree: ast.Module) -> Iterator[ast.AST]:
    yield tree
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield node


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope`` outside the functions nested in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def _assigned(node: ast.AST) -> tuple[str, ast.AST] | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return node.target.id, node.value
    return None


def type_literals(source: str) -> list[tuple[int, str]]:
    """``(line, word)`` of every string literal used as an input, event or command type."""
    tree = ast.parse(source)
    found: dict[int, tuple[int, str]] = {}
    module_values = {name: value for node in tree.body if (pair := _assigned(node)) for name, value in [pair]}

    def flag(expr: ast.AST | None) -> None:
        for word in _words(expr):
            found[id(word)] = (word.lineno, word.value)

    for scope in _scopes(tree):
        nodes = list(_own_nodes(scope))
        assignments = [pair for node in nodes if (pair := _assigned(node))]
        # names that hold a type: read from a type field, or sent as one
        typed = {name for name, value in assignments if _is_field_read(value)}
        for node in nodes:
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value in KEYS and isinstance(value, ast.Name):
                        typed.add(value.id)
        for name, value in assignments:
            if name in typed:
                flag(value)
        for node in nodes:
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value in KEYS:
                        flag(value)
            elif isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg in KEYS:
                        flag(keyword.value)
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if not any(
                    _is_field_read(o) or (isinstance(o, ast.Name) and o.id in typed) for o in operands
                ):
                    continue
                for operand in operands:
                    flag(operand)
                    if isinstance(operand, ast.Name) and operand.id in module_values:
                        flag(module_values[operand.id])
    return sorted(found.values())


def _violations(package: str) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line}: {word!r}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, word in type_literals(path.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize("package", [p for p in PACKAGES if p not in KNOWN_EXCEPTIONS])
def test_no_input_event_or_command_type_is_a_string_literal(package: str) -> None:
    found = _violations(package)
    assert found == [], "use rulebook.vocab's enums:\n" + "\n".join(found)


def test_the_known_exceptions_still_need_to_be() -> None:
    """An exception that passes is removed from the list, so it cannot come back unnoticed."""
    for package in KNOWN_EXCEPTIONS:
        assert _violations(package), f"{package}/ passes now: remove it from KNOWN_EXCEPTIONS"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('x = {"input": "double", "side": "A"}', [(1, "double")]),
        ('j.add(10, input="tick")', [(1, "tick")]),
        ('cmd = {"input": "cmd", "type": "resolve_flag"}', [(1, "cmd"), (1, "resolve_flag")]),
        ('if e.get("type") == "cmd_done": pass', [(1, "cmd_done")]),
        ('ok = line["input"] in ("assign", "tick")', [(1, "assign"), (1, "tick")]),
        ('def f(e):\n    kind = e.get("type")\n    return kind == "assign"', [(3, "assign")]),
        (
            'def f(r):\n    kind = "take" if r else "pass"\n    return {"input": kind}',
            [(2, "pass"), (2, "take")],
        ),
        (
            'C = frozenset({"resume", "td_ack"})\ndef f(e):\n    return e.get("cmd") in C',
            [(1, "resume"), (1, "td_ack")],
        ),
        ('x = {"ui": "open", "overlay": "pass"}', []),  # a dialog's name, not a type
        ('BUTTONS = ("A", "B", "pause", "td")', []),  # a clock button's name
        ('topic = t.table(table, "cmd")', []),  # an MQTT topic
        ('legal = {"undo": True}; x = snap.get("pass")', []),  # JSON fields read by name
        ('x = {"input": InputType.DOUBLE}', []),  # the vocabulary itself
    ],
)
def test_the_scan_finds_a_type_written_as_a_string_and_nothing_else(source, expected) -> None:
    assert type_literals(source) == expected
