"""Names across alphabets (hub.tournament.names): a Latin query finds Greek, Cyrillic and Nordic names, with
the six languages of the table (en, el, fr, bg, nb, hu), and one name's spellings are one identity.
"""

from __future__ import annotations

import pytest

from hub.logic.timeline import Filters, timeline
from hub.tournament.names import fold, name_matches, native_fold, search_words
from tests.hub.support import T0
from tests.hub.test_schedule_diff import m

FOUND = [
    # the four
    ("Γιώργος Παπαδόπουλος", "papadopoulos"),
    ("Георги Иванов", "ivanov"),
    ("Ζωή Νικολάου", "zoi"),
    ("Bjørn Dæhlie", "dahlie"),
    # each language, typed on a Latin keyboard
    ("Ruth Walsh", "walsh"),  # en
    ("Ελένη Οικονόμου", "eleni oikonomou"),  # el
    ("Δημήτρης Ιωάννου", "dimitris"),  # el
    ("Françoise Lefèvre", "francoise lefevre"),  # fr
    ("Jérôme Dubois", "jerome"),  # fr
    ("Йордан Стоянова", "yordan"),  # bg
    ("Светлана Петрова", "svetlana petrova"),  # bg
    ("Øystein Bjørnstad", "oystein"),  # nb
    ("Åse Sæther", "saether"),  # nb
    ("Åse Sæther", "sather"),  # nb
    ("Håkon Ærø", "hakon aero"),  # nb
    ("Kovács Ödön", "kovacs odon"),  # hu
    ("Tóth Lőrinc", "lorinc"),  # hu
    # typed in the name's own alphabet, with or without accents, any case
    ("Ζωή Νικολάου", "Ζωή"),
    ("Ζωή Νικολάου", "ζωη νικ"),
    ("Георги Иванов", "ИВАНОВ"),
    ("Søren Dahl", "søren"),
    ("Kovács Ödön", "Kovács Ödön"),
    # every word begins a word of the name, in any order
    ("Anna Berg", "berg ann"),
]

NOT_FOUND = [
    ("Γιώργος Παπαδόπουλος", "papadopoulis"),
    ("Георги Иванов", "petrov"),
    ("Anna Berg", "nna"),  # a word must begin a word of the name
    ("Ζωή Νικολάου", "zoi papad"),
]


@pytest.mark.parametrize(("name", "query"), FOUND)
def test_a_latin_query_finds_a_name_in_any_alphabet(name, query):
    assert name_matches(name, query)


@pytest.mark.parametrize(("name", "query"), NOT_FOUND)
def test_a_query_finds_only_what_it_says(name, query):
    assert not name_matches(name, query)


def test_one_name_in_two_alphabets_is_one_identity():
    assert fold("Ζωή  Παπαδοπούλου") == fold("ZOI papadopoulou") == "zoi papadopoulou"
    assert fold("Иван Иванов") == fold("Ivan Ivanov")
    assert fold("Bjørn Dæhlie") == fold("Bjorn Daehlie")
    assert fold("Kovács Ödön") == fold("kovacs odon")
    assert fold("Jean-Pierre Durand") == fold("Jean Pierre Durand")
    # but a different name stays different
    assert fold("Dæhlie") != fold("Dahlie")
    assert fold("Anna Berg") != fold("Anne Berg")


def test_the_query_is_folded_in_its_own_alphabet_as_the_browser_does():
    """hub/web/static/dom.js folds a query the same way (no transliteration table in the browser):
    the name's words carry the transliterations."""
    assert native_fold("  Ζωή  ΝΙΚΟΛΆΟΥ ") == "ζωη νικολαου"
    assert native_fold("ΟΔΟΣ") == "οδοσ"  # final sigma is sigma
    assert native_fold("Kovács-Ödön") == "kovacs odon"
    assert search_words("Ζωή Νικολάου") == ("ζωη", "νικολαου", "zoi", "nikolaou")


def test_the_timeline_finds_a_person_across_alphabets():
    audit = [{"id": 1, "wall": T0, "actor": "td", "action": "release", "table": "4", "match_id": "r1-t4",
              "detail": {}}]  # fmt: skip
    matches = {"r1-t4": m("4", "Ζωή Νικολάου", "Георги Иванов")}

    def find(person: str) -> list[object]:
        rows = timeline(audit, commands={}, matches=matches, states={}, suspended=set(),
                        filters=Filters(person=person))  # fmt: skip
        return [r["id"] for r in rows]

    assert find("ivanov") == [1] and find("zoi nik") == [1]
    assert find("papadopoulos") == []
