import { createHash } from 'node:crypto';
import { rfc8785Json } from '../lock/definitionHash';

/**
 * What binds an approval to the exact arguments of its call: SHA-256 (hex) of the arguments in RFC
 * 8785 canonical JSON, so key order and number spelling do not matter and any other value does.
 * Arguments holding strings that are not well-formed UTF-16 (which RFC 8785 cannot write) are
 * hashed in a domain of their own, so they never collide with well-formed ones.
 */
export function approvalInputDigest(input: Record<string, unknown>): string {
  const { json, wellFormed } = rfc8785Json(input);
  return createHash('sha256')
    .update(wellFormed ? '' : 'ill-formed-utf16\0')
    .update(json)
    .digest('hex');
}
