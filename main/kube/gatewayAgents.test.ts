import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GatewayAgentName } from '../../shared/gateway';
import { injectToolEndpoints } from '../reconcile/agentConfig';
import {
  GATEWAY_CREDENTIAL_ENV,
  gatewayAgentName,
  gatewayCredentialSecretName,
  gatewayEndpoint,
  gatewayToolEntry,
  issueGatewayCredential,
  optedIn,
  parseGatewayAgentName,
  sha256Hex,
} from './gatewayAgents';

const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
/** Anything a LanguageAgent's spec.tools may carry as a name, hostile ones included: YAML syntax, newlines, unicode, "__proto__". */
const hostileName = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.constantFrom('__proto__', 'constructor', 'a: b', '- x', '&anchor', '*alias', '!!js/function', "'", '"', 'x\ny: z', '${TOOLDECK_GATEWAY_CREDENTIAL}', '#', '? k', ''),
);

describe('gateway agents: config rendering', () => {
  it('every tool of an opted-in agent points at the gateway Service with the credential named, never held', () => {
    fc.assert(
      fc.property(fc.uniqueArray(hostileName, { maxLength: 6 }), dnsLabel, fc.integer({ min: 1, max: 65535 }), (tools, namespace, port) => {
        const target = { namespace, port };
        const entries = Object.fromEntries(tools.map((tool) => [tool, gatewayToolEntry(target)]));
        const { credential } = issueGatewayCredential(`agent.${namespace}`);
        const update = injectToolEndpoints('model: m\n', [], entries);
        const config = parse(update.text) as { model: string; tools?: Record<string, unknown> };
        expect(config.model).toBe('m');
        const rendered = config.tools ?? {};
        expect(Object.keys(rendered).sort()).toEqual([...tools].sort());
        for (const tool of tools) {
          expect(rendered[tool]).toEqual({ endpoint: `http://tooldeck-gateway.${namespace}.svc.cluster.local:${port}/mcp`, protocol: 'mcp', headers: { Authorization: `Bearer \${${GATEWAY_CREDENTIAL_ENV}}` } });
        }
        // The ConfigMap holds a reference to the credential, never the credential or its secret.
        expect(update.text).not.toContain(credential.split(':')[1]);
        // Rendering again changes nothing: a converged agent sees no write.
        expect(injectToolEndpoints(update.text, update.managed, entries).changed).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('switching an agent from direct endpoints to the gateway rewrites each entry, and back', () => {
    const direct = { weather: { endpoint: 'http://weather.ns.svc.cluster.local:8080', protocol: 'mcp' as const } };
    const first = injectToolEndpoints(undefined, [], direct);
    const viaGateway = injectToolEndpoints(first.text, first.managed, { weather: gatewayToolEntry({ namespace: 'tooldeck-system' }) });
    expect(viaGateway.changed).toBe(true);
    expect((parse(viaGateway.text) as { tools: Record<string, { endpoint: string }> }).tools.weather?.endpoint).toBe(gatewayEndpoint({ namespace: 'tooldeck-system' }));
    const back = injectToolEndpoints(viaGateway.text, viaGateway.managed, direct);
    expect(parse(back.text)).toEqual({ tools: direct });
  });
});

describe('gateway agents: names', () => {
  it('an agent name made for the gateway parses back to its agent and namespace, and is a valid gateway agent name', () => {
    const agent = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,15}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?){0,2}$/);
    fc.assert(
      fc.property(agent, dnsLabel, (name, namespace) => {
        const made = gatewayAgentName(name, namespace);
        if (made === undefined) return;
        expect(GatewayAgentName.safeParse(made).success).toBe(true);
        expect(parseGatewayAgentName(made)).toEqual({ agent: name, namespace });
        // The Secret's name is a valid DNS subdomain.
        expect(gatewayCredentialSecretName(name)).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
      }),
    );
  });

  it('refuses hostile or overlong names instead of making a credential name of them', () => {
    fc.assert(
      fc.property(hostileName, hostileName, (agent, namespace) => {
        const made = gatewayAgentName(agent, namespace);
        if (made !== undefined) expect(parseGatewayAgentName(made)).toEqual({ agent, namespace });
      }),
    );
    expect(gatewayAgentName('a'.repeat(60), 'team-a')).toBeUndefined();
    expect(gatewayAgentName('Builder', 'team-a')).toBeUndefined();
    expect(gatewayAgentName('builder', 'team.a')).toBeUndefined();
    expect(gatewayAgentName('builder:x', 'team-a')).toBeUndefined();
    expect(parseGatewayAgentName('builder')).toBeUndefined();
    expect(parseGatewayAgentName('builder.Team')).toBeUndefined();
  });
});

describe('gateway agents: opt-in and credentials', () => {
  it("the agent's own label decides; else its namespace's", () => {
    expect(optedIn({ 'tooldeck.dev/gateway': 'enabled' }, undefined)).toBe(true);
    expect(optedIn(undefined, { 'tooldeck.dev/gateway': 'enabled' })).toBe(true);
    expect(optedIn({ 'tooldeck.dev/gateway': 'disabled' }, { 'tooldeck.dev/gateway': 'enabled' })).toBe(false);
    expect(optedIn({ 'tooldeck.dev/gateway': 'yes' }, undefined)).toBe(false);
    expect(optedIn({}, { 'tooldeck.dev/gateway': 'true' })).toBe(false);
    expect(optedIn(undefined, undefined)).toBe(false);
  });

  it('a credential is NAME:SECRET with 256 random bits; only the hash of the secret is handed out besides it', () => {
    const a = issueGatewayCredential('builder.team-a');
    const b = issueGatewayCredential('builder.team-a');
    const secret = a.credential.slice('builder.team-a:'.length);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(a.sha256).toBe(sha256Hex(secret));
    expect(a.credential).not.toBe(b.credential);
  });
});
