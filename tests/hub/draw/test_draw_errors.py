"""Every refusal of the draw has its English message, read from the source: each code a module
raises is listed, each listed code is raised, and each message names only values its raise gives
(so no message is ever shown with a hole)."""

from __future__ import annotations

import ast
import string

from hub.draw import DrawError
from hub.draw.errors import MESSAGES
from tests.hub.draw.test_draw_purity import draw_sources


def raised() -> dict[str, set[str]]:
    """Each code raised, with the names of the values given with it."""
    found: dict[str, set[str]] = {}
    for path in draw_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "DrawError"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names = {k.arg for k in node.keywords if k.arg is not None}
                found.setdefault(node.args[0].value, set()).update(names)
    return found


def test_every_code_raised_has_a_message_and_every_message_is_raised():
    codes = raised()
    assert len(codes) > 20
    assert set(codes) == set(MESSAGES)


def test_every_message_names_only_the_values_its_raise_gives():
    for code, names in raised().items():
        wanted = {field.split("!")[0] for _, field, _, _ in string.Formatter().parse(MESSAGES[code]) if field}
        assert wanted <= names, (code, wanted - names)


def test_a_refusal_is_a_value_error_with_its_code_and_values():
    error = DrawError("draw.match.unknown", match="main-r9-m1")
    assert isinstance(error, ValueError)
    assert (error.code, error.params) == ("draw.match.unknown", {"match": "main-r9-m1"})
    assert str(error) == "no match 'main-r9-m1'"
    assert DrawError("draw.unheard.of", x=1).message == "draw.unheard.of {'x': 1}"
