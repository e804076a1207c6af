import { z } from 'zod';

/**
 * The MCP registry (API v0.1) as Tooldeck reads it. Everything a registry sends is untrusted: every
 * string and list has a bound, unknown fields are dropped, and an entry that breaks a bound is left
 * out of a listing (counted in `skipped`) rather than failing the page.
 */

/** The official registry; it can be turned off, and users add their own. */
export const OFFICIAL_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

/** Where an install from a server.json file says it came from (no registry to ask for updates). */
export const SERVER_JSON_FILE = 'a server.json file';

const text = (max: number) => z.string().max(max);
const boundedRecord = <T extends z.ZodType>(value: T, maxKeys: number) =>
  z.record(text(128), value).refine((record) => Object.keys(record).length <= maxKeys, { message: `At most ${maxKeys} entries` });

export const RegistryInput = z.object({
  description: text(2_000).optional(),
  isRequired: z.boolean().optional(),
  format: text(32).optional(),
  value: text(4_000).optional(),
  isSecret: z.boolean().optional(),
  default: text(4_000).optional(),
  placeholder: text(1_000).optional(),
  choices: z.array(text(1_000)).max(100).optional(),
});
export type RegistryInput = z.infer<typeof RegistryInput>;

const InputWithVariables = RegistryInput.extend({ variables: boundedRecord(RegistryInput, 32).optional() });

export const RegistryKeyValueInput = InputWithVariables.extend({ name: text(256).min(1) });
export type RegistryKeyValueInput = z.infer<typeof RegistryKeyValueInput>;

export const RegistryArgument = InputWithVariables.extend({
  type: z.enum(['positional', 'named']),
  name: text(256).optional(),
  valueHint: text(256).optional(),
  isRepeated: z.boolean().optional(),
});
export type RegistryArgument = z.infer<typeof RegistryArgument>;

export const RegistryTransport = z.object({
  type: text(32),
  url: text(2_000).optional(),
  headers: z.array(RegistryKeyValueInput).max(64).optional(),
  variables: boundedRecord(RegistryInput, 32).optional(),
});
export type RegistryTransport = z.infer<typeof RegistryTransport>;

export const RegistryPackage = z.object({
  /** npm, pypi, oci, nuget, mcpb (others, such as cargo, are listed but not installed). */
  registryType: text(32).min(1),
  registryBaseUrl: text(2_000).optional(),
  identifier: text(2_000).min(1),
  version: text(255).optional(),
  fileSha256: z.string().regex(/^[a-f0-9]{64}$/, 'fileSha256 is 64 lowercase hex digits').optional(),
  runtimeHint: text(64).optional(),
  transport: RegistryTransport,
  runtimeArguments: z.array(RegistryArgument).max(64).optional(),
  packageArguments: z.array(RegistryArgument).max(64).optional(),
  environmentVariables: z.array(RegistryKeyValueInput).max(128).optional(),
});
export type RegistryPackage = z.infer<typeof RegistryPackage>;

export const RegistryIcon = z.object({
  src: text(2_000),
  mimeType: text(64).optional(),
  sizes: z.array(text(32)).max(16).optional(),
  theme: text(16).optional(),
});

/** A server.json as a registry serves it (bounded, tolerant of fields the schema does not know). */
export const ServerJson = z.object({
  $schema: text(2_000).optional(),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'A server name is reverse DNS with one "/" (io.github.user/server)'),
  description: text(2_000).default(''),
  title: text(200).optional(),
  version: text(255).min(1),
  websiteUrl: text(2_000).optional(),
  repository: z.object({ url: text(2_000).optional(), source: text(64).optional(), id: text(256).optional(), subfolder: text(1_000).optional() }).optional(),
  icons: z.array(RegistryIcon).max(16).optional(),
  packages: z.array(RegistryPackage).max(32).optional(),
  remotes: z.array(RegistryTransport).max(16).optional(),
});
export type ServerJson = z.infer<typeof ServerJson>;

export const ServerStatus = z.enum(['active', 'deprecated', 'deleted']);
export type ServerStatus = z.infer<typeof ServerStatus>;

export const OfficialMeta = z.object({
  status: ServerStatus.catch('active'),
  statusMessage: text(2_000).nullish(),
  publishedAt: text(64).optional(),
  updatedAt: text(64).optional(),
  isLatest: z.boolean().optional(),
});
export type OfficialMeta = z.infer<typeof OfficialMeta>;

export const OFFICIAL_META_KEY = 'io.modelcontextprotocol.registry/official';

/** One `{server, _meta}` of a listing, with the official metadata lifted out. */
export const RegistryEntry = z.object({ server: ServerJson, meta: OfficialMeta.optional() });
export type RegistryEntry = z.infer<typeof RegistryEntry>;

/** Where an answer came from: the registry now, or the cache when it could not be reached. */
export const Freshness = z.object({
  registry: z.string(),
  /** True when the registry could not be reached and this is the cached answer. */
  offline: z.boolean(),
  /** When the answer was fetched (ms since the epoch). */
  fetchedAt: z.number(),
  /** Why the registry could not be reached, when offline. */
  reason: z.string().optional(),
});
export type Freshness = z.infer<typeof Freshness>;

export const SearchPage = Freshness.extend({
  servers: z.array(RegistryEntry),
  nextCursor: z.string().optional(),
  /** Entries the registry sent that broke a bound or the schema, left out. */
  skipped: z.number().int(),
});
export type SearchPage = z.infer<typeof SearchPage>;

export const ServerVersions = Freshness.extend({ versions: z.array(RegistryEntry), skipped: z.number().int() });
export type ServerVersions = z.infer<typeof ServerVersions>;

export const RegistrySource = z.object({
  url: z.url({ protocol: /^https?$/, message: 'A registry is an http:// or https:// URL' }),
  enabled: z.boolean(),
  official: z.boolean(),
});
export type RegistrySource = z.infer<typeof RegistrySource>;

/** What the user chose to install: one package (by index or type) or one remote, and the values they gave. */
export const InstallChoice = z.object({
  /** The saved server's name (a default is made from the registry name). */
  serverName: z.string().optional(),
  packageType: z.enum(['npm', 'pypi', 'oci', 'nuget', 'mcpb']).optional(),
  packageIndex: z.number().int().min(0).optional(),
  remoteIndex: z.number().int().min(0).optional(),
  env: z.record(z.string(), z.string()).default({}),
  /** Values of positional arguments without a value, and named ones by name, in order. */
  args: z.array(z.string()).default([]),
  namedArgs: z.record(z.string(), z.string()).default({}),
  /** A remote's URL variables. */
  variables: z.record(z.string(), z.string()).default({}),
  /** A remote's headers. */
  headers: z.record(z.string(), z.string()).default({}),
  /** Connect to this origin (scheme, host, port) instead of the remote's: a mirror, a local proxy, a test. */
  endpointOrigin: z.string().optional(),
  /**
   * Loader and toolchain variables (shared/refusedEnvironment.ts) the user lets the registry set:
   * without its name here, a registry that supplies one stops the install.
   */
  allowEnv: z.array(z.string().max(256)).max(64).default([]),
});
export type InstallChoice = z.input<typeof InstallChoice>;

/**
 * What installing would save, for the user to confirm: the exact launch line or URL, every value the
 * registry supplies in plain text (only what the user typed for an input marked isSecret is ***).
 */
export const InstallPreview = z.object({
  entry: RegistryEntry,
  freshness: Freshness,
  serverName: z.string(),
  transport: z.enum(['stdio', 'http', 'sse']),
  /** stdio: the exact command line (`VAR=value SECRET=*** command args…`); http/sse: the URL; mcpb: what is downloaded (its command is known only once it is verified). */
  launch: z.string(),
  /** A remote's headers as they will be sent (`Name: value`, the user's secrets as ***). */
  headers: z.array(z.string()).optional(),
  /** An mcpb bundle, downloaded and verified only at install: its command line is confirmed then. */
  bundle: z.object({ url: z.string(), sha256: z.string() }).optional(),
  /** Loader and toolchain variables in the line, allowed with allowEnv: shown in plain text and flagged. */
  flagged: z.array(z.string()).optional(),
  /** Binds the confirmation to what runs: install() refuses when the registry's answer no longer plans to this. */
  planHash: z.string(),
  warnings: z.array(z.string()),
  /** A remote's Server Card (SEP-2127, draft), read from its origin before connecting, when it publishes one. */
  card: z
    .object({ name: z.string().optional(), title: z.string().optional(), version: z.string().optional(), description: z.string().optional(), tools: z.array(z.object({ name: z.string(), description: z.string().optional() })).optional() })
    .optional(),
});
export type InstallPreview = z.infer<typeof InstallPreview>;

export const InstallRequest = z.object({
  name: z.string().min(1).max(200),
  registry: z.string().optional(),
  version: z.string().max(255).optional(),
  choice: InstallChoice,
  /** The launch line (stdio) the user saw and confirmed; a stdio install is refused without it. */
  confirmedLaunchLine: z.string().optional(),
  /** The preview's planHash the user confirmed; an install whose plan no longer hashes to it stops. */
  previewHash: z.string().max(128).optional(),
  /** A server.json the user has at hand (its text), installed instead of asking a registry. */
  document: z.string().max(1024 * 1024).optional(),
});
export type InstallRequest = z.input<typeof InstallRequest>;
