"""Refusal codes: one table in the rulebook, every code used, every code translated.

The kiosk shows a refusal in the player's language from its code (gettext domain ``rules``), the
hub in English (``rulebook.codes.english``). A code the rulebook gives but no catalog knows would
reach a player in English; a catalog entry no rule gives is dead text. Both are caught here.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from kiosk.ui.i18n import LANGUAGES, RULES_DOMAIN, catalog, catalog_path, parse_po, rules_translator
from rulebook.codes import MESSAGES, english
from rulebook.errors import RuleError
from tests.rulebook.helpers import Table

ROOT = Path(__file__).resolve().parents[2]


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_code_the_rulebook_gives_is_in_the_table_and_every_entry_is_given() -> None:
    source = "".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "rulebook").glob("*.py") if p.name != "codes.py"
    )
    error = r"(?:RuleError|FieldError|ProfileError|JournalFormatError|CommandError)"
    raised = set(re.findall(error + r'\(\s*"([a-z_.]+)"', source))
    assert raised <= set(MESSAGES), raised - set(MESSAGES)  # every code raised has its message
    named = set(re.findall(r'"([a-z_]+\.[a-z_]+)"', source))
    assert set(MESSAGES) <= named, set(MESSAGES) - named  # every message's code is given somewhere


def test_codes_are_dotted_and_stable_in_shape() -> None:
    for code in MESSAGES:
        assert re.fullmatch(r"[a-z_]+\.[a-z_]+", code), code


def test_the_english_catalog_mirrors_the_rulebook_table() -> None:
    en = parse_po(catalog_path("en", RULES_DOMAIN).read_text(encoding="utf-8"))
    assert en == MESSAGES


@pytest.mark.parametrize("lang", sorted(set(LANGUAGES) - {"en"}))
def test_every_language_translates_every_code_keeping_its_placeholders(lang: str) -> None:
    messages = catalog(lang, RULES_DOMAIN)
    assert set(messages) == set(MESSAGES), set(messages) ^ set(MESSAGES)
    for code, text in messages.items():
        assert _placeholders(text) == _placeholders(MESSAGES[code]), (lang, code)
        assert text != MESSAGES[code] or code.startswith("journal."), (lang, code)  # translated


@pytest.mark.parametrize(
    ("lang", "term"),
    [
        ("el", "παρτίδα Crawford"),
        ("fr", "partie Crawford"),
        ("bg", "безкубова (Crawford) партия"),
        ("nb", "Crawfordparti"),
        ("hu", "Crawford-játék"),
    ],
)
def test_the_rules_terms_are_those_of_the_federations(lang: str, term: str) -> None:
    """RULES.md §6: the Crawford game is named as each federation's text names it."""
    assert term in catalog(lang, RULES_DOMAIN)["double.crawford"]


def test_a_refusal_is_shown_in_the_players_language_with_its_values() -> None:
    t = Table().start(length=13).game("A")
    t.send("break", side="A").ok()
    t.send("return", side="A").ok()
    t.game("B")
    t.send("break", side="A").ok()
    t.send("return", side="A").ok()
    t.game("A")
    t.send("break", side="A")
    event = t.events[-1]
    assert event["code"] == "break.none_left"
    error = RuleError(event["code"], used=2, allowed=2)
    assert rules_translator("fr")(error.code, error.params) == "plus de pause (2 sur 2 prises)"
    assert rules_translator("en")(error.code, error.params) == event["rejected"]
    assert rules_translator("de")(error.code, error.params) == event["rejected"]  # unknown language


def test_the_hub_reads_a_code_in_english() -> None:
    assert english("double.cube_owned", {"owner": "A"}) == "the cube is owned by A"
    assert english("no.such_code") == "no.such_code"  # a newer table's code: shown as it is
    assert english("double.cube_owned") == "the cube is owned by {owner}"  # never fails to format
    assert rules_translator("hu")("no.such_code", None) == "no.such_code"
