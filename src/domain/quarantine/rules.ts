import type { QuarantineRule } from '../../config.js';

/**
 * The operator's quarantine rules (QUARANTINE_RULES, parsed with the configuration: src/config.ts),
 * applied to an item at its acceptance (src/app/acceptance/acceptDataItem.ts). A rule matches when
 * every condition it names holds; the first rule that matches decides.
 */

/** what a rule looks at: the verified item's facts, known once its bytes are in */
export interface ItemFacts {
  rawContentLength: number;
  tags: readonly { name: string; value: string }[];
  sha256: string;
  /** hex SHA-384 of the payload alone (the verifier's: the deep hash's digest of the data) */
  payloadSha384: string;
  nativeAddress: string;
}

const matches = ({ match: m }: QuarantineRule, item: ItemFacts): boolean =>
  (m.size === undefined || item.rawContentLength === m.size) &&
  (m.minSize === undefined || item.rawContentLength >= m.minSize) &&
  (m.maxSize === undefined || item.rawContentLength <= m.maxSize) &&
  (m.untagged === undefined || (item.tags.length === 0) === m.untagged) &&
  (m.tags === undefined || m.tags.every((p) => item.tags.some((t) => (p.name?.test(t.name) ?? true) && (p.value?.test(t.value) ?? true)))) &&
  (m.sha256 === undefined || m.sha256.includes(item.sha256)) &&
  (m.payloadSha384 === undefined || m.payloadSha384.includes(item.payloadSha384)) &&
  (m.owners === undefined || m.owners.includes(item.nativeAddress));

/** the first rule the item matches, if any */
export const ruleFor = (rules: readonly QuarantineRule[], item: ItemFacts): QuarantineRule | undefined => rules.find((rule) => matches(rule, item));
