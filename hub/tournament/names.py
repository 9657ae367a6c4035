"""Names compared as a person compares them, across alphabets (pure).

A TD types on a Latin keyboard: "papadopoulos" must find "Παπαδόπουλος", "ivanov" "Иванов",
"zoi" "Ζωή" and "dahlie" "Dæhlie"; and the pairing program may write one player in Greek in one
round and in Latin in the next. The transliteration is the ``anyascii`` library's (a maintained
table for every script, not one of ours), with one rule of context it cannot know letter by
letter: the Greek digraph ``ου``, written "ou" by every romanisation of Greek names (ELOT 743,
passports), where anyascii writes each letter ("oy").

Three folds:

- :func:`fold` — a name's identity: transliterated, lower case, its words (letters and digits)
  separated by one space. "Ζωή  Παπαδοπούλου", "ZOI papadopoulou" and "Zoi Papadopoulou" are one
  name. The player registry (:mod:`hub.tournament.players`) and the import's matching use it.
- :func:`native_fold` — a query as typed: no accents or tonos, lower case, in its own alphabet
  (what a browser can do without a transliteration table). The dashboard folds the query this way
  in JavaScript (``hub/web/static/dom.js``), the hub in Python: the two agree.
- :func:`search_words` — every word a name can be found by: its native fold, its transliteration,
  and its transliteration with each letter that becomes several Latin letters reduced to the first
  ("æ" is "ae" or "a", "ж" "zh" or "z"). The hub sends these words with each tile, so the
  dashboard's search and the hub's (:func:`name_matches`) match the same names.

A query matches a name when every word of the query begins one of the name's words.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from anyascii import anyascii

#: a word: letters and digits (the rest — spaces, hyphens, apostrophes, dots — separates words)
_WORD = re.compile(r"[^\W_]+")
#: the Greek digraph ου (accented on its second letter, not with a diaeresis: "ϋ" is two vowels)
_GREEK_OU = re.compile("ο[υύ]")


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def native_fold(text: str) -> str:
    """A text without accents, tonos or case, in its own alphabet: "Ζωή" is "ζωη", "Kovács Ödön"
    "kovacs odon"; final sigma is sigma. What the dashboard does to a query in the browser."""
    decomposed = unicodedata.normalize("NFD", text)
    bare = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    return " ".join(_words(bare.lower().replace("ς", "σ")))


def _latin(name: str) -> tuple[str, str]:
    """The name transliterated (lower case), in full and with each letter that becomes several
    Latin letters cut to its first."""
    text = _GREEK_OU.sub("ou", unicodedata.normalize("NFC", name).lower())
    full: list[str] = []
    short: list[str] = []
    for c in text:
        latin = c if c.isascii() else anyascii(c)
        full.append(latin)
        short.append(latin[0] if len(latin) > 1 and latin.isalpha() else latin)
    return "".join(full).lower(), "".join(short).lower()


@functools.lru_cache(maxsize=65536)
def fold(name: str) -> str:
    """A name's identity across spellings and alphabets: "Dæhlie" is "daehlie", "Иванов"
    "ivanov", "Παπαδόπουλος" "papadopoulos"."""
    return " ".join(_words(_latin(name)[0]))


@functools.lru_cache(maxsize=65536)
def search_words(name: str) -> tuple[str, ...]:
    """Every word ``name`` can be found by (module doc), each once, in a stable order."""
    full, short = _latin(name)
    out: dict[str, None] = {}
    for word in [*native_fold(name).split(), *_words(full), *_words(short)]:
        out.setdefault(word, None)
    return tuple(out)


def words_match(words: tuple[str, ...] | list[str], query: str) -> bool:
    """Every word of the (native-folded) query begins one of ``words`` (a query without a word
    finds every name, as an empty search box shows every table)."""
    return all(any(w.startswith(q) for w in words) for q in native_fold(query).split())


def name_matches(name: str, query: str) -> bool:
    """Whether a search for ``query`` finds ``name`` ("ann b" finds "Anna Berg", "ivanov"
    finds "Иванов")."""
    return words_match(search_words(name), query)
