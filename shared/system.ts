import { z } from 'zod';

/** Which composition root is serving the contract. */
export const HostKind = z.enum(['electron', 'web', 'cli']);
export type HostKind = z.infer<typeof HostKind>;

export const SystemInfo = z.object({
  appName: z.string(),
  appVersion: z.string(),
  host: HostKind,
  dataDir: z.string(),
  platform: z.string(),
  arch: z.string(),
  pid: z.number().int(),
  startedAt: z.string(),
  versions: z.object({
    node: z.string(),
    v8: z.string(),
    electron: z.string().optional(),
    chrome: z.string().optional(),
    sqlite: z.string().optional(),
  }),
});
export type SystemInfo = z.infer<typeof SystemInfo>;

export const HeartbeatInput = z
  .object({
    intervalMs: z.number().int().min(50).max(60_000).default(1000),
  })
  .default({ intervalMs: 1000 });

export const Heartbeat = z.object({
  seq: z.number().int(),
  at: z.string(),
  uptimeMs: z.number(),
});
export type Heartbeat = z.infer<typeof Heartbeat>;
