import { startCountingProxy } from './countingProxy.js';

/**
 * A gateway double in front of arlocal that looks transactions up by the bytes their id decodes to,
 * as an Arweave node does: ArweaveTeam/arweave, apps/arweave/src/ar_http_iface_middleware.erl,
 * `handle(<<"GET">>, [<<"tx">>, Hash], ...)` (and `[<<"tx">>, Hash, <<"status">>]`) decodes the
 * path's id with `ar_util:safe_decode(Hash)` and reads the stored transaction by the decoded binary,
 * answering its header with the id it was stored under. Base64url decoding ignores the spare low
 * bits of an id's last character, so all 4 spellings of one id name the same transaction there.
 * arlocal looks ids up as strings: only the canonical spelling finds anything. Here every
 * `/tx/<id>...` path is passed on with its id decoded and encoded again; anything else as it came.
 */
export interface DecodingGateway {
  readonly url: string;
  close(): Promise<void>;
}

const TX_PATH = /^\/tx\/([A-Za-z0-9_-]{43})(\/.*)?$/;

/** the path with a `/tx/<id>` id decoded and encoded again (its canonical spelling), else as it came */
const decodedPath = (path: string): string => {
  const match = TX_PATH.exec(path);
  return match ? `/tx/${Buffer.from(match[1]!, 'base64url').toString('base64url')}${match[2] ?? ''}` : path;
};

export function startDecodingGateway(arlocalUrl: string): Promise<DecodingGateway> {
  return startCountingProxy(arlocalUrl, { rewritePath: decodedPath });
}
