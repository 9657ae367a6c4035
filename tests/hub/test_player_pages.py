"""The players' pages and the board's brackets, through the API of a real hub running a draw (a
main of 4 on simulated tables through a real broker, the hub's ticks called by the test): a
player's page, reached without a login by the code on the draw sheet, says the next table and
opponent, the live score, the path with its results, or what the next match waits for, in the
player's language; it and the board's brackets name players and nothing else about them; the
draw sheet is the TD's. Also the codes, the language chosen, and the catalogs kept complete."""

from __future__ import annotations

import asyncio
import json
import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.app import RunConfig
from hub.fleet.setup import FleetOptions
from hub.live.config import HubConfig
from hub.service import HubThread
from hub.web import i18n
from hub.web.player_codes import ALPHABET, LENGTH, PlayerCodes, code_of, is_code
from hub.web.player_pages import page_base, qr_svg
from tests.hub.support import PASSWORD, event_id, sim_table, start_hub, tick
from tests.hub.test_draw_actions_live import DRAW, _api, current

STATIC = Path(__file__).resolve().parents[2] / "hub" / "web" / "static"


async def _anonymous(url: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    async with aiohttp.ClientSession() as http, http.get(url + path, headers=headers or {}) as r:
        return r.status, r.headers.get("Content-Type", ""), await r.text()


def get(url: str, path: str, **headers: str) -> tuple[int, Any]:
    status, kind, text = asyncio.run(_anonymous(url, path, headers))
    return status, json.loads(text) if "json" in kind else text


# -- codes and languages ---------------------------------------------------------------------------


@given(st.binary(min_size=16, max_size=32), st.text(min_size=1, max_size=40))
def test_a_code_is_short_stable_and_read_back(secret: bytes, key: str) -> None:
    code = code_of(secret, key)
    assert len(code) == LENGTH and set(code) <= set(ALPHABET) and is_code(code)
    assert code_of(secret, key) == code
    codes = PlayerCodes(secret)
    assert codes.key_of(code.upper(), ["someone else", key]) == key
    assert codes.key_of(code, ["someone else"]) is None


def test_codes_depend_on_the_hubs_secret_not_only_on_the_key() -> None:
    a, b = PlayerCodes(b"a" * 32), PlayerCodes(b"b" * 32)
    assert a.code("p1") != b.code("p1")
    assert len({a.code(f"p{n}") for n in range(1000)}) == 1000


class Meta:
    def __init__(self) -> None:
        self.meta: dict[str, str] = {}
        self.commits = 0

    def get_meta(self, key: str) -> str | None:
        return self.meta.get(key)

    def set_meta(self, key: str, value: str) -> None:
        self.meta[key] = value

    def commit(self) -> None:
        self.commits += 1


def test_the_secret_is_made_once_and_kept() -> None:
    store = Meta()
    first = PlayerCodes.load(store).code("p1")
    assert PlayerCodes.load(store).code("p1") == first and store.commits == 1


def test_a_pages_address_is_the_hubs_public_one_else_the_requests() -> None:
    assert page_base("http://hub.club:8080/", "http", "10.0.0.5:8080") == "http://hub.club:8080"
    assert page_base("", "http", "10.0.0.5:8080") == "http://10.0.0.5:8080"


@pytest.mark.parametrize(
    ("asked", "accept", "lang"),
    [
        ("el", "fr-FR,fr;q=0.9", "el"),
        (None, "fr-FR,fr;q=0.9,en;q=0.8", "fr"),
        (None, "de-DE,hu;q=0.5,bg;q=0.7", "bg"),
        (None, "no", "nb"),
        ("xx", "de", "en"),
        (None, None, "en"),
        (None, "hu;q=0", "en"),
    ],
)
def test_the_pages_language(asked: str | None, accept: str | None, lang: str) -> None:
    assert i18n.language(asked, accept) == lang


def test_the_pages_languages_are_the_tables() -> None:
    """A player reads the page in the language the table speaks to them (kiosk/ui/i18n.py)."""
    from kiosk.ui.i18n import LANGUAGES as TABLES

    assert i18n.LANGUAGES == TABLES


def test_every_sentence_of_the_player_page_is_in_every_catalog() -> None:
    """The page's sentences (``t("...")`` in player.js) are all translated, their placeholders kept."""
    source = (STATIC / "player.js").read_text(encoding="utf-8")
    msgids = set(re.findall(r'\bt\("([^"]+)"', source))
    assert len(msgids) > 30
    for lang in i18n.LANGUAGES:
        if lang == i18n.DEFAULT:
            continue
        words = i18n.words(lang)
        assert msgids <= set(words), (lang, msgids - set(words))
        for msgid in msgids:
            assert set(re.findall(r"\{\w+\}", words[msgid])) == set(re.findall(r"\{\w+\}", msgid)), (
                lang,
                msgid,
            )


# -- through a real hub ----------------------------------------------------------------------------


def test_a_players_page_and_the_boards_brackets(tmp_path: Path, mosquitto: Any, clock: Any) -> None:
    path = tmp_path / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    ev = event_id("player-pages")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock, draw=path)
    try:
        with ExitStack() as stack:
            sims = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, clock)) for t in "12"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "12"))
            tick(hub)
            assert current(hub) == {"1": "main-r1-m1", "2": "main-r1-m2"}
            a, b = hub.call(lambda: hub.hub.draw.bracket.match("main-r1-m1").players)
            other = hub.call(lambda: hub.hub.draw.bracket.match("main-r1-m2").players)
            name = {f"p{n}": f"Player {n}" for n in range(1, 5)}

            # the draw sheet is the TD's; on it, every player's address
            assert get(hub.url, "/api/draw/sheet")[0] == 401
            ((status, sheet),) = asyncio.run(_api(hub.url, [("GET", "/api/draw/sheet", None)]))
            assert status == 200 and len(sheet["players"]) == 4
            by_name = {p["name"]: p for p in sheet["players"]}
            me = by_name[name[a]]
            assert me["url"] == f"{hub.url}/p/{me['code']}" and me["flight"] == "main"
            assert get(hub.url, f"/p/{me['code']}")[0] == 200  # the page itself, no login

            # my page: the table, the opponent, the match; nothing of anybody but their name
            status, page = get(hub.url, f"/api/players/{me['code']}", **{"Accept-Language": "hu,en;q=0.5"})
            assert status == 200 and page["lang"] == "hu" and page["words"]["Opponent"] == "Ellenfél"
            assert page["name"] == name[a] and page["standing"] == "playing"
            nxt = page["next"]
            assert (nxt["id"], nxt["table"], nxt["opponent"], nxt["side"]) == (
                "main-r1-m1",
                "1",
                name[b],
                "A",
            )
            assert nxt["length"] == 3 and nxt["live"]["score"] == {"me": 0, "opponent": 0}
            text = json.dumps(page)
            assert not re.search(r'"p\d"', text), text  # no registry key, mine or another's

            # the match is played: my path says it, my next match waits for the other one's winner
            sims["1"].wait_for(lambda s: s.match_id == "main-r1-m1")
            sim = sims["1"]
            sim.checkin("A")
            sim.checkin("B")
            sim.opening_roll(6, 2)
            sim.win("A")
            hub.wait_for(
                lambda h: h.views["1"].state is not None and h.views["1"].state.get("score", {}).get("A") == 1
            )
            _, page = get(hub.url, f"/api/players/{me['code']}?lang=el")
            assert page["lang"] == "el" and page["next"]["live"]["score"] == {"me": 1, "opponent": 0}
            sim.opening_roll(5, 1)
            sim.win("A", "gammon")
            sim.confirm("A")
            sim.confirm("B")
            hub.wait_for(lambda h: h.results.get("main-r1-m1", {}).get("confirmed", {}).get("B"))
            tick(hub)
            _, page = get(hub.url, f"/api/players/{me['code']}")
            assert page["lang"] == "en" and page["words"] == {}
            first, second = page["path"]
            assert (first["won"], first["points"], first["opponent"]) == (
                True,
                {"me": 3, "opponent": 0},
                name[b],
            )
            assert second["id"] == "main-r2-m1" and second["opponent"] is None
            assert second["opponent_from"] == {
                "winner_of": {"id": "main-r1-m2", "flight": "main", "round": 1, "number": 2}
            }
            assert page["next"] == second and page["standing"] == "waiting"
            # the loser's page: the event is over for him
            _, lost = get(hub.url, f"/api/players/{by_name[name[b]]['code']}")
            assert lost["standing"] == "out" and lost["next"] is None and lost["path"][0]["won"] is False

            # the board's brackets: names, no keys, ids, seeds or times of confirmation
            status, board = get(hub.url, "/api/board/draw")
            assert status == 200 and sorted(board["names"].values()) == sorted(name.values())
            text = json.dumps(board)
            assert not re.search(r'"p\d"', text) and "random_seed" not in text and "confirmed_at" not in text
            (main,) = board["flights"]
            m1 = main["rounds"][0]["matches"][0]
            assert board["names"][m1["winner"]] == name[a] and m1["result"] == {"points": [3, 0]}
            assert {board["names"][s["player"]] for s in main["rounds"][0]["matches"][1]["seats"]} == {
                name[p] for p in other
            }

            # a code that is nobody's; the QR code of one that is somebody's
            status, nobody = get(hub.url, "/api/players/2345678?lang=fr")
            assert status == 404 and nobody["code"] == "player.unknown" and nobody["lang"] == "fr"
            assert get(hub.url, "/api/players/2345678/qr.svg")[0] == 404
            status, svg = get(hub.url, f"/api/players/{me['code']}/qr.svg")
            assert status == 200 and svg.startswith("<svg") and "<path" in svg
            assert svg == qr_svg(me["url"])  # the page's address, and nothing else
    finally:
        hub.stop()


def test_the_sheet_and_the_qr_codes_carry_the_hubs_public_address(tmp_path: Path, mosquitto: Any) -> None:
    """``bghub run --public-url``: the draw sheet's addresses and the QR codes are on it, whatever
    address the TD opened the sheet by."""
    path = tmp_path / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    rc = RunConfig(
        hub=HubConfig(event=event_id("public-url"), broker_host=mosquitto.host, broker_port=mosquitto.port),
        db=str(tmp_path / "hub.db"),
        http_host="127.0.0.1",
        http_port=0,
        draw=str(path),
        fleet=FleetOptions(public_url="http://bghub.local:8080", announce=False),
    )
    hub = HubThread(rc, password=PASSWORD).start()
    try:
        ((status, sheet),) = asyncio.run(_api(hub.url, [("GET", "/api/draw/sheet", None)]))
        assert status == 200 and sheet["base_url"] == "http://bghub.local:8080"
        one = sheet["players"][0]
        assert one["url"] == f"http://bghub.local:8080/p/{one['code']}"
        status, svg = get(hub.url, f"/api/players/{one['code']}/qr.svg")
        assert status == 200 and svg == qr_svg(one["url"])
    finally:
        hub.stop()
