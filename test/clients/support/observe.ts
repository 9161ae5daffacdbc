import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, Server, ServerResponse } from 'node:http';

/** What a client asked of the service, as the service saw it: `METHOD path -> status`. */
export interface RequestLog {
  /** a fresh copy on every read; an answer still being sent shows without its status */
  readonly entries: string[];
  clear(): void;
  stop(): void;
}

/** Asks are recorded in arrival order; the status is filled in when the answer is sent. */
export function recordRequests(server: Server): RequestLog {
  let records: { ask: string; status?: number }[] = [];
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    // read now: routers rewrite req.url while they match prefixes
    const record: { ask: string; status?: number } = { ask: `${req.method} ${req.url}` };
    records.push(record);
    res.once('finish', () => {
      record.status = res.statusCode;
    });
  };
  server.prependListener('request', onRequest);
  return {
    get entries() {
      return records.map(({ ask, status }) => (status === undefined ? ask : `${ask} -> ${status}`));
    },
    // a late answer to a cleared ask updates its detached record, never the new log
    clear: () => void (records = []),
    stop: () => void server.off('request', onRequest),
  };
}

/**
 * Every outbound connection this process opens to another origin than the allowed ones, from
 * `fetch` (undici) and from the http/https modules (axios, ethers). Connections that fail before
 * they start are included: undici announces them before connecting.
 */
export function recordForeignConnections(allowed: string[]): { readonly origins: string[]; stop(): void } {
  const hosts = new Set(allowed.map((url) => new URL(url).host));
  const origins: string[] = [];
  const note = (origin: string) => {
    if (!hosts.has(new URL(origin).host)) origins.push(origin);
  };
  const onConnect = (message: unknown) => {
    const { connectParams } = message as { connectParams: { protocol: string; host: string } };
    note(`${connectParams.protocol}//${connectParams.host}`);
  };
  const onHttp = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    // the Host header carries the port; request.host does not
    note(`${request.protocol}//${String(request.getHeader('host') ?? request.host)}`);
  };
  subscribe('undici:client:beforeConnect', onConnect);
  subscribe('http.client.request.start', onHttp);
  return {
    origins,
    stop() {
      unsubscribe('undici:client:beforeConnect', onConnect);
      unsubscribe('http.client.request.start', onHttp);
    },
  };
}
