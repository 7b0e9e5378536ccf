// Static assets of the dashboard, served from /admin/assets/ so that the Content-Security-Policy
// can forbid every inline script and style.

export const ADMIN_CSS = `
:root { --ink: #1b1f24; --muted: #4d5560; --line: #c9ced6; --bg: #f6f7f9; --brand: #1f4fd1; --brand-dark: #173c9f;
  --danger: #b3261e; --ok: #0b6b34; --focus: #ffbf47; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--bg); line-height: 1.5; font-size: 1rem; }
a { color: var(--brand-dark); }
a:hover { color: var(--ink); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; box-shadow: 0 0 0 5px var(--ink); }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: .5rem; }
header.top { background: var(--ink); color: #fff; padding: .75rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; }
header.top a { color: #fff; }
header.top .brand { font-weight: 700; font-size: 1.1rem; text-decoration: none; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
header.top .who { margin-left: auto; display: flex; gap: .75rem; align-items: center; font-size: .9rem; }
header.top .who button { background: transparent; color: #fff; border: 1px solid #fff; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .75rem; }
section.card > h2:first-child { margin-top: 0; }
section.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin: 1rem 0; }
.table-wrap { overflow-x: auto; container-type: inline-size; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .9rem; color: var(--muted); }
caption { text-align: left; padding: 0 .5rem .25rem; }
/* A table wider than a phone scrolls inside its region; its caption stays in view and wraps there. */
.table-wrap caption > span { display: block; position: sticky; left: .5rem; max-width: calc(100cqi - 1rem); }
form.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .75rem 1rem; align-items: end; }
form.inline { display: inline; }
.field { display: flex; flex-direction: column; gap: .25rem; }
.field.wide { grid-column: 1 / -1; }
label, legend { font-weight: 600; font-size: .95rem; }
.hint { color: var(--muted); font-size: .85rem; font-weight: 400; }
.field label .hint { display: block; }
input, select, textarea { font: inherit; padding: .5rem; border: 1px solid var(--muted); border-radius: 4px; background: #fff; color: var(--ink); width: 100%; min-height: 2.75rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1rem; }
fieldset label { font-weight: 400; display: flex; gap: .5rem; align-items: center; }
fieldset input[type=checkbox], label > input[type=checkbox] { width: auto; min-height: auto; margin-right: .4rem; }
button, .button { font: inherit; font-weight: 600; padding: .55rem 1rem; min-height: 2.75rem; border-radius: 4px; border: 1px solid var(--brand);
  background: var(--brand); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button:hover { background: var(--brand-dark); }
button.secondary { background: #fff; color: var(--brand-dark); }
button.danger { background: var(--danger); border-color: var(--danger); }
.notice { border-left: 6px solid var(--ok); background: #e8f5ec; padding: .75rem 1rem; margin: 1rem 0; }
.error { border-left: 6px solid var(--danger); background: #fbeaea; padding: .75rem 1rem; margin: 1rem 0; }
.field-error { color: var(--danger); font-weight: 600; font-size: .9rem; margin: 0; }
[aria-invalid="true"] { border: 2px solid var(--danger); }
textarea.plan { font-family: ui-monospace, monospace; font-size: .85rem; }
.secret { display: flex; gap: .5rem; flex-wrap: wrap; }
.secret input { font-family: ui-monospace, monospace; flex: 1 1 20rem; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; border: 1px solid var(--muted); font-size: .85rem; }
.badge.live { border-color: var(--ok); color: var(--ok); }
.badge.off { border-color: var(--danger); color: var(--danger); }
.login { max-width: 24rem; margin: 3rem auto; }
form.search { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: 0 0 1rem; }
form.search .field:first-of-type { flex: 1 1 16rem; }
dl.facts { display: grid; grid-template-columns: minmax(7rem, max-content) 1fr; gap: .25rem 1rem; margin: 0; }
dl.facts dt { font-weight: 600; color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
figure.chart { margin: 0 0 1rem; max-width: 40rem; }
figure.chart figcaption { font-weight: 600; margin-bottom: .25rem; }
figure.chart text { fill: var(--ink); }
.bar-sold { fill: var(--brand); }
.bar-held { fill: #c77700; }
.bar-free { fill: #8a939e; }
.bar-blocked { fill: var(--ink); }
.bar-refund { fill: var(--danger); }
ul.bars { list-style: none; margin: 0; padding: 0; display: grid; gap: .5rem; }
ul.bars li { display: grid; grid-template-columns: minmax(8rem, 14rem) 1fr; grid-template-areas: "label bar" "label figures"; gap: 0 .75rem; align-items: center; }
.bar-label { grid-area: label; font-size: .9rem; overflow-wrap: anywhere; }
svg.bar { grid-area: bar; display: block; width: 100%; height: 1.1rem; background: #fff; }
.bar-figures { grid-area: figures; font-size: .85rem; color: var(--muted); }
ul.legend { list-style: none; margin: .5rem 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; font-size: .9rem; }
ul.legend svg { width: .9rem; height: .9rem; vertical-align: -.1rem; margin-right: .35rem; }
.heat-sold { stroke: var(--brand); }
.heat-held { stroke: #c77700; }
.heat-free { stroke: #8a939e; }
.heat-blocked { stroke: var(--ink); }
.heatmaps { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: flex-start; }
figure.heatmap { margin: 0; max-width: 100%; }
figure.heatmap figcaption { margin-bottom: .25rem; }
figure.heatmap svg { display: block; max-width: 100%; height: auto; }
figure.heatmap.zone { flex: 1 1 16rem; }
figure.heatmap.zone svg.bar { height: 1.5rem; }
p.stage { text-align: center; border: 1px solid var(--line); border-radius: 4px; color: var(--muted); margin: .5rem 0; font-size: .9rem; }
.overview .table-wrap th:first-child, .overview .table-wrap td:first-child { position: sticky; left: 0; z-index: 1; background: #fff; box-shadow: 1px 0 0 var(--line); }
.overview .table-wrap th[scope="row"] { min-width: 7.5rem; }
.overview .table-wrap td { white-space: nowrap; }
textarea.snippet { font-family: ui-monospace, monospace; font-size: .85rem; white-space: pre; overflow-x: auto; }
td code { display: inline-block; min-width: 14rem; }
td code { overflow-wrap: anywhere; white-space: pre-wrap; }
.login form { display: grid; gap: 1rem; }
@media (max-width: 40rem) {
  header.top .who { margin-left: 0; }
  main { padding: .75rem; }
  th, td { padding: .4rem; font-size: .9rem; }
  ul.bars li { grid-template-columns: 1fr; grid-template-areas: "label" "bar" "figures"; }
}
`;

export const ADMIN_JS = `
// A layout file chosen in a file input fills the text box named by data-file-target (the form
// itself posts the text, so it also works by pasting, without this script).
document.addEventListener('change', async (event) => {
  const input = event.target.closest('input[type=file][data-file-target]');
  if (!input || !input.files || !input.files[0]) return;
  const target = document.getElementById(input.getAttribute('data-file-target'));
  if (target) target.value = await input.files[0].text();
});
document.addEventListener('click', async (event) => {
  const button = event.target.closest('[data-copy-target]');
  if (!button) return;
  const input = document.getElementById(button.getAttribute('data-copy-target'));
  const status = document.getElementById(button.getAttribute('data-copy-status'));
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    if (status) status.textContent = 'Copied to the clipboard.';
  } catch {
    if (status) status.textContent = 'Selected: press Ctrl+C (or Cmd+C) to copy.';
  }
});
`;
