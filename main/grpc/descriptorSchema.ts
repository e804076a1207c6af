import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';

type Schema = Record<string, unknown>;

const INT64 = { type: 'string', pattern: '^-?[0-9]+$' };
const UINT64 = { type: 'string', pattern: '^[0-9]+$' };

/** JSON Schema of the well-known types as the proto3 JSON mapping writes them. */
const WELL_KNOWN: Record<string, Schema> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time', description: 'google.protobuf.Timestamp (RFC 3339, e.g. 2026-01-31T12:00:00Z)' },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$', description: 'google.protobuf.Duration (seconds with an s, e.g. 1.5s)' },
  'google.protobuf.FieldMask': { type: 'string', description: 'google.protobuf.FieldMask (comma-separated camelCase paths)' },
  'google.protobuf.Struct': { type: 'object', description: 'google.protobuf.Struct (any JSON object)' },
  'google.protobuf.Value': { description: 'google.protobuf.Value (any JSON value)' },
  'google.protobuf.ListValue': { type: 'array', description: 'google.protobuf.ListValue (any JSON array)' },
  'google.protobuf.Empty': { type: 'object', properties: {}, description: 'google.protobuf.Empty' },
  'google.protobuf.Any': {
    type: 'object',
    properties: { '@type': { type: 'string', description: 'type URL, e.g. type.googleapis.com/package.Message' } },
    required: ['@type'],
    description: 'google.protobuf.Any (the message as JSON with its @type)',
  },
  'google.protobuf.DoubleValue': { type: 'number', description: 'google.protobuf.DoubleValue' },
  'google.protobuf.FloatValue': { type: 'number', description: 'google.protobuf.FloatValue' },
  'google.protobuf.Int64Value': { ...INT64, description: 'google.protobuf.Int64Value (as a string)' },
  'google.protobuf.UInt64Value': { ...UINT64, description: 'google.protobuf.UInt64Value (as a string)' },
  'google.protobuf.Int32Value': { type: 'integer', minimum: -2147483648, maximum: 2147483647, description: 'google.protobuf.Int32Value' },
  'google.protobuf.UInt32Value': { type: 'integer', minimum: 0, maximum: 4294967295, description: 'google.protobuf.UInt32Value' },
  'google.protobuf.BoolValue': { type: 'boolean', description: 'google.protobuf.BoolValue' },
  'google.protobuf.StringValue': { type: 'string', description: 'google.protobuf.StringValue' },
  'google.protobuf.BytesValue': { type: 'string', contentEncoding: 'base64', description: 'google.protobuf.BytesValue (base64)' },
};

function scalarSchema(scalar: ScalarType): Schema {
  switch (scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: 'number' };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: 'integer', minimum: -2147483648, maximum: 2147483647 };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: 'integer', minimum: 0, maximum: 4294967295 };
    // proto3 JSON writes 64-bit integers as strings, so JavaScript numbers never lose digits.
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { ...INT64, description: '64-bit integer (as a string)' };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { ...UINT64, description: 'unsigned 64-bit integer (as a string)' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64', description: 'bytes (base64)' };
  }
}

/**
 * Bounds on the schemas built from a server's descriptors. With a `$defs` entry per type a schema
 * grows with the number of types, not with the paths through them, so these are never near for a
 * real API; they stop a descriptor made to be large (many types, huge enums) from filling memory or
 * the window, and each names itself when exceeded.
 */
export const DESCRIPTOR_SCHEMA_CAPS = {
  /** Schema objects in one method's request or response schema, its `$defs` included. */
  nodes: 100_000,
  /** Characters of JSON of one method's request or response schema. */
  jsonChars: 4_000_000,
  /** Characters of JSON of all the schemas of one source together: what its view carries to the window. */
  sourceJsonChars: 32_000_000,
};

/** A cap of DESCRIPTOR_SCHEMA_CAPS exceeded; the message is a clause naming it (`its request schema would …`). */
export class SchemaCapExceeded extends Error {
  override name = 'SchemaCapExceeded';
}

/** One type's schema (its fields refer to other types only by `$ref`), with what it costs. */
interface Definition {
  schema: Schema;
  /** The types its `$ref`s name, by full name. */
  refs: Map<string, DescMessage | DescEnum>;
  nodes: number;
  jsonChars: number;
}

const refTo = (typeName: string) => `#/$defs/${typeName}`;

/**
 * The JSON Schemas of a server's messages in the proto3 JSON mapping, for the argument form (rjsf)
 * and for the pipeline's validation: fields by their JSON names, 64-bit integers as strings, enums by
 * name, repeated fields as arrays, maps as objects, well-known types as their JSON forms. A oneof
 * becomes a choice of which member to set (none included).
 *
 * Every message and enum a schema reaches is one entry of its `$defs`, referenced by `$ref`: a
 * descriptor whose messages each hold two fields of the next type (a doubling DAG) stays as small as
 * its list of types, where unfolding it would double at every level, and a message that contains
 * itself is a reference, not an endless unfolding. Each type is built once per source and shared by
 * every method schema that reaches it; the caps (DESCRIPTOR_SCHEMA_CAPS) bound each schema and the
 * source's total.
 */
export class DescriptorSchemas {
  private readonly definitions = new Map<string, Definition>();
  private spentJsonChars = 0;

  constructor(private readonly caps: typeof DESCRIPTOR_SCHEMA_CAPS = DESCRIPTOR_SCHEMA_CAPS) {}

  /** The schema of `root`: its own fields at the top, every type it reaches under `$defs`. Throws SchemaCapExceeded. */
  messageSchema(root: DescMessage, role: 'request' | 'response'): Schema {
    const known = WELL_KNOWN[root.typeName];
    if (known) return known;
    const top = this.definition(root);
    let nodes = top.nodes;
    let jsonChars = top.jsonChars;
    // Breadth-first over the references, each type once: the schema's size is the sum of its types'.
    const reached = new Map<string, Definition>();
    const queue = [...top.refs];
    for (let index = 0; index < queue.length; index++) {
      const [typeName, desc] = queue[index]!;
      if (reached.has(typeName)) continue;
      const definition = this.definition(desc);
      reached.set(typeName, definition);
      nodes += definition.nodes;
      jsonChars += definition.jsonChars + typeName.length + 4;
      if (nodes > this.caps.nodes) throw new SchemaCapExceeded(`its ${role} schema (${root.typeName}) would have more than ${this.caps.nodes.toLocaleString('en')} schema nodes, the cap on one method's schema`);
      if (jsonChars > this.caps.jsonChars) throw new SchemaCapExceeded(`its ${role} schema (${root.typeName}) would be more than ${this.caps.jsonChars.toLocaleString('en')} characters of JSON, the cap on one method's schema`);
      for (const ref of definition.refs) if (!reached.has(ref[0])) queue.push(ref);
    }
    if (this.spentJsonChars + jsonChars > this.caps.sourceJsonChars) {
      throw new SchemaCapExceeded(`its ${role} schema (${root.typeName}) would take the source's schemas past ${this.caps.sourceJsonChars.toLocaleString('en')} characters of JSON, the cap on one source`);
    }
    this.spentJsonChars += jsonChars;
    if (!reached.size) return { ...top.schema };
    return { ...top.schema, $defs: Object.fromEntries([...reached].map(([typeName, definition]) => [typeName, definition.schema])) };
  }

  private definition(desc: DescMessage | DescEnum): Definition {
    let definition = this.definitions.get(desc.typeName);
    if (!definition) {
      const refs = new Map<string, DescMessage | DescEnum>();
      const schema = desc.kind === 'enum' ? enumDefinition(desc) : messageBody(desc, refs);
      definition = { schema, refs, nodes: countNodes(schema), jsonChars: JSON.stringify(schema).length };
      this.definitions.set(desc.typeName, definition);
    }
    return definition;
  }
}

function enumDefinition(desc: DescEnum): Schema {
  return { type: 'string', title: desc.name, enum: desc.values.map((value) => value.name), description: desc.typeName };
}

/** A message's own schema; each message or enum field is a `$ref`, recorded in `refs`. */
function messageBody(desc: DescMessage, refs: Map<string, DescMessage | DescEnum>): Schema {
  const ref = (type: DescMessage | DescEnum): Schema => {
    const known = type.kind === 'message' ? WELL_KNOWN[type.typeName] : type.typeName === 'google.protobuf.NullValue' ? { type: 'null' } : undefined;
    if (known) return known;
    refs.set(type.typeName, type);
    return { $ref: refTo(type.typeName) };
  };
  const field = (field: DescField): Schema => {
    switch (field.fieldKind) {
      case 'scalar':
        return { ...scalarSchema(field.scalar), title: field.name };
      case 'enum':
        return { ...ref(field.enum), title: field.name };
      case 'message':
        return { ...ref(field.message), title: field.name };
      case 'list': {
        const items = field.listKind === 'scalar' ? scalarSchema(field.scalar) : field.listKind === 'enum' ? ref(field.enum) : ref(field.message);
        return { type: 'array', title: field.name, items };
      }
      case 'map': {
        const values = field.mapKind === 'scalar' ? scalarSchema(field.scalar) : field.mapKind === 'enum' ? ref(field.enum) : ref(field.message);
        const keys = field.mapKey === ScalarType.STRING ? {} : field.mapKey === ScalarType.BOOL ? { propertyNames: { enum: ['true', 'false'] } } : { propertyNames: { pattern: '^-?[0-9]+$' } };
        return { type: 'object', title: field.name, additionalProperties: values, ...keys };
      }
    }
  };
  const properties: Record<string, Schema> = {};
  for (const member of desc.fields) if (!member.oneof) properties[member.jsonName] = field(member);
  const schema: Schema = { type: 'object', title: desc.name, properties };
  const groups = desc.oneofs
    .filter((oneof) => !oneof.fields.every((member) => member.proto.proto3Optional))
    .map((oneof) => ({
      oneOf: [
        { title: `no ${oneof.name}`, not: { anyOf: oneof.fields.map((member) => ({ required: [member.jsonName] })) } },
        ...oneof.fields.map((member) => ({ title: member.jsonName, properties: { [member.jsonName]: field(member) }, required: [member.jsonName] })),
      ],
    }));
  // proto3 `optional` is a synthetic oneof of one field: an ordinary optional property.
  for (const oneof of desc.oneofs) for (const member of oneof.fields) if (member.proto.proto3Optional) properties[member.jsonName] = field(member);
  if (groups.length === 1) schema.oneOf = groups[0]!.oneOf;
  else if (groups.length > 1) schema.allOf = groups;
  return schema;
}

/** Objects and arrays in a schema (its `$ref`s not followed). */
function countNodes(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 1;
  for (const child of Array.isArray(value) ? value : Object.values(value)) count += countNodes(child);
  return count;
}
