"""The player page's words in the player's language: gettext ``.po`` catalogs, as the tables keep
theirs (``kiosk/locale``), in ``hub/web/locale/<lang>/LC_MESSAGES/player.po``, with English (the
msgids) as the fallback. The languages are the tables' six.

The browser is given the whole catalog of its language with the page's data (a few dozen
sentences with ``{placeholders}``), and fills them in itself. Which language: the page's
``?lang=`` if it is one of the six, else the first of the browser's ``Accept-Language`` that is,
else English.
"""

from __future__ import annotations

import functools
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "player"
DEFAULT = "en"
#: language code -> its name in that language (the page's language switch); the tables' six
LANGUAGES: dict[str, str] = {
    "en": "English",
    "el": "Ελληνικά",
    "fr": "Français",
    "bg": "Български",
    "nb": "Norsk bokmål",
    "hu": "Magyar",
}
#: what a browser may ask for instead of ``nb`` (Norwegian without the written standard)
_ALIASES = {"no": "nb", "nn": "nb"}


def language(asked: str | None, accept: str | None) -> str:
    """The page's language: ``?lang=``, else ``Accept-Language`` (by its q-values), else English."""
    if asked:
        lang = _ALIASES.get(asked.strip().lower(), asked.strip().lower())
        if lang in LANGUAGES:
            return lang
    ranked: list[tuple[float, int, str]] = []
    for n, part in enumerate((accept or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        base = _ALIASES.get(tag.split("-")[0].strip().lower(), tag.split("-")[0].strip().lower())
        if base in LANGUAGES and q > 0:
            ranked.append((-q, n, base))
    return min(ranked)[2] if ranked else DEFAULT


@functools.cache
def words(lang: str) -> dict[str, str]:
    """msgid -> msgstr of ``lang``'s catalog (empty for English or a language without one)."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == DEFAULT or lang not in LANGUAGES or not path.is_file():
        return {}
    return read_po(path.read_text(encoding="utf-8"))


def read_po(text: str) -> dict[str, str]:
    """The translated entries of a ``.po`` text (one-line and continued strings; no plurals or
    contexts, which the page does not use; a fuzzy entry is left out as gettext leaves it)."""
    out: dict[str, str] = {}
    entry: dict[str, str] = {}
    field = ""
    fuzzy = False

    def flush() -> None:
        nonlocal entry, fuzzy
        if entry.get("msgid") and entry.get("msgstr") and not fuzzy:
            out[entry["msgid"]] = entry["msgstr"]
        entry, fuzzy = {}, False

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#,") and "fuzzy" in line:
            flush()
            fuzzy = True
        elif line.startswith("msgid "):
            if "msgstr" in entry:
                flush()
            field = "msgid"
            entry[field] = _string(line[6:])
        elif line.startswith("msgstr "):
            field = "msgstr"
            entry[field] = _string(line[7:])
        elif line.startswith('"') and field:
            entry[field] = entry.get(field, "") + _string(line)
    flush()
    return out


def _string(token: str) -> str:
    token = token.strip()
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        return ""
    body = token[1:-1]
    return body.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
