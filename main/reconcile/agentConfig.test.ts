import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { injectToolEndpoints } from './agentConfig';

const weather = { endpoint: 'http://weather.ns.svc.cluster.local:8080', protocol: 'mcp' as const };

describe('injectToolEndpoints', () => {
  it('adds endpoints under tools: and keeps other keys and comments', () => {
    const original = '# agent settings\ninstructions: Be brief. # short answers\nmodel: small\n';
    const update = injectToolEndpoints(original, [], { weather });
    expect(update.changed).toBe(true);
    expect(update.managed).toEqual(['weather']);
    expect(update.text).toContain('# short answers');
    expect(parse(update.text)).toEqual({ instructions: 'Be brief.', model: 'small', tools: { weather } });
  });

  it('leaves the text byte for byte alone when the entries are already there', () => {
    const original = "tools:\n  weather: { endpoint: 'http://weather.ns.svc.cluster.local:8080', protocol: mcp }\n";
    expect(injectToolEndpoints(original, ['weather'], { weather })).toEqual({ text: original, managed: ['weather'], changed: false });
  });

  it('removes only the entries it wrote before, never ones written by someone else', () => {
    const original = 'tools:\n  weather: {endpoint: "http://old:1", protocol: mcp}\n  calendar: {endpoint: "http://calendar:9000", protocol: mcp}\n';
    const update = injectToolEndpoints(original, ['weather'], {});
    expect(parse(update.text)).toEqual({ tools: { calendar: { endpoint: 'http://calendar:9000', protocol: 'mcp' } } });
    expect(update.managed).toEqual([]);
  });

  it('starts a config from nothing and drops the tools key once it is empty', () => {
    const created = injectToolEndpoints(undefined, [], { weather });
    expect(parse(created.text)).toEqual({ tools: { weather } });
    expect(injectToolEndpoints(created.text, ['weather'], {}).text).toBe('');
  });

  it('refuses a config whose tools key is not a mapping', () => {
    expect(() => injectToolEndpoints('tools: [a, b]\n', [], { weather })).toThrow(/not a mapping/);
  });
});
