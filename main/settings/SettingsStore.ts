import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../platform/atomicWrite';

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
});
export type Settings = z.infer<typeof Settings>;

/** The user's settings in `<dataDir>/settings.json`; unreadable or invalid files fall back to defaults. */
export class SettingsStore {
  private readonly file: string;
  private current: Settings = Settings.parse({});

  constructor(dataDir: string) {
    this.file = join(dataDir, 'settings.json');
  }

  async load(): Promise<Settings> {
    try {
      this.current = Settings.parse(JSON.parse(await readFile(this.file, 'utf8')));
    } catch {
      this.current = Settings.parse({});
    }
    return this.current;
  }

  get(): Settings {
    return this.current;
  }

  async update(patch: (settings: Settings) => Settings): Promise<Settings> {
    this.current = Settings.parse(patch(structuredClone(this.current)));
    await writeFileAtomic(this.file, `${JSON.stringify(this.current, null, 2)}\n`);
    return this.current;
  }
}
