"""Translations: the .po reader, complete catalogs, placeholders, and the rules' own terms."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from kiosk.ui.i18n import (
    LANGUAGES,
    PoError,
    catalog,
    catalog_path,
    extract_msgids,
    parse_po,
    translator,
    ui_sources,
)

OTHERS = [lang for lang in LANGUAGES if lang != "en"]
USED = extract_msgids(ui_sources())


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_parse_po_reads_escapes_continuations_context_and_skips_fuzzy():
    text = r"""
# a comment
msgid ""
msgstr "Language: xx\n"

#. translator note
msgid "Say \"hi\""
msgstr "Dis "
"« salut »\n"

#, fuzzy
msgid "Stale"
msgstr "Périmé"

msgctxt "button"
msgid "Pause"
msgstr "Neutraliser"

msgid "Untranslated"
msgstr ""
"""
    entries = parse_po(text)
    assert entries == {'Say "hi"': "Dis « salut »\n", "button\x04Pause": "Neutraliser"}


def test_parse_po_names_the_bad_line():
    with pytest.raises(PoError, match="line 2"):
        parse_po('msgid "a"\nmsgstr nope\n')


def test_every_shown_message_is_in_the_english_template():
    template = set(_msgids(catalog_path("en")))
    assert USED, "no messages found in the code"
    assert USED - template == set(), "messages missing from en.po"
    assert template - USED == set(), "en.po has messages the code no longer shows"


@pytest.mark.parametrize("lang", OTHERS)
def test_catalog_translates_every_message_with_the_same_placeholders(lang):
    messages = catalog(lang)
    missing = sorted(USED - set(messages))
    assert not missing, f"{lang}: untranslated {missing}"
    for msgid in USED:
        assert fields(messages[msgid]) == fields(msgid), f"{lang}: placeholders differ in {msgid!r}"
        assert messages[msgid].strip(), msgid


def test_translator_falls_back_to_english():
    assert translator("el")("no such message") == "no such message"
    assert translator("xx")("Delay") == "Delay"
    assert translator("en")("Delay") == "Delay"
    assert translator("fr")("Delay") != "Delay"


def test_all_messages_are_marked_where_they_are_shown():
    """A translator called on an expression, e.g. ``c.tr()("…")``, would hide the message from the
    catalogs; the code binds translators to a name first."""
    pattern = re.compile(r"\)\(\s*[\"']")
    offenders = [
        f"{path.name}:{n}"
        for path in ui_sources()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not offenders


# RULES.md §6: the terms of the rules documents, and their cautions
TERMS = {
    "el": {
        "Double": "Διπλασιάζω",
        "Take": "Δέχομαι",
        "Pass": "Πάσο",
        "Break": "Διάλειμμα",
        "Time expired": "Ο χρόνος έχει εκπνεύσει",
        "Gammon": "Διπλή",
        "Backgammon": "Τριπλή",
    },
    "fr": {
        "Double": "Je double",
        "Take": "Je prends",
        "Pass": "Je refuse",
        "Break": "Pause",
        "Time expired": "Temps expiré",
        "CRAWFORD GAME": "PARTIE CRAWFORD",
    },
    "bg": {
        "Double": "Контра",
        "Take": "Приема",
        "Pass": "Отказва",
        "Break": "Почивка",
        "Gammon": "Марс",
        "Backgammon": "Бекгемън",
        "Time expired": "Времето изтече",
    },
    "nb": {"Double": "Dobler", "Take": "Tar", "Pass": "Avslår", "Time expired": "Tiden er utløpt"},
    "hu": {
        "Double": "Duplázás",
        "Take": "Elfogad",
        "Pass": "Visszautasít",
        "Break": "Szünet",
        "Time expired": "Lejárt az idő",
        "CRAWFORD GAME": "CRAWFORD-JÁTÉK",
    },
}


@pytest.mark.parametrize("lang", OTHERS)
def test_rules_terms_are_used(lang):
    messages = catalog(lang)
    for msgid, term in TERMS[lang].items():
        assert messages[msgid] == term, (lang, msgid)


def test_cautions_greek_delay_is_not_lateness():
    el = catalog("el")
    assert "χρόνος καθυστέρησης" in el["Delay"].lower()
    for msgid in ("Late", "Lateness", "Break over: late", "Won by forfeit: lateness"):
        assert "καθυστέρ" not in el[msgid].lower(), msgid


def test_cautions_french_clock_pause_is_neutraliser_and_break_is_pause():
    fr = catalog("fr")
    for msgid in ("Pause", "Pause the clock", "Clock paused", "Pause the clock: why?"):
        assert "neutralis" in fr[msgid].lower() and "pause" not in fr[msgid].lower(), msgid
    for msgid in ("Break", "Take a break", "On a break", "Start the break"):
        assert "pause" in fr[msgid].lower(), msgid


def test_cautions_hungarian_cube_is_never_just_kocka():
    hu = catalog("hu")
    for msgid in ("Cube in the middle", "Cube to {value}", "{name}'s take (cube at {value})"):
        assert "duplázókocka" in hu[msgid].lower(), msgid
    for msgid, text in hu.items():
        for word in re.findall(r"\w*kocka\w*", text.lower()):
            assert word.startswith(("duplázókock", "dobókock")), (msgid, word)


def _msgids(path: Path) -> list[str]:
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("msgid "):
            ids.append(line[len('msgid "') : -1].replace('\\"', '"'))
    return [i for i in ids if i]
