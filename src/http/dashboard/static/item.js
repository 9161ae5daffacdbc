import { byId, el, formatTime, getJson, poll, setText } from './common.js';

/** the order and names of the offsets' fields (CONTRACT.md section 6) */
const OFFSET_FIELDS = [
  ['rootBundleId', 'Root bundle'],
  ['startOffsetInRootBundle', 'Start in root bundle'],
  ['rawContentLength', 'Raw length'],
  ['payloadContentType', 'Content type'],
  ['payloadDataStart', 'Payload start'],
  ['payloadContentLength', 'Payload length'],
  ['parentDataItemId', 'Parent item'],
  ['startOffsetInParentDataItemPayload', 'Start in parent payload'],
];

const id = decodeURIComponent(window.location.pathname.split('/').filter(Boolean).pop() ?? '');
setText('item-id', id);
document.title = `Data item ${id}`;

function showItem(item) {
  byId('found').hidden = false;
  const badge = byId('item-status');
  if (item.status) {
    badge.textContent = `${item.status.status} (${item.status.info})`;
    badge.className = `badge ${item.status.info}`;
    badge.hidden = false;
  }
  byId('damage').hidden = item.status?.info !== 'damaged';
  const nested = byId('nested');
  if (item.nestedIn) {
    nested.replaceChildren('Nested in the bundle of item ', el('a', { class: 'mono', href: `/dashboard/tx/${item.nestedIn}` }, item.nestedIn), '.');
    nested.hidden = false;
  }
  setText('bundle-state', item.bundle ? item.bundle.state : 'not in a bundle yet');
  setText('bundle-id', item.bundle?.txId ?? '–');
  setText('plan-id', item.bundle?.planId ?? '–');
  const offsets = byId('offsets');
  if (item.offsets) {
    offsets.replaceChildren(
      ...OFFSET_FIELDS.filter(([field]) => item.offsets[field] !== undefined).flatMap(([field, label]) => [
        el('dt', {}, label),
        el('dd', { 'data-field': field, class: typeof item.offsets[field] === 'string' ? 'mono' : '' }, item.offsets[field]),
      ]),
    );
  }
  offsets.hidden = !item.offsets;
  byId('no-offsets').hidden = Boolean(item.offsets);
  byId('timeline').replaceChildren(
    ...item.timeline.map((e) =>
      el(
        'li',
        { 'data-type': e.type },
        el('time', { datetime: e.at }, formatTime(e.at)),
        el('span', { class: 'type' }, e.type),
        el('span', { class: 'summary' }, e.summary),
      ),
    ),
  );
  // nothing more will happen to a permanent or failed item: stop polling
  return !(item.status && (item.status.info === 'permanent' || item.status.info === 'failed'));
}

poll(async () => {
  const item = await getJson(`/dashboard/api/tx/${encodeURIComponent(id)}`);
  if (item.notFound) {
    byId('found').hidden = true;
    setText('not-found-message', `No data item with id ${id} is known to this service.`);
    byId('not-found').hidden = false;
    return true;
  }
  byId('not-found').hidden = true;
  return showItem(item);
});
