/** Path of the cached helm binary for the pinned version (it may not exist yet). */
export declare function helmBinaryPath(): string;
/** Builds helm from its Go module unless cached; resolves to its path. */
export declare function ensureHelm(opts?: { log?: (chunk: string) => void }): Promise<string>;
/** Runs helm; resolves with stdout, rejects with stderr on a non-zero exit. */
export declare function runHelm(args: string[], opts?: { log?: (chunk: string) => void }): Promise<string>;
