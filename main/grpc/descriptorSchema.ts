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

function enumSchema(desc: DescEnum): Schema {
  if (desc.typeName === 'google.protobuf.NullValue') return { type: 'null' };
  return { type: 'string', enum: desc.values.map((value) => value.name), description: desc.typeName };
}

/**
 * The JSON Schema of a message in the proto3 JSON mapping, for the argument form (rjsf) and for the
 * pipeline's validation: fields by their JSON names, 64-bit integers as strings, enums by name,
 * repeated fields as arrays, maps as objects, well-known types as their JSON forms. A oneof becomes
 * a choice of which member to set (none included); a message that contains itself is referenced
 * through `$defs` instead of being unfolded forever.
 */
export function messageSchema(root: DescMessage): Schema {
  const defs: Record<string, Schema> = {};
  const schema = new Builder(defs).message(root, [root.typeName]);
  return Object.keys(defs).length ? { ...schema, $defs: defs } : schema;
}

class Builder {
  constructor(private readonly defs: Record<string, Schema>) {}

  message(desc: DescMessage, path: string[]): Schema {
    const known = WELL_KNOWN[desc.typeName];
    if (known) return known;
    const properties: Record<string, Schema> = {};
    for (const field of desc.fields) if (!field.oneof) properties[field.jsonName] = this.field(field, path);
    const schema: Schema = { type: 'object', title: desc.name, properties };
    const groups = desc.oneofs
      .filter((oneof) => !oneof.fields.every((field) => field.proto.proto3Optional))
      .map((oneof) => ({
        oneOf: [
          { title: `no ${oneof.name}`, not: { anyOf: oneof.fields.map((field) => ({ required: [field.jsonName] })) } },
          ...oneof.fields.map((field) => ({ title: field.jsonName, properties: { [field.jsonName]: this.field(field, path) }, required: [field.jsonName] })),
        ],
      }));
    // proto3 `optional` is a synthetic oneof of one field: an ordinary optional property.
    for (const oneof of desc.oneofs) for (const field of oneof.fields) if (field.proto.proto3Optional) properties[field.jsonName] = this.field(field, path);
    if (groups.length === 1) schema.oneOf = groups[0]!.oneOf;
    else if (groups.length > 1) schema.allOf = groups;
    return schema;
  }

  private field(field: DescField, path: string[]): Schema {
    const described = (schema: Schema) => ({ ...schema, title: field.name });
    switch (field.fieldKind) {
      case 'scalar':
        return described(scalarSchema(field.scalar));
      case 'enum':
        return described(enumSchema(field.enum));
      case 'message':
        return described(this.nested(field.message, path));
      case 'list': {
        const items = field.listKind === 'scalar' ? scalarSchema(field.scalar) : field.listKind === 'enum' ? enumSchema(field.enum) : this.nested(field.message, path);
        return { type: 'array', title: field.name, items };
      }
      case 'map': {
        const values = field.mapKind === 'scalar' ? scalarSchema(field.scalar) : field.mapKind === 'enum' ? enumSchema(field.enum) : this.nested(field.message, path);
        const keys = field.mapKey === ScalarType.STRING ? {} : field.mapKey === ScalarType.BOOL ? { propertyNames: { enum: ['true', 'false'] } } : { propertyNames: { pattern: '^-?[0-9]+$' } };
        return { type: 'object', title: field.name, additionalProperties: values, ...keys };
      }
    }
  }

  private nested(desc: DescMessage, path: string[]): Schema {
    if (WELL_KNOWN[desc.typeName]) return WELL_KNOWN[desc.typeName]!;
    if (path.includes(desc.typeName)) {
      if (!this.defs[desc.typeName]) {
        // Placed before it is built, so the recursion inside it finds the reference and stops.
        const definition: Schema = {};
        this.defs[desc.typeName] = definition;
        Object.assign(definition, this.message(desc, [desc.typeName]));
      }
      return { $ref: `#/$defs/${desc.typeName}` };
    }
    return this.message(desc, [...path, desc.typeName]);
  }
}
