import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileAgentConfigYaml } from './compileAgentConfigYaml';

describe('compileAgentConfigYaml (Language Operator /etc/agent/config.yaml)', () => {
  it('writes the documented Language Operator example exactly', () => {
    const yaml = compileAgentConfigYaml(
      { name: 'assistant', tools: [{ source: 'mcp:mem0-memory', allow: 'all' }] },
      { 'mem0-memory': 'http://mem0-memory.language-operator-myapp.svc.cluster.local:8080' },
    );
    expect(yaml).toBe(
      ['tools:', '  mem0-memory:', '    endpoint: http://mem0-memory.language-operator-myapp.svc.cluster.local:8080', '    protocol: mcp', ''].join('\n'),
    );
  });

  it('lists every granted MCP server once, defaults included, and leaves other kinds of source out', () => {
    const yaml = compileAgentConfigYaml(
      { name: 'assistant', tools: ['...', { source: 'mcp:search', allow: ['web'] }, { source: 'mcp:search', allow: ['news'] }, { service: 'trading-api', allow: 'all' }] },
      { search: 'http://localhost:9000', 'mem0-memory': 'http://mem0-memory.apps.svc.cluster.local:8080' },
      [{ source: 'mcp:mem0-memory', allow: ['recall'] }],
    );
    expect(parse(yaml)).toEqual({
      tools: {
        'mem0-memory': { endpoint: 'http://mem0-memory.apps.svc.cluster.local:8080', protocol: 'mcp' },
        search: { endpoint: 'http://localhost:9000', protocol: 'mcp' },
      },
    });
  });

  it('writes an empty tool map for an agent without grants, and refuses servers without a known endpoint', () => {
    expect(parse(compileAgentConfigYaml({ name: 'quiet' }, {}))).toEqual({ tools: {} });
    expect(() => compileAgentConfigYaml({ name: 'assistant', tools: [{ source: 'mcp:search', allow: 'all' }] }, {})).toThrow(
      'Cannot write config.yaml for assistant: no endpoint known for search.',
    );
  });
});
