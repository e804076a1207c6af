import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ajvLinearRegExp } from '../platform/linearPattern';
import { isExactVersion } from './installPlan';

/**
 * A publisher's server.json checked before publishing: the structure of the server.json schema
 * (2025-12-11, the version the official registry publishes now) and the registry's own rules on
 * top of it (https remotes that are not this machine, URL variables that exist, exact versions,
 * mcpb bundles with their fileSha256, flags that look like flags). Each problem names its path.
 */

export const CURRENT_SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

export interface ServerJsonIssue {
  /** JSON Pointer of the value (`/packages/0/version`), `` for the document. */
  path: string;
  message: string;
}

const input = {
  type: 'object',
  properties: {
    description: { type: 'string' },
    isRequired: { type: 'boolean' },
    format: { type: 'string', enum: ['string', 'number', 'boolean', 'filepath'] },
    value: { type: 'string' },
    isSecret: { type: 'boolean' },
    default: { type: 'string' },
    placeholder: { type: 'string' },
    choices: { type: 'array', items: { type: 'string' } },
  },
};
const inputWithVariables = { allOf: [input, { type: 'object', properties: { variables: { type: 'object', additionalProperties: input } } }] };
const keyValueInput = { allOf: [inputWithVariables, { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } }] };
const argument = {
  allOf: [inputWithVariables, { type: 'object', required: ['type'], properties: { type: { enum: ['positional', 'named'] }, name: { type: 'string' }, valueHint: { type: 'string' }, isRepeated: { type: 'boolean' } } }],
  if: { properties: { type: { const: 'named' } } },
  then: { required: ['name'] },
  else: { anyOf: [{ required: ['value'] }, { required: ['valueHint'] }] },
};
const httpTransport = (type: string) => ({
  type: 'object',
  required: ['type', 'url'],
  properties: { type: { const: type }, url: { type: 'string', pattern: '^https?://[^\\s]+$' }, headers: { type: 'array', items: keyValueInput }, variables: { type: 'object', additionalProperties: input } },
});

export const SERVER_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['$schema', 'name', 'description', 'version'],
  properties: {
    $schema: { type: 'string', format: 'uri' },
    name: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
    description: { type: 'string', minLength: 1, maxLength: 100 },
    title: { type: 'string', minLength: 1, maxLength: 100 },
    version: { type: 'string', minLength: 1, maxLength: 255 },
    websiteUrl: { type: 'string', format: 'uri' },
    repository: { type: 'object', required: ['url', 'source'], properties: { url: { type: 'string', format: 'uri' }, source: { type: 'string' }, id: { type: 'string' }, subfolder: { type: 'string' } } },
    icons: {
      type: 'array',
      items: {
        type: 'object',
        required: ['src'],
        properties: {
          src: { type: 'string', format: 'uri', maxLength: 255 },
          mimeType: { enum: ['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp'] },
          sizes: { type: 'array', items: { type: 'string', pattern: '^(\\d+x\\d+|any)$' } },
          theme: { enum: ['light', 'dark'] },
        },
      },
    },
    packages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['registryType', 'identifier', 'transport'],
        properties: {
          registryType: { type: 'string', minLength: 1 },
          registryBaseUrl: { type: 'string', format: 'uri' },
          identifier: { type: 'string', minLength: 1 },
          version: { type: 'string', minLength: 1, maxLength: 255, not: { const: 'latest' } },
          fileSha256: { type: 'string', pattern: '^[a-f0-9]{64}$' },
          runtimeHint: { type: 'string' },
          transport: { oneOf: [{ type: 'object', required: ['type'], properties: { type: { const: 'stdio' } } }, httpTransport('streamable-http'), httpTransport('sse')] },
          runtimeArguments: { type: 'array', items: argument },
          packageArguments: { type: 'array', items: argument },
          environmentVariables: { type: 'array', items: keyValueInput },
        },
      },
    },
    remotes: { type: 'array', items: { oneOf: [httpTransport('streamable-http'), httpTransport('sse')] } },
    _meta: { type: 'object' },
  },
} as const;

let compiled: ValidateFunction | undefined;

function structure(document: unknown): ServerJsonIssue[] {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: ajvLinearRegExp } });
    addFormats(ajv);
    compiled = ajv.compile(SERVER_JSON_SCHEMA);
  }
  if (compiled(document)) return [];
  // oneOf/anyOf/if report every branch; the branch errors say more than the summary, so the summary goes.
  const errors = (compiled.errors ?? []).filter((error: ErrorObject) => !['oneOf', 'anyOf', 'if'].includes(error.keyword));
  const seen = new Set<string>();
  return errors.flatMap((error: ErrorObject) => {
    const path = error.keyword === 'required' ? `${error.instancePath}/${(error.params as { missingProperty: string }).missingProperty}` : error.instancePath;
    const message = error.keyword === 'required' ? 'is required' : error.keyword === 'const' ? `must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}` : (error.message ?? 'is not valid');
    const key = `${path}\0${message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ path, message }];
  });
}

const templateVariables = (url: string) => [...url.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);

function isLocalHost(hostname: string) {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname.endsWith('.localhost');
}

type Loose = Record<string, unknown>;
const asObject = (value: unknown): Loose | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : undefined);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The registry's rules beyond the schema's structure, on whatever parts of the document have the right shape. */
function semantics(document: Loose): ServerJsonIssue[] {
  const issues: ServerJsonIssue[] = [];
  const schema = document.$schema;
  if (typeof schema === 'string' && !/\/schemas\/[A-Za-z0-9_~.-]+\/server\.schema\.json$/.test(schema)) issues.push({ path: '/$schema', message: `is not a server.json schema URL (use ${CURRENT_SERVER_SCHEMA})` });
  else if (typeof schema === 'string' && schema !== CURRENT_SERVER_SCHEMA) issues.push({ path: '/$schema', message: `names an older schema; the registry publishes ${CURRENT_SERVER_SCHEMA}` });
  if (typeof document.version === 'string' && !isExactVersion(document.version)) issues.push({ path: '/version', message: 'must be one exact version, not a range or "latest"' });
  const httpsOnly = (path: string, value: unknown, what: string) => {
    if (typeof value !== 'string') return;
    try {
      if (new URL(value).protocol !== 'https:') issues.push({ path, message: `${what} must use https` });
    } catch {
      // The structure check names a URL that does not parse.
    }
  };
  httpsOnly('/websiteUrl', document.websiteUrl, 'the website URL');
  asArray(document.icons).forEach((icon, i) => httpsOnly(`/icons/${i}/src`, asObject(icon)?.src, 'an icon'));

  asArray(document.packages).forEach((raw, i) => {
    const pkg = asObject(raw);
    if (!pkg) return;
    const at = `/packages/${i}`;
    if (typeof pkg.identifier === 'string' && /\s/.test(pkg.identifier)) issues.push({ path: `${at}/identifier`, message: 'must not contain spaces' });
    if (typeof pkg.version === 'string' && !isExactVersion(pkg.version)) issues.push({ path: `${at}/version`, message: 'must be one exact version, not a range or "latest"' });
    if (pkg.registryType === 'mcpb' && typeof pkg.fileSha256 !== 'string') issues.push({ path: `${at}/fileSha256`, message: 'is required for an mcpb package (clients verify the download against it)' });
    if (['npm', 'pypi', 'nuget'].includes(String(pkg.registryType)) && typeof pkg.version !== 'string') issues.push({ path: `${at}/version`, message: `is required for a ${String(pkg.registryType)} package` });
    const names: string[] = [];
    for (const list of ['runtimeArguments', 'packageArguments'] as const) {
      asArray(pkg[list]).forEach((rawArg, j) => {
        const arg = asObject(rawArg);
        if (!arg) return;
        if (arg.type === 'named' && typeof arg.name === 'string' && !arg.name.startsWith('-')) issues.push({ path: `${at}/${list}/${j}/name`, message: 'a named argument is a flag: it starts with "-"' });
        if (typeof arg.valueHint === 'string') names.push(arg.valueHint);
        if (typeof arg.name === 'string') names.push(arg.name.replace(/^-+/, ''));
      });
    }
    asArray(pkg.environmentVariables).forEach((rawEnv) => {
      const name = asObject(rawEnv)?.name;
      if (typeof name === 'string') names.push(name);
    });
    const transport = asObject(pkg.transport);
    if (typeof transport?.url === 'string') {
      const unknown = templateVariables(transport.url).filter((name) => !names.includes(name));
      if (unknown.length) issues.push({ path: `${at}/transport/url`, message: `uses ${unknown.map((n) => `{${n}}`).join(', ')}, which no argument or environment variable of the package defines` });
    }
  });

  asArray(document.remotes).forEach((raw, i) => {
    const remote = asObject(raw);
    if (!remote || typeof remote.url !== 'string') return;
    const at = `/remotes/${i}/url`;
    const declared = Object.keys(asObject(remote.variables) ?? {});
    const unknown = templateVariables(remote.url).filter((name) => !declared.includes(name));
    if (unknown.length) issues.push({ path: at, message: `uses ${unknown.map((n) => `{${n}}`).join(', ')}, which the remote's variables do not define` });
    try {
      const url = new URL(remote.url.replace(/\{[^}]+\}/g, 'placeholder'));
      if (url.protocol !== 'https:') issues.push({ path: at, message: 'a remote must use https' });
      if (isLocalHost(url.hostname)) issues.push({ path: at, message: 'a remote must not point at localhost' });
    } catch {
      issues.push({ path: at, message: 'is not a URL' });
    }
  });
  return issues;
}

/** Every problem of a publisher's server.json, each with its JSON Pointer path; empty when it is valid. */
export function validateServerJson(document: unknown): ServerJsonIssue[] {
  const issues = structure(document);
  const object = asObject(document);
  if (object) issues.push(...semantics(object));
  return issues.sort((a, b) => a.path.localeCompare(b.path));
}
