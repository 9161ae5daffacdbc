import { createDataItemVerifier, type VerifiedDataItem } from '../../../src/verify/index.js';

export type Outcome = { valid: VerifiedDataItem } | { error: unknown };

/** feeds the chunks to a fresh verifier and reports what it concluded, never throwing */
export async function outcomeOf(chunks: readonly Uint8Array[], maxSize = 2 ** 31, strictTags = false): Promise<Outcome> {
  const verifier = createDataItemVerifier({ maxSize, strictTags });
  try {
    for (const chunk of chunks) verifier.write(chunk);
    return { valid: await verifier.end() };
  } catch (error) {
    return { error };
  }
}

/** the error the verifier ended with, or the verified item where it should have failed */
export async function failureOf(chunks: readonly Uint8Array[], maxSize?: number, strictTags?: boolean): Promise<unknown> {
  const outcome = await outcomeOf(chunks, maxSize, strictTags);
  return 'error' in outcome ? outcome.error : `accepted as ${outcome.valid.id}`;
}
