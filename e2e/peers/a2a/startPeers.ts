import { startAimockAgent } from './aimockAgent';
import { startLegacyAgent, type LegacyAgentOptions } from './legacyAgent';
import { startSampleAgent, type RunningPeer, type SampleAgentOptions } from './sampleAgent';

export type PeerSpec =
  | { kind: 'sample'; options?: SampleAgentOptions }
  | { kind: 'legacy'; options?: LegacyAgentOptions }
  | { kind: 'aimock'; options?: { port?: number } };

export type PeerSpecs = Record<string, PeerSpec>;

/** A set of running peers by key, and one call to stop them all. */
export interface PeerSet {
  urls: Record<string, string>;
  stop(): Promise<void>;
}

function start(spec: PeerSpec): Promise<RunningPeer> {
  switch (spec.kind) {
    case 'sample':
      return startSampleAgent(spec.options);
    case 'legacy':
      return startLegacyAgent(spec.options);
    case 'aimock':
      return startAimockAgent(spec.options);
  }
}

/** Starts the peers in this process, on 127.0.0.1 and free ports. */
export async function startPeers(specs: PeerSpecs): Promise<PeerSet> {
  const running = await Promise.all(Object.entries(specs).map(async ([key, spec]) => [key, await start(spec)] as const));
  return {
    urls: Object.fromEntries(running.map(([key, peer]) => [key, peer.url])),
    stop: async () => {
      await Promise.allSettled(running.map(([, peer]) => peer.close()));
    },
  };
}
