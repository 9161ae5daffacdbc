import { expect } from 'chai';
import { hiddenLayers, planRange, sizeOf, type Cut, type Layer, type Segment } from '../../src/adapters/layered/blobPlan.js';

const layer = (id: string, offset: number, length: number, seq: number): Layer => ({ id, offset, length, seq });

/** the bytes a plan stands for, with each layer's byte i being `${id}${offset + i}` */
const render = (segments: Segment[], layers: readonly Layer[]) =>
  segments.flatMap((s) => {
    if (s.kind === 'zeros') return Array.from({ length: s.length }, () => '0');
    const l = layers.find((x) => x.id === s.id)!;
    return Array.from({ length: s.end - s.start }, (_, i) => `${l.id}${l.offset + s.start + i}`);
  });

describe('GridFS blob plan: parts in write order', function () {
  it('gives each byte from the newest part holding it', function () {
    const layers = [layer('a', 0, 4, 1), layer('b', 2, 4, 2), layer('c', 1, 1, 3)];
    expect(render(planRange(layers, [], 0, 6), layers)).to.deep.equal(['a0', 'c1', 'b2', 'b3', 'b4', 'b5']);
    expect(sizeOf(layers, [])).to.equal(6);
  });

  it('reads holes as zeros, and plans only the range asked', function () {
    const layers = [layer('a', 0, 2, 2), layer('b', 5, 2, 1)];
    expect(planRange(layers, [], 0, 7)).to.deep.equal([
      { kind: 'layer', id: 'a', start: 0, end: 2 },
      { kind: 'zeros', length: 3 },
      { kind: 'layer', id: 'b', start: 0, end: 2 },
    ]);
    expect(planRange(layers, [], 1, 6)).to.deep.equal([
      { kind: 'layer', id: 'a', start: 1, end: 2 },
      { kind: 'zeros', length: 3 },
      { kind: 'layer', id: 'b', start: 0, end: 1 },
    ]);
    expect(planRange(layers, [], 3, 3)).to.deep.equal([]);
  });

  it('lets an empty part change nothing, not even the size', function () {
    expect(sizeOf([layer('a', 0, 3, 1), layer('e', 100, 0, 2)], [])).to.equal(3);
  });

  it('sets the size at a cut and hides the bytes of earlier parts from there on', function () {
    const layers = [layer('a', 0, 8, 1), layer('b', 6, 2, 3)];
    const cuts: Cut[] = [{ seq: 2, size: 3 }];
    expect(sizeOf(layers, cuts)).to.equal(8);
    expect(render(planRange(layers, cuts, 0, 8), layers)).to.deep.equal(['a0', 'a1', 'a2', '0', '0', '0', 'b6', 'b7']);
  });

  it('keeps the size of a cut that ends past every visible byte', function () {
    const layers = [layer('a', 0, 2, 1), layer('b', 10, 2, 2)];
    const cuts: Cut[] = [{ seq: 3, size: 6 }];
    expect(sizeOf(layers, cuts)).to.equal(6);
    expect(render(planRange(layers, cuts, 0, 6), layers)).to.deep.equal(['a0', 'a1', '0', '0', '0', '0']);
  });

  it('finds the parts that give no byte: covered by newer ones or cut away', function () {
    const layers = [layer('old', 4, 8, 1), layer('new', 4, 2, 2), layer('head', 0, 4, 3), layer('beyond', 20, 4, 4)];
    const cuts: Cut[] = [{ seq: 5, size: 6 }];
    expect(hiddenLayers(layers, cuts).map((l) => l.id)).to.deep.equal(['old', 'beyond']);
  });

  it('plans thousands of parts without overlap quickly and in order', function () {
    const n = 20_000;
    // written in a scrambled order, as parallel chunk uploads arrive
    const layers = Array.from({ length: n }, (_, i) => layer(`p${i}`, ((i * 7919) % n) * 10, 10, i + 1));
    const started = process.hrtime.bigint();
    const segments = planRange(layers, [], 0, n * 10);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(segments).to.have.length(n);
    const offsets = new Map(layers.map((l) => [l.id, l.offset]));
    expect(segments.every((s, i) => s.kind === 'layer' && s.start === 0 && s.end === 10 && offsets.get(s.id) === i * 10)).to.equal(true);
    // a generous bound: quadratic work would take seconds here
    expect(ms).to.be.below(2000);
  });

  it('agrees with a file written at offsets and truncated, over 300 random histories', function () {
    /** the fs semantics, byte by byte: writes overwrite and extend, truncate only shortens */
    class FileModel {
      bytes: string[] = [];
      write(offset: number, data: string[]) {
        // writing nothing does not extend a file, wherever it is written
        if (data.length === 0) return;
        while (this.bytes.length < offset) this.bytes.push('0');
        data.forEach((b, i) => (this.bytes[offset + i] = b));
      }
      truncate(size: number) {
        if (this.bytes.length > size) this.bytes.length = size;
      }
    }

    // a small deterministic generator: the same histories on every run
    let state = 12345;
    const random = (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };

    for (let history = 0; history < 300; history++) {
      const at = `history ${history}`;
      const file = new FileModel();
      const layers: Layer[] = [];
      const cuts: Cut[] = [];
      let seq = 0;
      for (let step = 0; step < 12; step++) {
        if (random(4) === 0) {
          const size = random(40);
          file.truncate(size);
          // the store records a cut only when the blob is longer (truncate never extends)
          if (sizeOf(layers, cuts) > size) cuts.push({ seq: ++seq, size });
        } else {
          const id = `L${step}:`;
          const offset = random(30);
          const length = random(12);
          file.write(
            offset,
            Array.from({ length }, (_, i) => `${id}${offset + i}`),
          );
          layers.push(layer(id, offset, length, ++seq));
        }
      }
      const size = sizeOf(layers, cuts);
      expect(size, at).to.equal(file.bytes.length);
      expect(render(planRange(layers, cuts, 0, size), layers), at).to.deep.equal(file.bytes);
      const start = random(size + 1);
      const end = start + random(size - start + 1);
      expect(render(planRange(layers, cuts, start, end), layers), at).to.deep.equal(file.bytes.slice(start, end));
      // dropping the hidden parts changes neither the size nor a byte
      const hidden = new Set(hiddenLayers(layers, cuts));
      const kept = layers.filter((l) => !hidden.has(l));
      expect(sizeOf(kept, cuts), at).to.equal(size);
      expect(render(planRange(kept, cuts, 0, size), kept), at).to.deep.equal(file.bytes);
      // so does dropping what writeAt drops: earlier parts at the same offset with no more bytes
      const rewritten = layers.filter((l) => !layers.some((m) => m.offset === l.offset && m.seq > l.seq && l.length <= m.length));
      expect(sizeOf(rewritten, cuts), at).to.equal(size);
      expect(render(planRange(rewritten, cuts, 0, size), rewritten), at).to.deep.equal(file.bytes);
    }
  });
});
