import { byId, formatTime, setText } from './common.js';

// The block height receipts are signed with and the gateway it comes from, on the status page: the
// height, when it was read, whether the gateway answers (and its last error while it does not), and
// a banner while uploads are refused for want of a height read recently enough.

const minutes = (ms) => `${Math.round(ms / 60_000)} min`;

/** `blockHeight` is the summary's (null where no height source runs) */
export function showBlockHeight(blockHeight) {
  const b = blockHeight;
  setText('block-height-value', b?.height ?? '–');
  setText('block-height-read-at', b?.readAt ? formatTime(b.readAt) : 'never');
  setText('block-height-gateway', !b ? '–' : b.reachable ? 'reachable' : 'unreachable');
  byId('block-height-gateway').className = b && !b.reachable ? 'alarm' : '';
  setText('block-height-error', b?.lastError ? `${b.lastError} (${formatTime(b.lastErrorAt)})` : '–');
  const banner = byId('block-height-banner');
  if (b && !b.fresh) {
    const why = b.height === null ? 'no block height was ever read from the gateway' : `the block height was last read ${b.readAt ? formatTime(b.readAt) : 'at an unknown time'}, more than ${minutes(b.maxAgeMs)} ago`;
    banner.textContent = `Uploads are refused (503 Service unavailable): ${why}. They are taken again once the gateway answers.`;
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
}
