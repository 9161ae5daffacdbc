import { expectRetryAfter } from '../support/hostileService.js';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { nativeAddress } from '../../src/verify/index.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody } from '../support/items.js';

export const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
/** items up to this size are free; above it each byte costs one winc */
export const FREE = 1000;

/** a service with the admin API on, and prices, so a refused paid upload can be seen to charge nothing */
export const startBlocklistService = (env: Record<string, string> = {}): Promise<TestService> =>
  startTestService({ ADMIN_TOKEN, FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: '1', ...env });

export const ownerOf = (item: DataItem): string => nativeAddress(item.signatureType, item.rawOwner);

export function admin(service: TestService, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${service.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

export async function block(service: TestService, address: string, reason = 'abuse report 17'): Promise<void> {
  const res = await admin(service, 'PUT', `/blocklist/${address}`, { by: 'ops-alice', reason });
  expect(res.status, await res.clone().text()).to.equal(200);
}

export async function unblock(service: TestService, address: string, reason = 'appeal granted'): Promise<void> {
  const res = await admin(service, 'DELETE', `/blocklist/${address}`, { by: 'ops-bob', reason });
  expect(res.status, await res.clone().text()).to.equal(200);
}

export async function credit(service: TestService, address: string, winc: number): Promise<void> {
  const res = await admin(service, 'POST', `/accounts/${address}/credit`, { winc: String(winc) });
  expect(res.status).to.equal(200);
}

export async function available(service: TestService, address: string): Promise<string> {
  return (await (await admin(service, 'GET', `/accounts/${address}`)).json()).winc;
}

export const upload = (service: TestService, item: DataItem, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()), headers: { 'content-type': 'application/octet-stream', ...headers } });

export async function expectText(res: Response, status: number, message: string): Promise<void> {
  expect(res.status).to.equal(status);
  expect(res.statusText).to.equal(message);
  if (status === 429 || status === 503) expectRetryAfter(res.headers.get('retry-after'));
  expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
  expect(await res.text()).to.equal(message);
}
