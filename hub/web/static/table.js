// The table page: the scoreboard, the open alerts and the actions for the current phase first
// (a sticky action bar), then games, penalties, and the command history and event log folded.
//
// The page is built once per table and match. Live updates (every clock press) change only its
// read-only parts: a form the TD is filling is never rebuilt, and a field the TD has typed in
// keeps its value. A field the TD has not touched follows the table (the score, the reserves).
import { $, h, hhmm, hhmmss, mmss, parseMmss } from "./dom.js";
import { confirmAction } from "./confirm.js";
import { alertItem } from "./alerts.js";
import { gamesTable, outcome, pts, reasonText, say } from "./sentences.js";
import { S, api, isTD, otherSide, playerName, runningReserve, runningSide, toast } from "./state.js";

const T = {
  key: null,      // table|match the page was built for
  d: null,        // the latest detail
  parts: {},      // the read-only regions
  forms: [],      // {form, sync(d)}
  timer: null,
  open: null,     // the action whose form is open
};

const PLAYING = ["opening", "playing", "between_games", "break"];
const LIVE_PHASES = ["waiting", "opening", "playing", "between_games", "break", "paused", "flag"];

// -- loading ---------------------------------------------------------------------------------

export function showTable(table) {
  if (S.detailTable !== table) T.key = null;
  S.detailTable = table;
  if (T.key === null) $("table-view").replaceChildren(h("p", { class: "muted" }, "Loading…"));
  loadDetail();
}

/** Reload at most five times a second however busy the table is (a throttle, not a debounce:
 * a table pressing its clock every 200 ms must not keep the page from ever reloading). */
export function scheduleDetailReload() {
  if (T.timer) return;
  T.timer = setTimeout(() => { T.timer = null; loadDetail(); }, 200);
}

export async function loadDetail() {
  const table = S.detailTable;
  if (!table) return;
  try {
    const d = await api("GET", `/api/tables/${encodeURIComponent(table)}`);
    if (S.detailTable === table && S.view === "table") renderDetail(d);
  } catch (e) {
    T.key = null;
    $("table-view").replaceChildren(h("p", { class: "error" }, `Table ${table}: ${e.message}`));
  }
}

/** What a sentence needs about the match now (read at the moment the TD confirms). */
function ctx(d = T.d) {
  const t = d.tile, st = d.state || {};
  const clock = st.clock || {};
  return {
    table: t.table,
    match_id: d.match_id || t.match_id,
    players: t.players,
    score: t.score,
    length: t.length,
    in_game: ["playing", "paused", "flag"].includes(st.phase) || (st.phase === "break" && false),
    reserves: clock.enabled && clock.reserve_ms ? { A: runningReserve(t, "A"), B: runningReserve(t, "B") } : null,
  };
}

async function send(type, fields) {
  const table = T.d.tile.table;
  try {
    const c = await api("POST", `/api/tables/${encodeURIComponent(table)}/commands`, { type, ...fields });
    toast(`Sent to table ${table}: ${type.replace("_", " ")} (${c.id.slice(0, 11)}…)`);
    return true;
  } catch (e) {
    toast(e.message, true);
    return false;
  }
}

// -- rendering -------------------------------------------------------------------------------

export function renderDetail(d) {
  const key = `${d.tile.table}|${d.match_id || ""}`;
  if (key !== T.key) {
    const hadDirty = T.key && T.key.split("|")[0] === d.tile.table && T.forms.some((f) => f.dirty());
    T.d = d;
    build(d);
    T.key = key;
    if (hadDirty) toast(`Table ${d.tile.table} has a new match (${d.match_id}): the forms were cleared`, true);
  }
  T.d = d;
  update(d);
}

function build(d) {
  const t = d.tile;
  T.parts = {};
  T.forms = [];
  T.open = null;
  const part = (name, tag = "div", attrs = {}) => (T.parts[name] = h(tag, attrs));
  const view = $("table-view");
  view.replaceChildren(
    h("div", { class: "detail-head" },
      h("a", { class: "back", href: "#/" }, "← Room"),
      h("h1", {}, `Table ${t.table}`),
      part("matchLabel", "span", { class: "match-label" }),
      part("status", "span", { class: "badge status" }),
      part("transcript", "a", { class: "transcript-link", target: "_blank", rel: "noopener" })),
    h("div", { class: "card scorecard" },
      part("scoreboard", "div", { class: "scoreboard" }),
      part("banner", "p", { class: "result-banner", role: "status" }),
      part("facts", "div", { class: "facts" })),
    isTD() ? actionBar(d) : h("p", { class: "td-only-note" },
      S.session && S.session.logged_in ? "Your role only reads this table; a TD acts on it." : "Log in as TD for actions."),
    h("div", { class: "detail-grid" },
      h("section", { class: "panel", "aria-label": "Alerts" }, h("h2", {}, "Open alerts"), part("alerts", "ol", { class: "alerts" }),
        part("oldAlerts", "div")),
      h("section", { class: "panel" }, h("h2", {}, "Games"), part("games", "div", { class: "table-scroll" }),
        part("penalties", "div"))),
    h("details", { class: "panel fold", id: "commands-fold" },
      h("summary", {}, "Command history"), part("commands", "div")),
    h("details", { class: "panel fold", id: "events-fold" },
      h("summary", {}, "Event log"), part("events", "div", { class: "table-scroll" })));
}

function update(d) {
  const t = d.tile, st = d.state || {}, p = T.parts;
  const mid = d.match_id || t.match_id;
  $("table-view").dataset.seq = st.seq ?? "";
  p.matchLabel.textContent = mid ? `${mid}${t.round ? " · round " + t.round : ""}` : "no match";
  p.transcript.hidden = !mid;
  if (mid) { p.transcript.href = `/transcript/${encodeURIComponent(mid)}`; p.transcript.textContent = "Transcript"; }
  p.status.className = `badge status st-${t.status}`;
  p.status.replaceChildren(h("span", { "aria-hidden": "true" }, t.status_icon), t.status_label);
  p.scoreboard.replaceChildren(...scoreboard(d));
  const finished = st.phase === "finished" || (d.result && st.match_id === mid && st.phase === "finished");
  const text = finished ? outcome(t.players, st.winner, st.score, st.end_reason) : "";
  p.banner.textContent = text ? `${text}.${d.result && d.result.verified ? ` Verified by ${d.result.verified_by}.` : ""}` : "";
  p.banner.hidden = !text;
  p.facts.replaceChildren(...facts(d).map((f) => h("span", {}, f)));

  const mine = (d.alerts || []).filter((a) => !a.match_id || a.match_id === mid);
  const old = (d.alerts || []).filter((a) => a.match_id && a.match_id !== mid);
  p.alerts.replaceChildren(...(mine.length ? mine.map((a) => alertItem(a, { onTable: true })) : [h("li", { class: "empty" }, "Nothing needs you at this table.")]));
  p.oldAlerts.replaceChildren(...(old.length ? [h("h3", {}, "Earlier matches"), h("ol", { class: "alerts earlier" }, ...old.map((a) => alertItem(a, { onTable: true })))] : []));
  p.games.replaceChildren(gamesTable(st.match_id === mid ? st.games : [], t.players));
  p.penalties.replaceChildren(...penaltyList(d));
  p.commands.replaceChildren(...commandHistory(d));
  p.events.replaceChildren(eventLog(d));
  if (isTD()) updateActions(d);
}

function scoreboard(d) {
  const t = d.tile, st = d.state || {};
  const clock = st.clock || {};
  const running = runningSide(t);
  const side = (s) => h("div", { class: "side" },
    h("div", { class: "name" }, playerName(t.players, s),
      t.phase === "waiting" && !t.present[s] ? h("span", { class: "absent-note" }, " not checked in") : null),
    h("div", { class: "big" }, t.score[s]),
    clock.enabled ? h("div", { class: `clk${running === s ? " on" : ""}` },
      running === s ? "▶ " : "", h("span", { dataset: { dclock: s } }, mmss(runningReserve(t, s))),
      h("span", { class: "muted" }, " left"),
      h("span", { class: "muted delay" }, ` · ${Math.round(((clock.delay_ms && clock.delay_ms[s]) || 0) / 1000)} s delay`)) : null);
  return [side("A"), h("div", { class: "mid" }, "to", h("div", { class: "big" }, t.length || "–"),
    t.crawford ? h("span", { class: "badge crawford" }, "CRAWFORD") : t.post_crawford ? h("span", { class: "badge postcrawford" }, "post-Crawford") : null), side("B")];
}

// A custom profile is named with what it changes over its built-in base, so the TD reads the
// rules the table plays without opening the file.
function rulesText(rules, played) {
  const name = played || (rules && rules.name);
  if (!name) return null;
  if (!rules || !rules.base || rules.name !== name) return `rules ${name}`;
  const changes = Object.entries(rules.changes || {}).map(([k, v]) => `${k} ${Array.isArray(v) ? JSON.stringify(v) : v}`);
  return `rules ${name} (custom, over ${rules.base}${changes.length ? ": " + changes.join(", ") : ""})`;
}

function facts(d) {
  const t = d.tile, st = d.state || {};
  const clock = st.clock || {};
  return [
    t.game ? `game ${t.game}` : null,
    t.start_wall ? `start ${hhmm(t.start_wall)}` : null,
    rulesText(d.rules, st.profile),
    st.cube && st.cube.value > 1 ? `cube ${st.cube.value}${st.cube.owner ? " owned by " + playerName(t.players, st.cube.owner) : ""}` : null,
    st.penalties && (st.penalties.A || st.penalties.B)
      ? `penalty points: ${playerName(t.players, "A")} ${st.penalties.A}, ${playerName(t.players, "B")} ${st.penalties.B}` : null,
    clock.paused ? `paused (${clock.paused})` : null,
    clock.flagged ? `${playerName(t.players, clock.flagged)}'s time ran out` : null,
    st.breaks ? `breaks used: ${st.breaks.A.used}/${st.breaks.A.allowed} · ${st.breaks.B.used}/${st.breaks.B.allowed}` : null,
    d.automation_suspended ? "automatic lateness suspended" : null,
    d.status ? (d.status.online ? "online" : "offline") : "never connected",
  ].filter(Boolean);
}

function penaltyList(d) {
  const st = d.state || {}, t = d.tile;
  const log = st.match_id === (d.match_id || t.match_id) ? st.penalty_log || [] : [];
  if (!log.length) return [];
  const info = new Map((d.waivers || []).map((w) => [w.id, w]));
  const byId = new Map((d.commands || []).map((c) => [c.id, c]));
  return [h("h3", {}, "Penalties"), h("ul", { class: "penalties" }, ...log.map((p) => {
    const c = byId.get(p.id);
    const how = c ? (c.origin === "auto" ? `automatic, ${hhmm(c.created_wall)}` : `${c.actor || "TD"}, ${hhmm(c.created_wall)}`) : "at the table";
    return h("li", { class: p.waived ? "waived" : "" },
      `${pts(p.points)} against ${playerName(t.players, p.against)} — ${reasonText(p.reason)} (${how})${p.waived ? " — waived" : ""}`,
      !p.waived && info.has(p.id) && waivableNow(d, p.id) && isTD() ? h("button", { type: "button", class: "small ghost waive-button", onclick: () => waive(info.get(p.id)) }, "Waive…") : null);
  }))];
}

function commandHistory(d) {
  const mid = d.match_id;
  const row = (c) => h("tr", {},
    h("td", { class: "nowrap" }, hhmmss(c.created_wall)), h("td", {}, c.type.replace("_", " ")),
    h("td", {}, describeCommand(c, d.tile.players)), h("td", {}, c.origin === "auto" ? "automatic" : c.actor || c.origin),
    h("td", {}, c.done_ok === null ? "sent" : c.done_ok ? "✓ done" : `✗ ${c.done_error || "refused"}`));
  const table = (rows) => h("div", { class: "table-scroll" }, h("table", { class: "data" },
    h("thead", {}, h("tr", {}, ["Time", "Command", "What", "By", "Answer"].map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.length ? rows.map(row) : h("tr", {}, h("td", { colspan: 5, class: "muted" }, "None")))));
  const mine = (d.commands || []).filter((c) => c.match_id === mid);
  const old = (d.commands || []).filter((c) => c.match_id !== mid);
  return [h("h3", {}, `This match (${mid || "none"})`), table(mine),
    ...(old.length ? [h("h3", {}, "Earlier matches"), table(old)] : [])];
}

function describeCommand(c, players) {
  const b = c.body || {};
  const who = (s) => playerName(players, s);
  switch (c.type) {
    case "penalty": return `${pts(b.points)} against ${who(b.against)} (${reasonText(b.reason)})`;
    case "forfeit": return `${who(b.against)} loses`;
    case "waive": return `takes back ${b.penalty_id}`;
    case "resolve_flag": return `${who(b.winner)} wins on time`;
    case "start_clock": return `${who(b.side)}'s clock`;
    case "set_time": return b.reserve_ms ? `${who("A")} ${mmss(b.reserve_ms.A)}, ${who("B")} ${mmss(b.reserve_ms.B)}` : "";
    case "correct_score": return b.score ? `${who("A")} ${b.score.A}, ${who("B")} ${b.score.B}` : "";
    case "set_length": return `${b.length} points`;
    case "impose_clock": return `${b.minutes_per_point} min/point, ${b.delay_s} s delay`;
    case "forbid_double": return `${who(b.side)} may not double in this game`;
    case "force_double": return `${who(b.side)}'s double entered`;
    case "crawford_double": return b.choice === "void" ? "Crawford double void" : "Crawford double kept";
    case "double_loss": return `both players lose${b.note ? ` (${b.note})` : ""}`;
    default: return "";
  }
}

function eventLog(d) {
  const skip = new Set(["seq", "match_id", "type", "wall", "at", "received_wall"]);
  const describe = (e) => Object.entries(e).filter(([k]) => !skip.has(k))
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join(" ");
  const rows = (d.events || []).slice().reverse().slice(0, 150).map((e) => h("tr", { class: e.rejected ? "rejected" : "" },
    h("td", { class: "num" }, e.seq), h("td", { class: "nowrap" }, hhmmss(e.wall || e.received_wall)), h("td", {}, e.type), h("td", {}, describe(e))));
  return h("table", { class: "data" },
    h("caption", {}, `Match ${d.match_id || "—"}, newest first`),
    h("thead", {}, h("tr", {}, ["Seq", "Time", "Event", "Details"].map((x) => h("th", {}, x)))),
    h("tbody", {}, rows));
}

export function tickDetail() {
  if (S.view !== "table" || !T.d) return;
  const t = S.tables.get(T.d.tile.table) || T.d.tile;
  for (const el of document.querySelectorAll("#table-view [data-dclock]")) el.textContent = mmss(runningReserve(t, el.dataset.dclock));
}

// -- actions ---------------------------------------------------------------------------------

function phaseOf(d) { return (d.state && d.state.match_id === d.match_id && d.state.phase) || null; }
function hasMatch(d) { return !!(d.state && d.state.match_id && d.state.match_id === d.match_id); }
function clockOn(d) { return !!(d.state && d.state.clock && d.state.clock.enabled); }

/** The TD's part of the snapshot's ``legal`` (the table's rules: what the TD may do now), or null
 * for a table that does not send it. */
function tdLegal(d) {
  const legal = d.state && d.state.match_id === d.match_id ? d.state.legal : null;
  const td = legal && legal.td;
  return td && typeof td === "object" && !Array.isArray(td) ? td : null;
}

/** Whether the rules offer a TD command now: the snapshot's ``legal`` when the table sends it
 * (the same rules that would refuse the command), else by phase. */
function offered(d, kind) {
  const td = tdLegal(d);
  if (td && kind in td) {
    const v = td[kind];
    return Array.isArray(v) ? v.length > 0 : !!v;
  }
  const phase = phaseOf(d);
  switch (kind) {
    case "resolve_flag": return phase === "flag";
    case "pause": return PLAYING.includes(phase) && clockOn(d);
    case "resume": return phase === "paused";
    case "penalty": case "forfeit": case "set_length": return LIVE_PHASES.includes(phase);
    case "set_time": return clockOn(d) && LIVE_PHASES.includes(phase);
    case "impose_clock": return hasMatch(d) && !clockOn(d) && LIVE_PHASES.includes(phase);
    case "start_clock": return clockOn(d) && ["waiting", "opening", "between_games", "break"].includes(phase);
    case "correct_score": return hasMatch(d);
    // the TD's cube decisions and the double loss: only a table whose rules publish them knows them
    case "forbid_double": case "force_double": case "crawford_double": case "double_loss": return false;
    default: return hasMatch(d);
  }
}

/** Whether a penalty (or the command that ended the match) may be waived now. */
function waivableNow(d, id) {
  const td = tdLegal(d);
  return !td || !Array.isArray(td.waive) || td.waive.includes(id);
}

// The bar's order is fixed, so a button never moves under the TD's finger; what the phase does
// not offer is hidden. The first ones are the decisions a phase waits for.
const ACTIONS = [
  { id: "resolve_flag", label: "Resolve flag…", cls: "primary", when: (d) => offered(d, "resolve_flag"), form: flagForm },
  { id: "td_ack", label: "Acknowledge call", cls: "primary", when: (d) => !!d.tile.td_call, run: ackCall },
  { id: "verify", label: "Verify result…", cls: "primary", when: (d) => !!(d.result && !d.result.verified && phaseOf(d) === "finished"), run: () => verifyResult(T.d.result) },
  { id: "undo_end", label: "Undo forfeit…", when: (d) => !!d.undo_end && waivableNow(d, d.undo_end.command_id), run: undoEnd },
  { id: "resume", label: "▶ Resume", when: (d) => offered(d, "resume"), run: () => send("resume", {}) },
  { id: "pause", label: "‖ Pause", when: (d) => offered(d, "pause"), run: () => send("pause", {}) },
  { id: "penalty", label: "Penalty…", when: (d) => offered(d, "penalty"), form: penaltyForm },
  { id: "waive", label: "Waive…", when: (d) => (d.waivers || []).some((w) => waivableNow(d, w.id)), form: waiveForm },
  { id: "start_clock", label: "Start late clock…", when: (d) => offered(d, "start_clock"), form: startClockForm },
  { id: "set_time", label: "Set time…", when: (d) => offered(d, "set_time"), form: setTimeForm },
  { id: "impose_clock", label: "Impose clock…", when: (d) => offered(d, "impose_clock"), form: imposeForm },
  { id: "correct_score", label: "Correct score…", when: (d) => offered(d, "correct_score"), form: scoreForm },
  { id: "set_length", label: "Set length…", when: (d) => offered(d, "set_length"), form: lengthForm },
  { id: "crawford_double", label: "Crawford double…", when: (d) => offered(d, "crawford_double"), form: crawfordForm },
  { id: "forbid_double", label: "Forbid doubling…", when: (d) => offered(d, "forbid_double"), form: forbidForm },
  { id: "force_double", label: "Forced double…", when: (d) => offered(d, "force_double"), form: forceForm },
  { id: "forfeit", label: "Forfeit…", cls: "danger-ghost", when: (d) => offered(d, "forfeit"), form: forfeitForm },
  { id: "double_loss", label: "Double loss…", cls: "danger-ghost", when: (d) => offered(d, "double_loss"), form: doubleLossForm },
  { id: "move", label: "Move…", cls: "ghost", when: (d) => !!d.match_id && !d.result && !!d.tile.match_id, form: moveForm },
  { id: "automation", label: "Automation…", cls: "ghost", when: () => true, run: toggleAutomation },
  { id: "release", label: "Release…", cls: "ghost", when: (d) => !!d.tile.match_id, run: release },
];

function actionBar(d) {
  const bar = h("nav", { class: "action-bar", id: "action-bar", "aria-label": "TD actions" });
  const panel = h("div", { class: "action-panel", id: "action-panel" });
  for (const a of ACTIONS) {
    const button = h("button", { type: "button", class: `act ${a.cls || ""}`, dataset: { action: a.id } }, a.label);
    if (a.form) {
      const f = a.form(d);
      f.el.dataset.form = a.id;
      f.el.hidden = true;
      T.forms.push(f);
      panel.append(f.el);
      button.setAttribute("aria-expanded", "false");
      button.addEventListener("click", () => openForm(a.id));
    } else {
      button.addEventListener("click", () => a.run());
    }
    bar.append(button);
  }
  T.parts.bar = bar;
  T.parts.panel = panel;
  return h("div", { class: "actions-wrap" }, bar, panel);
}

function openForm(id) {
  const next = T.open === id ? null : id;
  T.open = next;
  for (const el of T.parts.panel.querySelectorAll("[data-form]")) el.hidden = el.dataset.form !== next;
  for (const b of T.parts.bar.querySelectorAll("button[aria-expanded]")) b.setAttribute("aria-expanded", String(b.dataset.action === next));
  const el = next && T.parts.panel.querySelector(`[data-form="${next}"]`);
  if (el) {
    const first = el.querySelector("select, input, button");
    if (first) first.focus({ preventScroll: true });
  }
}

function closeForm(f) {
  f.reset();
  if (T.open) openForm(T.open);
}

function updateActions(d) {
  for (const a of ACTIONS) {
    const b = T.parts.bar.querySelector(`[data-action="${a.id}"]`);
    b.hidden = !a.when(d);
    if (a.id === "automation") b.textContent = d.automation_suspended ? "Resume automation…" : "Suspend automation…";
  }
  for (const f of T.forms) f.sync(d);
}

// A form: its element, dirty tracking, and live sync of what the TD has not touched.
function makeForm(title, fields, submitLabel, onSubmit, { danger = false, note = null } = {}) {
  const dirty = new Set();
  const el = h("form", { class: "action-form", novalidate: true },
    h("h3", {}, title), note, h("div", { class: "fields" }, ...fields),
    h("div", { class: "form-buttons" },
      h("button", { type: "submit", class: danger ? "danger" : "" }, submitLabel),
      h("button", { type: "button", class: "ghost", onclick: () => closeForm(f) }, "Cancel")));
  el.addEventListener("input", (ev) => ev.target.name && dirty.add(ev.target.name));
  el.addEventListener("change", (ev) => ev.target.name && dirty.add(ev.target.name));
  el.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const done = await onSubmit(el);
    if (done) closeForm(f);
  });
  const f = {
    el,
    dirty: () => dirty.size > 0,
    reset() {
      el.reset();
      dirty.clear();
      f.sync(T.d, true);
    },
    sync(d) {
      // names of the players (read-only text), and the values the TD has not typed in
      for (const o of el.querySelectorAll("option[data-side]")) o.textContent = playerName(d.tile.players, o.dataset.side);
      for (const input of el.querySelectorAll("[data-live]")) {
        if (dirty.has(input.name) || document.activeElement === input) continue;
        const v = liveValue(d, input.dataset.live);
        if (v !== null && input.value !== v) input.value = v;
      }
      if (f.onSync) f.onSync(d);
    },
  };
  return f;
}

function liveValue(d, key) {
  const t = d.tile;
  if (key === "score.A" || key === "score.B") return String(t.score[key.slice(-1)]);
  if (key === "reserve.A" || key === "reserve.B") {
    const r = runningReserve(t, key.slice(-1));
    return r === null ? null : mmss(r);
  }
  if (key === "length") return String(t.length || "");
  return null;
}

function sideSelect(name, label) {
  return h("label", { class: "field" }, h("span", {}, label),
    h("select", { name, required: true, "aria-label": label },
      h("option", { value: "" }, "— choose —"),
      h("option", { value: "A", dataset: { side: "A" } }, playerName(T.d ? T.d.tile.players : null, "A")),
      h("option", { value: "B", dataset: { side: "B" } }, playerName(T.d ? T.d.tile.players : null, "B"))));
}

function number(name, label, value, min, max, live) {
  return h("label", { class: "field" }, h("span", {}, label),
    h("input", { type: "number", name, value, min, max, required: true, inputmode: "numeric", "aria-label": label, dataset: live ? { live } : undefined }));
}

function pickSide(form, name, what) {
  const v = form.elements[name].value;
  if (v !== "A" && v !== "B") {
    toast(`Choose ${what} first`, true);
    form.elements[name].focus();
    return null;
  }
  return v;
}

function intField(form, name, label, lo, hi) {
  const v = Number(form.elements[name].value);
  if (!Number.isInteger(v) || v < lo || v > hi) {
    toast(`${label}: a whole number from ${lo} to ${hi}`, true);
    form.elements[name].focus();
    return null;
  }
  return v;
}

function penaltyForm(d) {
  return makeForm("Penalty points", [
    sideSelect("against", "Against"),
    number("points", "Points", 1, 1, 99),
    h("label", { class: "field" }, h("span", {}, "Reason"),
      h("select", { name: "reason", "aria-label": "Reason" },
        ...["conduct", "late", "slow_play", "premature_pickup", "td"].map((r) => h("option", { value: r }, reasonText(r))))),
  ], "Give penalty…", async (f) => {
    const against = pickSide(f, "against", "who gets the penalty");
    const points = intField(f, "points", "Points", 1, 99);
    if (!against || points === null) return false;
    const reason = f.elements.reason.value;
    const existing = reason === "late" ? (T.d.waivers || []).filter((w) => w.against === against && w.reason === "late") : [];
    if (!await confirmAction(say.penalty(ctx(), against, points, reason, existing), { okLabel: "Give penalty" })) return false;
    return send("penalty", { against, points, reason });
  });
}

function waiveForm(d) {
  const list = h("ul", { class: "waivers" });
  const f = makeForm("Waive a penalty", [list], "Close", async () => true);
  f.el.querySelector("button[type=submit]").hidden = true;
  f.onSync = (dd) => {
    const items = (dd.waivers || []).filter((w) => waivableNow(dd, w.id));
    list.replaceChildren(...(items.length ? items.map((p) => h("li", {},
      h("span", {}, `${pts(p.points)} against ${playerName(dd.tile.players, p.against)} — ${reasonText(p.reason)}, ` +
        `${p.origin === "auto" ? "automatic" : p.origin === "td" ? p.actor || "TD" : "at the table"}${p.wall ? " at " + hhmm(p.wall) : ""}`),
      h("button", { type: "button", class: "small", onclick: () => waive(p) }, "Waive…"))) : [h("li", { class: "muted" }, "No penalty to waive.")]));
  };
  return f;
}

async function waive(p) {
  if (!await confirmAction(say.waive(ctx(), p), { okLabel: "Waive" })) return;
  await send("waive", { penalty_id: p.id });
}

function startClockForm(d) {
  const f = makeForm("Start a late player's clock", [sideSelect("side", "Whose clock")], "Start clock…", async (f) => {
    const side = pickSide(f, "side", "whose clock");
    if (!side || !await confirmAction(say.startClock(ctx(), side), { okLabel: "Start the clock" })) return false;
    return send("start_clock", { side });
  });
  f.onSync = (dd) => {
    // the rules say whose clock may be started (a late player's): the others are not offered
    const td = tdLegal(dd);
    const sides = td && Array.isArray(td.start_clock) ? td.start_clock : ["A", "B"];
    for (const o of f.el.querySelectorAll("option[data-side]")) o.disabled = !sides.includes(o.dataset.side);
  };
  return f;
}

function setTimeForm(d) {
  const field = (s) => h("label", { class: "field" }, h("span", { dataset: { nameOf: s } }, playerName(d.tile.players, s)),
    h("input", { name: `reserve${s}`, class: "mmss", inputmode: "numeric", "aria-label": `time left (m:ss) ${s}`, dataset: { live: `reserve.${s}` } }));
  const f = makeForm("Set the time left (m:ss)", [field("A"), field("B")], "Set time…", async (form) => {
    const a = parseMmss(form.elements.reserveA.value), b = parseMmss(form.elements.reserveB.value);
    if (a === null || b === null) { toast("Times as m:ss, e.g. 12:30", true); return false; }
    if (!await confirmAction(say.setTime(ctx(), { A: a, B: b }), { okLabel: "Set the time" })) return false;
    return send("set_time", { reserve_ms: { A: a, B: b } });
  });
  f.onSync = (dd) => { for (const el of f.el.querySelectorAll("[data-name-of]")) el.textContent = playerName(dd.tile.players, el.dataset.nameOf); };
  return f;
}

function imposeForm(d) {
  return makeForm("Impose a clock", [number("mpp", "Minutes per point", 2, 1, 60), number("delay", "Delay (s)", 12, 0, 120)],
    "Impose clock…", async (f) => {
      const mpp = intField(f, "mpp", "Minutes per point", 1, 60), delay = intField(f, "delay", "Delay", 0, 120);
      if (mpp === null || delay === null) return false;
      if (!await confirmAction(say.imposeClock(ctx(), mpp, delay), { okLabel: "Impose the clock" })) return false;
      return send("impose_clock", { minutes_per_point: mpp, delay_s: delay });
    });
}

function scoreForm(d) {
  const field = (s) => h("label", { class: "field" }, h("span", { dataset: { nameOf: s } }, playerName(d.tile.players, s)),
    h("input", { type: "number", name: `score${s}`, min: 0, max: 990, required: true, inputmode: "numeric", "aria-label": `score ${s}`, dataset: { live: `score.${s}` }, value: d.tile.score[s] }));
  const f = makeForm("Correct the score", [field("A"), field("B"),
    h("label", { class: "field wide" }, h("span", {}, "Why"), h("input", { name: "note", placeholder: "reason", "aria-label": "note" }))],
  "Correct…", async (form) => {
    const a = intField(form, "scoreA", "Score", 0, 990), b = intField(form, "scoreB", "Score", 0, 990);
    if (a === null || b === null) return false;
    const c = ctx();
    if (a === c.score.A && b === c.score.B) { toast(`The score is ${a}–${b} already: nothing to correct`, true); return false; }
    if (!await confirmAction(say.correctScore(c, { A: a, B: b }), { okLabel: "Correct the score" })) return false;
    return send("correct_score", { score: { A: a, B: b }, note: form.elements.note.value });
  });
  f.onSync = (dd) => { for (const el of f.el.querySelectorAll("[data-name-of]")) el.textContent = playerName(dd.tile.players, el.dataset.nameOf); };
  return f;
}

function lengthForm(d) {
  // (not named "length": form.elements.length is the number of fields)
  return makeForm("Set the match length", [number("points", "Points", d.tile.length || 7, 1, 99, "length")], "Set length…", async (f) => {
    const length = intField(f, "points", "Length", 1, 99);
    if (length === null) return false;
    const c = ctx();
    if (length === c.length) { toast(`The match is to ${length} already`, true); return false; }
    if (!await confirmAction(say.setLength(c, length), { okLabel: "Set the length" })) return false;
    return send("set_length", { length });
  });
}

function flagForm(d) {
  return makeForm("Resolve the time flag", [sideSelect("winner", "Winner")], "Resolve…", async (f) => {
    const winner = pickSide(f, "winner", "the winner");
    if (!winner || !await confirmAction(say.resolveFlag(ctx(), winner), { okLabel: "Resolve the flag", danger: true })) return false;
    return send("resolve_flag", { winner });
  }, { note: h("p", { class: "muted" }, "The flagged player loses unless they could not lose the game (gin). Choose the winner.") });
}

function forfeitForm(d) {
  return makeForm("Forfeit", [sideSelect("against", "Who loses")], "Forfeit…", async (f) => {
    const against = pickSide(f, "against", "who loses");
    if (!against || !await confirmAction(say.forfeit(ctx(), against), { okLabel: "Forfeit", danger: true })) return false;
    return send("forfeit", { against, reason: "td" });
  }, { danger: true });
}

/** A side the rules list for a command now (``legal.td[kind]``): the others are not offered. */
function sidesOffered(form, kind) {
  return (dd) => {
    const td = tdLegal(dd);
    const sides = td && Array.isArray(td[kind]) ? td[kind] : [];
    for (const o of form.el.querySelectorAll("option[data-side]")) o.disabled = !sides.includes(o.dataset.side);
  };
}

/** A cube decision about one player (HU 7.9, FFBG 6.8): who, a sentence to confirm, the command. */
function cubeSideForm(kind, title, label, submit, okLabel, sentence, note) {
  const f = makeForm(title, [sideSelect("side", label)], submit, async (form) => {
    const side = pickSide(form, "side", label.toLowerCase());
    if (!side || !await confirmAction(sentence(ctx(), side), { okLabel })) return false;
    return send(kind, { side });
  }, { note: h("p", { class: "muted" }, note) });
  f.onSync = sidesOffered(f, kind);
  return f;
}

function forbidForm(d) {
  return cubeSideForm("forbid_double", "Forbid doubling for the rest of the game", "Who may not double",
    "Forbid…", "Forbid doubling", (c, side) => say.forbidDouble(c, side),
    "HU 7.9: a player who touched the cube without doubling may be forbidden to double in that game.");
}

function forceForm(d) {
  return cubeSideForm("force_double", "Enter the double a player must make", "Who must double",
    "Enter the double…", "Enter the double", (c, side) => say.forceDouble(c, side),
    "FFBG 6.8: handling the cube without doubling can oblige the player to double; the opponent answers.");
}

function crawfordForm(d) {
  const choice = h("label", { class: "field" }, h("span", {}, "The leader"),
    h("select", { name: "choice", required: true, "aria-label": "the leader's choice" },
      h("option", { value: "" }, "— choose —"),
      h("option", { value: "keep" }, "keeps the double"),
      h("option", { value: "void" }, "voids the double")));
  return makeForm("A double made in the Crawford game", [choice], "Enter the choice…", async (f) => {
    const value = f.elements.choice.value;
    if (value !== "keep" && value !== "void") { toast("Choose: keep or void", true); return false; }
    if (!await confirmAction(say.crawfordDouble(ctx(), value), { okLabel: value === "void" ? "Void the double" : "Keep the double" })) return false;
    return send("crawford_double", { choice: value });
  }, { note: h("p", { class: "muted" }, "HU 7.5, FFBG 6.5: the match leader may void a double made in the Crawford game.") });
}

function doubleLossForm(d) {
  return makeForm("Double loss", [h("label", { class: "field wide" }, h("span", {}, "Why"), h("input", { name: "note", placeholder: "reason", "aria-label": "note" }))],
    "Double loss…", async (f) => {
      if (!await confirmAction(say.doubleLoss(ctx()), { okLabel: "Both lose", danger: true })) return false;
      return send("double_loss", { note: f.elements.note.value });
    }, { danger: true, note: h("p", { class: "muted" }, "FFBG 10.3: the table was left by both players on a neutralised clock; both lose the match.") });
}

function moveForm(d) {
  return makeForm("Move the match to another table", [
    h("label", { class: "field" }, h("span", {}, "To table"), h("input", { name: "to", required: true, "aria-label": "to table", class: "w-score", autocomplete: "off" })),
  ], "Move…", async (f) => {
    const to = f.elements.to.value.trim();
    if (!/^[A-Za-z0-9_.-]+$/.test(to)) { toast("A table id: letters, digits, _ . -", true); return false; }
    const st = T.d.state || {};
    const began = st.match_id === T.d.match_id && (st.phase !== "waiting" || (st.present && (st.present.A || st.present.B)));
    if (!await confirmAction(say.move(ctx(), to, began), { okLabel: "Move" })) return false;
    try {
      const r = await api("POST", `/api/matches/${encodeURIComponent(T.d.match_id)}/move`, { to_table: to });
      toast(`${r.match_id} moved to table ${r.to}`);
      location.hash = `#/table/${encodeURIComponent(r.to)}`;
      return true;
    } catch (e) { toast(e.message, true); return false; }
  });
}

async function undoEnd() {
  const end = T.d.undo_end;
  if (!end || !await confirmAction(say.undoEnd(ctx(), end), { okLabel: "Reopen the match" })) return;
  await send("waive", { penalty_id: end.command_id });
}

async function ackCall() {
  const d = T.d;
  const alert = (d.alerts || []).find((a) => a.kind === "td_call" && !a.acked_wall);
  try {
    if (alert) await api("POST", `/api/alerts/${alert.id}/ack`);
    else await api("POST", `/api/tables/${encodeURIComponent(d.tile.table)}/commands`, { type: "td_ack" });
    toast(`Call at table ${d.tile.table} acknowledged`);
  } catch (e) { toast(e.message, true); }
}

export async function verifyResult(r) {
  const players = { A: r.player_a, B: r.player_b };
  const detail = gamesTable(r.games, players);
  if (!await confirmAction(say.verify(r), { detail, okLabel: "Verify" })) return false;
  try {
    await api("POST", `/api/results/${encodeURIComponent(r.match_id)}/verify`);
    toast(`${r.match_id} verified`);
    return true;
  } catch (e) { toast(e.message, true); return false; }
}

async function toggleAutomation() {
  const d = T.d, table = d.tile.table, suspend = !d.automation_suspended;
  if (!await confirmAction(say.automation(table, suspend), { okLabel: suspend ? "Suspend" : "Resume" })) return;
  try {
    await api("POST", `/api/tables/${encodeURIComponent(table)}/automation`, { suspended: suspend });
    toast(suspend ? `Automatic lateness suspended at table ${table}` : `Automatic lateness resumed at table ${table}`);
    loadDetail();
  } catch (e) { toast(e.message, true); }
}

async function release() {
  const table = T.d.tile.table;
  if (!await confirmAction(say.release(ctx()), { okLabel: "Release", danger: true })) return;
  try {
    const r = await api("POST", `/api/tables/${encodeURIComponent(table)}/release`);
    toast(`Released ${r.released}`);
  } catch (e) { toast(e.message, true); }
}
