import { EthereumSigner, SIG_CONFIG, SignatureConfig } from 'arbundles';
import { _TypedDataEncoder, hashMessage } from '@ethersproject/hash';
import secp256k1 from 'secp256k1';
import { addressOfPublicKey, isAcceptedAddress, toChecksumAddress } from '../../domain/account/ethereumAddress.js';
import { settles, type SignatureScheme } from './scheme.js';

/**
 * Types 3 (EIP-191 personal message; the owner is the 65-byte uncompressed public key) and
 * 7 (EIP-712 typed data; the owner is the ASCII 0x address). Both are r ‖ s ‖ v.
 *
 * arbundles' checks leave the signature bytes malleable: type 3 ignores v entirely, type 7 reads
 * any v >= 27 by its parity, and type 7 recovers from a high s as well as from its low twin. Each
 * such variant is another item id for the same signed content (one more charge to its owner, one
 * more copy), and a flipped bit of v would go unnoticed. So on top of arbundles' verification:
 * r and s in range, s in the lower half (EIP-2, what every ethers and wallet signature has),
 * v exactly 27 or 28, and for type 3 v must recover the owner's key.
 */

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N >> 1n;

function ecdsaShapeProblem(signature: Buffer): string | undefined {
  const r = BigInt(`0x${signature.toString('hex', 0, 32)}`);
  const s = BigInt(`0x${signature.toString('hex', 32, 64)}`);
  const v = signature[64];
  if (r === 0n || r >= N) return 'ecdsa r out of range';
  if (s === 0n || s > HALF_N) return 'ecdsa s not in the lower half of the group order';
  if (v !== 27 && v !== 28) return `ecdsa v is ${v}, expected 27 or 28`;
  return undefined;
}

/**
 * The uncompressed public key that signed `digest` with r ‖ s ‖ v (v 27 or 28, checked before), by
 * libsecp256k1's recovery: native, the library arbundles verifies type 3 with, about a fifth of the
 * time of ethers' recovery in JavaScript (which gives the same key: test/verify/ethereumRecovery.unit.test.ts).
 */
const recoveredKey = (digestHex: string, signature: Buffer): Buffer =>
  Buffer.from(secp256k1.ecdsaRecover(signature.subarray(0, 64), signature[64]! - 27, Buffer.from(digestHex.slice(2), 'hex'), false));

async function verifyPersonalSign(owner: Buffer, message: Buffer, signature: Buffer): Promise<boolean> {
  if (!(await settles(() => EthereumSigner.verify(owner, message, signature)))) return false;
  // v must recover the owner's key
  return settles(() => recoveredKey(hashMessage(message), signature).equals(owner));
}

/**
 * arbundles' TypedEthereumSigner.verify, with its recovery native: the same EIP-712 digest (ethers'
 * encoder, which also refuses an owner address that is not one), the signer's address compared
 * without regard to case.
 */
function verifyTypedData(owner: Buffer, message: Buffer, signature: Buffer): Promise<boolean> {
  return settles(() => {
    const address = owner.toString();
    const digest = _TypedDataEncoder.hash(typedDataDomain, typedDataTypes, { address, 'Transaction hash': message });
    return addressOfPublicKey(recoveredKey(digest, signature)).toLowerCase() === address.toLowerCase();
  });
}
/** arbundles' EIP-712 domain and types of type 7 (its TypedEthereumSigner module) */
const typedDataDomain = { name: 'Bundlr', version: '1' };
const typedDataTypes = {
  Bundlr: [
    { name: 'Transaction hash', type: 'bytes' },
    { name: 'address', type: 'address' },
  ],
};

export const ethereumScheme: SignatureScheme = {
  signatureType: SignatureConfig.ETHEREUM,
  signatureLength: SIG_CONFIG[SignatureConfig.ETHEREUM].sigLength,
  ownerLength: SIG_CONFIG[SignatureConfig.ETHEREUM].pubLength,
  checkHeader: (signature, owner) => (owner[0] !== 0x04 ? 'ethereum owner is not an uncompressed public key' : ecdsaShapeProblem(signature)),
  verify: verifyPersonalSign,
  nativeAddress: (owner) => addressOfPublicKey(owner),
};

export const typedEthereumScheme: SignatureScheme = {
  signatureType: SignatureConfig.TYPEDETHEREUM,
  signatureLength: SIG_CONFIG[SignatureConfig.TYPEDETHEREUM].sigLength,
  ownerLength: SIG_CONFIG[SignatureConfig.TYPEDETHEREUM].pubLength,
  checkHeader: (signature, owner) => (isAcceptedAddress(owner.toString('latin1')) ? ecdsaShapeProblem(signature) : 'typed ethereum owner is not a 0x address'),
  verify: verifyTypedData,
  nativeAddress: (owner) => toChecksumAddress(owner.toString('latin1')),
};
