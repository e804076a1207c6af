import { create } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { reasonOf } from '../../shared/errors';
import { qualifyTypeNames, resolveRelative } from './qualifyTypeNames';

const symbols = new Map([
  ['a', 'package'],
  ['a.b', 'package'],
  ['a.b.Outer', 'message'],
  ['a.b.Outer.Inner', 'message'],
  ['a.b.Inner', 'message'],
  ['a.b.Kind', 'enum'],
  ['a.Kind', 'enum'],
  ['a.b.Service', 'service'],
  ['c', 'package'],
  ['c.Other', 'message'],
  ['Top', 'message'],
] as const);

describe("protobuf's scoping rules for a relative type name", () => {
  it('looks the name up from the innermost scope outward', () => {
    expect(resolveRelative('Inner', 'a.b.Outer.field', symbols)).toBe('.a.b.Outer.Inner');
    expect(resolveRelative('Inner', 'a.b.Other.field', symbols)).toBe('.a.b.Inner');
    expect(resolveRelative('Kind', 'a.b.Outer.field', symbols)).toBe('.a.b.Kind');
    expect(resolveRelative('Top', 'a.b.Outer.field', symbols)).toBe('.Top');
    expect(resolveRelative('c.Other', 'a.b.Outer.field', symbols)).toBe('.c.Other');
    expect(resolveRelative('Outer.Inner', 'a.b.Service.Method', symbols)).toBe('.a.b.Outer.Inner');
  });

  it('resolves the first part, then looks only inside it, as protoc does', () => {
    // `b.Kind` from inside a.b.Outer: `b` is the package a.b, so a.b.Kind, never a.Kind.
    expect(resolveRelative('b.Kind', 'a.b.Outer.field', symbols)).toBe('.a.b.Kind');
    // `Outer.Kind`: Outer is found, and has no Kind; protoc does not go on outward.
    expect(resolveRelative('Outer.Kind', 'a.b.Outer.field', symbols)).toBeUndefined();
    // A service is not a type, and does not hide one.
    expect(resolveRelative('Service', 'a.b.Outer.field', symbols)).toBeUndefined();
    expect(resolveRelative('Missing', 'a.b.Outer.field', symbols)).toBeUndefined();
  });
});

describe('qualifyTypeNames', () => {
  const file = (init: Parameters<typeof create<typeof FileDescriptorProtoSchema>>[1]): FileDescriptorProto => create(FileDescriptorProtoSchema, init);

  it('qualifies fields and methods, and imports the received file that defines a type the file does not import', () => {
    const shapes = file({
      name: 'shapes.proto',
      package: 'p',
      messageType: [{ name: 'Shape', field: [{ name: 'at', typeName: 'google.protobuf.Timestamp' }, { name: 'ref', typeName: 'q.Ref' }], nestedType: [{ name: 'Ref' }] }],
      service: [{ name: 'S', method: [{ name: 'M', inputType: 'Shape', outputType: '.p.Shape' }] }],
    });
    const other = file({ name: 'q.proto', package: 'q', messageType: [{ name: 'Ref' }] });
    const wellKnown = file({ name: 'google/protobuf/timestamp.proto', package: 'google.protobuf', messageType: [{ name: 'Timestamp' }] });
    qualifyTypeNames([shapes, other], [wellKnown], '127.0.0.1:1');
    expect(shapes.messageType[0]!.field.map((field) => field.typeName)).toEqual(['.google.protobuf.Timestamp', '.q.Ref']);
    expect(shapes.service[0]!.method[0]).toMatchObject({ inputType: '.p.Shape', outputType: '.p.Shape' });
    expect(shapes.dependency).toEqual(['google/protobuf/timestamp.proto', 'q.proto']);
  });

  it('refuses a name nothing defines, saying which file, field and name', () => {
    const broken = file({ name: 'broken.proto', package: 'p', messageType: [{ name: 'M', field: [{ name: 'f', typeName: 'Nowhere' }] }] });
    expect(() => qualifyTypeNames([broken], [], '127.0.0.1:1')).toThrow('127.0.0.1:1 reflection sent broken.proto, whose field p.M.f names type Nowhere, which none of the files it sent defines.');
  });
});

describe('reasonOf', () => {
  it('never gives an empty reason', () => {
    expect(reasonOf(new Error('boom'))).toBe('boom');
    expect(reasonOf(new Error())).toBe('failed without saying why');
    expect(reasonOf(new TypeError(''))).toBe('TypeError');
    expect(reasonOf(undefined, 'nothing came back')).toBe('nothing came back');
    expect(reasonOf('  ')).toBe('failed without saying why');
  });
});
