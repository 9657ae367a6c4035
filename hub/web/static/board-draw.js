// The public board's brackets (/board): each flight of the event's draw, live, read-only, drawn
// by bracket.js as the TD's Draw page draws them, from GET /api/board/draw (players by name only).
// The tiles come from board.js's live connection (its "board:tiles" event); the brackets are
// fetched again, at most every two seconds, when a table's match or state changes (a call, a
// result). On a wall screen the board shows each flight as a page of its own after the tables'
// pages (board.js turns them; a flight too large is shrunk to fit); a phone scrolls down to them.
// ?show=draw shows the brackets alone, ?show=tables the tables alone.
import { $, h } from "./dom.js";
import { context, flightCard } from "./bracket.js";

const D = { draw: null, tiles: new Map(), seen: new Map(), timer: null };

async function load() {
  const res = await fetch("/api/board/draw", { headers: { Accept: "application/json" } });
  if (res.status === 404) { D.draw = null; render(); return; }
  if (!res.ok) throw new Error(`the hub answered ${res.status}`);
  D.draw = await res.json();
  render();
}

function render() {
  const section = $("board-draw");
  const show = new URLSearchParams(location.search).get("show");
  const flights = D.draw && show !== "tables" ? D.draw.flights || [] : [];
  section.hidden = !flights.length;
  document.body.dataset.flights = String(flights.length);
  if (!flights.length) { section.replaceChildren(); return; }
  const names = D.draw.names || {};
  const ctx = context(D.draw, (token) => names[token], D.tiles);
  const shown = document.body.dataset.flight;
  section.replaceChildren(...flights.map((f) => flightCard(f, ctx)));
  if (shown) showFlight(Number(shown));
}

/** Show the ``n``th flight alone (a wall screen's page; 0: none), shrunk to fit the screen. */
export function showFlight(n) {
  const cards = [...document.querySelectorAll("#board-draw .draw-flight")];
  cards.forEach((el, i) => {
    el.classList.toggle("off-page", n > 0 && i !== n - 1);
    el.style.zoom = "";
  });
  const el = cards[n - 1];
  if (!el) return;
  const box = $("board-draw");
  const bracket = el.querySelector(".bracket");
  const scale = Math.min(1, box.clientHeight / el.scrollHeight, bracket ? bracket.clientWidth / bracket.scrollWidth : 1);
  if (scale < 1) el.style.zoom = String(Math.max(0.35, scale));
}

function reloadSoon() {
  if (D.timer) return;
  D.timer = setTimeout(() => { D.timer = null; load().catch(() => {}); }, 2000);
}

document.addEventListener("board:tiles", (ev) => {
  D.tiles = ev.detail;
  let moved = false;
  for (const [table, tile] of D.tiles) {
    const mark = `${tile.match_id}|${tile.status}`;
    if (D.seen.get(table) !== mark) moved = true;
    D.seen.set(table, mark);
  }
  if (moved) reloadSoon(); else if (D.draw) render();
});
document.addEventListener("board:flight", (ev) => showFlight(ev.detail));

load().catch(() => reloadSoon());
// what moves the draw without a table's change (a TD's withdrawal, a hold): every half minute
setInterval(reloadSoon, 30000);
