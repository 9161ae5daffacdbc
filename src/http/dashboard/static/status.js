import { byId, el, formatBytes, formatTime, getJson, poll, setText, svg } from './common.js';
import { showFunds } from './funds.js';
import { showBlockHeight } from './blockHeight.js';

const STATES = ['planned', 'prepared', 'posted', 'seeded', 'confirmed', 'permanent', 'dropped'];

byId('lookup').addEventListener('submit', (event) => {
  event.preventDefault();
  const id = byId('lookup-id').value.trim();
  if (id) window.location.assign(`/dashboard/tx/${encodeURIComponent(id)}`);
});

/** a bar per minute, scaled to the busiest minute; each bar carries its figures and a tooltip */
function chart(perMinute) {
  const width = 720;
  const height = 160;
  const pad = { left: 36, right: 8, top: 10, bottom: 22 };
  const max = Math.max(1, ...perMinute.map((m) => m.items));
  const slot = (width - pad.left - pad.right) / perMinute.length;
  const plot = height - pad.top - pad.bottom;
  const root = svg('svg', { id: 'uploads-chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'items accepted per minute, last 60 minutes' });
  root.append(
    svg('line', { class: 'axis', x1: pad.left, y1: pad.top + plot, x2: width - pad.right, y2: pad.top + plot }),
    svg('line', { class: 'grid', x1: pad.left, y1: pad.top, x2: width - pad.right, y2: pad.top }),
    svg('text', { class: 'label', x: pad.left - 6, y: pad.top + 4, 'text-anchor': 'end' }, String(max)),
    svg('text', { class: 'label', x: pad.left - 6, y: pad.top + plot + 4, 'text-anchor': 'end' }, '0'),
    svg('text', { class: 'label', x: pad.left, y: height - 6 }, '60 min ago'),
    svg('text', { class: 'label', x: width - pad.right, y: height - 6, 'text-anchor': 'end' }, 'now'),
  );
  perMinute.forEach((m, i) => {
    const h = (m.items / max) * plot;
    const bar = svg(
      'rect',
      {
        class: m.items > 0 ? 'bar' : 'bar empty',
        x: (pad.left + i * slot + 1).toFixed(1),
        y: (pad.top + plot - h).toFixed(1),
        width: Math.max(1, slot - 2).toFixed(1),
        height: Math.max(h, 0).toFixed(1),
        'data-minute': m.minute,
        'data-items': m.items,
        'data-bytes': m.bytes,
      },
      svg('title', {}, `${m.minute.slice(11, 16)} UTC: ${m.items} items, ${formatBytes(m.bytes)}`),
    );
    root.append(bar);
  });
  return root;
}

/** `45 s`, `12 min`, `3 h 20 min`, `2 d 4 h`: a waiting item's age at a glance */
function formatAge(seconds) {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** the queue's block: items waiting for a bundle, and how long the oldest has waited */
function showWaiting(waiting) {
  setText('waiting-items', waiting.items);
  setText('waiting-unit', waiting.items === 1 ? 'item' : 'items');
  setText(
    'waiting-oldest',
    waiting.oldestAgeSeconds === null ? '–' : `${formatAge(waiting.oldestAgeSeconds)} (accepted ${formatTime(waiting.oldestAcceptedAt)})`,
  );
}

/** the last failures: each item links to its page, with when and why */
function showFailures(failures) {
  byId('failures-none').hidden = failures.length > 0;
  byId('failures').tBodies[0].replaceChildren(
    ...failures.map((f) =>
      el(
        'tr',
        { 'data-id': f.id },
        el('td', { class: 'mono' }, el('a', { href: `/dashboard/tx/${encodeURIComponent(f.id)}`, title: f.id }, `${f.id.slice(0, 10)}…${f.id.slice(-4)}`)),
        el('td', { class: 'muted when' }, el('time', { datetime: f.at }, formatTime(f.at).slice(0, 19))),
        el('td', {}, f.reason),
      ),
    ),
  );
}

function rows(tbody, pairs) {
  tbody.replaceChildren(...pairs.map(([name, value, attrs]) => el('tr', attrs ?? {}, el('th', {}, name), el('td', {}, value))));
}

poll(async () => {
  const s = await getJson('/dashboard/api/summary');
  if (s.notFound) throw new Error('the dashboard API is not served here');
  setText('version', `v${s.info.version}`);
  setText('info-version', s.info.version);
  setText('wallet', s.info.addresses.arweave ?? '–');
  setText('gateway', s.info.gateway);
  setText('free-limit', formatBytes(s.info.freeUploadLimitBytes));
  byId('chart').replaceChildren(chart(s.uploads.perMinute));
  setText('uploads-last-hour', s.uploads.lastHour.items);
  setText('bytes-last-hour', formatBytes(s.uploads.lastHour.bytes));
  setText('uploads-total', s.uploads.total.items);
  setText('bytes-total', formatBytes(s.uploads.total.bytes));
  setText('items-failed', s.uploads.failedItems);
  setText('items-damaged', s.uploads.damagedItems);
  setText('items-held', s.uploads.heldItems);
  byId('damaged').className = s.uploads.damagedItems > 0 ? 'alarm' : '';
  setText('bytes-held', formatBytes(s.storage.bytesHeld));
  setText('bytes-retired', formatBytes(s.storage.bytesRetired));
  setText('items-retired', s.storage.itemsRetired);
  setText('days-left', s.storage.daysOfDiskLeft === null ? '–' : s.storage.daysOfDiskLeft.toFixed(1));
  byId('disk-left').className = s.storage.daysOfDiskLeft !== null && s.storage.daysOfDiskLeft < 7 ? 'alarm' : '';
  showWaiting(s.waiting);
  showFailures(s.failures);
  rows(
    byId('bundles').tBodies[0],
    STATES.map((state) => [state, s.bundles[state] ?? 0, { 'data-state': state, class: (s.bundles[state] ?? 0) > 0 ? 'some' : 'none' }]),
  );
  showFunds(s.funds, s.info);
  showBlockHeight(s.blockHeight);
  setText('lag-behind', s.projector.behind);
  setText('lag-unit', s.projector.behind === '1' ? 'event behind' : 'events behind');
  setText('lag-head', s.projector.head);
  rows(
    byId('lag-table').tBodies[0],
    Object.entries(s.projector.byProjection).map(([name, behind]) => [name, behind, { 'data-projection': name }]),
  );
});
