export interface RequestCounts {
  total: number;
  reads: number;
  /** Requests that change cluster state (POST, PUT, PATCH, DELETE on the API), whatever their outcome. */
  writes: number;
  /** Requests through the apiserver's service or pod proxy (MCP discovery). */
  proxy: number;
  /** Watches opened (and re-opened) by the informers. */
  watches: number;
  /** Leader-election traffic (coordination.k8s.io Leases): a leader renews every retry period, so it is kept apart from reconcile writes. */
  leases: number;
  conflicts: number;
  failures: number;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Counts every request the reconciler sends, so "no writes at steady state" can be checked and measured. */
export class RequestStats {
  private counts: RequestCounts = { total: 0, reads: 0, writes: 0, proxy: 0, watches: 0, leases: 0, conflicts: 0, failures: 0 };
  private readonly writeLog: string[] = [];

  record(method: string, path: string, status: number) {
    this.counts.total++;
    if (/\/proxy(\/|$)/.test(path)) this.counts.proxy++;
    else if (path.startsWith('/apis/coordination.k8s.io/')) this.counts.leases++;
    else if (WRITE_METHODS.has(method)) {
      this.counts.writes++;
      if (this.writeLog.length < 10_000) this.writeLog.push(`${method} ${path} ${status}`);
    } else this.counts.reads++;
    if (status === 409) this.counts.conflicts++;
    if (status === 0 || status >= 400) this.counts.failures++;
  }

  recordWatch() {
    this.counts.total++;
    this.counts.watches++;
  }

  snapshot(): RequestCounts {
    return { ...this.counts };
  }

  /** The writes sent so far as `METHOD path status`, oldest first (capped). */
  writes(): readonly string[] {
    return this.writeLog;
  }
}
