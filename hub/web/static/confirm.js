// The one confirmation every action that ends a match, gives points or changes a time, a score
// or a length goes through: a modal that says, in a sentence naming the players, what will
// happen ("Forfeit: Anna Berg loses r3-t12 to Jon Dahl?"). Cancel is the default button.
import { h } from "./dom.js";

let dialog = null;

function build() {
  dialog = h("dialog", { id: "confirm-dialog", class: "confirm", "aria-labelledby": "confirm-text" },
    h("form", { method: "dialog" },
      h("p", { id: "confirm-text", class: "confirm-text" }),
      h("div", { id: "confirm-detail", class: "confirm-detail" }),
      h("div", { class: "confirm-buttons" },
        h("button", { type: "submit", value: "cancel", class: "ghost", id: "confirm-cancel" }, "Cancel"),
        h("button", { type: "submit", value: "ok", id: "confirm-ok" }, "Confirm"))));
  document.body.append(dialog);
}

/**
 * Ask before acting. ``sentence`` names the players and the effect; ``detail`` (a node or
 * null) shows what the TD is agreeing to (a game list); ``okLabel`` is the verb on the button.
 * Resolves true only when the TD presses it.
 */
export function confirmAction(sentence, { detail = null, okLabel = "Confirm", danger = false } = {}) {
  if (!dialog) build();
  if (dialog.open) dialog.close("cancel");
  dialog.querySelector("#confirm-text").textContent = sentence;
  dialog.querySelector("#confirm-detail").replaceChildren(...(detail ? [detail] : []));
  const ok = dialog.querySelector("#confirm-ok");
  ok.textContent = okLabel;
  ok.classList.toggle("danger", danger);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.returnValue = "cancel";
    dialog.showModal();
    dialog.querySelector("#confirm-cancel").focus();
  });
}
