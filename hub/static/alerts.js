// The alerts: the feed beside the room, the full list, one alert's card (with what can be done
// from it), the tab title's count, and the sound that keeps calling until the TD acknowledges.
import { $, h, hhmm } from "./dom.js";
import { confirmAction } from "./confirm.js";
import { gamesTable, say } from "./sentences.js";
import { S, api, isTD, toast } from "./state.js";

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

/** One alert: urgency, message, when, and what the TD can do from here. */
export function alertItem(a, { onTable = false } = {}) {
  const actions = [];
  if (isTD() && a.kind === "verify" && a.match_id) {
    actions.push(h("button", { type: "button", class: "small", onclick: () => verifyFromAlert(a) }, "Verify…"));
  }
  if (isTD() && !a.acked_wall) {
    actions.push(h("button", { type: "button", class: "small ghost", onclick: () => ack(a) },
      a.kind === "td_call" ? "Acknowledge (clears the call)" : "Acknowledge"));
  }
  return h("li", { class: `alert u-${a.urgency}${a.acked_wall ? " acked" : ""}`, dataset: { alert: a.id, kind: a.kind } },
    h("div", { class: "row" },
      h("span", { class: "badge" }, h("span", { "aria-hidden": "true" }, URGENCY_ICON[a.urgency] || "•"), a.urgency.toUpperCase()),
      h("span", { class: "meta" }, `${a.match_id ? a.match_id + " · " : ""}${hhmm(a.raised_wall)}`)),
    h("div", { class: "msg" }, a.message),
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

async function verifyFromAlert(a) {
  try {
    const results = await api("GET", "/api/results");
    const r = results.find((x) => x.match_id === a.match_id);
    if (!r) { toast(`No result for ${a.match_id} yet`, true); return; }
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
    if (this.muted || !isTD()) return;
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
