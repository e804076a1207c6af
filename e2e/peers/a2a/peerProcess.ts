import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { PeerSet, PeerSpecs } from './startPeers';

const root = resolve(import.meta.dirname, '../../..');

/** The peers in a child process of their own (launchPeers.ts), for measurements that must not share a CPU budget with them. */
export function startPeerProcess(specs: PeerSpecs): Promise<PeerSet> {
  return launch(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'launchPeers.ts'), JSON.stringify(specs)]);
}

/** The Python SDK peer (python/sample_agent.py), run by an interpreter that has a2a-sdk and uvicorn; key `python`. */
export function startPythonPeer(python: string): Promise<PeerSet> {
  return launch(python, [resolve(import.meta.dirname, 'python/sample_agent.py')]);
}

/** Both launchers print `PEERS {…urls}` once listening and exit when their stdin closes. */
async function launch(command: string, args: string[]): Promise<PeerSet> {
  const child = spawn(command, args, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const urls = await new Promise<Record<string, string>>((resolveUrls, reject) => {
    const timer = setTimeout(() => reject(new Error(`A2A peers did not start within 30 s: ${stderr}`)), 30_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('PEERS ')) return;
      clearTimeout(timer);
      resolveUrls(JSON.parse(line.slice(6)) as Record<string, string>);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`A2A peers exited with ${code}: ${stderr}`));
    });
  });
  return {
    urls,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.stdin!.end();
      }),
  };
}
