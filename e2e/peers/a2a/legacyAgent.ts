import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import express from 'express';
import type { AgentCard, Message, Part, SecurityScheme, TaskState } from 'a2a-sdk-legacy';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-legacy/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from 'a2a-sdk-legacy/server/express';
import { installPeerAuth, type PeerAuthOptions } from './peerAuth';
import type { RunningPeer } from './sampleAgent';
import { peerSkills, routeSkill, runSkill, type PeerState, type SkillEmitter } from './skillScript';

export interface LegacyAgentOptions {
  port?: number;
  streaming?: boolean;
  /** Where the card is served: 0.3's `agent-card.json`, or the older `agent.json`. */
  wellKnown?: 'agent-card.json' | 'agent.json';
  auth?: PeerAuthOptions;
  stepDelayMs?: number;
}

const interrupting: PeerState[] = ['input-required', 'completed', 'canceled', 'failed'];

function agentMessage(text: string, contextId: string, taskId?: string): Message {
  return { kind: 'message', messageId: randomUUID(), role: 'agent', parts: [{ kind: 'text', text }], contextId, ...(taskId ? { taskId } : {}) };
}

class LegacyExecutor implements AgentExecutor {
  private readonly canceled = new Set<string>();
  private readonly running = new Set<string>();
  private readonly contexts = new Map<string, string>();

  constructor(private readonly stepDelayMs: number) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = ctx;
    const text = userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    const route = routeSkill(text, userMessage.metadata?.skillId);
    const artifact = (artifactId: string, name: string, part: Part) =>
      bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId, name, parts: [part] }, append: false, lastChunk: true });
    const emit: SkillEmitter = {
      task: (state) =>
        bus.publish({
          kind: 'task',
          id: taskId,
          contextId,
          status: { state: state as TaskState, timestamp: new Date().toISOString() },
          history: ctx.task?.history ?? [userMessage],
          ...(ctx.task?.artifacts ? { artifacts: ctx.task.artifacts } : {}),
        }),
      status: (state, statusText) =>
        bus.publish({
          kind: 'status-update',
          taskId,
          contextId,
          status: { state: state as TaskState, timestamp: new Date().toISOString(), ...(statusText ? { message: agentMessage(statusText, contextId, taskId) } : {}) },
          final: interrupting.includes(state),
        }),
      textArtifact: (id, name, value) => artifact(id, name, { kind: 'text', text: value }),
      dataArtifact: (id, name, data) => artifact(id, name, { kind: 'data', data: data as Record<string, unknown> }),
      message: (value) => bus.publish(agentMessage(value, contextId)),
    };
    this.running.add(taskId);
    this.contexts.set(taskId, contextId);
    try {
      await runSkill({ ...route, continuing: ctx.task?.status.state as PeerState | undefined, isCanceled: () => this.canceled.has(taskId) }, emit, {
        stepDelayMs: this.stepDelayMs,
      });
    } finally {
      this.running.delete(taskId);
      this.canceled.delete(taskId);
      bus.finished();
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    if (this.running.has(taskId)) {
      this.canceled.add(taskId);
      return;
    }
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId: this.contexts.get(taskId) ?? '',
      status: { state: 'canceled', timestamp: new Date().toISOString() },
      final: true,
    });
    bus.finished();
  };
}

function securityFor(auth: PeerAuthOptions | undefined, baseUrl: string): Pick<AgentCard, 'security' | 'securitySchemes'> {
  const schemes: Record<string, SecurityScheme> = {};
  if (auth?.bearerToken) schemes.bearer = { type: 'http', scheme: 'bearer' };
  if (auth?.apiKey) schemes.apiKey = { type: 'apiKey', in: auth.apiKey.in, name: auth.apiKey.name };
  if (auth?.oauthClient) schemes.oauth = { type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${baseUrl}/oauth/token`, scopes: {} } } };
  return { securitySchemes: schemes, security: Object.keys(schemes).map((name) => ({ [name]: [] })) };
}

/** A real @a2a-js/sdk 0.3 server: 0.3 card (url, preferredTransport, protocolVersion), 0.3 method names. */
export async function startLegacyAgent(options: LegacyAgentOptions = {}): Promise<RunningPeer> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: 'Legacy Agent',
    description: 'A2A 0.3 test agent with the same skills as the sample agent.',
    protocolVersion: '0.3.0',
    version: '0.3.9',
    url: `${baseUrl}/a2a/jsonrpc`,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: peerSkills,
    ...securityFor(options.auth, baseUrl),
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new LegacyExecutor(options.stepDelayMs ?? 40));
  const app = express();
  const guard = installPeerAuth(app, options.auth);
  app.use(`/.well-known/${options.wellKnown ?? 'agent-card.json'}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', guard, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  server.on('request', app);
  return {
    url: baseUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
