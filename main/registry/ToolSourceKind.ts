import { sourceId, type SourceKind, type ToolSource } from '../../shared/invocation';

/**
 * What the rest of Tooldeck needs to know about one kind of tool source (MCP servers, A2A agents,
 * gRPC sources, HTTP services), in one place. Each protocol folder has one adapter
 * (`mcp/mcpSourceKind.ts`, `a2a/a2aSourceKind.ts`, `grpc/grpcSourceKind.ts`,
 * `http/httpSourceKind.ts`) and `core.ts` holds them in a `SourceKinds` record, so registry/ (the
 * layer below the protocol folders) imports none of them. A source is named `<kind>:<name>`
 * (`sourceId`); every method here takes the bare name.
 */
export interface ToolSourceKind<K extends SourceKind = SourceKind> {
  readonly kind: K;
  /**
   * Makes the source's tools registry entries before a call names one of them (connects a saved MCP
   * server, reads a saved agent's card, lists a gRPC source, checks an HTTP service is loaded).
   * Throws AppError NotFound when no such source is saved, ConnectionFailed when it cannot be
   * reached or read.
   */
  prepare(name: string): Promise<void>;
  /**
   * Whether the source lasts beyond this process (saved, or declared by the workspace), so the
   * definition lock tracks its tools; a one-off target of a single command does not. Asked on every
   * call: cheap, no copies of lists.
   */
  lasting(name: string): boolean;
  /** The network endpoint of each source that has one, by source name (`everything` → its URL): what agent grants point at. */
  endpoints(): Promise<Readonly<Record<string, string>>>;
  /**
   * The names of the sources this kind keeps (saved or declared by the workspace); with `disabled`,
   * also those switched off, which a command may still name.
   */
  savedSources(options: { disabled?: boolean }): Promise<readonly string[]>;
  /** Stops the kind's catalog sync and closes its connections; called once, when the core closes. */
  close?(): Promise<void>;
}

/**
 * Every source kind's adapter, keyed by kind: adding a kind to `SourceKind` makes the compiler ask
 * for its adapter here.
 */
export type SourceKinds = { readonly [K in SourceKind]: ToolSourceKind<K> };

function eachKind(kinds: SourceKinds): ToolSourceKind[] {
  return Object.values(kinds);
}

/**
 * Makes a source's tools registry entries before a call names one of them: what a one-shot command
 * (`tooldeck call`), a collection run and the lock's checks do first, so all find the same entries.
 */
export function prepareSource(kinds: SourceKinds, source: ToolSource): Promise<void> {
  return kinds[source.kind].prepare(source.name);
}

/** Whether the definition lock tracks the source's tools: see ToolSourceKind.lasting. */
export function isLastingSource(kinds: SourceKinds, source: ToolSource): boolean {
  return kinds[source.kind].lasting(source.name);
}

/** The network endpoint of every source that has one, by source id (`mcp:search` → its URL). */
export async function sourceEndpoints(kinds: SourceKinds): Promise<Record<string, string>> {
  const perKind = await Promise.all(
    eachKind(kinds).map(async (kind) => Object.entries(await kind.endpoints()).map(([name, endpoint]) => [sourceId({ kind: kind.kind, name }), endpoint] as const)),
  );
  return Object.fromEntries(perKind.flat());
}

/** The id of every source some kind keeps (see ToolSourceKind.savedSources). */
export async function savedSourceIds(kinds: SourceKinds, options: { disabled?: boolean } = {}): Promise<string[]> {
  const perKind = await Promise.all(eachKind(kinds).map(async (kind) => (await kind.savedSources(options)).map((name) => sourceId({ kind: kind.kind, name }))));
  return perKind.flat();
}

/** Closes every kind in turn, in the record's order. */
export async function closeSourceKinds(kinds: SourceKinds): Promise<void> {
  for (const kind of eachKind(kinds)) await kind.close?.();
}
