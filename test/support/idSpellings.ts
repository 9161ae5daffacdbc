const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The other spellings of a canonical 43-character id (32 bytes): its last character carries 4 bits
 * of the bytes and 2 spare bits that decoders ignore, so the 3 characters after it in the alphabet
 * decode to the same bytes.
 */
export const otherSpellings = (id: string): string[] => {
  const last = ALPHABET.indexOf(id[42]!);
  return [1, 2, 3].map((spare) => `${id.slice(0, 42)}${ALPHABET[last + spare]!}`);
};

/** `id` with `spare` added to its last character's place in the alphabet (its spare bits set) */
export const withSpareBits = (id: string, spare: number): string => `${id.slice(0, -1)}${ALPHABET[ALPHABET.indexOf(id.at(-1)!) + spare]!}`;
