import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { DpopSession, type DpopAlg } from '@modelcontextprotocol/client';
import type * as Jose from 'jose';

// jose is needed only when a key is checked, made or read (OAuth with a client key or DPoP): loaded
// then, so a command that never touches one (a call to a stdio server) does not load it.
const loadJose = () => import('jose');
import type { JwsAlgorithm } from '../../../shared/oauth';

/**
 * A client's private key as the user pasted it: PKCS #8 PEM, or a private JWK as JSON. Checked
 * here (it must import for the algorithm) so a wrong key is refused when it is saved, not at the
 * next token request.
 */
export async function checkClientKey(text: string, alg: JwsAlgorithm): Promise<void> {
  const trimmed = text.trim();
  const jose = await loadJose();
  try {
    if (trimmed.startsWith('{')) {
      const jwk = JSON.parse(trimmed) as Jose.JWK;
      if (jwk.d === undefined) throw new Error('the JWK holds no private key ("d")');
      await jose.importJWK(jwk, alg);
    } else {
      await jose.importPKCS8(trimmed, alg);
    }
  } catch (error) {
    throw new Error(`The private key is not a PKCS #8 PEM or private JWK usable with ${alg}: ${(error as Error).message}`, { cause: error });
  }
}

/** What the SDK's `private_key_jwt` signer takes: the PEM text, or the JWK object. */
export function clientKeyMaterial(text: string): string | Record<string, unknown> {
  const trimmed = text.trim();
  return trimmed.startsWith('{') ? (JSON.parse(trimmed) as Record<string, unknown>) : trimmed;
}

/** The algorithm a key pasted without one signs with (by its type and curve), or undefined when it is not a private key. */
export function guessAlgorithm(text: string): JwsAlgorithm | undefined {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    key = trimmed.startsWith('{') ? createPrivateKey({ key: JSON.parse(trimmed) as JsonWebKey, format: 'jwk' }) : createPrivateKey(trimmed);
  } catch {
    return undefined;
  }
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RS256';
    case 'rsa-pss':
      return 'PS256';
    case 'ed25519':
      return 'EdDSA';
    case 'ec':
      return ({ prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' } as Record<string, JwsAlgorithm>)[key.asymmetricKeyDetails?.namedCurve ?? ''];
    default:
      return undefined;
  }
}

/** A DPoP key as kept in the secret store: the algorithm and the private JWK (it never leaves the store otherwise). */
interface StoredDpopKey {
  alg: DpopAlg;
  privateJwk: Jose.JWK;
}

/**
 * The DPoP signing identity of one server's tokens (RFC 9449). Its private key is kept in the
 * secret store, so a DPoP-bound token still works after a restart: a new key would not match the
 * token's `cnf.jkt`.
 */
export async function createDpopKey(alg: DpopAlg = 'ES256'): Promise<string> {
  const jose = await loadJose();
  const { privateKey } = await jose.generateKeyPair(alg, { extractable: true });
  const stored: StoredDpopKey = { alg, privateJwk: await jose.exportJWK(privateKey) };
  return JSON.stringify(stored);
}

/** A DPoP session over a stored key; undefined when the stored text is not one (it is then replaced). */
export async function dpopSessionFromStored(text: string): Promise<DpopSession | undefined> {
  const jose = await loadJose();
  let stored: StoredDpopKey;
  try {
    stored = JSON.parse(text) as StoredDpopKey;
    const { d: _private, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = stored.privateJwk;
    const privateKey = (await jose.importJWK(stored.privateJwk, stored.alg)) as Jose.CryptoKey;
    const publicKey = (await jose.importJWK(publicJwk, stored.alg)) as Jose.CryptoKey;
    const thumbprint = await jose.calculateJwkThumbprint(publicJwk, 'sha256');
    return await DpopSession.create({ keyPair: { privateKey, publicKey, publicJwk, thumbprint, alg: stored.alg } });
  } catch {
    return undefined;
  }
}
