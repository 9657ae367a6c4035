// The Draw page: each flight's bracket as the hub runs it (GET /api/draw, docs/draw.md "Exports"),
// rounds as columns (a vertical list on a phone), each match with its players or where they come
// from, its state (waiting for whom, called to a table, playing with the live score from the room's
// tiles, finished with its score, bye, walkover), and the calls to come. Read-only: the TD's draw
// actions are the API's. Reloaded, at most every two seconds, on the dashboard's live updates.
import { $, h, hhmm } from "./dom.js";
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

const nameOf = (key) => names.get(key) || key;

/** "R2 M1" within its flight, "main R1 M2" from another. */
function label(id, flight) {
  const m = /^(.+)-r(\d+)-m(\d+)$/.exec(id);
  if (!m) return id;
  return `${m[1] === flight ? "" : m[1] + " "}R${m[2]} M${m[3]}`;
}

/** The room's tile of a called match (the call's table holding it, or a call again of it). */
function tileOf(m) {
  if (!m.call) return null;
  const t = S.tables.get(String(m.call.table));
  if (!t || !t.match_id) return null;
  const id = String(t.match_id);
  return id === m.id || id.startsWith(m.id + "-") ? t : null;
}

function seatText(seat, flight) {
  if (seat.player) return nameOf(seat.player);
  if (seat.bye) return "bye";
  const f = seat.from || {};
  if (f.winner_of) return `winner of ${label(f.winner_of, flight)}`;
  if (f.loser_of) return `loser of ${label(f.loser_of, flight)}`;
  return "—";
}

function render(draw) {
  const flights = draw.flights || [];
  const all = flights.flatMap((f) => f.rounds.flatMap((r) => r.matches.map((m) => ({ ...m, flight: f.name, round: r.round, length: r.length }))));
  // who is at a table now: a player of a called match with no result
  const busy = new Map();
  for (const m of all) if (m.state === "ready" && m.call) for (const s of m.seats) if (s.player) busy.set(s.player, m);
  const withdrawn = new Set((draw.withdrawn || []).map((w) => w.player));
  const ctx = { busy, withdrawn };
  const next = all.filter((m) => m.state === "ready" && !m.call);
  $("draw-next").replaceChildren(h("section", { class: "card draw-next" },
    h("h2", {}, "Calls to come"),
    next.length ? h("ol", { class: "plain draw-next-list" }, ...next.map((m) => h("li", { dataset: { match: m.id } },
      h("strong", {}, `${m.flight} ${label(m.id, m.flight)}`), ` ${seatText(m.seats[0], m.flight)} – ${seatText(m.seats[1], m.flight)}: `,
      h("span", { class: "muted" }, waitText(m, ctx)))))
      : h("p", { class: "muted" }, "No match is ready and waiting for a call.")));
  $("draw-flights").replaceChildren(...(flights.length ? flights.map((f) => flightCard(f, ctx))
    : [h("p", { class: "muted" }, "The draw has no flight.")]));
}

function waitText(m, ctx) {
  const playing = m.seats.map((s) => s.player && ctx.busy.get(s.player)).filter((x) => x && x.id !== m.id);
  if (playing.length) {
    return playing.map((x) => {
      const who = x.seats.find((s) => m.seats.some((t) => t.player && t.player === s.player));
      return `waits for ${nameOf(who.player)} (playing at table ${x.call.table})`;
    }).join("; ");
  }
  // the export says neither the TD's holds nor the verifications the call waits for: no guess
  return "not called yet (a free table, a result's verification or the TD's hold)";
}

function flightCard(f, ctx) {
  const kind = f.kind === "fed" ? `fed by ${(f.feeds || []).map((x) => `${x.flight} round ${x.round}`).join(", ")}` : `${f.size} places`;
  return h("section", { class: "card draw-flight", dataset: { flight: f.name } },
    h("div", { class: "draw-flight-head" }, h("h2", {}, f.name), h("span", { class: "muted" }, `${kind} · ${f.profile}`)),
    h("div", { class: "bracket" }, ...f.rounds.map((r) => h("div", { class: "draw-round", dataset: { round: r.round } },
      h("h3", {}, `Round ${r.round}`, h("span", { class: "muted" }, ` · to ${r.length}`)),
      h("div", { class: "draw-round-matches" },
        ...r.matches.map((m) => matchCard({ ...m, flight: f.name, round: r.round, length: r.length }, ctx)))))));
}

function matchCard(m, ctx) {
  const tile = tileOf(m);
  const live = tile && tile.score && typeof tile.score === "object" && tile.phase !== "waiting" ? tile.score : null;
  const pts = m.result && Array.isArray(m.result.points) ? m.result.points : null;
  const seatScore = (i) => {
    const s = m.seats[i];
    if (pts && s.player) return s.player === m.winner ? pts[0] : pts[1];
    if (live) return live[i === 0 ? "A" : "B"];
    return null;
  };
  const seats = m.seats.map((s, i) => h("div", {
    class: `seat${s.player && s.player === m.winner ? " won" : ""}${s.player ? "" : " tbd"}`,
  }, h("span", { class: "seat-name" }, seatText(s, m.flight)),
  s.player && ctx.withdrawn.has(s.player) ? h("span", { class: "withdrawn" }, "withdrawn") : null, seatScore(i) === null ? null : h("span", { class: "seat-score num" }, String(seatScore(i)))));
  return h("article", { class: `draw-match st-${m.state}${live ? " st-playing" : ""}`, dataset: { match: m.id, state: m.state } },
    h("div", { class: "draw-match-head" }, h("span", { class: "draw-match-id" }, label(m.id, m.flight)),
      m.call ? h("span", { class: "draw-table" }, `table ${m.call.table}`) : null),
    ...seats,
    h("p", { class: "draw-status" }, statusText(m, live, pts, ctx)));
}

function statusText(m, live, pts, ctx) {
  const won = m.winner ? nameOf(m.winner) : "";
  if (m.state === "played") return pts ? `Finished: ${won} won ${pts[0]}–${pts[1]}` : `Finished: ${won} won`;
  if (m.state === "walkover") return `Walkover: ${won} goes on`;
  if (m.state === "bye") return m.winner ? `Bye: ${won} goes on` : "Bye";
  if (m.state === "waiting") {
    const from = m.seats.filter((s) => !s.player && !s.bye).map((s) => seatText(s, m.flight));
    return `Waits for the ${from.map((x) => x.replace(/^(winner|loser) of /, "$1 of ")).join(" and the ")}`;
  }
  if (m.call) {
    if (live) return `Playing at table ${m.call.table}: ${live.A}–${live.B} to ${m.length}`;
    return `Called to table ${m.call.table} at ${hhmm(m.call.called_at)}, starts ${hhmm(m.call.start)}`;
  }
  const wait = waitText(m, ctx);
  return wait.charAt(0).toUpperCase() + wait.slice(1);
}
