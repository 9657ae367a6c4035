// A draw's brackets as the TD's Draw page (draw.js) and the public board (board-draw.js) show
// them: rounds as columns (a vertical list on a phone), each match with its players or where they
// come from, its state (waiting for whom, called to a table, playing with the live score from the
// room's tiles, finished with its score, bye, walkover). Read-only. What differs between the two
// pages comes in ``ctx``: ``nameOf`` (a seat's player -> a name), ``tiles`` (table -> the room's
// tile), the draw's withdrawn players and the TD's holds (``held``: the Draw page's alone, the
// board's draw has none), and ``actions`` (the Draw page's forms for a flight or a match, if any).
import { h, hhmm } from "./dom.js";

/** "R2 M1" within its flight, "main R1 M2" from another. */
export function label(id, flight) {
  const m = /^(.+)-r(\d+)-m(\d+)$/.exec(id);
  if (!m) return id;
  return `${m[1] === flight ? "" : m[1] + " "}R${m[2]} M${m[3]}`;
}

/** Every match of the draw, each with its flight, round and length. */
export function allMatches(draw) {
  return (draw.flights || []).flatMap((f) => f.rounds.flatMap((r) => r.matches.map((m) => ({ ...m, flight: f.name, round: r.round, length: r.length }))));
}

/** What the brackets need besides the draw: who is at a table now (a player of a called match
 * with no result), the withdrawn players, the held flights, names and tiles. */
export function context(draw, nameOf, tiles, actions = null) {
  const busy = new Map();
  for (const m of allMatches(draw)) if (m.state === "ready" && m.call) for (const s of m.seats) if (s.player) busy.set(s.player, m);
  const withdrawn = new Set((draw.withdrawn || []).map((w) => w.player));
  const heldFlights = new Set((draw.flights || []).filter((f) => f.held).map((f) => f.name));
  return { busy, withdrawn, heldFlights, nameOf: (k) => nameOf(k) || k, tiles, actions };
}

/** The room's tile of a called match (the call's table holding it, or a call again of it). */
export function tileOf(m, tiles) {
  if (!m.call) return null;
  const t = tiles.get(String(m.call.table));
  if (!t || !t.match_id) return null;
  const id = String(t.match_id);
  return id === m.id || id.startsWith(m.id + "-") ? t : null;
}

export function seatText(seat, flight, ctx) {
  if (seat.player) return ctx.nameOf(seat.player);
  if (seat.bye) return "bye";
  const f = seat.from || {};
  if (f.winner_of) return `winner of ${label(f.winner_of, flight)}`;
  if (f.loser_of) return `loser of ${label(f.loser_of, flight)}`;
  return "—";
}

export function waitText(m, ctx) {
  const playing = m.seats.map((s) => s.player && ctx.busy.get(s.player)).filter((x) => x && x.id !== m.id);
  if (playing.length) {
    return playing.map((x) => {
      const who = x.seats.find((s) => m.seats.some((t) => t.player && t.player === s.player));
      return `waits for ${ctx.nameOf(who.player)} (playing at table ${x.call.table})`;
    }).join("; ");
  }
  const held = heldText(m, ctx);
  if (held) return held;
  // the export does not say the verifications the call waits for: no guess
  return "not called yet (a free table, a result's verification or the TD's hold)";
}

/** The TD's hold on a match not called (its own or its flight's), or "". */
function heldText(m, ctx) {
  if (m.held) return "held by the TD: not called until resumed";
  if (ctx.heldFlights && ctx.heldFlights.has(m.flight)) return `held with the ${m.flight} flight: not called until resumed`;
  return "";
}

/** One flight's card: its name, what it is, its rounds and their matches. */
export function flightCard(f, ctx) {
  const kind = f.kind === "fed" ? `fed by ${(f.feeds || []).map((x) => `${x.flight} round ${x.round}`).join(", ")}` : `${f.size} places`;
  return h("section", { class: "card draw-flight", dataset: { flight: f.name } },
    h("div", { class: "draw-flight-head" }, h("h2", {}, f.name), h("span", { class: "muted" }, `${kind} · ${f.profile}`),
      f.held ? h("span", { class: "held-badge" }, "held") : null,
      ctx.actions ? ctx.actions.flight(f) : null),
    h("div", { class: "bracket" }, ...f.rounds.map((r) => h("div", { class: "draw-round", dataset: { round: r.round } },
      h("h3", {}, `Round ${r.round}`, h("span", { class: "muted" }, ` · to ${r.length}`)),
      h("div", { class: "draw-round-matches" },
        ...r.matches.map((m) => matchCard({ ...m, flight: f.name, round: r.round, length: r.length }, ctx)))))));
}

export function matchCard(m, ctx) {
  const tile = tileOf(m, ctx.tiles);
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
  }, h("span", { class: "seat-name" }, seatText(s, m.flight, ctx)),
  s.player && ctx.withdrawn.has(s.player) ? h("span", { class: "withdrawn" }, "withdrawn") : null, seatScore(i) === null ? null : h("span", { class: "seat-score num" }, String(seatScore(i)))));
  return h("article", { class: `draw-match st-${m.state}${live ? " st-playing" : ""}${m.held ? " held" : ""}`, dataset: { match: m.id, state: m.state } },
    h("div", { class: "draw-match-head" }, h("span", { class: "draw-match-id" }, label(m.id, m.flight)),
      m.held ? h("span", { class: "held-badge" }, "held") : null,
      m.call ? h("span", { class: "draw-table" }, `table ${m.call.table}`) : null),
    ...seats,
    h("p", { class: "draw-status" }, statusText(m, live, pts, ctx)),
    ctx.actions ? ctx.actions.match(m, live) : null);
}

function statusText(m, live, pts, ctx) {
  const won = m.winner ? ctx.nameOf(m.winner) : "";
  if (m.state === "played") return pts ? `Finished: ${won} won ${pts[0]}–${pts[1]}` : `Finished: ${won} won`;
  if (m.state === "walkover") return `Walkover: ${won} goes on`;
  if (m.state === "bye") return m.winner ? `Bye: ${won} goes on` : "Bye";
  if (m.state === "waiting") {
    const from = m.seats.filter((s) => !s.player && !s.bye).map((s) => seatText(s, m.flight, ctx));
    const held = heldText(m, ctx);
    return `Waits for the ${from.join(" and the ")}${held ? `; ${held}` : ""}`;
  }
  if (m.call) {
    if (live) return `Playing at table ${m.call.table}: ${live.A}–${live.B} to ${m.length}`;
    return `Called to table ${m.call.table} at ${hhmm(m.call.called_at)}, starts ${hhmm(m.call.start)}`;
  }
  const wait = waitText(m, ctx);
  return wait.charAt(0).toUpperCase() + wait.slice(1);
}
