// The public room board (/board): every table's players, score and state, large, read-only.
"use strict";

const B = { tables: new Map(), offset: 0, retry: 500 };
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

function tile(t) {
  const el = h("section", `btile bst-${t.status}`);
  el.dataset.table = t.table;
  el.append(
    h("div", "top", h("span", "no", t.table), h("span", "st", `${t.status_icon} ${t.status_label}`)),
    h("div", "row", h("span", "nm", t.players.A || "—"), h("span", "sc", t.score.A)),
    h("div", "row", h("span", "nm", t.players.B || "—"), h("span", "sc", t.score.B)),
    h("div", "info",
      t.length ? h("span", "", `to ${t.length}`) : null,
      t.round ? h("span", "", `round ${t.round}`) : null,
      t.game ? h("span", "", `game ${t.game}`) : null,
      t.crawford ? h("span", "crawford", "CRAWFORD") : null,
      t.post_crawford && !t.crawford ? h("span", "", "post-Crawford") : null));
  return el;
}

function render() {
  const ids = [...B.tables.keys()].sort(natural);
  $("board-grid").replaceChildren(...ids.map((id) => tile(B.tables.get(id))));
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/ws?board=1`);
  ws.onopen = () => { B.retry = 500; };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.now_wall) B.offset = msg.now_wall - Date.now();
    if (msg.type === "hello") {
      $("board-title").textContent = msg.event;
      document.title = `${msg.event} — room board`;
      B.tables = new Map(msg.tables.map((t) => [t.table, t]));
      render();
      showClock();
    } else if (msg.type === "tiles") {
      for (const t of msg.tiles) {
        B.tables.set(t.table, t);
        const old = document.querySelector(`[data-table="${CSS.escape(t.table)}"]`);
        if (old) old.replaceWith(tile(t)); else render();
      }
    }
  };
  ws.onclose = () => { setTimeout(connect, B.retry); B.retry = Math.min(B.retry * 2, 10000); };
}

function showClock() {
  $("board-clock").textContent = new Date(Date.now() + B.offset).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

document.addEventListener("DOMContentLoaded", () => {
  connect();
  showClock();
  setInterval(showClock, 1000);
});
