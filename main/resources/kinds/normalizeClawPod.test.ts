import { describe, expect, it } from 'vitest';
import { parseResourceText } from '../parseResourceText';

function pod(text: string, fileName = 'claw-pod.yml') {
  const [doc] = parseResourceText(text, { fileName });
  return doc!;
}

function errors(text: string, fileName?: string): string[] {
  return pod(text, fileName).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.column} ${d.path ?? ''}: ${d.message}`);
}

// Clawdapus, "Subscribing in Pod YAML": two agents of one service, read-only and full access.
const SEED_SUBSCRIBING = `services:
  analyst:
    image: analyst:latest
    x-claw:
      agent: ./AGENTS.md
      cllama: passthrough
      surfaces:
        - service://trading-api
      tools:
        - service: trading-api
          allow:
            - get_market_context   # read-only access

  executor:
    image: executor:latest
    x-claw:
      agent: ./agents/executor/AGENTS.md
      cllama: passthrough
      surfaces:
        - service://trading-api
      tools:
        - service: trading-api
          allow: all               # full access

  trading-api:
    image: trading-api:latest
    expose:
      - "4000"
`;

// Clawdapus, "Pod-Level Defaults": tools-defaults inherited with ... and extended.
const SEED_DEFAULTS = `x-claw:
  pod: trading-desk
  tools-defaults:
    - service: trading-api
      allow:
        - get_market_context

services:
  analyst:
    x-claw:
      cllama: passthrough
      tools:
        - ...                        # inherit pod defaults
        - service: trading-api
          allow:
            - execute_trade          # add executor-only tool
`;

describe('Clawdapus pod files', () => {
  it('reads the Clawdapus subscription example: services with x-claw are agents, the others are not', () => {
    const doc = pod(SEED_SUBSCRIBING);
    expect(doc.valid).toBe(true);
    expect(doc.kind).toBe('ClawPod');
    expect(doc.name).toBe('claw-pod');
    expect(doc.stored).toEqual({
      pod: 'claw-pod',
      defaults: [],
      agents: [
        { name: 'analyst', cllama: 'passthrough', tools: [{ service: 'trading-api', allow: ['get_market_context'] }] },
        { name: 'executor', cllama: 'passthrough', tools: [{ service: 'trading-api', allow: 'all' }] },
      ],
    });
  });

  it('reads the Clawdapus defaults example: pod name, tools-defaults and the ... splice', () => {
    const doc = pod(SEED_DEFAULTS, 'desk/trading.claw-pod.yaml');
    expect(doc.valid).toBe(true);
    expect(doc.name).toBe('trading-desk');
    expect(doc.stored).toEqual({
      pod: 'trading-desk',
      defaults: [{ service: 'trading-api', allow: ['get_market_context'] }],
      agents: [{ name: 'analyst', cllama: 'passthrough', tools: ['...', { service: 'trading-api', allow: ['execute_trade'] }] }],
    });
  });

  it('names the pod after its file when x-claw.pod is absent', () => {
    expect(pod('services: {}\n', 'ops/desk.claw-pod.yml').name).toBe('desk');
  });

  it('refuses tools on a service without cllama: a hard error, as claw up makes it', () => {
    expect(errors('services:\n  rogue:\n    x-claw:\n      tools:\n        - service: trading-api\n          allow: all\n')).toEqual([
      '4:7 services.rogue.x-claw.tools: needs a proxy: declare cllama (e.g. cllama: passthrough) on this service; tools without cllama are a hard error',
    ]);
  });

  it('gives a path-precise error for every malformed grant', () => {
    const text = `x-claw:
  tools-defaults:
    - ...
    - service: a
services:
  bot:
    x-claw:
      cllama: passthrough
      tools:
        - allow: all
        - service: b
          allow: some
        - service: c
          allow: [x, 3]
        - source: crm
          allow: all
        - trading-api
      tools-policy:
        max_rounds: 0
`;
    expect(errors(text)).toEqual([
      '3:7 x-claw.tools-defaults[0]: "..." inherits the pod defaults; it has no meaning inside tools-defaults',
      '4:7 x-claw.tools-defaults[1].allow: is required: "all" or a list of tool names (nothing is allowed by default)',
      '10:11 services.bot.x-claw.tools[0]: names no service: add service: <name>',
      '12:18 services.bot.x-claw.tools[1].allow: "some" is neither "all" nor a list of tool names',
      '14:22 services.bot.x-claw.tools[2].allow[1]: must be a string, got number 3',
      '15:19 services.bot.x-claw.tools[3].source: "crm" is not a registry source; write mcp:<server>, http:<service> or a2a:<agent>',
      '17:11 services.bot.x-claw.tools[4]: must be a grant like {service: trading-api, allow: all} or "...", got "trading-api"',
      '19:21 services.bot.x-claw.tools-policy.max_rounds: must be at least 1, got 0',
    ]);
  });

  it('reads the mediation budget from tools-policy, pod-wide and per agent', () => {
    const doc = pod('x-claw:\n  tools-policy:\n    max_rounds: 4\nservices:\n  bot:\n    x-claw:\n      cllama: passthrough\n      tools-policy:\n        total_timeout_ms: 60000\n');
    expect(doc.stored).toEqual({ pod: 'claw-pod', defaults: [], policy: { max_rounds: 4 }, agents: [{ name: 'bot', cllama: 'passthrough', policy: { total_timeout_ms: 60000 } }] });
  });

  it('is told apart from resources by its file name only', () => {
    expect(pod(SEED_SUBSCRIBING, 'pods.yaml').diagnostics.map((d) => d.message)).toContain('is required');
  });
});
