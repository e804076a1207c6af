type SqliteModule = typeof import('node:sqlite');

let loaded: SqliteModule | undefined;

/**
 * `node:sqlite` prints an ExperimentalWarning the first time it loads. Users of the CLI and the app
 * cannot act on it, so exactly that warning is swallowed, only while the module loads; every other
 * warning still goes through. A static import would load the module before any code could run.
 */
export function loadSqlite(): SqliteModule {
  if (loaded) return loaded;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && /SQLite/i.test(text)) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    loaded = process.getBuiltinModule('node:sqlite');
    if (!loaded) throw new Error(`Invocation history needs node:sqlite (Node 22.13 or newer); this is Node ${process.version}`);
    return loaded;
  } finally {
    process.emitWarning = emitWarning;
  }
}
