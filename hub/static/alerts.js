// The alerts: the feed beside the room, the full list, one alert's card (with what can be done
// from it), the tab title's count, and the sound that keeps calling until the TD acknowledges.
import { $, h, hhmm } from "./dom.js";
import { confirmAction } from "./confirm.js";
import { gamesTable, say } from "./sentences.js";
import { S, api, can, isTD, loggedIn, toast } from "./state.js";

const URGENCY_ICON = { critical: "‼", high: "!", medium: "•", low: "i" };

export function setAlerts(alerts) {
  S.alerts = alerts;
  const open = alerts.filter((a) => !a.acked_wall);
  const count = $("alert-count");
  count.hidden = open.length === 0;
  count.textContent = open.length;
  showTitle();
  $("feed").replaceChildren(...alertItems(alerts));
  if (S.view === "alerts") $("alerts-full").replaceChildren(...alertItems(alerts));
  sound.update(open);
}

export function showTitle() {
  const open = S.alerts.filter((a) => !a.acked_wall);
  const critical = open.some((a) => a.urgency === "critical");
  const event = (S.session && S.session.event) || "";
  document.title = `${open.length ? `(${open.length}${critical ? "‼" : ""}) ` : ""}TD hub — ${event}`;
}

export function alertItems(alerts) {
  if (!alerts.length) return [h("li", { class: "empty" }, "Nothing needs you right now.")];
  return alerts.map((a) => alertItem(a));
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
  if (can("alerts") && !a.acked_wall) {
    actions.push(h("button", { type: "button", class: "small ghost", onclick: () => ack(a) },
      a.kind === "td_call" ? "Acknowledge (clears the call)" : "Acknowledge"));
  }
  return h("li", { class: `alert u-${a.urgency}${a.acked_wall ? " acked" : ""}`, dataset: { alert: a.id, kind: a.kind } },
    h("div", { class: "row" },
      h("span", { class: "badge" }, h("span", { "aria-hidden": "true" }, URGENCY_ICON[a.urgency] || "•"), a.urgency.toUpperCase()),
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

// -- sound -------------------------------------------------------------------------------------

// Each urgency has its own voice and its own insistence: a time flag calls every 15 s, a TD call
// or a due penalty every 45 s, a medium alert once; low alerts are silent. Muting is remembered
// per browser (localStorage): the laptop at the desk may ring while the phone in the room is quiet.
const VOICES = {
  critical: { notes: [988, 740, 988, 740], step: 0.22, every: 15000 },
  high: { notes: [660, 880], step: 0.28, every: 45000 },
  medium: { notes: [523], step: 0.35, every: 0 },
};
const MUTE_KEY = "bg.sound.muted";

export const sound = {
  ctx: null,
  last: new Map(),   // alert key -> when it last sounded (browser ms)
  timer: null,
  muted: localStorage.getItem(MUTE_KEY) === "1",
  open: [],

  init() {
    const button = $("sound-button");
    button.addEventListener("click", () => this.toggle());
    // browsers allow sound only after a gesture: any click or key on the page unlocks it (on
    // click, not pointerdown: nothing may move under the pointer before the click lands)
    const unlock = () => { this.context(); this.show(); };
    document.addEventListener("click", unlock, { capture: true });
    document.addEventListener("keydown", unlock, { capture: true });
    this.timer = setInterval(() => this.update(this.open), 2000);
    this.show();
  },

  context() {
    try {
      this.ctx = this.ctx || new AudioContext();
      if (this.ctx.state === "suspended") this.ctx.resume();
    } catch (e) { this.ctx = null; }
    return this.ctx;
  },

  toggle() {
    this.muted = !this.muted;
    localStorage.setItem(MUTE_KEY, this.muted ? "1" : "0");
    if (!this.muted) this.context();
    this.show();
  },

  show() {
    const button = $("sound-button");
    const locked = !this.ctx || this.ctx.state !== "running";
    button.textContent = this.muted ? "♪ Sound off" : "♪ Sound on";
    button.classList.toggle("locked", !this.muted && locked);
    button.setAttribute("aria-pressed", String(!this.muted));
    button.title = this.muted ? "Alerts are silent in this browser: click to hear them"
      : locked ? "The browser lets the page play sound after your first click or key" : "Click to mute alerts in this browser";
  },

  /** Sound the most urgent unacknowledged alert that is due to sound again. */
  update(open) {
    this.open = open;
    const now = Date.now();
    const keys = new Set(open.map((a) => a.key));
    for (const k of [...this.last.keys()]) if (!keys.has(k)) this.last.delete(k);
    if (this.muted || !loggedIn()) return;
    let best = null;
    for (const a of open) {
      const v = VOICES[a.urgency];
      if (!v) continue;
      const last = this.last.get(a.key);
      const due = last === undefined || (v.every && now - last >= v.every);
      if (due && (!best || rank(a.urgency) < rank(best.urgency))) best = a;
    }
    if (!best) return;
    for (const a of open) if (a.urgency === best.urgency && VOICES[a.urgency]) this.last.set(a.key, now);
    this.play(best.urgency);
  },

  play(urgency) {
    const ctx = this.context();
    if (!ctx) return;
    const v = VOICES[urgency];
    v.notes.forEach((f, i) => {
      const o = ctx.createOscillator(), g = ctx.createGain();
      o.type = urgency === "critical" ? "square" : "sine";
      o.frequency.value = f;
      const t0 = ctx.currentTime + i * v.step;
      g.gain.setValueAtTime(0.0001, t0);
      g.gain.exponentialRampToValueAtTime(0.25, t0 + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, t0 + v.step * 0.85);
      o.connect(g).connect(ctx.destination);
      o.start(t0);
      o.stop(t0 + v.step);
    });
  },
};

const rank = (u) => ["critical", "high", "medium", "low"].indexOf(u);
