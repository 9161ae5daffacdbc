import type { AuditEvent, AuditSink } from '../types.js';

/**
 * The bundler's lease fence held: on each bundle's stream, no event carries a fencing token older
 * than one recorded before it (a bundler that lost its lease appended after its successor). Events
 * without a token (recorded before fencing, or by a bundler run without a lease) are not judged.
 * Memory: one number per live bundle.
 */
export async function checkBundleFences(events: AsyncIterable<AuditEvent>, sink: AuditSink): Promise<void> {
  const newest = new Map<string, number>();
  for await (const { event, recorded } of events) {
    if (!event.type.startsWith('Bundle') || event.type === 'BundlerLeaseTaken') continue;
    const { planId, fence } = event.data as { planId: string; fence?: number };
    const before = newest.get(planId);
    if (fence !== undefined && before !== undefined && fence < before) {
      sink.finding({
        kind: 'bundle-fence',
        id: planId,
        detail: `${event.type} (revision ${recorded.revision}) under fencing token ${fence}, after token ${before}`,
      });
    } else if (fence !== undefined) {
      newest.set(planId, fence);
    }
    if (event.type === 'BundlePermanent' || event.type === 'BundleDropped') newest.delete(planId);
  }
}
