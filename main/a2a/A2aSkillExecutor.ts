import type { Span } from '@opentelemetry/api';
import { isFinalA2aState, type A2aArtifact, type A2aCardView, type A2aEvent, type A2aTaskState } from '../../shared/a2a';
import { AppError } from '../../shared/errors';
import type { A2aAgentService } from './A2aAgentService';
import { textOf } from './sdkViews';

/** A skill as a callable entry, in the shape the tool registry takes. */
export interface A2aSkillEntry {
  toolName: string;
  title: string;
  description: string;
  tags: string[];
  inputSchema: { type: 'object'; properties: { text: { type: 'string' } }; required: ['text'] };
}

export interface A2aSkillResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: { taskId?: string; contextId?: string; state?: A2aTaskState; artifacts: A2aArtifact[] };
  isError?: boolean;
}

export function skillEntries(agentName: string, card: Pick<A2aCardView, 'skills'>): A2aSkillEntry[] {
  return card.skills
    .filter((skill) => skill.id)
    .map((skill) => ({
      toolName: skill.id,
      title: skill.name || skill.id,
      description: skill.description || `Skill ${skill.id} of A2A agent ${agentName}`,
      tags: skill.tags,
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    }));
}

/**
 * Runs a skill as one tool call: sends the text with the skill named both in the message metadata
 * (`skillId`) and as a leading `/skill` mention (for agents that only read text), waits for the turn
 * to end, and reports FAILED/REJECTED as an error result. Aborting cancels the task at the agent.
 */
export class A2aSkillExecutor {
  constructor(private readonly agents: A2aAgentService) {}

  async invokeSkill(agentName: string, skillId: string, args: unknown, options: { signal?: AbortSignal; trace?: Span } = {}): Promise<A2aSkillResult> {
    const input = (args ?? {}) as { text?: unknown; taskId?: unknown; contextId?: unknown };
    const text = input.text;
    if (typeof text !== 'string') throw new AppError('InvalidArguments', `Skill ${skillId} takes {"text": string}.`);
    // Not in the schema, but honoured: the ids from an INPUT_REQUIRED result continue that task.
    const continuation = {
      ...(typeof input.taskId === 'string' ? { taskId: input.taskId } : {}),
      ...(typeof input.contextId === 'string' ? { contextId: input.contextId } : {}),
    };
    const card = await this.agents.card(agentName);
    if (!card.skills.some((s) => s.id === skillId)) throw new AppError('ToolNotFound', `A2A agent ${agentName} has no skill "${skillId}".`);
    const message = continuation.taskId ? text : { parts: [{ kind: 'text' as const, text: `/${skillId} ${text}` }], metadata: { skillId } };

    let taskId: string | undefined;
    let contextId: string | undefined;
    let state: A2aTaskState | undefined;
    let statusText = '';
    const replies: string[] = [];
    const artifacts = new Map<string, A2aArtifact>();
    const apply = (event: A2aEvent) => {
      taskId ??= event.taskId;
      contextId ??= event.contextId;
      if (event.state) state = event.state;
      if (event.kind === 'message' && event.text) replies.push(event.text);
      else if (event.text && event.state) statusText = event.text;
      if (event.artifact) {
        const existing = artifacts.get(event.artifact.artifactId);
        if (existing && event.append) existing.parts.push(...event.artifact.parts);
        else artifacts.set(event.artifact.artifactId, structuredClone(event.artifact));
      }
    };

    if (card.capabilities.streaming) {
      for await (const event of this.agents.stream(agentName, message, { ...continuation, cancelOnAbort: true, trace: options.trace }, options.signal)) apply(event);
    } else {
      const result = await this.agents.send(agentName, message, { ...continuation, signal: options.signal, trace: options.trace });
      taskId = result.taskId;
      contextId = result.contextId;
      state = result.state;
      statusText = result.task?.statusText ?? '';
      if (result.kind === 'message') replies.push(result.text);
      for (const artifact of result.artifacts) artifacts.set(artifact.artifactId, artifact);
    }

    const artifactList = [...artifacts.values()];
    const artifactText = artifactList.map((a) => textOf(a.parts)).filter(Boolean).join('\n');
    const failed = state === 'FAILED' || state === 'REJECTED';
    const body =
      [...replies, failed || !artifactText ? statusText : '', artifactText].filter(Boolean).join('\n') ||
      (state ? `Task ${taskId ?? ''} ended ${state}${isFinalA2aState(state) ? '' : ' (not final)'}.` : '');
    return {
      content: [{ type: 'text', text: body }],
      ...(taskId || artifactList.length ? { structuredContent: { taskId, contextId, state, artifacts: artifactList } } : {}),
      ...(failed ? { isError: true } : {}),
    };
  }
}
