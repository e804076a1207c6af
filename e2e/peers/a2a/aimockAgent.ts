import { A2AMock } from '@copilotkit/aimock/a2a';
import type { RunningPeer } from './sampleAgent';

/**
 * aimock's A2A mock: it answers with 1.0-looking shapes that are not quite the protocol (stream
 * events wrap a task plus an artifact side by side, unmatched messages get a bare JSON-RPC error,
 * streams end without a final state). Good for checking that a client fails clearly, not for
 * checking that it works.
 */
export async function startAimockAgent(options: { port?: number } = {}): Promise<RunningPeer> {
  const mock = new A2AMock({ host: '127.0.0.1', port: options.port ?? 0 });
  mock.registerAgent({
    name: 'aimock-agent',
    description: 'aimock A2A mock',
    version: '1.0.0',
    skills: [{ id: 'chat', name: 'Chat', description: 'Answers by pattern', tags: ['mock'] }],
    capabilities: { streaming: true },
  });
  mock.onMessage('aimock-agent', 'hello', [{ text: 'hi from aimock' }]);
  mock.onTask('aimock-agent', 'task', [{ artifactId: 'a1', name: 'result', parts: [{ text: 'task result' }] }]);
  mock.onStreamingTask('aimock-agent', 'stream', [
    { type: 'status', state: 'TASK_STATE_WORKING' },
    { type: 'artifact', name: 'chunk', parts: [{ text: 'partial' }] },
  ]);
  const url = await mock.start();
  return { url, close: () => mock.stop() };
}
