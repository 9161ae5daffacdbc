// Shared by the dashboard pages: fetching the JSON, building elements (text only: nothing from the
// service is ever parsed as HTML), and formatting.

export const REFRESH_MS = 5000;

/** the JSON of `path`, or `{ notFound: true }` on 404; throws with the plain-text message otherwise */
export async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' }, cache: 'no-store' });
  if (res.status === 404) return { notFound: true };
  if (!res.ok) throw new Error(`${res.status} ${(await res.text()) || res.statusText}`);
  return res.json();
}

/** an element with attributes and children (strings become text nodes) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  node.append(...children.map((c) => (typeof c === 'string' || typeof c === 'number' ? String(c) : c)));
  return node;
}

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

export const byId = (id) => document.getElementById(id);

export function setText(id, text) {
  byId(id).textContent = String(text);
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export function formatBytes(n) {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

/** `2026-11-21 08:14:12.345 UTC`: the service's times are UTC, like its logs; steps are often milliseconds apart */
export const formatTime = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;

/** runs `refresh` now and every REFRESH_MS while it asks to go on; shows the last update time or the error */
export function poll(refresh) {
  const tick = async () => {
    let again = true;
    try {
      again = (await refresh()) !== false;
      byId('error').hidden = true;
      setText('updated', `updated ${new Date().toISOString().slice(11, 19)} UTC`);
    } catch (error) {
      const box = byId('error');
      box.textContent = `Could not load the data: ${error.message}`;
      box.hidden = false;
    }
    if (again) setTimeout(tick, REFRESH_MS);
  };
  tick();
}
