// The room view's tabs when the event has several rooms (docs/rooms.md): "All rooms" (the
// default), one tab per room, and the tables on the central broker. A tab filters the room view;
// a room whose bridge is down says so on its tab (its tiles read "Room offline").
import { $, h } from "./dom.js";
import { S } from "./state.js";

/** The tab that shows the tables of no room (those on the central broker). */
export const CENTRAL = "-";

/** Whether tile ``t`` belongs on the tab ``room`` ("" is every room). */
export function inRoom(t, room) {
  if (!room) return true;
  if (room === CENTRAL) return !t.room;
  return t.room === room;
}

/** Rooms as the hub listed them ({name, tables, state}); anything else is left out. */
export function acceptRooms(list) {
  return (Array.isArray(list) ? list : []).filter((r) => r && typeof r.name === "string" && Array.isArray(r.tables));
}

function tabState(name) {
  let n = 0, cut = 0, back = 0;
  for (const t of S.tables.values()) {
    if (!inRoom(t, name)) continue;
    n += 1;
    if (t.status === "room_offline") cut += 1;
    else if (t.status === "room_catching_up") back += 1;
  }
  return { n, cut, back };
}

/** Draw the tabs (hidden when the event has one room); ``current`` is the chosen one. */
export function renderRoomTabs(current, choose) {
  const nav = $("room-tabs");
  const rooms = acceptRooms(S.rooms);
  nav.hidden = rooms.length === 0;
  if (nav.hidden) return;
  const tabs = [{ id: "", label: "All rooms" }, ...rooms.map((r) => ({ id: r.name, label: r.name }))];
  if ([...S.tables.values()].some((t) => !t.room)) tabs.push({ id: CENTRAL, label: "Central" });
  nav.replaceChildren(...tabs.map((tab) => {
    const st = tabState(tab.id);
    const cls = ["room-tab"];
    let note = null;
    if (tab.id && tab.id !== CENTRAL && st.cut) {
      cls.push("cut");
      note = h("span", { class: "room-note" }, "⚠ offline");
    } else if (tab.id && tab.id !== CENTRAL && st.back) {
      cls.push("back");
      note = h("span", { class: "room-note" }, "reconnecting");
    } else if (!tab.id && rooms.some((r) => tabState(r.name).cut)) {
      note = h("span", { class: "room-note warn" }, `${rooms.filter((r) => tabState(r.name).cut).length} offline`);
    }
    return h("button", {
      type: "button", role: "tab", class: cls.join(" "), dataset: { room: tab.id },
      "aria-selected": String(tab.id === current),
      onclick: () => choose(tab.id),
    }, tab.label, " ", h("span", { class: "room-count" }, String(st.n)), note ? " " : null, note);
  }));
}
