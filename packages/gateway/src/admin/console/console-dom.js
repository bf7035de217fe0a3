// The admin console's page helpers (console.js): elements made with text, never markup; times and
// the API paths of ids.
export const $ = (id) => document.getElementById(id);

/** An element with its text and attributes; children after. */
export function el(tag, text, attributes = {}, ...children) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export const pad = (n) => String(n).padStart(2, '0');
/**
 * A time as ISO 8601 in the browser's zone, with its offset (`2026-11-28T13:05:00+01:00`): a
 * locale's `toLocaleString()` gave `11/28/2026, 1:05:00 PM`, a 12-hour time of no named zone.
 */
export function when(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  const at = new Date(seconds * 1000);
  const offset = -at.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}${zone}`;
}
/**
 * The API path of an account or key id (`accounts/acme`, `keys/k1/revoke`): an id of `.` or `..`
 * goes in the query (`accounts/?account=..`), since a URL resolves it as a dot segment, escaped
 * as `%2E` too, and `fetch` would ask for another path.
 */
export const idPath = (prefix, id, name, suffix = '') =>
  /^\.{1,2}$/.test(id) ? `${prefix}/${suffix}?${name}=${encodeURIComponent(id)}` : `${prefix}/${encodeURIComponent(id)}${suffix}`;
