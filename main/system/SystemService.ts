import { setTimeout as sleep } from 'node:timers/promises';
import type { Heartbeat, HostKind, SystemInfo } from '../../shared/system';

export interface SystemServiceOptions {
  appVersion: string;
  host: HostKind;
  dataDir: string;
  /** Extra runtime versions the host knows (Electron adds electron and chrome). */
  versions?: Partial<SystemInfo['versions']>;
}

export class SystemService {
  private readonly startedAt = new Date();

  constructor(private readonly options: SystemServiceOptions) {}

  info(): SystemInfo {
    return {
      appName: 'Tooldeck',
      appVersion: this.options.appVersion,
      host: this.options.host,
      dataDir: this.options.dataDir,
      platform: process.platform,
      arch: process.arch,
      pid: process.pid,
      startedAt: this.startedAt.toISOString(),
      versions: {
        node: process.versions.node,
        v8: process.versions.v8,
        ...(process.versions.sqlite ? { sqlite: process.versions.sqlite } : {}),
        ...this.options.versions,
      },
    };
  }

  /** Ticks until the consumer goes away; the signal is how every link (IPC, SSE, in-process) says so. */
  async *heartbeat(intervalMs: number, signal?: AbortSignal): AsyncGenerator<Heartbeat> {
    let seq = 0;
    while (!signal?.aborted) {
      yield { seq: seq++, at: new Date().toISOString(), uptimeMs: Date.now() - this.startedAt.getTime() };
      try {
        await sleep(intervalMs, undefined, { signal });
      } catch {
        return;
      }
    }
  }
}
