import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepLinksIn, parseDeepLink, routeOf } from './deepLinks';

describe('tooldeck:// links', () => {
  it('select a server, a tool or an agent, and nothing else', () => {
    expect(parseDeepLink('tooldeck://server/everything')).toEqual({ kind: 'navigate', section: 'servers', params: { server: 'everything' } });
    expect(parseDeepLink('tooldeck://tool/mcp:everything.echo')).toEqual({ kind: 'navigate', section: 'tools', params: { tool: 'mcp:everything.echo' } });
    expect(parseDeepLink('tooldeck://agent/research%20bot/')).toEqual({ kind: 'navigate', section: 'agents', params: { agent: 'research bot' } });
    expect(parseDeepLink('tooldeck://call/everything.echo')).toEqual({ error: 'unknown link kind "call" (use server, tool, agent)' });
    expect(parseDeepLink('tooldeck://server/')).toMatchObject({ error: expect.stringMatching(/needs a name/) });
    expect(parseDeepLink('tooldeck://server/%E0%A4%A')).toEqual({ error: 'the name is not valid percent-encoding' });
    expect(parseDeepLink('tooldeck://server/a%0Ab')).toMatchObject({ error: expect.stringMatching(/control characters/) });
    expect(parseDeepLink('https://server/everything')).toEqual({ error: 'not a tooldeck:// link' });
    expect(routeOf({ kind: 'navigate', section: 'tools', params: { tool: 'mcp:a.b' } })).toBe('/tools?tool=mcp%3Aa.b');
  });

  it('are found among command-line arguments', () => {
    expect(deepLinksIn(['/opt/Tooldeck/tooldeck', '--no-sandbox', 'TOOLDECK://server/x', 'tooldeck://tool/y'])).toEqual(['TOOLDECK://server/x', 'tooldeck://tool/y']);
  });

  it('carry dot names, which URL parsing would resolve away', () => {
    for (const name of ['.', '..', '%2e', 'a/../b']) {
      expect(parseDeepLink(`tooldeck://server/${encodeURIComponent(name)}`)).toEqual({ kind: 'navigate', section: 'servers', params: { server: name } });
    }
  });

  it('never throw, and carry any printable name through unchanged', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseDeepLink(text)));
    const printable = (name: string) => [...name].every((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f);
    fc.assert(fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 100 }).filter((name) => printable(name) && !/^\/|\/$/.test(name)), (name) => {
      expect(parseDeepLink(`tooldeck://server/${encodeURIComponent(name)}`)).toEqual({ kind: 'navigate', section: 'servers', params: { server: name } });
    }));
  });
});
