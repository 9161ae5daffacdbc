import { InsufficientBalance } from '../domain/errors.js';
import type { VerifiedHeader } from '../verify/index.js';
import type { CommandHandlers } from '../http/commands.js';
import type { DataItemId } from '../domain/ids.js';
import { acceptDataItem, loadDataItem, type AcceptDeps } from './acceptDataItem.js';
import { acceptanceUnderWay } from './racingAcceptance.js';
import { receiveDataItem } from './receiveDataItem.js';
import { someoneCanPay } from './payments.js';

/** `POST /tx`: stream, verify, then accept (price, reserve, record, settle). */
export function createSingleUploadHandler(
  deps: AcceptDeps & { maxDataItemSize: number; strictTags?: boolean; observeVerify?: (seconds: number) => void },
): CommandHandlers['uploadDataItem'] {
  return async ({ body, token, paidBy, contentLength, ctx }) => {
    // With a declared length, an owner nobody pays for is refused before the payload arrives.
    const onHeader =
      contentLength === undefined
        ? undefined
        : async (header: VerifiedHeader) => {
            const winc = await deps.pricing.priceOf(contentLength);
            const now = (deps.now ?? Date.now)();
            if (winc > 0n && !(await someoneCanPay(deps.accounts, { owner: header.nativeAddress, paidBy, winc, now }))) {
              // a re-sent item, or one whose other upload holds the credits now: answered 202 once accepted
              const loadItem = () => loadDataItem(deps.eventStore, header.id as DataItemId);
              const request = { owner: header.nativeAddress, paidBy, dataItemId: header.id };
              if (await acceptanceUnderWay({ accounts: deps.accounts, loadItem }, request)) return;
              throw new InsufficientBalance(`nobody pays ${winc} winc for ${header.nativeAddress}`);
            }
          };
    const { blobStore, maxDataItemSize: maxSize, strictTags, observeVerify } = deps;
    const received = await receiveDataItem(body, {
      blobStore,
      maxSize,
      ...(strictTags ? { strictTags } : {}),
      onHeader,
      ...(observeVerify ? { observeVerify } : {}),
    });
    return acceptDataItem(received, { token, paidBy, ctx }, deps);
  };
}
