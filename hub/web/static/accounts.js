// The Accounts page (the chief TD): who is in the TD team, with which role, who is logged in
// now; add an account, remove one. Every change is the hub's (POST /api/accounts…), which
// checks the role again: the page only shows what would be accepted.
import { $, dayTime, h } from "./dom.js";
import { confirmAction } from "./confirm.js";
import { ROLE_LABELS, S, api, toast } from "./state.js";

export async function loadAccounts() {
  const data = await api("GET", "/api/accounts");
  $("accounts-team").replaceChildren(...data.team.map((p) =>
    h("li", {}, h("strong", {}, p.user), ` · ${ROLE_LABELS[p.role] || p.role}`)));
  const rows = data.accounts.map((a) => h("tr", { "data-account": a.name },
    h("td", { "data-label": "Name" }, h("strong", {}, a.name), a.builtin ? h("div", { class: "dim" }, "the hub's own password") : null),
    h("td", { "data-label": "Role" }, ROLE_LABELS[a.role] || a.role),
    h("td", { "data-label": "Now" }, a.logged_in ? h("span", { class: "ok" }, "● logged in") : h("span", { class: "dim" }, "–")),
    h("td", { "data-label": "Added" }, a.builtin ? "when the hub started" : dayTime(a.created_wall)),
    h("td", {}, a.builtin || a.name === S.session.user ? null
      : h("button", { type: "button", class: "small danger", onclick: () => remove(a) }, "Remove…"))));
  $("accounts-table").replaceChildren(
    h("thead", {}, h("tr", {}, ...["Name", "Role", "Now", "Added", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, ...rows));
  $("accounts-roles").replaceChildren(...data.roles.map((r) =>
    h("li", {}, h("strong", {}, r.label), `: ${r.permissions.join(", ")}`)));
}

async function remove(a) {
  const ok = await confirmAction(`Remove ${a.name} (${ROLE_LABELS[a.role] || a.role})? They are logged out at once.`,
    { okLabel: "Remove", danger: true });
  if (!ok) return;
  try {
    await api("POST", `/api/accounts/${encodeURIComponent(a.name)}/remove`);
    toast(`${a.name} removed`);
    await loadAccounts();
  } catch (e) {
    toast(e.message, true);
  }
}

async function add(ev) {
  ev.preventDefault();
  $("account-error").textContent = "";
  const body = { name: $("account-name").value.trim(), role: $("account-role").value, password: $("account-password").value };
  try {
    await api("POST", "/api/accounts", body);
    toast(`${body.name} added as ${ROLE_LABELS[body.role]}`);
    ev.target.reset();
    await loadAccounts();
  } catch (e) {
    $("account-error").textContent = e.message;
  }
}

export function initAccounts() {
  $("account-form").addEventListener("submit", add);
}
