/**
 * The most Tooldeck reads of each kind of input file. Every such read counts bytes as they arrive
 * (main/platform/readBounded.ts), so a pipe, a FIFO or `/dev/zero` is cut off at the limit like
 * a large file. The README's "Limits" paragraph lists them; the error names the limit and the kind.
 */
export interface InputLimit {
  maxBytes: number;
  /** What the file is, as the error names it: "… larger than the 1 MiB a resource file may have". */
  what: string;
  /** What to do about it, appended to the error. */
  hint?: string;
}

const MIB = 1024 * 1024;

/** Parsing YAML takes about a second per few MiB: a resource file of more than 1 MiB is a mistake. */
export const INPUT_LIMITS = {
  /** `validate -f`, `apply -f`, files of the workspace folder. */
  resourceFile: { maxBytes: MIB, what: 'a resource file', hint: 'split it into smaller files' },
  /** A Clawdapus `claw.describe` descriptor, from a file or over HTTP. */
  clawDescriptor: { maxBytes: MIB, what: 'a claw.describe descriptor' },
  /** `run <file>`, the collections folder, and collections saved or imported in the console. */
  collectionFile: { maxBytes: 4 * MIB, what: 'a collection file', hint: 'split it into several collections' },
  /** `run --env FILE`. */
  environmentFile: { maxBytes: MIB, what: 'an environment file' },
  /** An `mcpServers` (or VS Code, RockBot) file to import. */
  serversFile: { maxBytes: 4 * MIB, what: 'a servers file' },
  /** `--ca`, `--cert`, `--key` of gRPC targets. */
  pemFile: { maxBytes: MIB, what: 'a PEM file' },
  /** Clawdapus cllama's `providers.json`, imported by `tooldeck providers import` or in the console. */
  providersFile: { maxBytes: MIB, what: 'a providers file' },
  /** `--kubeconfig`. */
  kubeconfig: { maxBytes: 4 * MIB, what: 'a kubeconfig' },
} as const satisfies Record<string, InputLimit>;

const KIB = 1024;

/** `1 MiB`, `512 KiB`, `3.2 MiB`: sizes as the limits are documented. */
export function formatByteSize(bytes: number): string {
  if (bytes >= MIB) return `${Number((bytes / MIB).toFixed(1))} MiB`;
  if (bytes >= KIB) return `${Number((bytes / KIB).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}

/** `<subject> is larger than the 1 MiB <what> may have (it is 3.2 MiB); <hint>.` */
export function tooLargeMessage(subject: string, limit: InputLimit, size?: number): string {
  const actual = size === undefined ? '' : ` (it is ${formatByteSize(size)})`;
  return `${subject} is larger than the ${formatByteSize(limit.maxBytes)} ${limit.what} may have${actual}${limit.hint ? `; ${limit.hint}` : ''}.`;
}

/**
 * The longest timeout a caller may ask for: a day. Node fires a timer of more than 2^31−1 ms
 * (24.8 days) at once, so an unbounded number would turn "wait very long" into "time out now".
 */
export const MAX_TIMEOUT_MS = 86_400_000;
