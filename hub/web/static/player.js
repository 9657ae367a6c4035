// A player's own page (/p/<code>): my next match and table (or what it waits for), my opponent,
// the live score of my match, my path in the draw, in my language. Read-only and public, as the
// room board is: its data is GET /api/players/<code> (docs/api.md), the live score the board's
// WebSocket tiles (/api/ws?board=1); the page's words come with its data, from the hub's
// catalogs (hub/web/locale/<lang>/LC_MESSAGES/player.po), in the language of ?lang=, else the
// browser's.
import { $, h } from "./dom.js";

const P = { code: "", lang: "", words: {}, data: null, tiles: new Map(), timer: null, retry: 500, offset: 0 };

/** The page's sentence in its language, its {placeholders} filled. */
function t(msgid, params) {
  const text = P.words[msgid] || msgid;
  return text.replace(/\{(\w+)\}/g, (all, k) => (params && params[k] !== undefined && params[k] !== null ? String(params[k]) : all));
}

function hhmm(wall) {
  return wall ? new Date(wall).toLocaleTimeString(P.lang || [], { hour: "2-digit", minute: "2-digit" }) : "";
}

/** A match as a player reads it: "round 2, match 1" (with its flight's name when it is not the
 * flight of the match that names it). */
function matchName(ref, flight) {
  if (!ref || !ref.round) return ref ? String(ref.id) : "";
  return ref.flight && ref.flight !== flight
    ? t("{flight}, round {round}, match {number}", ref)
    : t("round {round}, match {number}", ref);
}

async function load() {
  const query = P.lang ? `?lang=${encodeURIComponent(P.lang)}` : "";
  const res = await fetch(`/api/players/${encodeURIComponent(P.code)}${query}`, { headers: { Accept: "application/json" } });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!data) throw new Error(`the hub answered ${res.status}`);
  P.lang = data.lang || "en";
  P.words = data.words || {};
  languages(data.languages || {});
  document.documentElement.lang = P.lang;
  if (!res.ok) {
    P.data = null;
    $("pl-name").textContent = t("Not found");
    $("pl-next").replaceChildren(h("p", {}, t("No player has this address. Check the address on your draw sheet.")));
    $("pl-path").replaceChildren();
    return;
  }
  P.data = data;
  if (data.now_wall) P.offset = data.now_wall - Date.now();
  render();
}

function languages(all) {
  const sel = $("pl-lang");
  if (!sel.options.length) {
    sel.append(...Object.entries(all).map(([code, name]) => h("option", { value: code, lang: code }, name)));
    sel.addEventListener("change", () => {
      P.lang = sel.value;
      const url = new URL(location.href);
      url.searchParams.set("lang", P.lang);
      history.replaceState(null, "", url);
      load().catch(() => {});
    });
  }
  sel.value = P.lang;
  $("pl-lang-label").textContent = t("Language");
}

function render() {
  const d = P.data;
  document.title = `${d.name} — ${d.event}`;
  $("pl-name").textContent = d.name;
  $("pl-event").textContent = d.event;
  $("pl-path-title").textContent = t("My path");
  $("pl-note").textContent = t("This page updates by itself.");
  document.body.dataset.standing = d.standing;
  $("pl-next").replaceChildren(...nextCard(d));
  $("pl-path").replaceChildren(...(d.path.length ? d.path.map(step) : [h("li", { class: "muted" }, t("Not drawn yet"))]));
}

/** The live score of my next match: the board's tile of its table, if it holds the match. */
function live(n) {
  if (!n || !n.table) return null;
  const tile = P.tiles.get(String(n.table));
  if (!tile) return n.live;
  const held = String(tile.match_id || "");
  if (held !== n.id && !held.startsWith(n.id + "-")) return null;
  const s = tile.score && typeof tile.score === "object" ? tile.score : {};
  return { status: tile.status, phase: tile.phase, game: tile.game, crawford: !!tile.crawford,
    score: { me: s[n.side], opponent: s[n.side === "A" ? "B" : "A"] } };
}

function nextCard(d) {
  const n = d.next;
  if (d.standing === "withdrawn") return [h("h2", {}, t("You have withdrawn from the event."))];
  if (!n) {
    const last = d.path[d.path.length - 1];
    if (d.standing === "won") return [h("h2", { class: "pl-won" }, t("Winner of the {flight} flight!", { flight: last.flight }))];
    return [h("h2", {}, t("No match to come. Thank you for playing!"))];
  }
  const out = [h("h2", {}, t("My next match"))];
  const what = h("p", { class: "pl-what" }, `${n.flight} · ${t("Round {round}", n)} · ${t("Match to {length}", n)}`);
  const opponent = n.opponent
    ? h("p", { class: "pl-opponent" }, h("span", { class: "muted" }, t("Opponent")), " ", h("strong", { id: "pl-opponent" }, n.opponent))
    : h("p", { class: "pl-opponent pl-waiting", id: "pl-waiting" }, waitingFor(n));
  if (n.table) {
    const l = live(n);
    const playing = l && l.phase && l.phase !== "waiting" && l.score.me !== undefined && l.score.me !== null;
    out.push(h("p", { class: "pl-table" }, h("span", { class: "muted" }, t("Table")), " ", h("strong", { id: "pl-table" }, n.table)), what, opponent);
    if (playing) {
      out.push(h("div", { class: "pl-live", id: "pl-live" },
        h("span", { class: "pl-live-label" }, t("Live score")),
        h("span", { class: "pl-score num", id: "pl-score" }, `${l.score.me}–${l.score.opponent}`),
        h("span", { class: "muted" }, [t("you – {name}", { name: n.opponent || "" }), l.game ? ` · ${t("game {game}", l)}` : "", l.crawford ? ` · ${t("Crawford game")}` : ""].join(""))));
    } else {
      out.push(h("p", { class: "pl-go", id: "pl-go" }, t("Please go to table {table}: the match starts at {time}.", { table: n.table, time: hhmm(n.start) })));
    }
  } else {
    out.push(what, opponent);
    if (n.opponent) out.push(h("p", { class: "pl-go muted", id: "pl-go" }, t("Waiting for a free table. This page shows the table as soon as the match is called.")));
  }
  return out;
}

function waitingFor(n) {
  const from = n.opponent_from || {};
  if (n.bye) return t("No opponent (a bye).");
  if (from.winner_of) return t("Waiting for the winner of {match}", { match: matchName(from.winner_of, n.flight) });
  if (from.loser_of) return t("Waiting for the loser of {match}", { match: matchName(from.loser_of, n.flight) });
  return t("Opponent not known yet");
}

function step(s) {
  let result;
  if (s.state === "bye") result = t("Bye");
  else if (s.state === "walkover") result = s.won ? t("Won by walkover") : t("Lost by walkover");
  else if (s.state === "played") {
    if (s.points) result = s.won ? t("Won {me}–{opponent}", s.points) : t("Lost {me}–{opponent}", s.points);
    else result = s.won ? t("Won") : t("Lost");
  } else if (s.table) result = t("Table {table}", s);
  else result = t("To come");
  const who = s.bye ? t("bye") : s.opponent || waitingFor(s);
  return h("li", { class: `pl-step${s.won === true ? " won" : s.won === false ? " lost" : ""}`, dataset: { match: s.id, state: s.state } },
    h("span", { class: "pl-step-round" }, `${s.flight} · ${t("Round {round}", s)}`),
    h("span", { class: "pl-step-opp" }, s.opponent ? `${t("vs")} ${who}` : who),
    h("span", { class: "pl-step-result" }, result));
}

/** Reload the page's data at most every two seconds, when the room's calls or results move. */
function reloadSoon() {
  if (P.timer) return;
  P.timer = setTimeout(() => { P.timer = null; load().catch(() => {}); }, 2000);
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/ws?board=1`);
  ws.onopen = () => { P.retry = 500; };
  ws.onmessage = (m) => {
    let msg;
    try { msg = JSON.parse(m.data); } catch (e) { return; }
    const tiles = msg.type === "hello" ? msg.tables : msg.type === "tiles" ? msg.tiles : null;
    if (!Array.isArray(tiles)) return;
    let moved = msg.type === "hello";
    for (const tile of tiles) {
      if (!tile || tile.table === undefined || tile.table === null) continue;
      const before = P.tiles.get(String(tile.table));
      if (before && (before.match_id !== tile.match_id || before.status !== tile.status)) moved = true;
      P.tiles.set(String(tile.table), tile);
    }
    if (P.data) render();
    if (moved) reloadSoon();
  };
  ws.onclose = () => { setTimeout(connect, P.retry); P.retry = Math.min(P.retry * 2, 10000); };
}

document.addEventListener("DOMContentLoaded", () => {
  P.code = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
  P.lang = new URLSearchParams(location.search).get("lang") || "";
  load().catch(() => { $("pl-next").replaceChildren(h("p", {}, "The hub cannot be reached; this page tries again.")); reloadSoon(); });
  connect();
  // what moves the draw without a table's change (a TD's withdrawal, a hold): every half minute
  setInterval(reloadSoon, 30000);
});
