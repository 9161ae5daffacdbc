import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import express from 'express';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { AccountRepository } from '../../src/app/accounts/accounts.js';
import { adminRouter } from '../../src/http/admin.js';
import { createBlocklist } from '../../src/app/blocklist.js';
import { errorHandler, sendError } from '../../src/http/errors.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { DataItemRepository } from '../../src/app/acceptance/dataItems.js';

export const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
export const T0 = Date.parse('2030-01-01T00:00:00.000Z');

/** arweave-style and ethereum addresses; `ethLower` is canonicalized to `eth` (EIP-55) */
export const alice = 'alice'.padEnd(43, 'A');
export const bob = 'bob'.padEnd(43, 'B');
export const eth = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const ethLower = eth.toLowerCase();

export interface AdminApp {
  url: string;
  eventStore: EventStore;
  /** the clock of the router and of the store's `created`; tests set it before each command */
  clock: { now: number };
  /** fetch with the admin token */
  admin(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Test-only composition: the admin router mounted as createApp mounts it (`/admin`, `/v1/admin`, then
 * the 404 and the one error handler) over a real SQLite store in a temp directory, on port 0.
 */
export async function startAdminApp(): Promise<AdminApp> {
  const dir = await mkdtemp(join(tmpdir(), 'admin-api-'));
  const clock = { now: T0 };
  const eventStore = openSqliteEventStore({ path: join(dir, 'events.db'), now: () => clock.now });
  const accounts = new AccountRepository(eventStore);
  const app = express();
  const blocklist = createBlocklist({ eventStore });
  const readStore = openSqliteReadStore({ path: join(dir, 'read.db') });
  app.use(
    ['/admin', '/v1/admin'],
    adminRouter({
      token: ADMIN_TOKEN,
      accounts,
      eventStore,
      // no projector here: the read models stay empty (the quarantine routes are tested on the whole service)
      readStore,
      items: new DataItemRepository(eventStore),
      blocklist,
      now: () => clock.now,
    }),
  );
  app.use((_req, res) => sendError(res, 404, 'Not Found'));
  app.use(errorHandler(() => {}));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    eventStore,
    clock,
    admin: (path, init = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...init.headers,
        },
        ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
      }),
    async close() {
      server.close();
      server.closeAllConnections();
      await once(server, 'close').catch(() => {});
      await eventStore.close();
      await readStore.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** the contract's error shape: plain text, the body and the reason phrase exactly the message */
export async function expectPlainError(res: Response, status: number, message: string) {
  expect(res.status).to.equal(status);
  expect(res.statusText).to.equal(message);
  expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
  expect(await res.text()).to.equal(message);
}
