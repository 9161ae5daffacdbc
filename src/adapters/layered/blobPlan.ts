/**
 * How the bytes of a blob made of layers are found: pure arithmetic, no I/O.
 *
 * GridFS files cannot change, so a blob is a set of immutable layers, each written at an offset and
 * numbered in write order (`seq`): a whole blob is one layer at offset 0; each `writeAt` adds one.
 * A later layer hides the bytes of earlier ones where they overlap, which is what writing into a
 * file at an offset does. `truncate` records a cut, numbered in the same order: the blob's size
 * becomes the cut's size and bytes of earlier layers from there on are gone for good (a later layer
 * written past the cut leaves zeros in between, as a file truncated and written past its end does).
 * Bytes no visible layer covers (holes) read as zeros.
 */

export interface Layer<Id = string> {
  id: Id;
  offset: number;
  length: number;
  seq: number;
}

export interface Cut {
  seq: number;
  size: number;
}

export type Segment<Id = string> =
  /** bytes `[start, end)` of a layer (its own offsets, end exclusive) */
  { kind: 'layer'; id: Id; start: number; end: number } | { kind: 'zeros'; length: number };

/** Size: in seq order, a layer extends it to its end, a cut sets it. An empty layer writes nothing. */
export function sizeOf(layers: readonly Layer<unknown>[], cuts: readonly Cut[]): number {
  const steps = [
    ...layers.filter((l) => l.length > 0).map((l) => ({ seq: l.seq, apply: (size: number) => Math.max(size, l.offset + l.length) })),
    ...cuts.map((c) => ({ seq: c.seq, apply: () => c.size })),
  ].sort((a, b) => a.seq - b.seq);
  return steps.reduce((size, step) => step.apply(size), 0);
}

/** The part of a layer no later cut removed: `[offset, end)`. */
export function visibleEnd(layer: Layer<unknown>, cuts: readonly Cut[]): number {
  let end = layer.offset + layer.length;
  for (const cut of cuts) if (cut.seq > layer.seq && cut.size < end) end = cut.size;
  return end;
}

interface Span {
  from: number;
  to: number;
}

/**
 * The segments that make up bytes `[start, end)` of the blob, in order. Layers are laid down newest
 * first onto what is still uncovered, so each byte comes from the newest layer holding it; whatever
 * stays uncovered is zeros. The uncovered spans stay sorted, so each layer finds its place by binary
 * search: about n log n for n parts that do not overlap (a multi-part upload).
 */
export function planRange<Id>(layers: readonly Layer<Id>[], cuts: readonly Cut[], start: number, end: number): Segment<Id>[] {
  if (end <= start) return [];
  const uncovered: Span[] = [{ from: start, to: end }];
  const pieces: { from: number; to: number; layer: Layer<Id> }[] = [];
  const newestFirst = [...layers].sort((a, b) => b.seq - a.seq);
  for (const layer of newestFirst) {
    if (uncovered.length === 0) break;
    const from = Math.max(layer.offset, start);
    const to = Math.min(visibleEnd(layer, cuts), end);
    if (from >= to) continue;
    const first = firstEndingAfter(uncovered, from);
    const left: Span[] = [];
    let next = first;
    for (; next < uncovered.length && uncovered[next]!.from < to; next++) {
      const span = uncovered[next]!;
      if (span.from < from) left.push({ from: span.from, to: from });
      pieces.push({ from: Math.max(span.from, from), to: Math.min(span.to, to), layer });
      if (span.to > to) left.push({ from: to, to: span.to });
    }
    uncovered.splice(first, next - first, ...left);
  }
  const all: { from: number; to: number; layer?: Layer<Id> }[] = [...pieces, ...uncovered];
  all.sort((a, b) => a.from - b.from);
  return all.map(({ from, to, layer }) =>
    layer ? { kind: 'layer', id: layer.id, start: from - layer.offset, end: to - layer.offset } : { kind: 'zeros', length: to - from },
  );
}

/** index of the first span ending after `at` (spans sorted and disjoint) */
function firstEndingAfter(spans: readonly Span[], at: number): number {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (spans[middle]!.to <= at) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Layers that give no byte to the blob: every byte they hold is hidden by newer layers or cut away.
 * Nothing can make them visible again (cuts and layers only hide what came before), so they may be deleted.
 */
export function hiddenLayers<Id>(layers: readonly Layer<Id>[], cuts: readonly Cut[]): Layer<Id>[] {
  const used = new Set<Layer<Id>>();
  const segments = planRange(
    layers.map((layer) => ({ ...layer, id: layer })),
    cuts,
    0,
    sizeOf(layers, cuts),
  );
  for (const segment of segments) if (segment.kind === 'layer') used.add(segment.id);
  return layers.filter((layer) => !used.has(layer));
}
