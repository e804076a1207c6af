/** Path of the cached registry server binary for the pinned module (it may not exist yet). */
export declare function registryBinaryPath(): string;
/** Builds the official MCP registry server from its Go module unless cached; resolves to its path. */
export declare function ensureRegistry(opts?: { log?: (chunk: string) => void }): Promise<string>;
export declare function freePort(): Promise<number>;
/** A private PostgreSQL cluster in a temporary folder on a free port; `stop()` leaves no process and no files. */
export declare function startPostgres(): Promise<{ url: string; port: number; stop(): Promise<void> }>;
/** The official registry server on its own private PostgreSQL, seeded with server.json documents. */
export declare function startRegistry(opts?: { seed?: unknown[]; log?: (chunk: string) => void }): Promise<{ url: string; stop(): Promise<void>; output(): string }>;
