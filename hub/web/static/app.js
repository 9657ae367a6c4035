// The TD dashboard: session, live updates and routing. Each view lives in its own module:
// room.js (tiles), table.js (a table and its actions), alerts.js (feed and sound), lists.js
// (schedule, results). Plain ES modules, no build step.
import { $, hhmmss } from "./dom.js";
import { alertItems, setAlerts, setCounters, showTitle, sound } from "./alerts.js";
import { acceptTiles, initRoomControls, queueTile, renderGrid, tickTiles } from "./room.js";
import { importSchedule, initLists, loadResults, loadSchedule } from "./lists.js";
import { loadRounds, scheduleRounds } from "./rounds.js";
import { initTimeline, loadTimeline, scheduleTimeline } from "./timeline.js";
import { ROLE_LABELS, S, api, can, hubNow, loggedIn, toast } from "./state.js";
import { initAccounts, loadAccounts } from "./accounts.js";
import { loadDraw, probeDraw, scheduleDraw } from "./draw.js";
import { scheduleDetailReload, showTable, tickDetail } from "./table.js";

const live = { ws: null, retry: 500 };

// -- session -------------------------------------------------------------------------------------

async function loadSession() {
  S.session = await api("GET", "/api/session");
  $("event-name").textContent = S.session.event;
  showTitle();
  $("login-button").hidden = loggedIn();
  $("logout-button").hidden = !loggedIn();
  document.body.classList.toggle("is-td", loggedIn());
  // who is logged in here, and (on hover) the whole team logged in now
  const who = $("who");
  who.hidden = !loggedIn();
  if (loggedIn()) {
    who.textContent = `${S.session.user} · ${ROLE_LABELS[S.session.role] || S.session.role}`;
    who.title = "Logged in now: " + S.session.team.map((p) => `${p.user} (${ROLE_LABELS[p.role] || p.role})`).join(", ");
  }
  for (const el of document.querySelectorAll("[data-needs]")) el.hidden = !can(el.dataset.needs);
  if (loggedIn() || S.session.public) await probeDraw();
}

async function login(ev) {
  ev.preventDefault();
  $("login-error").textContent = "";
  try {
    const user = $("login-user").value.trim();
    const data = await api("POST", "/api/login", user ? { user, password: $("password").value } : { password: $("password").value });
    S.session.logged_in = true;
    S.session.csrf = data.csrf;
    $("password").value = "";
    await loadSession();
    connect(true);
    // the login form was only a step: go on to where the TD was going, or to the room
    const back = sessionStorage.getItem("bg.after-login") || "#/";
    sessionStorage.removeItem("bg.after-login");
    if (location.hash === back) route(); else location.hash = back;
  } catch (e) {
    $("login-error").textContent = e.message;
  }
}

async function logout() {
  try { await api("POST", "/api/logout"); } catch (e) { /* already gone */ }
  location.hash = "#/";
  location.reload();
}

// -- live updates --------------------------------------------------------------------------------

function setLive(state) {
  const el = $("live");
  el.classList.toggle("on", state === "on");
  el.classList.toggle("off", state === "off");
  el.textContent = state === "on" ? "● live" : state === "off" ? "● disconnected" : "● connecting";
}

function connect(restart) {
  if (live.ws && restart) { live.ws.onclose = null; live.ws.close(); live.ws = null; }
  if (live.ws) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/ws`);
  live.ws = ws;
  setLive("connecting");
  ws.onopen = () => { live.retry = 500; setLive("on"); };
  ws.onmessage = (m) => {
    try {
      onMessage(JSON.parse(m.data));
    } catch (e) {
      console.error("a live update could not be shown", e);
    }
  };
  ws.onclose = () => {
    live.ws = null;
    setLive("off");
    setTimeout(() => connect(false), live.retry);
    live.retry = Math.min(live.retry * 2, 10000);
  };
}

function onMessage(msg) {
  if (msg.now_wall) S.offset = msg.now_wall - Date.now();
  if (msg.type === "hello") {
    S.tables = new Map(acceptTiles(msg.tables).map((t) => [String(t.table), t]));
    S.rounds = msg.rounds || [];
    S.rooms = Array.isArray(msg.rooms) ? msg.rooms : [];
    setAlerts(Array.isArray(msg.alerts) ? msg.alerts : []);
    setCounters(msg.counters);
    renderGrid();
    if (S.view === "table") scheduleDetailReload();
    scheduleDraw();
  } else if (msg.type === "tiles") {
    for (const t of acceptTiles(msg.tiles)) {
      S.tables.set(String(t.table), t);
      queueTile(t);
      if (S.view === "table" && S.detailTable === String(t.table)) scheduleDetailReload();
    }
    scheduleRounds();
    scheduleTimeline();
    scheduleDraw();
  } else if (msg.type === "alerts") {
    setAlerts(msg.alerts);
    if (S.view === "table") scheduleDetailReload();
    scheduleTimeline();
  } else if (msg.type === "counters") {
    setCounters(msg.counters);
  } else if (msg.type === "schedule") {
    if (S.view === "schedule") loadSchedule();
    scheduleRounds();
    if (S.view === "draw") scheduleDraw(); else probeDraw();
  } else if (msg.type === "results") {
    if (S.view === "results") loadResults();
    if (S.view === "table") scheduleDetailReload();
    scheduleDraw();
  }
}

// -- routing -------------------------------------------------------------------------------------

const VIEWS = ["login", "room", "rounds", "alerts", "table", "schedule", "results", "draw", "timeline", "accounts"];

function show(view) {
  S.view = view;
  for (const v of VIEWS) $(`${v}-view`).hidden = v !== view;
  for (const a of document.querySelectorAll(".tabs a")) a.classList.toggle("active", a.dataset.view === view);
  for (const el of document.querySelectorAll("[data-needs]")) el.hidden = !can(el.dataset.needs);
}

function route() {
  const needLogin = !loggedIn() && !(S.session && S.session.public);
  if (needLogin || location.hash === "#/login") {
    if (needLogin && location.hash && location.hash !== "#/login") sessionStorage.setItem("bg.after-login", location.hash);
    if (loggedIn()) { location.hash = "#/"; return; }
    show("login");
    $("login-user").focus();
    return;
  }
  connect(false);
  const hash = location.hash || "#/";
  const m = /^#\/table\/(.+)$/.exec(hash);
  const fail = (e) => toast(e.message, true);
  if (m) {
    show("table");
    showTable(decodeURIComponent(m[1]));
  } else if (hash === "#/alerts") {
    show("alerts");
    $("alerts-full").replaceChildren(...alertItems(S.alerts));
  } else if (hash === "#/schedule") {
    show("schedule");
    loadSchedule().catch(fail);
  } else if (hash === "#/results") {
    show("results");
    loadResults().catch(fail);
  } else if (hash === "#/draw") {
    show("draw");
    loadDraw().catch(fail);
  } else if (hash === "#/rounds") {
    show("rounds");
    loadRounds().catch(fail);
  } else if (hash === "#/accounts" && can("accounts")) {
    show("accounts");
    loadAccounts().catch(fail);
  } else if (hash === "#/timeline" || hash === "#/audit") {
    show("timeline");
    loadTimeline().catch(fail);
  } else {
    show("room");
    renderGrid();
  }
}

function tick() {
  $("hub-clock").textContent = hhmmss(hubNow());
  tickTiles();
  tickDetail();
}

async function init() {
  $("login-form").addEventListener("submit", login);
  $("logout-button").addEventListener("click", logout);
  $("login-button").addEventListener("click", () => { location.hash = "#/login"; });
  $("import-form").addEventListener("submit", importSchedule);
  initAccounts();
  initRoomControls();
  initTimeline();
  initLists();
  sound.init($("sound-button"), loggedIn);
  // the action bar sticks just under the top bar, whose height depends on the screen's width
  const bar = document.querySelector(".topbar");
  new ResizeObserver(() => document.documentElement.style.setProperty("--topbar-h", `${bar.offsetHeight}px`)).observe(bar);
  window.addEventListener("hashchange", route);
  await loadSession();
  route();
  setInterval(tick, 1000);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();

