// The Draw page: each flight's bracket as the hub runs it (GET /api/draw, docs/draw.md "Exports"),
// drawn by bracket.js (which the public board shares), and the calls to come. Read-only: the TD's
// draw actions are the API's. Reloaded, at most every two seconds, on the dashboard's live updates.
import { $, h } from "./dom.js";
import { allMatches, context, flightCard, label, seatText, waitText } from "./bracket.js";
import { S, api } from "./state.js";

let timer = null;
let names = new Map();

/** Whether the event has a draw: the nav entry shows only then (404 draw.none otherwise). */
export async function probeDraw() {
  let has = false;
  try { await api("GET", "/api/draw"); has = true; } catch (e) { has = false; }
  $("draw-tab").hidden = !has;
  return has;
}

export async function loadDraw() {
  let draw;
  try {
    draw = await api("GET", "/api/draw");
  } catch (e) {
    if (e.status !== 404) throw e;
    $("draw-next").replaceChildren();
    $("draw-flights").replaceChildren(h("p", { class: "muted" }, "This event has no draw."));
    return;
  }
  $("draw-tab").hidden = false;
  try {
    const players = await api("GET", "/api/players");
    names = new Map(players.map((p) => [p.key, p.name]));
  } catch (e) { /* the keys stand in for the names */ }
  render(draw);
}

/** Reload at most every two seconds while the page is open (each result or call moves it on). */
export function scheduleDraw() {
  if (timer || S.view !== "draw") return;
  timer = setTimeout(() => { timer = null; if (S.view === "draw") loadDraw().catch(() => {}); }, 2000);
}

/** The calls to come above the brackets; the brackets are bracket.js's. */
function render(draw) {
  const flights = draw.flights || [];
  const ctx = context(draw, (key) => names.get(key), S.tables);
  const next = allMatches(draw).filter((m) => m.state === "ready" && !m.call);
  $("draw-next").replaceChildren(h("section", { class: "card draw-next" },
    h("h2", {}, "Calls to come"),
    next.length ? h("ol", { class: "plain draw-next-list" }, ...next.map((m) => h("li", { dataset: { match: m.id } },
      h("strong", {}, `${m.flight} ${label(m.id, m.flight)}`), ` ${seatText(m.seats[0], m.flight, ctx)} – ${seatText(m.seats[1], m.flight, ctx)}: `,
      h("span", { class: "muted" }, waitText(m, ctx)))))
      : h("p", { class: "muted" }, "No match is ready and waiting for a call.")));
  $("draw-flights").replaceChildren(...(flights.length ? flights.map((f) => flightCard(f, ctx))
    : [h("p", { class: "muted" }, "The draw has no flight.")]));
}
