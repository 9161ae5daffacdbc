import { expect } from 'chai';
import type { Signer } from 'arbundles';
import type { Tag } from '../../src/verify/index.js';
import { signedItem } from './support/items.js';
import { outcomeOf } from './support/outcome.js';
import { signers } from './support/signers.js';

describe('data item content type', () => {
  let signer: Signer;
  before(async () => {
    signer = (await signers()).ed25519;
  });

  async function contentTypeOf(tags: Tag[]): Promise<string> {
    const outcome = await outcomeOf([(await signedItem(signer, '{}', { tags })).getRaw()]);
    if (!('valid' in outcome)) throw outcome.error;
    return outcome.valid.contentType;
  }

  it('is application/octet-stream without tags', async () => {
    expect(await contentTypeOf([])).to.equal('application/octet-stream');
  });

  it('is the value of a Content-Type tag', async () => {
    expect(await contentTypeOf([{ name: 'Content-Type', value: 'application/json' }])).to.equal('application/json');
  });

  it('matches the tag name in any case', async () => {
    for (const name of ['content-type', 'CONTENT-TYPE', 'cOnTeNt-TyPe']) {
      expect(await contentTypeOf([{ name, value: 'text/html' }]), name).to.equal('text/html');
    }
  });

  it('takes the first of several Content-Type tags', async () => {
    const tags = [
      { name: 'App-Name', value: 'x' },
      { name: 'CONTENT-TYPE', value: 'image/png' },
      { name: 'Content-Type', value: 'text/plain' },
    ];
    expect(await contentTypeOf(tags)).to.equal('image/png');
  });

  it('keeps the value exactly as tagged, parameters included', async () => {
    expect(await contentTypeOf([{ name: 'Content-Type', value: 'Text/Plain; charset=UTF-8' }])).to.equal('Text/Plain; charset=UTF-8');
  });

  it('ignores names that only resemble it', async () => {
    const tags = [
      { name: 'Content-Type-Options', value: 'nosniff' },
      { name: ' Content-Type', value: 'a/b' },
      { name: 'ContentType', value: 'c/d' },
    ];
    expect(await contentTypeOf(tags)).to.equal('application/octet-stream');
  });
});
