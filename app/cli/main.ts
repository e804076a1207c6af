import { enableCompileCache } from 'node:module';

// Node keeps the bytecode of every module it compiles here (in its own folder under the system's
// temporary directory, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a command
// after the first skips compiling the CLI and its libraries, a good part of a short command's time.
// Enabled before the program is imported, so that the program and every library it loads are cached.
enableCompileCache?.();

const { runCli } = await import('./program');

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
// A one-shot command always ends: whatever a library still holds open (a timer, a socket) gets two
// seconds to let go before the process exits anyway. (Standard output to files and pipes is
// written synchronously on Linux and macOS, so nothing printed is lost.)
setTimeout(() => process.exit(code), 2_000).unref();
