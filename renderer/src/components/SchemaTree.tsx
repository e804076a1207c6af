import { Badge, Box, Code, Group, Text, UnstyledButton } from '@mantine/core';
import { IconChevronRight } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import type { JsonSchema } from './jsonSchema';

export interface SchemaTreeProps {
  schema: JsonSchema;
  /** The accessible name of the outline, e.g. "Input schema". */
  label?: string;
  /** Levels shown open at first. */
  expandDepth?: number;
}

type Schema = Record<string, unknown>;

interface Resolved {
  schema: Schema;
  /** The `$ref` that led here, shown as the type's name. */
  refName?: string;
  /** The `$ref` points at one of its own ancestors: shown, never expanded. */
  recursive?: boolean;
  unresolved?: string;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointerGet(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const segments = ref.slice(1).split('/').slice(1).map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
  return segments.reduce<unknown>((node, segment) => (isSchema(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined), root);
}

/** Follows local `$ref`s (`#/$defs/…`, `#/definitions/…`), keeping sibling keywords beside the target. */
function resolve(schema: Schema, root: Schema, trail: readonly string[]): Resolved {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return { schema };
  const refName = ref.split('/').pop() ?? ref;
  if (trail.includes(ref)) return { schema, refName, recursive: true };
  const target = pointerGet(root, ref);
  if (!isSchema(target)) return { schema, refName, unresolved: ref };
  const { $ref: _ref, ...siblings } = schema;
  const inner = resolve(target, root, [...trail, ref]);
  return { ...inner, schema: { ...inner.schema, ...siblings }, refName: inner.refName ?? refName };
}

function typeLabel(schema: Schema): string {
  const type = schema.type;
  if (Array.isArray(type)) return type.join(' | ');
  if (typeof type === 'string') {
    if (type === 'array' && isSchema(schema.items)) {
      const itemType = isSchema(schema.items) && typeof schema.items.$ref === 'string' ? schema.items.$ref.split('/').pop() : typeLabel(schema.items);
      return `${itemType}[]`;
    }
    return type;
  }
  if ('const' in schema) return 'const';
  if (Array.isArray(schema.enum)) return 'enum';
  if (schema.oneOf) return 'one of';
  if (schema.anyOf) return 'any of';
  if (schema.allOf) return 'all of';
  if (schema.properties) return 'object';
  return 'any';
}

interface Child {
  name: string;
  schema: Schema;
  required?: boolean;
  /** A variant of oneOf/anyOf/allOf, or the items of an array: not a property name. */
  synthetic?: boolean;
}

function childrenOf(schema: Schema): Child[] {
  const children: Child[] = [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  if (isSchema(schema.properties)) {
    for (const [name, child] of Object.entries(schema.properties)) if (isSchema(child)) children.push({ name, schema: child, required: required.has(name) });
  }
  if (isSchema(schema.patternProperties)) {
    for (const [pattern, child] of Object.entries(schema.patternProperties)) if (isSchema(child)) children.push({ name: `/${pattern}/`, schema: child, synthetic: true });
  }
  if (isSchema(schema.additionalProperties)) children.push({ name: '[key: string]', schema: schema.additionalProperties, synthetic: true });
  if (isSchema(schema.items) && hasDetail(schema.items)) children.push({ name: '[item]', schema: schema.items, synthetic: true });
  if (Array.isArray(schema.prefixItems)) schema.prefixItems.forEach((item, i) => isSchema(item) && children.push({ name: `[${i}]`, schema: item, synthetic: true }));
  for (const keyword of ['oneOf', 'anyOf', 'allOf'] as const) {
    const variants = schema[keyword];
    if (!Array.isArray(variants)) continue;
    variants.forEach((variant, i) => {
      if (!isSchema(variant)) return;
      const title = typeof variant.title === 'string' ? variant.title : `option ${i + 1}`;
      children.push({ name: `${keyword} · ${title}`, schema: variant, synthetic: true });
    });
  }
  return children;
}

/** Array items worth their own row: objects, refs and combinations (plain `string[]` says it all in the type). */
function hasDetail(schema: Schema): boolean {
  return Boolean(schema.$ref || schema.properties || schema.oneOf || schema.anyOf || schema.allOf || schema.enum || schema.description);
}

/** A JSON Schema as an outline: names, types, required marks, descriptions, enums, defaults; local `$ref`s resolved. */
export function SchemaTree({ schema, label = 'Schema', expandDepth = 2 }: SchemaTreeProps) {
  const rootResolved = resolve(schema, schema, []);
  const children = childrenOf(rootResolved.schema);
  return (
    <Box component="ul" aria-label={label} m={0} p={0} style={{ listStyle: 'none' }}>
      {children.length === 0 ? (
        <li>
          <Text size="sm" c="dimmed">
            {typeLabel(rootResolved.schema) === 'object' || !rootResolved.schema.type ? 'No properties.' : `A single ${typeLabel(rootResolved.schema)} value.`}
          </Text>
        </li>
      ) : (
        children.map((child) => <SchemaNode key={child.name} child={child} root={schema} trail={[]} depth={0} expandDepth={expandDepth} />)
      )}
    </Box>
  );
}

function SchemaNode({ child, root, trail, depth, expandDepth }: { child: Child; root: Schema; trail: readonly string[]; depth: number; expandDepth: number }) {
  const resolved = resolve(child.schema, root, trail);
  const nextTrail = typeof child.schema.$ref === 'string' ? [...trail, child.schema.$ref] : trail;
  const children = resolved.recursive ? [] : childrenOf(resolved.schema);
  const [open, setOpen] = useState(depth < expandDepth);
  const s = resolved.schema;
  const type = resolved.refName && !resolved.recursive ? `${resolved.refName}` : typeLabel(s);

  const header: ReactNode = (
    <Group gap={6} wrap="wrap" align="baseline">
      <Text span ff="monospace" fz="sm" fw={child.synthetic ? 400 : 600} c={child.synthetic ? 'dimmed' : undefined}>
        {child.name}
      </Text>
      {child.required && (
        <Text span c="red" fz="sm" fw={700} aria-label="required" title="required">
          *
        </Text>
      )}
      <Badge size="xs" variant="light" color={resolved.refName ? 'violet' : 'gray'} radius="sm" style={{ textTransform: 'none' }}>
        {type}
      </Badge>
      {typeof s.format === 'string' && (
        <Badge size="xs" variant="outline" color="gray" radius="sm" style={{ textTransform: 'none' }}>
          {s.format}
        </Badge>
      )}
      {resolved.recursive && (
        <Text span fz="xs" c="dimmed">
          (recursive)
        </Text>
      )}
      {resolved.unresolved && (
        <Text span fz="xs" c="orange">
          unresolved {resolved.unresolved}
        </Text>
      )}
    </Group>
  );

  return (
    <Box component="li" py={4} style={{ borderLeft: depth > 0 ? '1px solid var(--mantine-color-default-border)' : undefined, paddingLeft: depth > 0 ? 12 : 0 }}>
      {children.length > 0 ? (
        <UnstyledButton
          onClick={() => setOpen((o) => !o)}
          aria-expanded={open}
          style={{ display: 'flex', gap: 4, alignItems: 'baseline', width: '100%', borderRadius: 'var(--mantine-radius-sm)' }}
        >
          <Box component="span" aria-hidden style={{ transform: open ? 'rotate(90deg)' : undefined, transition: 'transform 120ms', display: 'inline-flex' }}>
            <IconChevronRight size={12} />
          </Box>
          {header}
        </UnstyledButton>
      ) : (
        <Box pl={16}>{header}</Box>
      )}
      <Box pl={16}>
        <Details schema={s} />
      </Box>
      {open && children.length > 0 && (
        <Box component="ul" m={0} mt={2} p={0} pl={6} style={{ listStyle: 'none' }}>
          {children.map((c) => (
            <SchemaNode key={c.name} child={c} root={root} trail={nextTrail} depth={depth + 1} expandDepth={expandDepth} />
          ))}
        </Box>
      )}
    </Box>
  );
}

function Details({ schema }: { schema: Schema }) {
  const facts: Array<[string, ReactNode]> = [];
  if (Array.isArray(schema.enum)) facts.push(['one of', schema.enum.map((v) => JSON.stringify(v)).join(', ')]);
  if ('const' in schema) facts.push(['const', JSON.stringify(schema.const)]);
  if ('default' in schema) facts.push(['default', JSON.stringify(schema.default)]);
  for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern'] as const) {
    if (key in schema) facts.push([key, typeof schema[key] === 'string' ? String(schema[key]) : JSON.stringify(schema[key])]);
  }
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  if (!description && facts.length === 0) return null;
  return (
    <>
      {description && (
        <Text fz="xs" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
          {description}
        </Text>
      )}
      {facts.length > 0 && (
        <Group gap={10} mt={2}>
          {facts.map(([name, value]) => (
            <Text key={name} fz="xs" c="dimmed">
              {name}{' '}
              <Code fz="xs" style={{ wordBreak: 'break-all' }}>
                {value}
              </Code>
            </Text>
          ))}
        </Group>
      )}
    </>
  );
}
