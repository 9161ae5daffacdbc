import { DataItem, type Signer } from 'arbundles';

export interface ItemParts {
  signatureType?: number;
  owner: Uint8Array;
  signatureLength: number;
  target?: Uint8Array;
  anchor?: Uint8Array;
  tagCount: number;
  rawTags: Uint8Array;
  payload?: Uint8Array;
}

const u64 = (n: number): Buffer => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(BigInt(n));
  return bytes;
};

/**
 * Lays out an item byte by byte, with a zero signature: for shapes that arbundles' createData
 * would refuse to build (oversized or hand-encoded tags). Sign it with `signAssembled`.
 */
export function assemble(parts: ItemParts): Buffer {
  const type = Buffer.alloc(2);
  type.writeUInt16LE(parts.signatureType ?? 1);
  const presence = (field?: Uint8Array) => (field ? [Buffer.from([1]), Buffer.from(field)] : [Buffer.from([0])]);
  return Buffer.concat([
    type,
    Buffer.alloc(parts.signatureLength),
    Buffer.from(parts.owner),
    ...presence(parts.target),
    ...presence(parts.anchor),
    u64(parts.tagCount),
    u64(parts.rawTags.length),
    Buffer.from(parts.rawTags),
    Buffer.from(parts.payload ?? []),
  ]);
}

/** signs the assembled bytes in place, as arbundles signs any item */
export async function signAssembled(bytes: Buffer, signer: Signer): Promise<DataItem> {
  const item = new DataItem(bytes);
  await item.sign(signer);
  return item;
}

export async function assembledFor(signer: Signer, parts: Omit<ItemParts, 'owner' | 'signatureLength' | 'signatureType'>) {
  const bytes = assemble({
    ...parts,
    signatureType: signer.signatureType,
    owner: signer.publicKey,
    signatureLength: signer.signatureLength,
  });
  return signAssembled(bytes, signer);
}
