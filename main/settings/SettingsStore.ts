import { join } from 'node:path';
import { z } from 'zod';
import { JsonFile } from '../platform/JsonFile';

export const Settings = z.object({
  metrics: z
    .object({
      prometheus: z.object({ enabled: z.boolean().default(false), port: z.number().int().min(1).max(65535).default(9464) }).default({ enabled: false, port: 9464 }),
      otlp: z.object({ enabled: z.boolean().default(false), url: z.string().default(''), intervalMs: z.number().int().min(1000).default(60_000) }).default({ enabled: false, url: '', intervalMs: 60_000 }),
    })
    .default({ prometheus: { enabled: false, port: 9464 }, otlp: { enabled: false, url: '', intervalMs: 60_000 } }),
  /** Spans of each call (W3C trace context), exported over OTLP/HTTP when enabled. */
  tracing: z
    .object({ otlp: z.object({ enabled: z.boolean().default(false), url: z.string().default('') }).default({ enabled: false, url: '' }) })
    .default({ otlp: { enabled: false, url: '' } }),
  history: z
    .object({ maxAgeDays: z.number().int().min(1).default(90), maxRows: z.number().int().min(1000).default(1_000_000) })
    .default({ maxAgeDays: 90, maxRows: 1_000_000 }),
  /**
   * The gateway the console started (Gateway section): started again on the same loopback address
   * whenever the console starts, until it is stopped there. Agents' configs name its port.
   */
  gateway: z
    .object({ enabled: z.boolean().default(false), host: z.string().default('127.0.0.1'), port: z.number().int().min(1).max(65535).optional() })
    .default({ enabled: false, host: '127.0.0.1' }),
  /** The hard limit on one tool result: a larger one fails with ResultTooLarge instead of being read. */
  limits: z.object({ maxResultMiB: z.number().int().min(1).max(4096).default(64) }).default({ maxResultMiB: 64 }),
  /**
   * The console's first-run guide ("Start here"): shown until dismissed, in every host and on any
   * port of browser mode (so it lives here, not in one origin's localStorage); About opens it again.
   */
  guide: z.object({ startHereDismissed: z.boolean().default(false) }).default({ startHereDismissed: false }),
});
export type Settings = z.infer<typeof Settings>;

/** The user's settings in `<dataDir>/settings.json`; unreadable or invalid files fall back to defaults. */
export class SettingsStore {
  private readonly file: JsonFile<typeof Settings>;
  private current: Settings = Settings.parse({});

  constructor(dataDir: string) {
    this.file = new JsonFile(join(dataDir, 'settings.json'), Settings, () => Settings.parse({}));
  }

  async load(): Promise<Settings> {
    this.current = await this.file.read().catch(() => Settings.parse({}));
    return this.current;
  }

  get(): Settings {
    return this.current;
  }

  async update(patch: (settings: Settings) => Settings): Promise<Settings> {
    this.current = Settings.parse(patch(structuredClone(this.current)));
    await this.file.write(this.current);
    return this.current;
  }
}
