import { createFileRegistry } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { dagFile } from '../../e2e/peers/grpc/hostileReflectionPeer';
import { DESCRIPTOR_SCHEMA_CAPS, DescriptorSchemas } from './descriptorSchema';
import { reflectedMethods } from './ReflectedMethods';

// The hand-written hostile descriptor of e2e/peers/grpc/hostileReflectionPeer.ts: Level0 … Level30,
// each with two fields of the next level.
const registry = createFileRegistry(dagFile(30), () => undefined);
const level0 = registry.getMessage('hostile.v1.Level0')!;

describe('DescriptorSchemas', () => {
  it('gives each type one $defs entry, so the schema grows with the types, not the paths through them', () => {
    const schema = new DescriptorSchemas().messageSchema(level0, 'request') as { $defs: Record<string, unknown> };
    expect(Object.keys(schema.$defs)).toEqual(Array.from({ length: 30 }, (_, level) => `hostile.v1.Level${level + 1}`));
    expect(schema.$defs['hostile.v1.Level1']).toEqual({
      type: 'object',
      title: 'Level1',
      properties: { left: { $ref: '#/$defs/hostile.v1.Level2', title: 'left' }, right: { $ref: '#/$defs/hostile.v1.Level2', title: 'right' } },
    });
    const shallower = new DescriptorSchemas().messageSchema(registry.getMessage('hostile.v1.Level15')!, 'request');
    // Twice the levels, about twice the JSON (unfolded it would be 2^15 times as much).
    expect(JSON.stringify(schema).length / JSON.stringify(shallower).length).toBeLessThan(2.2);
  });

  it('names the cap a schema would exceed: nodes or characters of one schema, characters of the whole source', () => {
    const caps = (changed: Partial<typeof DESCRIPTOR_SCHEMA_CAPS>) => new DescriptorSchemas({ ...DESCRIPTOR_SCHEMA_CAPS, ...changed });
    expect(() => caps({ nodes: 100 }).messageSchema(level0, 'request')).toThrow(
      'its request schema (hostile.v1.Level0) would have more than 100 schema nodes, the cap on one method\'s schema',
    );
    expect(() => caps({ jsonChars: 1_000 }).messageSchema(level0, 'response')).toThrow(
      'its response schema (hostile.v1.Level0) would be more than 1,000 characters of JSON, the cap on one method\'s schema',
    );
    const source = caps({ sourceJsonChars: 10_000 });
    source.messageSchema(level0, 'request');
    expect(() => source.messageSchema(level0, 'response')).toThrow("its response schema (hostile.v1.Level0) would take the source's schemas past 10,000 characters of JSON, the cap on one source");
  });
});

describe('reflectedMethods over a schema past its cap', () => {
  it('lists the method as unusable with the cap named, and registers no tool for it', () => {
    const { services, entries } = reflectedMethods('dag', { services: ['hostile.v1.Dag'], registry }, undefined, new DescriptorSchemas({ ...DESCRIPTOR_SCHEMA_CAPS, nodes: 100 }));
    const echo = services[0]!.methods.find((method) => method.method === 'Echo')!;
    expect(echo).toMatchObject({
      unusable: "hostile.v1.Dag/Echo cannot be called: its request schema (hostile.v1.Level0) would have more than 100 schema nodes, the cap on one method's schema.",
      requestSchema: {},
      responseSchema: {},
    });
    expect(echo.registryName).toBeUndefined();
    // Flood's messages are the last level, well within the cap: it stays callable.
    expect(entries.map((entry) => entry.toolName)).toEqual(['hostile.v1.Dag/Flood']);
  });
});
