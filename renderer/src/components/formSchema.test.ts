import { describe, expect, it } from 'vitest';
import { formSchema, variantLabel } from './formSchema';

describe('formSchema', () => {
  it('titles oneOf/anyOf variants by what tells them apart instead of "Option N"', () => {
    const schema = formSchema({
      type: 'object',
      properties: {
        content: {
          oneOf: [
            { type: 'object', properties: { type: { const: 'text' }, text: { type: 'string' } } },
            { type: 'object', properties: { type: { const: 'image' }, data: { type: 'string' } } },
            { title: 'Kept as given', type: 'object' },
          ],
        },
        level: { anyOf: [{ const: 'low' }, { const: 3 }, { type: 'number' }, { type: 'object', required: ['min', 'max'] }] },
      },
    }) as { properties: Record<string, { oneOf?: { title?: string }[]; anyOf?: { title?: string }[] }> };
    expect(schema.properties.content!.oneOf!.map((v) => v.title)).toEqual(['type: text', 'type: image', 'Kept as given']);
    expect(schema.properties.level!.anyOf!.map((v) => v.title)).toEqual(['low', '3', 'number', 'with min, max']);
  });

  it('shows const fields read-only with their value, and leaves a property named "const" alone', () => {
    const schema = formSchema({ type: 'object', properties: { version: { type: 'string', const: '2.0' }, const: { type: 'string' } } }) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.properties.version).toMatchObject({ const: '2.0', readOnly: true, default: '2.0' });
    expect(schema.properties.const).toEqual({ type: 'string' });
  });

  it('prefers discriminator-like properties when several are const', () => {
    expect(variantLabel({ properties: { version: { const: 1 }, kind: { const: 'pod' } } })).toBe('kind: pod');
  });
});
