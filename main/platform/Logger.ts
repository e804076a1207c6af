import { terminalSafeJson } from '../../shared/terminalSafeJson';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** One JSON line per entry on stderr, so stdout stays clean for CLI output. */
export function createStderrLogger(level: 'debug' | 'info' | 'warn' | 'error' = 'info'): Logger {
  const order = ['debug', 'info', 'warn', 'error'] as const;
  const min = order.indexOf(level);
  const write = (lvl: (typeof order)[number]) => (message: string, fields?: Record<string, unknown>) => {
    if (order.indexOf(lvl) < min) return;
    // Messages and fields quote servers, files and clusters; the line is read on a terminal.
    process.stderr.write(`${terminalSafeJson(JSON.stringify({ t: new Date().toISOString(), level: lvl, message, ...fields }))}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
