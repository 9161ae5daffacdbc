// bs58 4.x ships no types. It is the base58 arbundles itself uses (a dependency of arbundles).
declare module 'bs58' {
  const bs58: {
    encode(source: Uint8Array): string;
    decode(text: string): Uint8Array;
  };
  export default bs58;
}
