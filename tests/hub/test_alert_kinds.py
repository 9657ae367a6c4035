"""Every alert kind the hub can raise says what it asks of the TD (``hub/logic/alert_kinds.py``), and the
feed lists what the TD must do first, the longest waiting first.

The kinds are read from the hub's source: every ``AlertSpec(...)`` any module under ``hub/``
builds, its kind a literal, a constant or a parameter of a helper (``add(key, "offline", ...)``)
followed to the helper's calls. A branch that adds an alert kind without classifying it fails here
at merge, not in a TD's feed."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from hub.live.alerts import feed_key, ordered, urgencies
from hub.logic.alert_kinds import ACT, ASKS, DONE, WATCH, asks

HUB = Path(__file__).resolve().parents[2] / "hub"


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _enclosing_function(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.FunctionDef | None:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.FunctionDef):
            return node
    return None


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def _kinds_of(expr: ast.expr, module: object, tree: ast.AST, parents: dict[ast.AST, ast.AST]) -> set[str]:
    """The kinds an expression can be: a literal, either branch of a conditional, a module
    constant, or a parameter of the enclosing helper, followed to every call of that helper."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _kinds_of(expr.body, module, tree, parents) | _kinds_of(expr.orelse, module, tree, parents)
    func = _enclosing_function(expr, parents)
    if isinstance(expr, ast.Name) and func is not None:
        params = [a.arg for a in func.args.args]
        if expr.id in params:
            index = params.index(expr.id)
            found: set[str] = set()
            for call in ast.walk(tree):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id == func.name
                ):
                    arg = _argument(call, index, expr.id)
                    assert arg is not None, f"{func.name}() called without its {expr.id}"
                    found |= _kinds_of(arg, module, tree, parents)
            assert found, f"{func.name}() builds alerts but is never called"
            return found
    value = eval(compile(ast.Expression(expr), "<kind>", "eval"), vars(module))  # a module constant
    assert isinstance(value, str), f"alert kind {ast.unparse(expr)} is not a string"
    return {str(value)}


def raised_kinds() -> dict[str, set[str]]:
    """kind -> the modules that build an alert of that kind."""
    out: dict[str, set[str]] = {}
    for path in sorted(HUB.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = _parents(tree)
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and (getattr(n.func, "id", None) == "AlertSpec" or getattr(n.func, "attr", None) == "AlertSpec")
        ]
        if not calls:
            continue
        name = ".".join(path.relative_to(HUB.parent).with_suffix("").parts)
        module = importlib.import_module(name)
        for call in calls:
            arg = _argument(call, 1, "kind")
            assert arg is not None, f"{name}: an AlertSpec without a kind"
            for kind in _kinds_of(arg, module, tree, parents):
                out.setdefault(kind, set()).add(name)
    return out


def test_every_alert_kind_the_hub_raises_is_classified():
    raised = raised_kinds()
    # the reading itself works: kinds from every module that raises them
    for kind, module in (
        ("td_call", "hub.logic.conditions"),
        ("offline", "hub.logic.conditions"),
        ("flag", "hub.logic.conditions"),
        ("storage", "hub.live.storage_health"),
        ("room_offline", "hub.live.bridged_rooms"),
        ("dice", "hub.live.dice_towers"),
        ("invalid_message", "hub.live.incidents"),
        ("cmd_failed", "hub.live.alerts"),
        ("auto_point", "hub.logic.conditions"),
    ):
        assert module in raised.get(kind, set()), f"{kind} not found in {module}"
    missing = {k: sorted(m) for k, m in raised.items() if k not in ASKS}
    assert not missing, f"alert kinds not classified in hub/logic/alert_kinds.py: {missing}"
    stale = set(ASKS) - set(raised)
    assert not stale, f"hub/logic/alert_kinds.py classifies kinds nothing raises: {sorted(stale)}"


def test_the_issue_s_kinds_ask_what_the_td_must_do():
    for kind in ("td_call", "flag", "both_absent", "double_booked", "journal", "invalid_message", "storage"):
        assert asks(kind) == ACT, kind
    for kind in ("late", "slow", "offline", "absent", "not_started", "break_overrun"):
        assert asks(kind) == WATCH, kind
    for kind in ("auto_point", "auto_forfeit"):
        assert asks(kind) == DONE, kind
    assert asks("a_kind_from_another_branch") == ACT  # heard rather than lost


def _alert(i: int, kind: str, urgency: str, raised: int, acked: int | None = None, table: str | None = "1"):
    return {
        "id": i, "key": f"k{i}", "kind": kind, "urgency": urgency, "tbl": table, "match_id": None,
        "message": kind, "raised_wall": raised, "active": 1, "acked_wall": acked, "acked_by": None,
        "resolved_wall": None, "data": None,
    }  # fmt: skip


def test_the_feed_puts_the_longest_waiting_call_first_and_routine_below_every_act():
    alerts = [
        _alert(1, "td_call", "high", 100),  # the longest waiting
        _alert(2, "auto_point", "low", 150),
        _alert(3, "late", "high", 160),
        _alert(4, "offline", "high", 170),
        _alert(5, "flag", "critical", 180),  # newer and more urgent, still after the call
        _alert(6, "td_call", "high", 190),
        _alert(7, "slow", "medium", 120),
        _alert(8, "both_absent", "high", 50, acked=60),  # seen: below the open ones, above routine
        _alert(9, "auto_forfeit", "low", 200),
        _alert(10, "absent", "low", 40, table=None),
    ]
    listed = ordered(alerts, {})
    assert [a["id"] for a in listed] == [1, 5, 6, 8, 3, 4, 7, 10, 9, 2]
    assert [a["asks"] for a in listed] == [ACT] * 4 + [WATCH] * 4 + [DONE] * 2
    assert sorted(alerts, key=feed_key)[0]["id"] == 1


def test_a_done_line_is_not_counted_on_its_table_s_tile():
    tiles = urgencies([_alert(1, "auto_point", "low", 1), _alert(2, "late", "high", 2)])
    assert tiles == {"1": ("high", 1)}
    assert urgencies([_alert(1, "auto_point", "low", 1)]) == {}


@pytest.mark.parametrize("kind", sorted(ASKS))
def test_every_classified_kind_has_a_place_in_the_feed(kind):
    key = feed_key(_alert(1, kind, "medium", 1))
    assert key[0] == {ACT: 0, WATCH: 1, DONE: 2}[ASKS[kind]]
