#!/usr/bin/env node
// The CLI is built by `npm run build` into out/main/cli.js; it needs Node 22 or newer (node:sqlite).
const [major] = process.versions.node.split('.').map(Number);
if (major < 22) {
  process.stderr.write(`tooldeck needs Node 22 or newer (this is ${process.version}); run it through npm scripts or npx, which use the project's Node.\n`);
  process.exit(2);
}
await import('../out/main/cli.js');
