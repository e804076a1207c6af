/**
 * Starts A2A peers and prints `PEERS {"<key>":"<url>",…}` on one stdout line, so they can run in a
 * process of their own (as a remote agent would). Usage: tsx e2e/peers/a2a/launchPeers.ts '<specs>'
 * with specs as startPeers takes them. Exits when stdin closes or on SIGTERM, so a runner that dies
 * takes its peers with it.
 */
import { startPeers, type PeerSpecs } from './startPeers';

const peers = await startPeers(JSON.parse(process.argv[2] ?? '{}') as PeerSpecs);
process.stdout.write(`PEERS ${JSON.stringify(peers.urls)}\n`);

let closing = false;
async function shutdown() {
  if (closing) return;
  closing = true;
  await peers.stop();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();
