// The alarm every page of the dashboard carries: the count of what needs the TD (open "act" alerts)
// and the sound that keeps calling until the TD acknowledges. The room page feeds it from its own
// live connection (alerts.js); the other pages (Tables, Dice) call watchAlerts(), which opens one.
// Only "act" alerts ring and count: a late player or a slow match ("watch") is quiet, an
// automatic point ("done") is a log line (hub/alert_kinds.py).

const VOICES = {
  // a time flag: the match waits for the TD
  critical: { notes: [988, 740, 988, 740], step: 0.22, every: 15000, wave: "square" },
  // everything else the TD must act on (a call, a decision, a fault)
  act: { notes: [660, 880], step: 0.28, every: 45000, wave: "sine" },
};
const MUTE_KEY = "bg.sound.muted";

/** What an alert asks of the TD (an alert of an older hub, without it: act). */
export const askOf = (a) => a.asks || "act";
/** The alerts that need the TD now: act, not acknowledged. */
export const openAct = (alerts) => alerts.filter((a) => askOf(a) === "act" && !a.acked_wall);
const voiceOf = (a) => (a.urgency === "critical" ? "critical" : "act");

export const sound = {
  ctx: null,
  last: new Map(),   // alert key -> when it last sounded (browser ms)
  timer: null,
  muted: localStorage.getItem(MUTE_KEY) === "1",
  open: [],
  button: null,
  enabled: () => true,   // whether a TD is logged in here (set by the page)

  init(button, enabled) {
    this.button = button;
    if (enabled) this.enabled = enabled;
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
    const button = this.button;
    if (!button) return;
    const locked = !this.ctx || this.ctx.state !== "running";
    button.textContent = this.muted ? "♪ Sound off" : "♪ Sound on";
    button.classList.toggle("locked", !this.muted && locked);
    button.setAttribute("aria-pressed", String(!this.muted));
    button.title = this.muted ? "Alerts are silent in this browser: click to hear them"
      : locked ? "The browser lets the page play sound after your first click or key" : "Click to mute alerts in this browser";
  },

  /** Sound the open act alerts that are due to sound again (a flag's voice before a call's). */
  update(open) {
    this.open = open;
    const now = Date.now();
    const keys = new Set(open.map((a) => a.key));
    for (const k of [...this.last.keys()]) if (!keys.has(k)) this.last.delete(k);
    if (this.muted || !this.enabled()) return;
    let best = null;
    for (const a of open) {
      const v = VOICES[voiceOf(a)];
      const last = this.last.get(a.key);
      const due = last === undefined || (v.every && now - last >= v.every);
      if (due && (!best || (voiceOf(a) === "critical" && voiceOf(best) !== "critical"))) best = a;
    }
    if (!best) return;
    const voice = voiceOf(best);
    for (const a of open) if (voiceOf(a) === voice) this.last.set(a.key, now);
    this.play(voice);
  },

  play(voice) {
    const ctx = this.context();
    if (!ctx) return;
    const v = VOICES[voice];
    v.notes.forEach((f, i) => {
      const o = ctx.createOscillator(), g = ctx.createGain();
      o.type = v.wave;
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

/** The count on the page (its badge and the tab's title) and the sound, for these alerts. */
export function showAlarm(alerts, { badge, title }) {
  const open = openAct(alerts);
  if (badge) {
    badge.hidden = open.length === 0;
    badge.textContent = open.length;
    badge.title = `${open.length} alert${open.length === 1 ? "" : "s"} need${open.length === 1 ? "s" : ""} you`;
  }
  const critical = open.some((a) => a.urgency === "critical");
  document.title = `${open.length ? `(${open.length}${critical ? "‼" : ""}) ` : ""}${title}`;
  sound.update(open);
}

/** A page other than the room's (Tables, Dice): an "Alerts" link with the count and a sound
 * button in its top bar, fed by a live connection of its own. Nothing without a login. */
export async function watchAlerts() {
  let session = null;
  try {
    const res = await fetch("/api/session", { credentials: "same-origin" });
    session = await res.json();
  } catch (e) { return; }
  if (!session || !(session.logged_in || session.public)) return;
  const bar = document.querySelector(".topbar");
  let area = bar.querySelector(".status-area");
  if (!area) { area = document.createElement("div"); area.className = "status-area"; bar.append(area); }
  const link = document.createElement("a");
  link.href = "/#/alerts";
  link.className = "alarm-link";
  link.textContent = "Alerts";
  const badge = document.createElement("span");
  badge.className = "count";
  badge.id = "alert-count";
  badge.hidden = true;
  link.append(" ", badge);
  const button = document.createElement("button");
  button.type = "button";
  button.id = "sound-button";
  button.className = "ghost small";
  area.prepend(link, button);
  const title = document.title;
  sound.init(button, () => !!session.logged_in);
  let retry = 500;
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/api/ws`);
    ws.onopen = () => { retry = 500; };
    ws.onmessage = (m) => {
      let msg = null;
      try { msg = JSON.parse(m.data); } catch (e) { return; }
      if ((msg.type === "hello" || msg.type === "alerts") && Array.isArray(msg.alerts)) {
        showAlarm(msg.alerts, { badge, title });
      }
    };
    ws.onclose = () => { setTimeout(connect, retry); retry = Math.min(retry * 2, 10000); };
  };
  connect();
}
