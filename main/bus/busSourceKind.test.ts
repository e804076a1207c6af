import { describe, expect, it } from 'vitest';
import { BusSourceKind } from './busSourceKind';

/** A stand-in for PeerBridges: which bridges have announced, and whether it is on the bus. */
function peers(state: { running: boolean; announced: string[] }) {
  const joined: string[] = [];
  return {
    joined,
    get running() {
      return state.running;
    },
    async connectAlone(url: string) {
      joined.push(url);
      state.running = true;
    },
    async announced(agent: string) {
      return state.announced.includes(agent);
    },
    async close() {
      state.running = false;
    },
  };
}

describe('BusSourceKind', () => {
  it('prepares a bridge that announced itself while the bus bridge runs, without joining again', async () => {
    const fake = peers({ running: true, announced: ['weather'] });
    const kind = new BusSourceKind({ peers: fake, brokerUrl: () => 'amqp://guest:guest@127.0.0.1:5672' });
    await kind.prepare('weather');
    expect(fake.joined).toEqual([]);
    await expect(kind.prepare('nobody')).rejects.toMatchObject({ code: 'NotFound', message: 'No bridge named "nobody" has announced its servers on the bus.' });
  });

  it('joins the broker from the environment for a one-off call, and says how when there is none', async () => {
    const fake = peers({ running: false, announced: ['weather'] });
    await expect(new BusSourceKind({ peers: fake, brokerUrl: () => undefined }).prepare('weather')).rejects.toMatchObject({ code: 'ConnectionFailed', message: expect.stringContaining('$TOOLDECK_AMQP_URL') });
    await new BusSourceKind({ peers: fake, brokerUrl: () => 'amqp://guest:guest@127.0.0.1:5672' }).prepare('weather');
    expect(fake.joined).toEqual(['amqp://guest:guest@127.0.0.1:5672']);
  });

  it('keeps nothing: no saved sources, no endpoints, nothing the lock tracks', async () => {
    const kind = new BusSourceKind({ peers: peers({ running: true, announced: [] }), brokerUrl: () => undefined });
    expect(await kind.savedSources()).toEqual([]);
    expect(await kind.endpoints()).toEqual({});
    expect(kind.lasting()).toBe(false);
  });
});
