/** Options for {@link startTestbed}. */
export interface StartTestbedOptions {
  /** Where to write the admin kubeconfig. Default: a temp file removed when the test bed exits. */
  kubeconfigOut?: string;
  /** Secure port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Keep etcd data + PKI here instead of a temp dir (the temp dir is removed on exit). */
  dataDir?: string;
  /** Write all kube-apiserver (klog) logs to this file; by default only errors go to stderr. */
  logFile?: string;
  /** Extra kube-apiserver flags, e.g. ['--authorization-mode=AlwaysAllow']. Later flags win. */
  apiserverArgs?: string[];
  /** Time allowed from process start to `ready` (the build is not counted). Default 180000. */
  readyTimeoutMs?: number;
  /** What to do with the child's stderr: forward it (default), drop it, or pass each line to a callback. */
  stderr?: 'inherit' | 'ignore' | ((line: string) => void);
  /** Receives `go build -v` progress when a build is needed. Default: process.stderr. */
  buildLog?: (chunk: string) => void;
}

/** The JSON served at /version. */
export interface KubeVersion {
  major: string;
  minor: string;
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface Testbed {
  /** Absolute path of the admin kubeconfig (cluster/user/context all named as in the README). */
  kubeconfigPath: string;
  /** https://127.0.0.1:PORT */
  server: string;
  /** Bearer token of user "admin" in group system:masters. */
  token: string;
  /** Base64 PEM of the self-signed CA (as in certificate-authority-data). */
  caData: string;
  /** PEM of the self-signed CA. */
  ca: string;
  version: KubeVersion;
  /** PID of the kube-testbed process. */
  pid: number | undefined;
  /** Settles when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * A kubeconfig (0600, at `path`) whose user is a ServiceAccount: creates the account if missing and
   * authenticates with a TokenRequest token, as a pod's projected token would.
   */
  serviceAccountKubeconfig(opts: { namespace: string; name: string; path: string; expirationSeconds?: number }): Promise<{ kubeconfigPath: string; token: string; user: string }>;
  /** SIGTERM, wait for a clean shutdown (SIGKILL after timeoutMs, default 60000). Idempotent. */
  stop(timeoutMs?: number): Promise<void>;
}

export declare const testbedDir: string;
/** Root of the binary cache: $KUBE_TESTBED_CACHE_DIR or ~/.cache/tooldeck/kube-testbed. */
export declare function cacheRoot(): string;
/** sha256 of go.mod + go.sum + *.go (plus platform/arch). */
export declare function sourceHash(): string;
/** Cached binary path for the current sources (may not exist yet). */
export declare function binaryPath(): string;
/** Builds the binary if missing; resolves to its path. */
export declare function ensureBinary(opts?: {
  log?: (chunk: string) => void;
  signal?: AbortSignal;
}): Promise<string>;
/** Builds if needed, starts etcd + kube-apiserver, resolves after `ready`. */
export declare function startTestbed(opts?: StartTestbedOptions): Promise<Testbed>;
