// toolgate console: the few behaviours that need script. The CSP forbids
// inline script, so they live here, keyed on data- attributes, and every
// page works without them (the controls they serve stay hidden).
"use strict";

// A button with data-copy="ID" copies the text of element ID: the one-time
// runtime token. Where the clipboard is refused, the text is selected so
// Ctrl+C copies it.
function showCopyButtons(root) {
  for (const b of root.querySelectorAll("button[data-copy]")) b.hidden = false;
}

document.addEventListener("DOMContentLoaded", () => showCopyButtons(document));
document.addEventListener("htmx:load", (e) => showCopyButtons(e.target));

document.addEventListener("click", async (e) => {
  const b = e.target.closest("button[data-copy]");
  if (!b) return;
  const src = document.getElementById(b.dataset.copy);
  if (!src) return;
  const status = document.getElementById(b.dataset.copy + "-status");
  const say = (text) => { if (status) status.textContent = text; };
  try {
    await navigator.clipboard.writeText(src.textContent.trim());
    say("Copied.");
  } catch {
    const range = document.createRange();
    range.selectNodeContents(src);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    say("Selected: press Ctrl+C to copy.");
  }
});

// A field shown with the error of the last save (aria-invalid, its error
// described by an element whose id ends in "-error") loses that mark once
// the person edits it: the error was about the value they are replacing.
// The server checks again on the next save; the live preview says how the
// current values fare meanwhile.
document.addEventListener("input", (e) => {
  const field = e.target;
  if (!(field instanceof Element) || field.getAttribute("aria-invalid") !== "true") return;
  field.removeAttribute("aria-invalid");
  const ids = (field.getAttribute("aria-describedby") || "").split(/\s+/);
  for (const id of ids.filter((id) => id.endsWith("-error"))) {
    const err = document.getElementById(id);
    if (err) err.hidden = true;
  }
});
