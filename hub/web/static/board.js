// The public room board (/board): every table's players, score and state, large, read-only, and
// "find your table": every player's name with their table. A room larger than the screen is shown
// page by page (every ?seconds=12), the list of players too; a phone simply scrolls. An event with
// a draw adds its brackets (board-draw.js, told of every tile by a "board:tiles" event): on a wall
// screen each flight is a page after the tables' pages (?show=draw: the brackets alone,
// ?show=tables: the tables alone).
"use strict";

const B = { tables: new Map(), offset: 0, retry: 500, page: 0, pages: [], namePage: 0, seconds: 12 };
const $ = (id) => document.getElementById(id);

function h(tag, cls, ...children) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function natural(a, b) {
  const na = /^\d+$/.test(a) ? Number(a) : 1e9, nb = /^\d+$/.test(b) ? Number(b) : 1e9;
  return na - nb || (a < b ? -1 : a > b ? 1 : 0);
}

const FOLD = { "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ς": "σ" };
function fold(text) {
  return String(text || "").normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/[øæœßłđðþıς]/g, (c) => FOLD[c]);
}
const str = (v) => (v === null || v === undefined ? "" : typeof v === "object" ? "?" : String(v));

function tile(t) {
  const players = t.players && typeof t.players === "object" ? t.players : {};
  const score = t.score && typeof t.score === "object" ? t.score : {};
  const el = h("section", `btile bst-${str(t.status)}`);
  el.dataset.table = str(t.table);
  el.append(
    h("div", "top", h("span", "no", str(t.table)), h("span", "st", `${str(t.status_icon)} ${str(t.status_label)}`)),
    h("div", "row", h("span", "nm", str(players.A) || "—"), h("span", "sc", str(score.A))),
    h("div", "row", h("span", "nm", str(players.B) || "—"), h("span", "sc", str(score.B))),
    h("div", "info",
      t.length ? h("span", "", `to ${str(t.length)}`) : null,
      t.round ? h("span", "", `round ${str(t.round)}`) : null,
      t.game ? h("span", "", `game ${str(t.game)}`) : null,
      (t.status === "waiting" || t.status === "late") && typeof t.start_wall === "number"
        ? h("span", "starts", `starts ${new Date(t.start_wall).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`) : null,
      t.crawford ? h("span", "crawford", "CRAWFORD") : null,
      t.post_crawford && !t.crawford ? h("span", "", "post-Crawford") : null));
  return el;
}

function safeTile(t) {
  try { return tile(t); } catch (e) { return h("section", "btile", h("div", "top", h("span", "no", str(t && t.table)))); }
}

function render() {
  const ids = [...B.tables.keys()].sort(natural);
  $("board-grid").replaceChildren(...ids.map((id) => safeTile(B.tables.get(id))));
  renderNames();
  paginate();
}

/** "Find your table": every player of the current matches, alphabetically, with the table. */
function renderNames() {
  const rows = [];
  for (const t of B.tables.values()) {
    const players = t.players && typeof t.players === "object" ? t.players : {};
    for (const side of ["A", "B"]) if (players[side]) rows.push([str(players[side]), str(t.table)]);
  }
  rows.sort((a, b) => fold(a[0]).localeCompare(fold(b[0])) || natural(a[1], b[1]));
  $("board-names").replaceChildren(...rows.map(([name, table]) => {
    const li = h("li", "", h("span", "pn", name), h("span", "pt", table));
    li.dataset.table = table;
    return li;
  }));
}

// -- paging ------------------------------------------------------------------------------------

/** Group the grid's rows into pages that fit the screen (rows are never cut in half). */
function paginate() {
  const grid = $("board-grid");
  const tiles = [...grid.children];
  const tops = [...new Set(tiles.map((el) => el.offsetTop))].sort((a, b) => a - b);
  const height = grid.clientHeight;
  const pages = [];
  let start = 0;
  for (let i = 0; i < tops.length; i++) {
    const rowBottom = Math.max(...tiles.filter((el) => el.offsetTop === tops[i]).map((el) => el.offsetTop + el.offsetHeight));
    if (rowBottom - tops[start] > height && i > start) { pages.push(tops[start]); start = i; }
  }
  if (tops.length) pages.push(tops[start]);
  B.pages = pages.length ? pages : [0];
  if (B.page >= B.pages.length) B.page = 0;
  showPage();
}

function showPage() {
  const grid = $("board-grid");
  const paged = window.matchMedia("(min-width: 900px)").matches;
  const from = B.pages[B.page], to = B.page + 1 < B.pages.length ? B.pages[B.page + 1] : Infinity;
  grid.scrollTop = from - (grid.firstElementChild ? grid.firstElementChild.offsetTop : 0);
  // a row that belongs to another page is not shown half-cut at the bottom
  for (const el of grid.children) el.classList.toggle("off-page", paged && (el.offsetTop < from || el.offsetTop >= to));
  const n = B.pages.length;
  $("board-page").textContent = n > 1 ? `page ${B.page + 1} of ${n}` : "";
  const names = $("board-names");
  const lines = Math.max(1, Math.floor(names.clientHeight / ((names.firstElementChild && names.firstElementChild.offsetHeight) || 30)));
  const namePages = Math.max(1, Math.ceil(names.children.length / lines));
  if (B.namePage >= namePages) B.namePage = 0;
  names.scrollTop = B.namePage * lines * ((names.firstElementChild && names.firstElementChild.offsetHeight) || 30);
  $("names-page").textContent = namePages > 1 ? `${B.namePage + 1} / ${namePages}` : "";
  document.body.dataset.pages = String(n);
  document.body.dataset.page = String(B.page + 1);
}

function nextPage() {
  if (!window.matchMedia("(min-width: 900px)").matches) return;  // a phone scrolls by itself
  const flights = Number(document.body.dataset.flights || 0);
  const show = new URLSearchParams(location.search).get("show");
  const tablePages = show === "draw" && flights ? 0 : B.pages.length;
  const all = tablePages + (show === "tables" ? 0 : flights);
  B.turn = ((B.turn || 0) + 1) % Math.max(1, all);
  if (B.turn < tablePages) {
    B.page = B.turn;
    B.namePage += 1;
    showFlightPage(0);
    paginate();  // the grid was hidden behind a bracket: its rows are measured again
  } else {
    showFlightPage(B.turn - tablePages + 1);
  }
}

/** Show the room's tables (0) or the nth flight's bracket on a wall screen (board-draw.js). */
function showFlightPage(n) {
  document.body.dataset.show = n ? "draw" : "tables";
  document.body.dataset.flight = n ? String(n) : "";
  document.dispatchEvent(new CustomEvent("board:flight", { detail: n }));
}

function tellTiles() {
  document.dispatchEvent(new CustomEvent("board:tiles", { detail: B.tables }));
}

// -- live updates ------------------------------------------------------------------------------

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/ws?board=1`);
  ws.onopen = () => { B.retry = 500; };
  ws.onmessage = (m) => {
    let msg;
    try { msg = JSON.parse(m.data); } catch (e) { return; }
    if (msg.now_wall) B.offset = msg.now_wall - Date.now();
    const list = (x) => (Array.isArray(x) ? x : []).filter((t) => t && typeof t === "object" && t.table !== undefined && t.table !== null);
    if (msg.type === "hello") {
      $("board-title").textContent = msg.event;
      document.title = `${msg.event} — room board`;
      B.tables = new Map(list(msg.tables).map((t) => [str(t.table), t]));
      render();
      showClock();
      tellTiles();
    } else if (msg.type === "tiles") {
      let added = false, names = false;
      for (const t of list(msg.tiles)) {
        const before = B.tables.get(str(t.table));
        if (!before) added = true;
        else if (JSON.stringify(before.players) !== JSON.stringify(t.players)) names = true;
        B.tables.set(str(t.table), t);
        const old = document.querySelector(`#board-grid [data-table="${CSS.escape(str(t.table))}"]`);
        if (old) old.replaceWith(safeTile(t));
      }
      if (added) render(); else if (names) renderNames();
      tellTiles();
    }
  };
  ws.onclose = () => { setTimeout(connect, B.retry); B.retry = Math.min(B.retry * 2, 10000); };
}

function showClock() {
  $("board-clock").textContent = new Date(Date.now() + B.offset).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

document.addEventListener("DOMContentLoaded", () => {
  const s = Number(new URLSearchParams(location.search).get("seconds"));
  if (s >= 3 && s <= 600) B.seconds = s;
  if (new URLSearchParams(location.search).get("show") === "draw") showFlightPage(1);
  connect();
  showClock();
  setInterval(showClock, 1000);
  setInterval(nextPage, B.seconds * 1000);
  window.addEventListener("resize", paginate);
  document.addEventListener("keydown", (ev) => { if (ev.key === "ArrowRight" || ev.key === " ") nextPage(); });
});
