import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  agentOfIndexTopic,
  checkAgentName,
  MAX_DESCRIPTION_CHARS,
  MAX_DISPLAY_CHARS,
  MAX_NAME_CHARS,
  MAX_SERVERS_PER_BRIDGE,
  MAX_SUMMARY_CHARS,
  MAX_TOOLS_PER_BRIDGE,
  MAX_TOOLS_PER_SERVER,
  readServersIndexed,
  readServiceDetails,
} from './peerIndex';

// eslint-disable-next-line no-control-regex -- what must never reach a name
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Anything a hostile peer could put in a JSON body. */
const anyJson = fc.jsonValue({ maxDepth: 4 });
/** Names as a hostile peer would send them: mostly plausible, sometimes with control characters, long, or empty. */
const hostileName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', 'a\u0000b', 'x'.repeat(MAX_NAME_CHARS + 1), 'Echo', 'echo', 'ECHO', 'a\nb', 'bidi\u202eevil'),
);
const hostileServer = fc.record(
  {
    serverName: fc.oneof(hostileName, anyJson),
    displayName: fc.oneof(fc.string({ maxLength: 400 }), anyJson),
    summary: fc.oneof(fc.string({ maxLength: 3000 }), anyJson),
    toolCount: anyJson,
    toolNames: fc.oneof(fc.array(fc.oneof(hostileName, anyJson), { maxLength: 40 }), anyJson),
  },
  { requiredKeys: [] },
);
const hostileIndex = fc.oneof(
  anyJson,
  fc.record({ servers: fc.oneof(fc.array(hostileServer, { maxLength: 30 }), anyJson), removedServers: fc.oneof(fc.array(hostileName, { maxLength: 10 }), anyJson) }, { requiredKeys: [] }),
);

describe('readServersIndexed: whatever a peer announces', () => {
  it('never throws, and keeps only bounded, plain, distinct names', () => {
    fc.assert(
      fc.property(hostileIndex, (body) => {
        const update = readServersIndexed(body);
        expect(update.servers.length).toBeLessThanOrEqual(MAX_SERVERS_PER_BRIDGE);
        const serverKeys = update.servers.map((server) => server.serverName.toLowerCase());
        expect(new Set(serverKeys).size).toBe(serverKeys.length);
        const tools = update.servers.flatMap((server) => server.toolNames);
        expect(tools.length).toBeLessThanOrEqual(MAX_TOOLS_PER_BRIDGE);
        // No two tools of a bridge read alike, even across servers.
        expect(new Set(tools.map((tool) => tool.toLowerCase())).size).toBe(tools.length);
        for (const server of update.servers) {
          expect(server.serverName.length).toBeGreaterThan(0);
          expect(server.serverName.length).toBeLessThanOrEqual(MAX_NAME_CHARS);
          expect(server.serverName).not.toMatch(CONTROL);
          expect(server.toolNames.length).toBeLessThanOrEqual(MAX_TOOLS_PER_SERVER);
          for (const tool of server.toolNames) expect(tool).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
          if (server.displayName !== undefined) {
            expect(server.displayName.length).toBeLessThanOrEqual(MAX_DISPLAY_CHARS);
            expect(server.displayName).not.toMatch(CONTROL);
          }
          if (server.summary !== undefined) {
            expect(server.summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
            expect(server.summary).not.toMatch(CONTROL);
          }
        }
        for (const removed of update.removedServers) expect(removed).not.toMatch(CONTROL);
        expect(update.problems.length).toBeLessThanOrEqual(20);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a well-formed announcement as it is', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,12}$/), { minLength: 1, maxLength: 5 }),
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/), { maxLength: 30 }),
        (servers, tools) => {
          // Each tool listed by exactly one server.
          const body = { servers: servers.map((serverName, i) => ({ serverName, displayName: serverName, summary: 's', toolCount: 0, toolNames: tools.filter((_, t) => t % servers.length === i) })), removedServers: [] };
          const update = readServersIndexed(body);
          expect(update.problems).toEqual([]);
          expect(update.servers.map((server) => [server.serverName, server.toolNames])).toEqual(body.servers.map((server) => [server.serverName, server.toolNames]));
        },
      ),
    );
  });

  it('bounds a flood within one message: servers, tools per server, tools per bridge', () => {
    const many = { servers: Array.from({ length: 200 }, (_, s) => ({ serverName: `s${s}`, toolNames: Array.from({ length: 300 }, (_, t) => `t${s}_${t}`) })) };
    const update = readServersIndexed(many);
    expect(update.servers.length).toBeLessThanOrEqual(MAX_SERVERS_PER_BRIDGE);
    expect(update.servers[0]!.toolNames).toHaveLength(MAX_TOOLS_PER_SERVER);
    expect(update.servers.flatMap((server) => server.toolNames)).toHaveLength(MAX_TOOLS_PER_BRIDGE);
    expect(update.problems.length).toBeGreaterThan(0);
  });

  it('drops control characters, look-alike duplicates and a tool a second server lists, saying why', () => {
    const update = readServersIndexed({
      servers: [
        { serverName: 'files', toolNames: ['read', 'READ', 'bell\u0007', 'read'] },
        { serverName: 'FILES', toolNames: ['write'] },
        { serverName: 'other', toolNames: ['read', 'write'] },
        { serverName: 'tab\there', toolNames: ['x'] },
      ],
      removedServers: ['gone', 'GONE', 'bad\u0000'],
    });
    expect(update.servers).toEqual([
      { serverName: 'files', toolNames: ['read'] },
      { serverName: 'other', toolNames: ['write'] },
    ]);
    expect(update.removedServers).toEqual(['gone']);
    expect(update.problems.join('\n')).toMatch(/listed twice/);
  });
});

describe('agent names from the topic', () => {
  it('takes the agent from tool.meta.mcp.{agent}, never the refresh topic', () => {
    expect(agentOfIndexTopic('tool.meta.mcp.weather')).toBe('weather');
    expect(agentOfIndexTopic('tool.meta.mcp.refresh')).toBeUndefined();
    expect(agentOfIndexTopic('tool.meta.mcp.')).toBeUndefined();
    expect(agentOfIndexTopic('tool.invoke.mcp')).toBeUndefined();
  });

  it('accepts only names RockBot queues could carry', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (name) => {
        const checked = checkAgentName(name);
        if (checked.ok) expect(name).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/);
      }),
    );
    expect(checkAgentName('weather').ok).toBe(true);
    expect(checkAgentName('we ather').ok).toBe(false);
    expect(checkAgentName('.hidden').ok).toBe(false);
  });
});

describe('readServiceDetails', () => {
  it('never throws on hostile bodies, and keeps only object schemas and bounded descriptions', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyJson,
          fc.record({
            serverName: fc.constantFrom('files', 'FILES', 'other'),
            error: fc.oneof(fc.constant(null), fc.string({ maxLength: 5 })),
            tools: fc.array(fc.record({ name: fc.oneof(hostileName, anyJson), description: fc.oneof(fc.string({ maxLength: 5000 }), anyJson), parametersSchema: fc.oneof(fc.json(), fc.string(), anyJson) }, { requiredKeys: [] }), { maxLength: 20 }),
          }),
        ),
        (body) => {
          const tools = readServiceDetails(body, 'files');
          if (!tools) return;
          for (const tool of tools.values()) {
            if (tool.description !== undefined) expect(tool.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS);
            if (tool.inputSchema !== undefined) expect(tool.inputSchema.type).toBe('object');
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes only the asked server’s answer, and none that carries an error', () => {
    const tools = [{ name: 'read', description: 'Reads', parametersSchema: '{"type":"object","properties":{"path":{"type":"string"}}}' }];
    expect(readServiceDetails({ serverName: 'files', tools, error: null }, 'files')?.get('read')).toEqual({ name: 'read', description: 'Reads', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } });
    expect(readServiceDetails({ serverName: 'other', tools, error: null }, 'files')).toBeUndefined();
    expect(readServiceDetails({ serverName: 'files', tools: [], error: "Server 'files' is not connected" }, 'files')).toBeUndefined();
    expect(readServiceDetails({ serverName: 'files', tools: [{ name: 'read', parametersSchema: '[1,2]' }], error: null }, 'files')?.get('read')?.inputSchema).toBeUndefined();
  });
});
