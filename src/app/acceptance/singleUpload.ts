import { InsufficientBalance } from '../../domain/errors.js';
import type { VerifiedHeader } from '../../verify/index.js';
import { acceptDataItem, type AcceptDeps, type AcceptOutcome } from './acceptDataItem.js';
import { acceptanceUnderWay } from './racingAcceptance.js';
import { receiveDataItem } from './receiveDataItem.js';
import { someoneCanPay } from '../accounts/payments.js';
import { ensureNotBlocked } from '../blocklist.js';
import type { BlobHasher } from '../../crypto/blobHasher.js';
import type { RequestContext } from '../context.js';

/** `POST /tx` as the command side takes it: the body as it streams in, the payers in order, the declared length. */
export type UploadDataItem = (input: {
  body: AsyncIterable<Uint8Array>;
  token: string;
  paidBy: string[];
  /** the declared content-length, when the client sent one */
  contentLength?: number;
  ctx: RequestContext;
}) => Promise<AcceptOutcome>;

/** `POST /tx`: stream, verify, then accept (price, reserve, record, settle). */
export function createSingleUploadHandler(
  deps: AcceptDeps & {
    maxDataItemSize: number;
    strictTags?: boolean;
    observeVerify?: (seconds: number) => void;
    /** the blob digest off the request's thread (src/crypto/blobHasher.ts) */
    hasher?: BlobHasher;
  },
): UploadDataItem {
  return async ({ body, token, paidBy, contentLength, ctx }) => {
    // A blocked payer is refused before a byte of the body is read, a blocked owner as soon as the
    // header names it (by any address of its key): the rest of the body is not read, nothing is
    // stored or charged. A block made while the payload streamed is caught by the acceptance.
    ensureNotBlocked(deps.blocklist, { paidBy });
    // With a declared length, an owner nobody pays for is refused before the payload arrives.
    const onHeader = async (header: VerifiedHeader) => {
      ensureNotBlocked(deps.blocklist, { owner: header });
      if (contentLength === undefined) return;
      const winc = await deps.pricing.priceOf(contentLength);
      const now = deps.now();
      if (winc > 0n && !(await someoneCanPay(deps.accounts, { owner: header.nativeAddress, paidBy, winc, now }))) {
        // a re-sent item, or one whose other upload holds the credits now: answered 202 once accepted
        const loadItem = () => deps.items.read(header.id);
        const request = { owner: header.nativeAddress, paidBy, dataItemId: header.id };
        if (await acceptanceUnderWay({ accounts: deps.accounts, loadItem }, request)) return;
        throw new InsufficientBalance(`nobody pays ${winc} winc for ${header.nativeAddress}`);
      }
    };
    const { blobStore, maxDataItemSize: maxSize, strictTags, observeVerify, hasher } = deps;
    const received = await receiveDataItem(body, {
      blobStore,
      maxSize,
      ...(strictTags ? { strictTags } : {}),
      onHeader,
      ...(observeVerify ? { observeVerify } : {}),
      ...(hasher ? { hasher } : {}),
    });
    return acceptDataItem(received, { token, paidBy, ctx }, deps);
  };
}
