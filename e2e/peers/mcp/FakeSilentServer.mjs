// A stand-in for a hung MCP server: it reads stdin and never answers anything.
process.stdin.resume();
process.stderr.write('fake silent server: listening but will never reply\n');
setInterval(() => {}, 1 << 30);
