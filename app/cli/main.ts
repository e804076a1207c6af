import { runCli } from './program';

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
// A one-shot command always ends: whatever a library still holds open (a timer, a socket) gets two
// seconds to let go before the process exits anyway. (Standard output to files and pipes is
// written synchronously on Linux and macOS, so nothing printed is lost.)
setTimeout(() => process.exit(code), 2_000).unref();
