// The alerts: the feed beside the room, the full list, one alert's card (with what can be done
// from it). The feed reads by what each alert asks of the TD (hub/alert_kinds.py): first what
// needs the TD ("act", the longest waiting first), then what to keep an eye on ("watch", grouped
// per round), then what the hub did by itself ("done", log lines with their Waive / Undo). The
// count and the sound are alarm.js's, shared with every page.
import { $, h, hhmm } from "./dom.js";
import { askOf, openAct, showAlarm, sound } from "./alarm.js";
import { confirmAction } from "./confirm.js";
import { gamesTable, say } from "./sentences.js";
import { S, api, can, isTD, toast } from "./state.js";

export { sound };

const URGENCY_ICON = { critical: "‼", high: "!", medium: "•", low: "i" };

export function setAlerts(alerts) {
  S.alerts = alerts;
  showTitle();
  render($("feed"), alerts);
  if (S.view === "alerts") render($("alerts-full"), alerts);
}

/** Draw the list again, keeping open the groups and folds the TD opened (a push every second
 * must not close them under the pointer). */
function render(list, alerts) {
  const opened = new Set([...list.querySelectorAll("details[open][data-fold]")].map((d) => d.dataset.fold));
  list.replaceChildren(...alertItems(alerts));
  for (const d of list.querySelectorAll("details[data-fold]")) if (opened.has(d.dataset.fold)) d.open = true;
}

export function showTitle() {
  const event = (S.session && S.session.event) || "";
  showAlarm(S.alerts, { badge: $("alert-count"), title: `TD hub — ${event}` });
}

// -- the feed ----------------------------------------------------------------------------------

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** How a group of watch alerts of one kind reads, and what it is grouped by. */
const GROUPS = {
  slow: {
    by: (a) => (a.data && a.data.next_round) || a.round || "",
    text: (round, items) => {
      const still = items.filter((a) => a.data && a.data.late_by_ms != null).length;
      const pace = items.length - still;
      const head = round ? `Round ${round}: ` : "";
      if (!still) return `${head}${plural(pace, "match", "matches")} may end after its start`;
      return `${head}${plural(still, "match", "matches")} still playing${pace ? `; ${pace} more may end after its start` : ""}`;
    },
  },
  late: {
    by: (a) => a.round || "",
    text: (r, items) => {
      // a player still playing another match is not late: said apart, never counted as late
      const elsewhere = items.filter((a) => a.data && a.data.elsewhere).length;
      const late = items.length - elsewhere;
      const head = r ? `Round ${r}: ` : "";
      const away = plural(elsewhere, "player", "players") + " still playing another match";
      if (!late) return `${head}${away}`;
      return `${head}${plural(late, "player", "players")} late${elsewhere ? `; ${away}` : ""}`;
    },
  },
  break_overrun: { by: (a) => a.round || "", text: (r, items) => `${r ? `Round ${r}: ` : ""}${plural(items.length, "player", "players")} back late from a break` },
  not_started: { by: (a) => a.round || "", text: (r, items) => `${r ? `Round ${r}: ` : ""}${plural(items.length, "match", "matches")} not started` },
  offline: { by: () => "", text: (_r, items) => `${plural(items.length, "table", "tables")} offline` },
  clock_skew: { by: () => "", text: (_r, items) => `${plural(items.length, "table's clock is", "tables' clocks are")} off` },
};
/** The newest done lines shown at once; the older ones fold. */
const DONE_SHOWN = 5;

export function alertItems(alerts) {
  const act = alerts.filter((a) => askOf(a) === "act");
  const watch = alerts.filter((a) => askOf(a) === "watch");
  const done = alerts.filter((a) => askOf(a) === "done");
  const out = [];
  const open = openAct(alerts).length;
  if (act.length) {
    out.push(h("li", { class: "feed-head ask-act" }, open ? `Needs you (${open})` : "Needs you: all seen"));
    out.push(...act.map((a) => alertItem(a)));
  } else {
    out.push(h("li", { class: "empty" }, "Nothing needs you right now."));
  }
  if (watch.length) {
    out.push(h("li", { class: "feed-head ask-watch" }, "Keep an eye on"));
    out.push(...watchItems(watch));
  }
  if (done.length) {
    out.push(h("li", { class: "feed-head ask-done" }, "Done by the hub"));
    out.push(...done.slice(0, DONE_SHOWN).map(doneItem));
    if (done.length > DONE_SHOWN) {
      const rest = done.slice(DONE_SHOWN);
      out.push(h("li", { class: "done-more" }, h("details", { class: "alert-list", dataset: { fold: "done" } },
        h("summary", {}, `${rest.length} earlier`), h("ol", { class: "alerts" }, ...rest.map(doneItem)))));
    }
  }
  return out;
}

/** Watch alerts, the several of one kind and round as one line that opens to the tables. */
function watchItems(watch) {
  const groups = new Map();
  for (const a of watch) {
    const g = GROUPS[a.kind];
    const key = g ? `${a.kind}\u0000${g.by(a)}` : `one\u0000${a.id}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(a);
  }
  return [...groups.values()].map((items) => (items.length > 1 ? groupItem(items) : alertItem(items[0])));
}

const tableLink = (table, text) => h("a", { href: `#/table/${encodeURIComponent(table)}` }, text);

function groupItem(items) {
  const g = GROUPS[items[0].kind];
  const text = g.text(g.by(items[0]), items);
  return h("li", { class: "alert ask-watch group", dataset: { kind: items[0].kind, group: g.by(items[0]), count: items.length } },
    h("details", { class: "alert-list", dataset: { fold: `${items[0].kind}:${g.by(items[0])}` } },
      h("summary", {}, h("span", { class: "msg" }, text)),
      h("ul", {}, ...items.map((a) => h("li", {}, a.table ? tableLink(a.table, `Table ${a.table}`) : null,
        " ", a.message.replace(/^Table [^:]+: /, ""))))));
}

/** A line of what the hub did by itself: when, what, and what takes it back. */
function doneItem(a) {
  const d = a.data || {};
  let action = null;
  if (isTD() && a.table && d.undo === "take_back") {
    action = h("button", { type: "button", class: "small ghost", onclick: () => takeBack(a, "waive") }, "Waive…");
  } else if (isTD() && a.table && d.undo === "reopen") {
    action = h("button", { type: "button", class: "small ghost", onclick: () => takeBack(a, "undo") }, "Undo forfeit…");
  }
  return h("li", { class: `alert ask-done done-line${d.waived ? " waived" : ""}`, dataset: { alert: a.id, kind: a.kind } },
    h("span", { class: "msg" }, a.message),
    action);
}

async function takeBack(a, how) {
  const d = a.data || {};
  const t = S.tables.get(String(a.table));
  const players = t ? t.players : {};
  const who = (players && players[d.side]) || `player ${d.side}`;
  const other = (players && players[d.side === "A" ? "B" : "A"]) || "the opponent";
  const when = d.given_wall ? ` at ${hhmm(d.given_wall)}` : "";
  const sentence = how === "undo"
    ? `Undo the automatic forfeit against ${who} at table ${a.table} (given${when})? The match goes on where it stood.`
    : `Waive the automatic point against ${who} at table ${a.table} (given${when})? ${other} loses that point.`;
  if (!await confirmAction(sentence, { okLabel: how === "undo" ? "Undo forfeit" : "Waive" })) return;
  try {
    await api("POST", `/api/tables/${encodeURIComponent(a.table)}/commands`, { type: "waive", penalty_id: d.penalty_id });
    toast(how === "undo" ? `Forfeit undone at table ${a.table}` : `Waived at table ${a.table}`);
  } catch (e) { toast(e.message, true); }
}

/** The automatic point an alert says was given, if the TD can still take it back from here. */
function waivable(a) {
  const d = a.data;
  if (!d || !a.table || !d.last_penalty_id) return null;
  if ((d.waived_ids || []).includes(d.last_penalty_id) || (d.pending_ids || []).includes(d.last_penalty_id)) return null;
  return d;
}

/** What an alert about many (a round's absentees, a player booked twice) lists, opened on demand. */
function details(a) {
  const d = a.data || {};
  const link = (table, text) => h("a", { href: `#/table/${encodeURIComponent(table)}` }, text);
  if (a.kind === "absent" && Array.isArray(d.players)) {
    return h("details", { class: "alert-list" }, h("summary", {}, `The ${d.players.length} player${d.players.length === 1 ? "" : "s"}`),
      h("ul", {}, ...d.players.map((x) => h("li", {}, link(x.table, `${x.name} → table ${x.table}`),
        x.elsewhere ? ` — still playing ${x.elsewhere.text || x.elsewhere.match_id}` : x.late_ms ? ` — ${Math.floor(x.late_ms / 60000)} min late` : ""))));
  }
  if (a.kind === "double_booked" && Array.isArray(d.matches)) {
    return h("ul", { class: "alert-list" }, ...d.matches.map((m) => h("li", {}, link(m.table, `${m.match_id} at table ${m.table}`))));
  }
  return null;
}

/** One alert: urgency, message, when, and what the TD can do from here. */
export function alertItem(a, { onTable = false } = {}) {
  const actions = [];
  const point = isTD() ? waivable(a) : null;
  if (point) {
    actions.push(h("button", { type: "button", class: "small ghost", onclick: () => waiveFromAlert(a, point) }, "Waive…"));
  }
  if (can("alerts") && !a.acked_wall && askOf(a) === "act") {
    actions.push(h("button", { type: "button", class: "small ghost", onclick: () => ack(a) },
      a.kind === "td_call" ? "Acknowledge (clears the call)" : "Acknowledge"));
  }
  if (askOf(a) === "done") return doneItem(a);
  const act = askOf(a) === "act";
  return h("li", { class: `alert ask-${askOf(a)} ${act ? `u-${a.urgency}` : "u-watch"}${a.acked_wall ? " acked" : ""}`, dataset: { alert: a.id, kind: a.kind } },
    h("div", { class: "row" },
      act ? h("span", { class: "badge" }, h("span", { "aria-hidden": "true" }, URGENCY_ICON[a.urgency] || "•"), a.urgency.toUpperCase())
        : h("span", { class: "badge" }, "WATCH"),
      h("span", { class: "meta" }, `${a.match_id ? a.match_id + " · " : ""}${hhmm(a.raised_wall)}`)),
    h("div", { class: "msg" }, a.message),
    details(a),
    h("div", { class: "row" },
      a.table && !onTable ? h("a", { href: `#/table/${encodeURIComponent(a.table)}` }, `Table ${a.table}`) : h("span"),
      a.acked_wall ? h("span", { class: "meta" }, `✓ acknowledged ${a.acked_by ? "by " + a.acked_by + " " : ""}${hhmm(a.acked_wall)}`) : null,
      h("span", { class: "alert-actions" }, ...actions)));
}

async function ack(a) {
  try {
    await api("POST", `/api/alerts/${a.id}/ack`);
  } catch (e) { toast(e.message, true); }
}

async function waiveFromAlert(a, d) {
  const t = S.tables.get(String(a.table));
  const players = t ? t.players : {};
  const who = (players && players[d.side]) || `player ${d.side}`;
  const other = (players && players[d.side === "A" ? "B" : "A"]) || "the opponent";
  const when = d.given_wall ? ` at ${hhmm(d.given_wall)}` : "";
  const sentence = `Waive the automatic point against ${who} at table ${a.table} (given${when})? ${other} loses that point.`;
  if (!await confirmAction(sentence, { okLabel: "Waive" })) return;
  try {
    await api("POST", `/api/tables/${encodeURIComponent(a.table)}/commands`, { type: "waive", penalty_id: d.last_penalty_id });
    toast(`Waived at table ${a.table}`);
  } catch (e) { toast(e.message, true); }
}

// -- counters: what the room counts rather than alerts ------------------------------------------

export function setCounters(c) {
  S.counters = c || null;
  const el = $("counters");
  if (!el) return;
  const verify = (c && c.verify) || { count: 0, items: [] };
  const onBreak = (c && c.on_break) || { count: 0, items: [] };
  const open = new Set([...el.querySelectorAll("details[open]")].map((d) => d.dataset.counter));
  el.replaceChildren(
    h("details", { class: "counter", dataset: { counter: "verify" }, open: open.has("verify") },
      h("summary", {}, h("span", { class: "count-chip c-finished" }, `${verify.count} to verify`)),
      h("ul", {}, ...(verify.items.length ? verify.items.map((v) => h("li", {},
        h("a", { href: `#/table/${encodeURIComponent(v.table)}` }, `Table ${v.table}`),
        ` ${(v.players && v.players.A) || ""} ${v.score ? v.score.A : ""}–${v.score ? v.score.B : ""} ${(v.players && v.players.B) || ""} `,
        can("results") ? h("button", { type: "button", class: "small", onclick: () => verifyMatch(v.match_id) }, "Verify…") : null))
        : [h("li", { class: "muted" }, "Every result is verified.")]))),
    h("details", { class: "counter", dataset: { counter: "on_break" }, open: open.has("on_break") },
      h("summary", {}, h("span", { class: "count-chip c-playing" }, `${onBreak.count} on break`)),
      h("ul", {}, ...(onBreak.items.length ? onBreak.items.map((b) => h("li", {},
        h("a", { href: `#/table/${encodeURIComponent(b.table)}` }, `Table ${b.table}`),
        ` ${b.name || ""}${b.ends_wall ? ` — back by ${hhmm(b.ends_wall)}` : ""}${b.allowed ? ` (break ${b.break_no} of ${b.allowed})` : ""}`))
        : [h("li", { class: "muted" }, "Nobody is on a break.")]))));
}

async function verifyMatch(matchId) {
  try {
    const results = await api("GET", "/api/results");
    const r = results.find((x) => x.match_id === matchId);
    if (!r) { toast(`No result for ${matchId} yet`, true); return; }
    const detail = gamesTable(r.games, { A: r.player_a, B: r.player_b });
    if (!await confirmAction(say.verify(r), { detail, okLabel: "Verify" })) return;
    await api("POST", `/api/results/${encodeURIComponent(r.match_id)}/verify`);
    toast(`${r.match_id} verified`);
  } catch (e) { toast(e.message, true); }
}
