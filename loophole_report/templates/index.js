const SELECTS = ["agent", "domain", "version", "task", "status", "strict", "single", "multi", "upper"];
const rows = [...document.querySelectorAll("#trials tbody tr")];
function setSelect(name, value) {
  const el = document.getElementById("f-" + name);
  if (value && ![...el.options].some(o => o.value === value)) {
    el.add(new Option(value + " (no trials)", value));  // a link may name a value this run lacks
  }
  el.value = value || "";
}
function readHash() {
  const q = new URLSearchParams(location.hash.slice(1));
  for (const name of SELECTS) setSelect(name, q.get(name));
  document.getElementById("f-flips").checked = q.get("flips") === "1";
  document.getElementById("f-loophole").checked = q.get("loophole") === "1";
  const reading = q.get("reading") || "";
  document.getElementById("f-reading").textContent = reading ? "golds matched: " + reading : "";
  document.getElementById("f-reading").dataset.value = reading;
  apply();
}
function apply() {
  const want = {};
  for (const name of SELECTS) want[name] = document.getElementById("f-" + name).value;
  const flips = document.getElementById("f-flips").checked;
  const loophole = document.getElementById("f-loophole").checked;
  const reading = document.getElementById("f-reading").dataset.value;
  let shown = 0;
  for (const tr of rows) {
    const ok = SELECTS.every(n => !want[n] || tr.dataset[n] === want[n])
      && (!flips || tr.dataset.flip === "1") && (!loophole || tr.dataset.loophole === "1")
      && (!reading || tr.dataset.reading === reading);
    tr.hidden = !ok;
    shown += ok ? 1 : 0;
  }
  document.getElementById("shown").textContent = String(shown);
}
function writeHash() {
  const q = new URLSearchParams();
  for (const name of SELECTS) {
    const v = document.getElementById("f-" + name).value;
    if (v) q.set(name, v);
  }
  if (document.getElementById("f-flips").checked) q.set("flips", "1");
  if (document.getElementById("f-loophole").checked) q.set("loophole", "1");
  const reading = document.getElementById("f-reading").dataset.value;
  if (reading) q.set("reading", reading);
  history.replaceState(null, "", "#" + q.toString());
  apply();
}
for (const el of document.querySelectorAll(".filters select, .filters input")) el.addEventListener("change", writeHash);
document.getElementById("f-clear").addEventListener("click", () => { history.replaceState(null, "", "#"); readHash(); });
window.addEventListener("hashchange", readHash);
readHash();
