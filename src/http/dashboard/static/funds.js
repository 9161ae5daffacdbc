import { byId, formatTime, setText } from './common.js';

// The service wallet's funds on the status page: its balance as the bundler last read it, the
// bundles waiting because it cannot pay their reward, and a banner while any waits.

const WINSTON_PER_AR = 10n ** 12n;

/** `1.5 AR` from `1500000000000` winston, exact (BigInt: a balance is beyond a double's precision) */
export function formatAr(winston) {
  const w = BigInt(winston);
  const whole = w / WINSTON_PER_AR;
  const fraction = (w % WINSTON_PER_AR).toString().padStart(12, '0').replace(/0+$/, '');
  return `${whole}${fraction ? `.${fraction}` : ''} AR`;
}

/** `funds` is the summary's (null where no bundler runs in the process serving the page) */
export function showFunds(funds, info) {
  const address = funds?.address ?? info.addresses.arweave ?? '–';
  setText('funds-address', address);
  setText('funds-balance-ar', funds?.balance !== undefined ? formatAr(funds.balance) : '–');
  setText('funds-balance-winston', funds?.balance !== undefined ? `${funds.balance} winston` : 'not read yet');
  setText('funds-read-at', funds?.readAt !== undefined ? formatTime(funds.readAt) : '–');
  setText('funds-waiting', funds ? funds.waitingBundles : '–');
  byId('funds-waiting-row').className = funds?.waitingBundles > 0 ? 'alarm' : '';
  const banner = byId('funds-banner');
  if (funds && funds.waitingBundles > 0) {
    const n = funds.waitingBundles;
    const lacking = funds.shortBy !== undefined ? ` (at least ${formatAr(funds.shortBy)} more)` : '';
    banner.textContent = `The service wallet cannot pay for ${n} bundle${n === 1 ? '' : 's'}: fund ${address}${lacking}. Their items wait; none is lost.`;
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
}
