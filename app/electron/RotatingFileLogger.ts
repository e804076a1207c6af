import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../main/platform/Logger';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Level[] = ['debug', 'info', 'warn', 'error'];

/**
 * The desktop app's log: one JSON line per entry in `main.log` under the platform's logs folder
 * (Electron's `app.getPath('logs')`), where a user can find it when something goes wrong — a
 * packaged app has no terminal for stderr. Past `maxBytes` the file becomes `main.log.1` (the one
 * before is dropped). Writes are synchronous: the lines logged while quitting must not be lost.
 */
export class RotatingFileLogger implements Logger {
  private bytes: number;

  constructor(
    readonly file: string,
    private readonly options: { level?: Level; maxBytes?: number; mirror?: (line: string) => void } = {},
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.bytes = sizeOf(file);
  }

  debug(message: string, fields?: Record<string, unknown>) {
    this.write('debug', message, fields);
  }
  info(message: string, fields?: Record<string, unknown>) {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>) {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>) {
    this.write('error', message, fields);
  }

  private write(level: Level, message: string, fields?: Record<string, unknown>) {
    if (ORDER.indexOf(level) < ORDER.indexOf(this.options.level ?? 'info')) return;
    const line = `${JSON.stringify({ t: new Date().toISOString(), level, message, ...fields })}\n`;
    this.options.mirror?.(line);
    try {
      if (this.bytes + line.length > (this.options.maxBytes ?? 5 * 1024 * 1024)) {
        renameSync(this.file, `${this.file}.1`);
        this.bytes = 0;
      }
      appendFileSync(this.file, line, { mode: 0o600 });
      this.bytes += Buffer.byteLength(line);
    } catch {
      // A full or read-only disk must not take the app down with it; the mirror (if any) still has the line.
    }
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
