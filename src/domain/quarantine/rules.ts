import { z } from 'zod';

/**
 * The operator's quarantine rules (QUARANTINE_RULES): what an item must look like, at its acceptance,
 * to be held (accepted, receipted and charged as any item, then held out of bundling and reads until
 * an operator releases it) or refused (403 `Forbidden` before anything is reserved or stored). A rule
 * matches when every condition it names holds; the first rule that matches decides.
 *
 * The shapes are the ones the reference service meets in the wild (ardriveapp/turbo-upload-service,
 * `src/routes/dataItemPost.ts`, as issue 38 describes it: spam items of exactly 100,372 bytes with no
 * tags), known items by digest, and tags by name and value: e.g.
 * `[{"name":"untagged-100372","match":{"size":100372,"untagged":true},"reason":"known spam shape"}]`.
 */
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'hex sha256, lower case');

/** a regular expression matched against the whole string (anchored): the operator's, checked when the configuration is read */
const Pattern = z.string().transform((source, ctx) => {
  try {
    return new RegExp(`^(?:${source})$`, 'u');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `not a regular expression: ${error instanceof Error ? error.message : String(error)}` });
    return z.NEVER;
  }
});

const TagPattern = z.strictObject({ name: Pattern.optional(), value: Pattern.optional() });

export const QuarantineRule = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits and . _ - (at most 64)'),
  /** hold (the default): accepted, receipted, charged, held; refuse: 403 before anything is reserved or stored */
  action: z.enum(['hold', 'refuse']).default('hold'),
  /** kept with the hold, as an operator's reason is */
  reason: z.string().min(1).max(500),
  match: z
    .strictObject({
      /** the signed item's size in bytes, exactly; or at least / at most */
      size: z.number().int().nonnegative().optional(),
      minSize: z.number().int().nonnegative().optional(),
      maxSize: z.number().int().nonnegative().optional(),
      /** true: the item has no tags at all; false: it has some */
      untagged: z.boolean().optional(),
      /** each pattern must match some tag (name and value, each a whole-string regular expression) */
      tags: z.array(TagPattern).min(1).optional(),
      /** the signed item's sha256 (hex; what `DataItemAccepted.sha256` records) is one of these */
      sha256: z.array(Sha256).min(1).optional(),
      /** the owner's native address (as receipts' payers are keyed) is one of these */
      owners: z.array(z.string().min(1)).min(1).optional(),
    })
    .refine((m) => Object.values(m).some((v) => v !== undefined), 'a rule must name at least one condition'),
});
export type QuarantineRule = z.output<typeof QuarantineRule>;
export const QuarantineRules = z.array(QuarantineRule).refine((rules) => new Set(rules.map((r) => r.name)).size === rules.length, 'rule names must differ');

/** what a rule looks at: the verified item's facts, known once its bytes are in */
export interface ItemFacts {
  rawContentLength: number;
  tags: readonly { name: string; value: string }[];
  sha256: string;
  nativeAddress: string;
}

const matches = ({ match: m }: QuarantineRule, item: ItemFacts): boolean =>
  (m.size === undefined || item.rawContentLength === m.size) &&
  (m.minSize === undefined || item.rawContentLength >= m.minSize) &&
  (m.maxSize === undefined || item.rawContentLength <= m.maxSize) &&
  (m.untagged === undefined || (item.tags.length === 0) === m.untagged) &&
  (m.tags === undefined || m.tags.every((p) => item.tags.some((t) => (p.name?.test(t.name) ?? true) && (p.value?.test(t.value) ?? true)))) &&
  (m.sha256 === undefined || m.sha256.includes(item.sha256)) &&
  (m.owners === undefined || m.owners.includes(item.nativeAddress));

/** the first rule the item matches, if any */
export const ruleFor = (rules: readonly QuarantineRule[], item: ItemFacts): QuarantineRule | undefined => rules.find((rule) => matches(rule, item));
