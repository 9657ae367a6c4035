"""The hub speaks the rulebook's vocabulary: no input, event or command type is written as a string
literal in ``hub/`` (a typo there would be found by a user, not by mypy), and the hub checks a TD
command with the rulebook's own parser and judge instead of restating the rules."""

from __future__ import annotations

import ast
from pathlib import Path

from hub.live.actions import ActionError, check_fields, check_legal
from rulebook.vocab import CommandType, EventType, InputType
from tests.rulebook.helpers import Table

ROOT = Path(__file__).resolve().parents[2]
WORDS = {str(w) for w in (*InputType, *EventType, *CommandType)}


def _literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    keys = {
        id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys if k is not None
    }
    # the text around an f-string's values ("{prefix}forfeit" names an id, not a type)
    keys |= {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    # a field read by name (evt["cmd"], evt.get("cmd"): the field of a cmd_done event)
    keys |= {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
    keys |= {
        id(node.args[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
    }
    # a list of words of another vocabulary that happens to share some (MQTT topics: "assign",
    # "cmd", "resync"; clock buttons: "A", "B", "pause") is not a list of types
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
            words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(words) == len(node.elts) and not set(words) <= WORDS:
                keys |= {id(e) for e in node.elts}
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in WORDS
        and id(node) not in keys  # a JSON field name ("undo": …) is not a type
        and id(node) not in docstrings
    ]


def test_no_input_event_or_command_type_is_a_string_literal_in_the_hub() -> None:
    found = [
        f"{path.name}:{line}: {word}"
        for path in (ROOT / "hub").glob("*.py")
        for line, word in _literals(path)
    ]
    assert found == []


def test_the_hub_checks_a_command_with_the_rulebooks_parser() -> None:
    assert check_fields(CommandType.PENALTY, {"against": "B", "points": 2}) == {
        "against": "B",
        "points": 2,
        "reason": "conduct",  # what the TD's form may leave out
    }
    for fields, code in (
        ({"against": "C", "points": 1}, "field.choice"),
        ({"against": "A", "points": 0}, "field.range"),
        ({"points": 1}, "field.missing"),
    ):
        try:
            check_fields(CommandType.PENALTY, fields)
        except ActionError as exc:
            assert exc.code == code
        else:
            raise AssertionError(fields)


def test_the_hub_asks_the_tables_published_judgement_before_sending() -> None:
    t = Table().start(length=7).game("A", "gammon").game("A", "gammon").game("A", "gammon")  # 6-0
    snap = t.snap()
    check_legal(CommandType.SET_LENGTH, {"length": 9}, snap)
    try:
        check_legal(CommandType.SET_LENGTH, {"length": 5}, snap)
    except ActionError as exc:
        assert exc.code == "length.impossible"
    else:
        raise AssertionError("a correction the score already reaches is impossible (4.8)")
    try:
        check_legal(CommandType.RESOLVE_FLAG, {"winner": "A"}, snap)
    except ActionError as exc:
        assert exc.code == "flag.none"
    else:
        raise AssertionError("no flag to resolve")
    check_legal(CommandType.RESOLVE_FLAG, {"winner": "A"}, None)  # nothing known: the table judges
