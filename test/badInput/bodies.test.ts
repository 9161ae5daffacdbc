import { expect } from 'chai';
import type { DataItem, Signer } from 'arbundles';
import { encodeTags } from '../../src/verify/index.js';
import { rawRequest } from '../support/hostileHttp.js';
import { answerOf, collect, expectContractError, expectOnlyAcceptedBlobs, mismatchOf, MiB } from '../support/hostileService.js';
import { startTestService, type TestService } from '../support/testService.js';
import { assembledFor } from '../verify/support/assemble.js';
import { randomBytes, signedItem } from '../verify/support/items.js';
import { seededRandom } from '../support/seededRandom.js';
import { signers, type SignerName } from '../verify/support/signers.js';

/**
 * Hostile bodies for `POST /tx`, over real HTTP against the whole service: random bytes of many
 * sizes, every truncation of a header of every signature type, damaged signature and length bytes,
 * tags at and just past each limit, malformed content-lengths. Each answer must be the contract's
 * exact error; afterwards the service still answers, its blob store holds exactly the accepted
 * items, and its memory did not grow with what it was sent.
 */

const MAX_SIZE = 160 * MiB;
const SIGNER_NAMES = ['arweave', 'ed25519', 'ethereum', 'solana', 'injectedAptos', 'multiAptos', 'typedEthereum'] as const;
const SIGNATURE_TYPES: Record<SignerName, number> = {
  arweave: 1,
  ed25519: 2,
  ethereum: 3,
  solana: 4,
  injectedAptos: 5,
  multiAptos: 6,
  typedEthereum: 7,
};
const TAGS = [
  { name: 'Content-Type', value: 'text/plain' },
  { name: 'App-Name', value: 'bad-input-corpus' },
];
const INVALID: [number, string] = [400, 'Invalid Data Item'];

const u64 = (n: bigint): Buffer => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(n);
  return bytes;
};

/** the raw bytes with `bytes` written at `at` */
const patched = (raw: Uint8Array, at: number, bytes: Uint8Array | number[]): Buffer => {
  const copy = Buffer.from(raw);
  copy.set(bytes, at);
  return copy;
};

/** where the fixed-size fields of an item's header are */
function layoutOf(item: DataItem) {
  const raw = item.getRaw();
  const ownerEnd = 2 + item.rawSignature.length + item.rawOwner.length;
  const targetFlag = ownerEnd;
  const anchorFlag = targetFlag + (raw[targetFlag] === 1 ? 33 : 1);
  const tagSizes = anchorFlag + (raw[anchorFlag] === 1 ? 33 : 1);
  return { signatureLength: item.rawSignature.length, targetFlag, anchorFlag, tagSizes, tagsAt: tagSizes + 16, dataStart: item.getStartOfData() };
}

describe('bad input: hostile bodies for single uploads', function () {
  this.timeout(120_000);
  let service: TestService;
  let all: Record<SignerName, Signer>;
  const items = new Map<SignerName, { full: DataItem; bare: DataItem }>();
  const accepted = new Set<string>();
  let rssAtStart = 0;

  const post = (body: Uint8Array, path = '/tx') =>
    fetch(`${service.url}${path}`, { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': 'application/octet-stream' } });

  /** posts every body and lists those whose answer is not exactly `status` `message` */
  const misses = (bodies: readonly (readonly [string, Uint8Array])[], [status, message]: [number, string]) =>
    collect(
      bodies.map(([label, body]) => async () => {
        const miss = mismatchOf(await answerOf(await post(body)), status, message);
        return miss === undefined ? undefined : `${label}: ${miss}`;
      }),
    );

  const expectAccepted = async (item: DataItem) => {
    const res = await post(item.getRaw());
    expect(res.status, await res.clone().text()).to.equal(200);
    expect((await res.json()).id).to.equal(item.id);
    accepted.add(item.id);
  };

  before(async () => {
    service = await startTestService({ MAX_DATA_ITEM_SIZE: String(MAX_SIZE) });
    all = await signers();
    const target = Buffer.alloc(32, 7).toString('base64url');
    const anchor = 'an anchor of exactly 32 bytes ..';
    for (const name of SIGNER_NAMES) {
      items.set(name, {
        full: await signedItem(all[name], randomBytes(seededRandom(SIGNATURE_TYPES[name]), 64), { tags: TAGS, target, anchor }),
        bare: await signedItem(all[name], 'bare', { tags: TAGS }),
      });
    }
    // one accepted item first, so that start-up allocations are not counted as growth
    await expectAccepted(items.get('ed25519')!.bare);
    rssAtStart = process.memoryUsage().rss;
  });

  after(async () => {
    await service?.close();
  });

  const itemOf = (name: SignerName, which: 'full' | 'bare' = 'full') => {
    const item = items.get(name)?.[which];
    if (!item) throw new Error(`no ${name} item`);
    return item;
  };

  it('answers 400 Invalid Data Item to random bodies of many sizes, typed or not', async () => {
    const random = seededRandom(1);
    const bodies: [string, Uint8Array][] = [['empty', new Uint8Array(0)]];
    for (const size of [1, 2, 3, 7, 16, 64, 100, 511, 1024, 4095, 4096, 65_535, 65_536, 262_144, MiB]) {
      bodies.push([`${size} random bytes`, randomBytes(random, size)]);
      // a supported signature type first, so the parse goes on into the signature and owner
      for (const type of [1, 2, 3, 4, 5, 6, 7]) {
        if (size < 2) continue;
        const body = randomBytes(random, size);
        body.writeUInt16LE(type, 0);
        bodies.push([`${size} random bytes of type ${type}`, body]);
      }
    }
    expect(await misses(bodies, INVALID)).to.deep.equal([]);
  });

  for (const name of SIGNER_NAMES) {
    it(`answers 400 Invalid Data Item to every truncation of a ${name} header and to cut payloads`, async () => {
      const item = itemOf(name);
      const raw = item.getRaw();
      const { dataStart } = layoutOf(item);
      const bodies: [string, Uint8Array][] = [];
      for (let length = 0; length <= dataStart; length++) bodies.push([`first ${length} bytes`, raw.subarray(0, length)]);
      for (const length of [dataStart + 1, dataStart + 32, raw.length - 1]) bodies.push([`first ${length} bytes`, raw.subarray(0, length)]);
      expect(await misses(bodies, INVALID)).to.deep.equal([]);
      await expectAccepted(item);
    });
  }

  for (const name of SIGNER_NAMES) {
    it(`answers 400 Invalid Data Item to flipped signature and length bytes of a ${name} item`, async () => {
      const full = itemOf(name);
      const raw = full.getRaw();
      const at = layoutOf(full);
      const bare = itemOf(name, 'bare').getRaw();
      const bareAt = layoutOf(itemOf(name, 'bare'));
      const tagCount = BigInt(TAGS.length);
      const tagBytes = BigInt(at.dataStart - at.tagsAt);
      const type = (n: number) => Buffer.from([n & 0xff, n >> 8]);
      const bodies: [string, Uint8Array][] = [];

      for (const offset of [0, at.signatureLength >> 1, at.signatureLength - 1]) {
        bodies.push([`signature byte ${offset} flipped`, patched(raw, 2 + offset, [(raw[2 + offset] as number) ^ 0xff])]);
      }
      for (const other of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0x100, 0x101, 0xffff]) {
        if (other !== SIGNATURE_TYPES[name]) bodies.push([`signature type ${other}`, patched(raw, 0, type(other))]);
      }
      for (const flag of [0, 2, 0x80, 0xff]) {
        bodies.push([`target presence ${flag}`, patched(raw, at.targetFlag, [flag])]);
        bodies.push([`anchor presence ${flag}`, patched(raw, at.anchorFlag, [flag])]);
      }
      for (const flag of [1, 2, 0xff]) {
        bodies.push([`absent target's presence ${flag}`, patched(bare, bareAt.targetFlag, [flag])]);
        bodies.push([`absent anchor's presence ${flag}`, patched(bare, bareAt.anchorFlag, [flag])]);
      }
      for (const count of [0n, tagCount - 1n, tagCount + 1n, 128n, 129n, 2n ** 32n + tagCount, 2n ** 63n, 2n ** 64n - 1n]) {
        bodies.push([`tag count ${count}`, patched(raw, at.tagSizes, u64(count))]);
      }
      for (const length of [0n, tagBytes - 1n, tagBytes + 1n, 4096n, 4097n, 2n ** 32n + tagBytes, 2n ** 63n, 2n ** 64n - 1n]) {
        bodies.push([`tag bytes length ${length}`, patched(raw, at.tagSizes + 8, u64(length))]);
      }
      for (const offset of [0, 1, at.dataStart - at.tagsAt - 1]) {
        bodies.push([`tag byte ${offset} flipped`, patched(raw, at.tagsAt + offset, [(raw[at.tagsAt + offset] as number) ^ 0x41])]);
      }
      bodies.push(['first payload byte flipped', patched(raw, at.dataStart, [(raw[at.dataStart] as number) ^ 1])]);
      bodies.push(['last payload byte flipped', patched(raw, raw.length - 1, [(raw[raw.length - 1] as number) ^ 0x80])]);
      bodies.push(['one byte more', Buffer.concat([raw, Buffer.from([0])])]);
      expect(await misses(bodies, INVALID)).to.deep.equal([]);
    });
  }

  // the default rules are arbundles' (src/verify/tags.ts); STRICT_TAGS=true is test/http/tagRules.test.ts
  describe('tag limits (as arbundles: 4096 tag bytes, any count, names and values of any length, empty too)', () => {
    const tags = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `n${i}`, value: 'v' }));
    const rawTagsOf = (list: { name: string; value: string }[]) => encodeTags(list);

    it('accepts 128 tags and 129', async () => {
      await expectAccepted(await signedItem(all.ed25519, 'x', { tags: tags(128) }));
      await expectAccepted(await signedItem(all.ed25519, 'y', { tags: tags(129) }));
    });

    it('accepts a tag name of 1025 bytes and a value of 3073 bytes, past the ANS-104 text', async () => {
      await expectAccepted(await signedItem(all.ed25519, 'x', { tags: [{ name: 'n'.repeat(1025), value: 'v' }] }));
      await expectAccepted(await signedItem(all.ed25519, 'y', { tags: [{ name: 'n', value: 'v'.repeat(3073) }] }));
    });

    it('accepts exactly 4096 tag bytes and refuses 4097', async () => {
      const at = rawTagsOf([
        { name: 'a', value: 'v'.repeat(3072) },
        { name: 'b', value: 'v'.repeat(1014) },
      ]);
      const over = rawTagsOf([
        { name: 'a', value: 'v'.repeat(3072) },
        { name: 'b', value: 'v'.repeat(1015) },
      ]);
      expect([at.length, over.length]).to.deep.equal([4096, 4097]);
      await expectAccepted(await assembledFor(all.ed25519, { tagCount: 2, rawTags: at, payload: Buffer.from('x') }));
      const refused = await assembledFor(all.ed25519, { tagCount: 2, rawTags: over, payload: Buffer.from('y') });
      await expectContractError(await post(refused.getRaw()), ...INVALID);
    });

    it('accepts empty tag names and values', async () => {
      for (const tag of [
        { name: '', value: 'v' },
        { name: 'n', value: '' },
      ]) {
        await expectAccepted(await assembledFor(all.ed25519, { tagCount: 1, rawTags: rawTagsOf([tag]), payload: Buffer.from('z') }));
      }
    });
  });

  describe('content-length', () => {
    const withLength = (length: string, body?: Uint8Array) =>
      rawRequest(service.url, {
        method: 'POST',
        target: '/tx',
        headers: { 'content-type': 'application/octet-stream', 'content-length': length },
        ...(body ? { body } : {}),
      });

    it('answers 413 Data item too large to a declared length over the maximum, before any body byte', async () => {
      for (const length of [String(MAX_SIZE + 1), `000${MAX_SIZE + 1}`, '9007199254740993', '18446744073709551615']) {
        await expectContractError(await withLength(length), 413, 'Data item too large');
      }
    });

    it('answers 400 Invalid Data Item to a declared length of 0', async () => {
      await expectContractError(await withLength('0'), ...INVALID);
    });

    it('answers 400 Bad Request to negative, non-numeric, float, hex, exponent, signed, listed and overflowing lengths', async () => {
      // Node's parser refuses these before any route runs: nothing reaches the stores
      const misses: string[] = [];
      for (const length of ['-1', 'abc', '1.5', '0x10', '1e3', '+5', '5, 6', '', '99999999999999999999999999']) {
        const miss = mismatchOf(await answerOf(await withLength(length, Buffer.from('hello'))), 400, 'Bad Request');
        if (miss) misses.push(`content-length ${JSON.stringify(length)}: ${miss}`);
      }
      expect(misses).to.deep.equal([]);
    });

    it('answers 400 Bad Request to a content-length together with chunked transfer encoding', async () => {
      const res = await rawRequest(service.url, {
        method: 'POST',
        target: '/tx',
        headers: { 'content-length': '5', 'transfer-encoding': 'chunked' },
        body: Buffer.from('5\r\nhello\r\n0\r\n\r\n'),
      });
      await expectContractError(res, 400, 'Bad Request');
    });

    it('keeps nothing of a body cut short of its declared length', async () => {
      const raw = itemOf('arweave').getRaw();
      for (const sent of [0, 1, 600, raw.length - 1]) {
        // the client gives up: whatever answer it gets, the bytes it sent must not be stored
        await rawRequest(service.url, {
          method: 'POST',
          target: '/tx',
          headers: { 'content-length': String(raw.length) },
          body: raw.subarray(0, sent),
          halfClose: true,
        }).catch(() => undefined);
      }
    });
  });

  describe('large hostile bodies stream through', () => {
    /** `header` then zeros, `total` bytes in all, 1 MiB at a time from one buffer: nothing held on this side */
    function* headerThenZeros(header: Uint8Array, total: number) {
      const zeros = new Uint8Array(MiB);
      yield header;
      for (let left = total - header.length; left > 0; left -= MiB) yield zeros.subarray(0, Math.min(MiB, left));
    }
    const streamOf = (parts: Iterable<Uint8Array>) => {
      const iterator = parts[Symbol.iterator]();
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      });
    };
    const postStream = (parts: Iterable<Uint8Array>) =>
      fetch(`${service.url}/tx`, {
        method: 'POST',
        body: streamOf(parts),
        headers: { 'content-type': 'application/octet-stream' },
        duplex: 'half',
      } as RequestInit);

    it('answers 400 Invalid Data Item to a valid header followed by 128 MiB it does not sign, without a content-length', async () => {
      const item = itemOf('arweave');
      const header = item.getRaw().subarray(0, layoutOf(item).dataStart);
      await expectContractError(await postStream(headerThenZeros(header, 128 * MiB)), ...INVALID);
    });

    it('holds no more memory after three more refused 96 MiB bodies than before them', async () => {
      // the first large body above warmed the allocator up; an item held whole would add 96 MiB
      const item = itemOf('arweave');
      const header = item.getRaw().subarray(0, layoutOf(item).dataStart);
      const before = process.memoryUsage().rss;
      for (let i = 0; i < 3; i++) await expectContractError(await postStream(headerThenZeros(header, 96 * MiB)), ...INVALID);
      const growth = process.memoryUsage().rss - before;
      expect(growth, `${(growth / MiB).toFixed(1)} MiB`).to.be.below(48 * MiB);
    });

    it('answers 413 Data item too large once the bytes received pass the maximum', async () => {
      const item = itemOf('ed25519');
      const header = item.getRaw().subarray(0, layoutOf(item).dataStart);
      await expectContractError(await postStream(headerThenZeros(header, MAX_SIZE + 1)), 413, 'Data item too large');
    });
  });

  describe('after the corpus', () => {
    it('still answers GET /info with 200', async () => {
      const res = await fetch(`${service.url}/info`);
      expect(res.status).to.equal(200);
      expect((await res.json()).freeUploadLimitBytes).to.equal(517_120);
    });

    it('keeps exactly the accepted items in its blob store: no temp file, no refused item', async () => {
      expect(accepted.size).to.equal(1 + SIGNER_NAMES.length + 7);
      await expectOnlyAcceptedBlobs(service.dataDir, accepted);
    });

    it('grew by less than 320 MiB of memory while it was sent thousands of requests and about 580 MiB', () => {
      // generous: a client pool, signers and allocator arenas warm up; bodies kept in memory would not fit
      const growth = process.memoryUsage().rss - rssAtStart;
      expect(growth, `${(growth / MiB).toFixed(1)} MiB`).to.be.below(320 * MiB);
    });
  });
});
