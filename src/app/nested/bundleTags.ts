import type { Tag } from '../../verify/index.js';

/**
 * An item whose payload is an ANS-104 bundle says so with these two tags. Names are matched in any
 * case, as gateways match them when they unbundle; the values are fixed by the standard.
 */
export const isBundle = (tags: readonly Tag[]): boolean => hasTag(tags, 'bundle-format', 'binary') && hasTag(tags, 'bundle-version', '2.0.0');

const hasTag = (tags: readonly Tag[], lowerName: string, value: string) => tags.some((tag) => tag.name.toLowerCase() === lowerName && tag.value === value);
