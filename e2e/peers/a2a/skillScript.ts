/**
 * The behaviour both peer agents share, written once against a small emitter so the 1.0 and the 0.3
 * peers differ only in how they put events on their SDK's bus.
 */

export type PeerState = 'submitted' | 'working' | 'input-required' | 'completed' | 'canceled' | 'failed';

export interface SkillEmitter {
  /** Publishes the task object itself: the first event of every stream. */
  task(state: PeerState): void;
  status(state: PeerState, text?: string): void;
  textArtifact(artifactId: string, name: string, text: string): void;
  dataArtifact(artifactId: string, name: string, data: unknown): void;
  /** A direct message reply, no task. */
  message(text: string): void;
}

export interface SkillCall {
  text: string;
  skillId?: string;
  /** State of the task this message continues, when it continues one. */
  continuing?: PeerState;
  isCanceled(): boolean;
}

export interface SkillTiming {
  /** Pause between the steps of `report`. */
  stepDelayMs: number;
}

export const peerSkills = [
  { id: 'echo', name: 'Echo', description: 'Replies with the text it was sent.', tags: ['test', 'text'], examples: ['/echo hello'] },
  {
    id: 'report',
    name: 'Report',
    description: 'Works in steps, then returns a text report and the same figures as JSON.',
    tags: ['test', 'streaming', 'artifacts'],
    examples: ['/report quarterly numbers'],
  },
  { id: 'ask', name: 'Ask', description: 'Asks for a name, then greets whoever answered.', tags: ['test', 'input-required'], examples: ['/ask'] },
  { id: 'slow', name: 'Slow', description: 'Works until it is canceled.', tags: ['test', 'cancel'], examples: ['/slow'] },
  { id: 'fail', name: 'Fail', description: 'Starts working, then fails with a reason.', tags: ['test', 'error'], examples: ['/fail disk full'] },
];

const skillIds = new Set(peerSkills.map((s) => s.id));

/** Picks the skill from message metadata, else from a leading `/skill` or `skill:` mention; default echo. */
export function routeSkill(text: string, metadataSkill: unknown): { skillId: string; text: string } {
  const mention = /^\s*\/?([a-z]+)(?::|\s|$)\s*/i.exec(text);
  const stripped = mention && skillIds.has(mention[1]!.toLowerCase()) ? text.slice(mention[0].length) : text;
  if (typeof metadataSkill === 'string' && skillIds.has(metadataSkill)) return { skillId: metadataSkill, text: stripped };
  if (mention && skillIds.has(mention[1]!.toLowerCase())) return { skillId: mention[1]!.toLowerCase(), text: stripped };
  return { skillId: 'echo', text };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSkill(call: SkillCall, emit: SkillEmitter, timing: SkillTiming): Promise<void> {
  if (call.continuing === 'input-required') {
    const name = call.text.trim() || 'stranger';
    // A stream must open with the task itself, also when it continues one.
    emit.task('working');
    emit.textArtifact('greeting', 'greeting.txt', `Hello, ${name}!`);
    emit.status('completed', `Greeted ${name}.`);
    return;
  }
  switch (call.skillId) {
    case 'report': {
      emit.task('submitted');
      const steps = ['collecting', 'summing', 'writing'];
      for (const [i, step] of steps.entries()) {
        if (call.isCanceled()) return emit.status('canceled', 'Canceled on request.');
        emit.status('working', `step ${i + 1}/${steps.length}: ${step}`);
        await sleep(timing.stepDelayMs);
      }
      const figures = { topic: call.text || 'everything', items: 3, total: 42 };
      emit.textArtifact('report-text', 'report.md', `# Report on ${figures.topic}\n\n${figures.items} items, total ${figures.total}.`);
      emit.dataArtifact('report-data', 'report.json', figures);
      emit.status('completed', 'Report ready.');
      return;
    }
    case 'ask':
      emit.task('submitted');
      emit.status('input-required', 'What is your name?');
      return;
    case 'slow': {
      emit.task('submitted');
      emit.status('working', 'Working on it…');
      // Bounded so a forgotten task cannot outlive a test run by much.
      const until = Date.now() + 10 * 60_000;
      while (!call.isCanceled() && Date.now() < until) await sleep(25);
      emit.status(call.isCanceled() ? 'canceled' : 'failed', call.isCanceled() ? 'Canceled on request.' : 'Gave up.');
      return;
    }
    case 'fail':
      emit.task('submitted');
      emit.status('working');
      emit.status('failed', `Could not finish: ${call.text || 'no reason given'}.`);
      return;
    default:
      emit.message(call.text);
  }
}
