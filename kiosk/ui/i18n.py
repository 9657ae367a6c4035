"""Translations: gettext ``.po`` catalogs read directly, with English as the fallback.

The catalogs live in ``kiosk/locale/<lang>/LC_MESSAGES/<domain>.po`` so translators can use their
usual tools (domain ``kiosk`` for the match screens; ``setup`` for the device's own screens —
enrollment, identify, button test — whose sources are under :data:`DOMAIN_DIRS`), but the kiosk
reads the ``.po`` text itself (no compile step, no ``msgfmt``).
Messages are English sentences with named ``{placeholders}`` filled with ``str.format``.

A second domain, ``rules`` (``rules.po``), translates the rulebook's refusal codes
(``double.crawford``, ``field.missing``…): its msgids are the codes, and :func:`rules_translator`
fills the placeholders from the error's ``params``, falling back to the rulebook's English.

Code marks every message it shows by passing a literal string to a translator named ``tr`` or
``side_tr`` (or to :func:`N_` for messages kept in tables), which is how :func:`extract_msgids` finds them.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from kiosk.errors import KioskError
from rulebook.codes import english

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "kiosk"
#: the rulebook's refusal codes (msgid = code)
RULES_DOMAIN = "rules"
#: domains other than ``kiosk`` and the source directory whose messages each holds
DOMAIN_DIRS: dict[str, Path] = {"setup": Path(__file__).resolve().parent / "screens" / "setup"}
DEFAULT = "en"

#: language code -> its name in that language (what the language picker shows)
LANGUAGES: dict[str, str] = {
    "en": "English",
    "el": "Ελληνικά",
    "fr": "Français",
    "bg": "Български",
    "nb": "Norsk bokmål",
    "hu": "Magyar",
}

Translator = Callable[[str], str]
MARKERS = frozenset({"tr", "side_tr", "N_"})


def N_(message: str) -> str:
    """Mark a message for translation where it is defined; translate it where it is shown."""
    return message


def catalog_path(lang: str, domain: str = DOMAIN) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


class PoError(KioskError, ValueError):
    """A ``.po`` file could not be read (the message names the line)."""


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


def _unquote(token: str, number: int) -> str:
    token = token.strip()
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise PoError(f"line {number}: expected a quoted string, got {token!r}")
    out: list[str] = []
    body = token[1:-1]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_po(text: str) -> dict[str, str]:
    """``msgid -> msgstr`` for every translated, non-fuzzy entry (``msgctxt`` joined by ``\\x04``)."""
    entries: dict[str, str] = {}
    fields: dict[str, str] = {}
    current: str | None = None
    fuzzy = False

    def flush() -> None:
        nonlocal fields, current, fuzzy
        msgid = fields.get("msgid")
        msgstr = fields.get("msgstr", fields.get("msgstr[0]", ""))
        if msgid and msgstr and not fuzzy:
            ctx = fields.get("msgctxt")
            entries[f"{ctx}\x04{msgid}" if ctx is not None else msgid] = msgstr
        fields, current, fuzzy = {}, None, False

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if "msgstr" in fields:
                flush()
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            continue
        if line.startswith('"'):
            if current is None:
                raise PoError(f"line {number}: a string continues no keyword")
            fields[current] += _unquote(line, number)
            continue
        keyword, _, rest = line.partition(" ")
        if keyword not in ("msgctxt", "msgid", "msgid_plural", "msgstr") and not keyword.startswith(
            "msgstr["
        ):
            raise PoError(f"line {number}: unknown keyword {keyword!r}")
        if keyword in ("msgctxt", "msgid") and "msgstr" in fields:
            flush()
        current = keyword
        fields[keyword] = _unquote(rest, number)
    if fields:
        flush()
    return entries


@functools.cache
def catalog(lang: str, domain: str = DOMAIN) -> dict[str, str]:
    """The messages of ``lang`` (empty for English or an unknown language)."""
    path = catalog_path(lang, domain)
    if lang == DEFAULT or not path.is_file():
        return {}
    return parse_po(path.read_text(encoding="utf-8"))


@functools.cache
def translator(lang: str, domain: str = DOMAIN) -> Translator:
    """``tr(msgid) -> text`` in ``lang``; a missing message falls back to English."""
    messages = catalog(lang, domain) if lang in LANGUAGES else {}

    def tr(msgid: str) -> str:
        return messages.get(msgid) or msgid

    return tr


RulesTranslator = Callable[[str, "Mapping[str, Any] | None"], str]


@functools.cache
def rules_translator(lang: str) -> RulesTranslator:
    """``tr_rule(code, params) -> text`` in ``lang``: a refusal the rulebook gave (an event's
    ``code``; its values, when it has some) as the player reads it. A code the catalog lacks, or
    a newer one, falls back to the rulebook's English."""
    messages = catalog(lang, RULES_DOMAIN) if lang in LANGUAGES else {}

    def tr_rule(code: str, params: Mapping[str, Any] | None = None) -> str:
        template = messages.get(code)
        if template is None:
            return english(code, params)
        return template.format_map(_Keep(params or {}))

    return tr_rule


class _Keep(dict[str, Any]):
    """A placeholder without a value stays as it is: a message never fails to format."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def extract_msgids(paths: Iterable[Path]) -> set[str]:
    """Every literal passed to ``tr(...)`` or ``N_(...)`` in the given Python files."""
    found: set[str] = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            arg = node.args[0]
            if name in MARKERS and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
    return found


def ui_sources(domain: str = DOMAIN) -> list[Path]:
    """The sources whose messages belong to ``domain``'s catalogs."""
    if domain != DOMAIN:
        return sorted(DOMAIN_DIRS[domain].rglob("*.py"))
    others = tuple(DOMAIN_DIRS.values())
    here = Path(__file__).resolve().parent
    return sorted(p for p in here.rglob("*.py") if not any(p.is_relative_to(d) for d in others))
