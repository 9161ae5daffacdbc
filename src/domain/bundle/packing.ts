/**
 * First-fit packing of queued items into bundles (DESIGN.md section 4). Items are taken oldest first;
 * each goes into the first open bundle with room for it (item count and bytes, header included). An
 * item too large for any bundle with another goes alone. A bundle is sent when it is full (an item
 * found no room in it, or it holds the maximum count) or when its oldest item has waited long enough.
 */
export interface Queued {
  id: string;
  size: number;
  acceptedAt: number;
}

export interface PackingLimits {
  maxItems: number;
  /** bundle data bytes: 32 + 64 per item + the items */
  maxBytes: number;
  maxWaitMs: number;
}

interface Bin {
  items: Queued[];
  bytes: number;
  full: boolean;
}

export function packBundles(queue: readonly Queued[], limits: PackingLimits, now: number): Queued[][] {
  const bins: Bin[] = [];
  const ordered = [...queue].sort((a, b) => a.acceptedAt - b.acceptedAt || (a.id < b.id ? -1 : 1));
  for (const item of ordered) {
    const cost = 64 + item.size;
    if (32 + cost > limits.maxBytes) {
      bins.push({ items: [item], bytes: 32 + cost, full: true });
      continue;
    }
    let placed = false;
    for (const bin of bins) {
      if (bin.items.length < limits.maxItems && bin.bytes + cost <= limits.maxBytes) {
        bin.items.push(item);
        bin.bytes += cost;
        if (bin.items.length === limits.maxItems) bin.full = true;
        placed = true;
        break;
      }
      bin.full = true;
    }
    if (!placed) bins.push({ items: [item], bytes: 32 + cost, full: limits.maxItems === 1 });
  }
  return bins.filter((bin) => bin.full || now - bin.items[0]!.acceptedAt >= limits.maxWaitMs).map((bin) => bin.items);
}
