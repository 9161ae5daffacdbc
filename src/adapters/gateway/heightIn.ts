/**
 * The `height` field of a JSON object (a gateway's `/info` answer, the saved state), when it is a block
 * height: a non-negative integer. Anything else (not JSON, a string, a fraction) is undefined.
 */
export function heightIn(json: string): number | undefined {
  let height: unknown;
  try {
    height = (JSON.parse(json) as { height?: unknown } | null)?.height;
  } catch {
    return undefined;
  }
  return typeof height === 'number' && Number.isSafeInteger(height) && height >= 0 ? height : undefined;
}
