import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../platform/SecretRedactor';
import { a2aTurnRecord } from './recordA2aTurn';

describe('a2aTurnRecord', () => {
  it('cuts the 200-character preview before a secret the cut would split, so masking can still find it whole', () => {
    // The console's recorder masks whole stored values: the head of a split one would be kept.
    const secret = 'agent-secret-2f8c61';
    const text = `${'a'.repeat(180)}${secret} and more`;
    const turn = (redactor?: SecretRedactor) => a2aTurnRecord('sample', 'SendMessage', 'hi', Date.now(), { state: 'COMPLETED', text }, redactor).resultPreview;
    // "COMPLETED " comes first, so the secret starts at 190 and the 200-character cut splits it.
    expect(turn()).toBe(`COMPLETED ${text}`.slice(0, 200));
    expect(turn(new SecretRedactor([secret], { minLength: 4 }))).toBe(`COMPLETED ${'a'.repeat(180)}`);
  });
});
