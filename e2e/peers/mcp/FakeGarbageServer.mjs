// A stand-in for a broken MCP server (no real one writes garbage on purpose): it prints
// non-JSON-RPC lines on stdout and never speaks the protocol.
process.stdout.write('Welcome to my server!\n');
process.stdout.write('{ this is not json\n');
process.stderr.write('fake server: started without a protocol\n');
setInterval(() => process.stdout.write('tick: still not JSON-RPC\n'), 500);
