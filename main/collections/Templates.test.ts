import { describe, expect, it } from 'vitest';
import { collectionSecretKey } from '../../shared/collections';
import { MemorySecretStore } from '../platform/SecretStore';
import { SecretRedactor } from '../platform/SecretRedactor';
import { secretNames, Templates } from './Templates';

const templates = (variables: Record<string, unknown>) => new Templates(new Map(Object.entries(variables)));

describe('Templates', () => {
  it('keeps the type of a whole-string placeholder and splices text into longer strings, nested anywhere', () => {
    const t = templates({ n: 36, obj: { a: [1] }, who: 'world', greeting: 'hello {{who}}' });
    expect(t.resolve({ a: '{{n}}', b: ['{{ obj }}', 'n={{n}} obj={{obj}}'], c: { deep: '{{greeting}}!' }, d: 5 })).toEqual({ a: 36, b: [{ a: [1] }, 'n=36 obj={"a":[1]}'], c: { deep: 'hello world!' }, d: 5 });
  });

  it('names an undefined variable and stops at a loop', () => {
    expect(() => templates({}).resolve('{{nope}}')).toThrow(/\{\{nope\}\} is not defined/);
    expect(() => templates({ a: '{{b}}', b: '{{a}}' }).resolve('{{a}}')).toThrow(/loop/);
  });

  it('reads secrets from the store under collections:NAME and knows their values for masking', async () => {
    const store = new MemorySecretStore();
    await store.set(collectionSecretKey('TOKEN'), 'abc-123-xyz');
    const t = templates({ auth: 'Bearer {{secret:TOKEN}}' });
    await t.loadSecrets(secretNames({ x: ['{{auth}}', '{{secret:TOKEN}}', '{{secret:MISSING}}'] }), store);
    expect(t.resolve('{{auth}}')).toBe('Bearer abc-123-xyz');
    expect(() => t.resolve('{{secret:MISSING}}')).toThrow('The secret "MISSING" is not set (secret store key collections:MISSING)');
    expect(new SecretRedactor(t.secrets()).value({ 'k abc-123-xyz': ['Bearer abc-123-xyz'] })).toEqual({ 'k ***': ['Bearer ***'] });
  });

  it('finds the variables a value depends on through other variables', () => {
    const t = templates({ a: '{{b}} and {{secret:S}}', b: 'plain' });
    expect([...t.dependencies({ m: '{{a}} {{captured}}' })].sort()).toEqual(['a', 'b', 'captured']);
  });
});
