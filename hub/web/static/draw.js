// The Draw page: each flight's bracket as the hub runs it (GET /api/draw, docs/draw.md "Exports"),
// drawn by bracket.js (which the public board shares), and the calls to come. For a role allowed
// the TD's draw actions (permission ``room``): per flight Hold/Resume; per match not decided
// Hold/Resume, per standing call Move to another table, per finished match Undo result; swapping two
// calls' tables and withdrawing a player above the brackets — each through the one confirmation
// (confirm.js), its outcome a toast and a line kept above the brackets. Reloaded, at most every two
// seconds, on the dashboard's live updates, and at once after an action: what the TD chose in a form
// and has not acted on yet survives the reload (dom.js keepingTyped).
import { $, forgetTyped, h, keepingTyped } from "./dom.js";
import { allMatches, context, flightCard, label, seatText, waitText } from "./bracket.js";
import { confirmAction } from "./confirm.js";
import { S, api, can, toast } from "./state.js";

let timer = null;
let names = new Map();
let outcome = ""; // what the TD's last action on the draw did, kept above the brackets

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
  const ctx = context(draw, (key) => names.get(key), S.tables, can("room") ? ACTIONS : null);
  const next = allMatches(draw).filter((m) => m.state === "ready" && !m.call);
  keepingTyped($("draw-view"), () => {
    $("draw-next").replaceChildren(...(ctx.actions ? [drawActions(draw, ctx)] : []), h("section", { class: "card draw-next" },
      h("h2", {}, "Calls to come"),
      next.length ? h("ol", { class: "plain draw-next-list" }, ...next.map((m) => h("li", { dataset: { match: m.id } },
        h("strong", {}, `${m.flight} ${label(m.id, m.flight)}`), ` ${seatText(m.seats[0], m.flight, ctx)} – ${seatText(m.seats[1], m.flight, ctx)}: `,
        h("span", { class: "muted" }, waitText(m, ctx)))))
        : h("p", { class: "muted" }, "No match is ready and waiting for a call.")));
    $("draw-flights").replaceChildren(...(flights.length ? flights.map((f) => flightCard(f, ctx))
      : [h("p", { class: "muted" }, "The draw has no flight.")]));
  });
}

// -- the TD's actions on the draw (docs/draw.md, "The TD's actions on the draw") -------------------

const enc = encodeURIComponent;
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** "main R2 M1 (Anna Berg – Bruno Costa)": a match as a confirmation names it. */
function named(m, ctx) {
  return `${m.flight} ${label(m.id, m.flight)} (${seatText(m.seats[0], m.flight, ctx)} – ${seatText(m.seats[1], m.flight, ctx)})`;
}

/** Ask, act, say what happened (a toast and the line above the brackets), reload the page. Once
 * done, the form it came from (``keep``, its data-keep) is emptied; refused or cancelled, the TD's
 * choice stays there to be corrected. */
async function act(sentence, okLabel, path, body, done, { danger = false, keep = null } = {}) {
  if (!await confirmAction(sentence, { okLabel, danger })) return;
  try {
    const r = await api("POST", path, body);
    outcome = done(r);
    if (keep) forgetTyped(keep);
    toast(outcome);
  } catch (e) { toast(e.message, true); }
  loadDraw().catch(() => {});
}

/** The matches an undo or a withdrawal changed, as the TD reads them. */
function changedText(ids, draw) {
  const flightOf = new Map(allMatches(draw).map((m) => [m.id, m.flight]));
  if (!ids.length) return "no other match changes";
  return `changes ${ids.map((id) => `${flightOf.get(id) || ""} ${label(id, flightOf.get(id))}`.trim()).join(", ")}`;
}

let current = null; // the draw last shown: the outcome of an undo names its matches

const ACTIONS = {
  flight(f) {
    return f.held
      ? h("button", { type: "button", class: "small", dataset: { flightResume: f.name }, onclick: () => act(
        `Resume the ${f.name} flight? Its ready matches are called to free tables again.`, "Resume flight",
        `/api/draw/flights/${enc(f.name)}/resume`, undefined, () => `The ${f.name} flight is resumed`) }, "▶ Resume flight…")
      : h("button", { type: "button", class: "small ghost", dataset: { flightHold: f.name }, onclick: () => act(
        `Hold the ${f.name} flight? None of its matches is called to a table until you resume it (the calls made stand).`, "Hold flight",
        `/api/draw/flights/${enc(f.name)}/hold`, undefined, () => `The ${f.name} flight is held: no call until you resume it`) }, "‖ Hold flight…");
  },

  match(m, live) {
    const ctx = this.ctx;
    const what = named(m, ctx);
    const out = [];
    if (m.state === "waiting" || (m.state === "ready" && !m.call)) {
      out.push(m.held
        ? h("button", { type: "button", class: "small", dataset: { matchResume: m.id }, onclick: () => act(
          `Resume ${what}? It is called to a free table as soon as it can be.`, "Resume",
          `/api/draw/matches/${enc(m.id)}/release`, undefined, () => `${m.flight} ${label(m.id, m.flight)} is resumed`) }, "▶ Resume…")
        : h("button", { type: "button", class: "small ghost", dataset: { matchHold: m.id }, onclick: () => act(
          `Hold ${what}? It is not called to a table until you resume it.`, "Hold",
          `/api/draw/matches/${enc(m.id)}/hold`, undefined, () => `${m.flight} ${label(m.id, m.flight)} is held`) }, "‖ Hold…"));
    }
    if (m.state === "ready" && m.call) {
      const from = String(m.call.table);
      const tables = [...S.tables.keys()].filter((t) => t !== from)
        .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      out.push(h("form", { class: "inline draw-move", dataset: { matchMove: m.id, keep: `move ${m.id}` }, onsubmit: (ev) => {
        ev.preventDefault();
        const to = ev.target.to_table.value;
        if (!to) { toast("Choose the table to move it to", true); return; }
        act(`Move ${what} from table ${from} to table ${to}?${live ? " It has begun: its score goes with it." : ""} Table ${from} is cleared; the players' start time stays.`,
          `Move to table ${to}`, `/api/draw/matches/${enc(m.id)}/move`, { to_table: to },
          (r) => (r.moved || []).map((x) => `${x.match} moved to table ${x.table}`).join("; ") || "Nothing moved", { keep: `move ${m.id}` });
      } },
      h("label", {}, "To table ", h("select", { name: "to_table", "aria-label": `table to move ${m.id} to` },
        h("option", { value: "" }, "—"), ...tables.map((t) => h("option", { value: t }, S.tables.get(t).match_id ? `${t} (busy)` : t)))),
      h("button", { type: "submit", class: "small ghost" }, "Move…")));
    }
    if (m.state === "played") {
      const won = m.winner ? ctx.nameOf(m.winner) : "";
      const pts = m.result && Array.isArray(m.result.points) ? ` ${m.result.points[0]}–${m.result.points[1]}` : "";
      out.push(h("button", { type: "button", class: "small ghost", dataset: { matchUndo: m.id }, onclick: () => act(
        `Undo the result of ${what}: ${won} won${pts}? The match is to be played again (it is called to a table again) and what depended on it is derived again.`,
        "Undo result", `/api/draw/matches/${enc(m.id)}/undo`, undefined,
        (r) => `Result of ${m.flight} ${label(m.id, m.flight)} undone: ${changedText(r.changed || [], current)}`, { danger: true }) }, "↶ Undo result…"));
    }
    return out.length ? h("div", { class: "inline draw-actions" }, ...out) : null;
  },
};

/** Above the brackets: swap two calls' tables, withdraw a player, and the last action's outcome. */
function drawActions(draw, ctx) {
  current = draw;
  ACTIONS.ctx = ctx;
  const matches = allMatches(draw);
  const calls = matches.filter((m) => m.state === "ready" && m.call);
  const inPlay = new Map(); // player -> the match of his not decided yet, the first
  for (const m of matches) {
    if (m.state !== "ready" && m.state !== "waiting") continue;
    for (const s of m.seats) if (s.player && !ctx.withdrawn.has(s.player) && !inPlay.has(s.player)) inPlay.set(s.player, m);
  }
  const players = [...inPlay.keys()].sort((a, b) => ctx.nameOf(a).localeCompare(ctx.nameOf(b)));
  const callOption = (m) => h("option", { value: m.id }, `table ${m.call.table}: ${named(m, ctx)}`);
  const swap = h("form", { class: "inline", id: "draw-swap", "data-keep": "draw-swap", onsubmit: (ev) => {
    ev.preventDefault();
    const a = calls.find((m) => m.id === ev.target.a.value);
    const b = calls.find((m) => m.id === ev.target.b.value);
    if (!a || !b || a === b) { toast("Choose two different calls", true); return; }
    act(`Swap tables: ${named(a, ctx)} goes to table ${b.call.table}, ${named(b, ctx)} to table ${a.call.table}?`,
      "Swap tables", "/api/draw/swap", { a: a.id, b: b.id },
      (r) => (r.moved || []).map((x) => `${x.match} to table ${x.table}`).join(", ") || "Nothing moved", { keep: "draw-swap" });
  } },
  h("label", {}, "Swap the tables of ", h("select", { name: "a", "aria-label": "first call" }, h("option", { value: "" }, "—"), ...calls.map(callOption))),
  h("label", {}, " and ", h("select", { name: "b", "aria-label": "second call" }, h("option", { value: "" }, "—"), ...calls.map(callOption))),
  h("button", { type: "submit", class: "small ghost", disabled: calls.length < 2 }, "Swap…"));
  const withdraw = h("form", { class: "inline", id: "draw-withdraw", "data-keep": "draw-withdraw", onsubmit: (ev) => {
    ev.preventDefault();
    const key = ev.target.player.value;
    const m = inPlay.get(key);
    if (!m) { toast("Choose the player who withdraws", true); return; }
    const name = ctx.nameOf(key);
    const other = m.seats.find((s) => s.player && s.player !== key);
    const to = other ? `${ctx.nameOf(other.player)} goes on in ${m.flight} ${label(m.id, m.flight)}` : `his next opponent goes on in ${m.flight} ${label(m.id, m.flight)}`;
    act(`Withdraw ${name} from the event? Every match of ${name} not decided yet is a walkover to the opponent: ${to}.${m.call ? ` His call to table ${m.call.table} is withdrawn.` : ""}`,
      `Withdraw ${name}`, `/api/draw/players/${enc(key)}/withdraw`, undefined,
      (r) => `${name} withdrawn: ${changedText(r.changed || [], current)}`, { danger: true, keep: "draw-withdraw" });
  } },
  h("label", {}, "Withdraw ", h("select", { name: "player", "aria-label": "player who withdraws" }, h("option", { value: "" }, "—"),
    ...players.map((k) => h("option", { value: k }, ctx.nameOf(k))))),
  h("button", { type: "submit", class: "small ghost" }, "Withdraw (walkover)…"));
  return h("section", { class: "card draw-td" },
    h("h2", {}, "TD's actions"),
    outcome ? h("p", { class: "draw-outcome", id: "draw-outcome", role: "status" }, outcome) : null,
    swap, withdraw);
}
