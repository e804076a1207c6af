import { mkdirSync } from 'node:fs';
import type { HostKind, SystemInfo } from '../shared/system';
import type { Logger } from './platform/Logger';
import type { SecretStore } from './platform/SecretStore';
import { SystemService } from './system/SystemService';

/** The platform pieces a host injects; everything below main/ stays free of host specifics. */
export interface CoreDeps {
  appVersion: string;
  host: HostKind;
  dataDir: string;
  secretStore: SecretStore;
  logger: Logger;
  versions?: Partial<SystemInfo['versions']>;
}

export interface Core {
  readonly deps: CoreDeps;
  readonly system: SystemService;
  close(): Promise<void>;
}

/** The one composition function: every host (Electron, web, CLI) builds its services here. */
export function createCore(deps: CoreDeps): Core {
  mkdirSync(deps.dataDir, { recursive: true, mode: 0o700 });
  const system = new SystemService({ appVersion: deps.appVersion, host: deps.host, dataDir: deps.dataDir, versions: deps.versions });
  return {
    deps,
    system,
    async close() {},
  };
}
