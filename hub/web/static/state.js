// What the dashboard holds in the browser, and its one way to call the hub's API.
import { $ } from "./dom.js";

export const S = {
  session: null,          // {logged_in, csrf, public, event, user, role, permissions, team}
  tables: new Map(),      // table id -> tile
  alerts: [],
  rounds: [],
  rooms: [],              // the event's rooms ({name, tables, state}), when it has several
  offset: 0,              // hub time - browser time (ms)
  view: "room",
  detailTable: null,
};

export const hubNow = () => Date.now() + S.offset;
export const loggedIn = () => !!(S.session && S.session.logged_in);
// what the logged-in role may do (hub/roles.py): the dashboard shows only what would be accepted
export const can = (permission) => loggedIn() && (S.session.permissions || []).includes(permission);
// table actions: pause, penalties, waivers, clock corrections, automation (a TD or the chief TD)
export const isTD = () => can("table-actions");
export const ROLE_LABELS = { chief: "chief TD", td: "TD", scorer: "scorer", viewer: "viewer" };

export async function api(method, path, body, isForm) {
  const headers = { "X-CSRF-Token": S.session ? S.session.csrf : "" };
  let payload = body;
  if (body !== undefined && !isForm) {
    if (typeof body === "string") {
      headers["Content-Type"] = "text/csv";
    } else {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
  }
  const res = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error) || res.statusText);
    err.status = res.status;
    err.data = data;
    throw err;
  }
  return data;
}

export function toast(text, bad) {
  const t = $("toast");
  t.textContent = text;
  t.classList.toggle("bad", !!bad);
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, bad ? 6000 : 3500);
}

/** A player's name for a side of a tile or a result ("A"/"B" only when no name is known). */
export function playerName(players, side) {
  return (players && players[side]) || (side === "A" ? "player A" : "player B");
}

export const otherSide = (side) => (side === "A" ? "B" : "A");

/** A side's reserve now, counting down from the snapshot while its clock runs. */
export function runningReserve(t, side) {
  const c = t.clock;
  if (!c || !c.enabled || !c.reserve_ms) return null;
  let reserve = c.reserve_ms[side];
  if (c.running === side && !c.paused && t.phase === "playing" && t.state_wall) {
    const elapsed = Math.max(0, hubNow() - t.state_wall);
    const delay = (c.delay_ms && c.delay_ms[side]) || 0;
    reserve -= Math.max(0, elapsed - delay);
  }
  return Math.max(0, reserve);
}

/** The side whose clock runs on a tile, or null. */
export function runningSide(t) {
  return t.clock && t.clock.enabled && t.phase === "playing" && !t.clock.paused ? t.clock.running : null;
}
