import { createInterface } from 'node:readline/promises';
import type { InteractionAnswer, PendingInteraction } from '../../shared/mcp';
import type { InteractionBroker } from '../../main/mcp/InteractionBroker';
import type { CliIo } from './CliContext';
import { safeForTerminal, safeLines, terminalName } from './terminalText';

/** How the command line answers a server's elicitation and sampling requests. */
export interface TerminalAnswers {
  /** Accept every elicitation with this content (`--answer <json>`). */
  elicitation?: Record<string, unknown>;
  /** Reply to every sampling request with this text (`--reply <text>`). */
  sampling?: string;
  /** Decline what has no preset answer instead of asking (`--decline`, or no terminal). */
  decline?: boolean;
}

export interface TerminalOptions {
  io: CliIo;
  answers: TerminalAnswers;
  /** Where questions are read from when there is a terminal. */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/**
 * Answers the server's requests (elicitation, sampling — a task's input_required included) for a
 * command-line call: preset answers first, else questions on the terminal, else a decline with a
 * note on stderr, so a script never hangs on a question nobody sees. Returns the stop function.
 */
export function answerFromTerminal(broker: InteractionBroker, options: TerminalOptions): () => void {
  const { io, answers } = options;
  const input = options.input ?? process.stdin;
  const handled = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  const handle = (interaction: PendingInteraction) => {
    handled.add(interaction.id);
    queue = queue.then(async () => {
      const answer = await answerOne(interaction, answers, io, input);
      try {
        broker.answer(interaction.id, answer);
      } catch {
        // Withdrawn meanwhile (the server cancelled, or the connection closed).
      }
    });
  };
  const stop = broker.onChange((pending) => {
    for (const interaction of pending) if (!handled.has(interaction.id)) handle(interaction);
  });
  for (const interaction of broker.pending()) handle(interaction);
  return stop;
}

async function answerOne(interaction: PendingInteraction, answers: TerminalAnswers, io: CliIo, input: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<InteractionAnswer> {
  // Everything shown here is the server's: its name, its message, its URL, its fields and choices.
  const forTask = interaction.relatedTaskId ? ` (task ${safeForTerminal(interaction.relatedTaskId, 200)})` : '';
  if (interaction.kind === 'elicitation') {
    io.stderr(`${terminalName(interaction.server)} asks${forTask}: ${indented(interaction.message)}\n`);
    if (interaction.mode === 'url' && interaction.url) io.stderr(`  Open: ${safeForTerminal(interaction.url, 2_000)}\n`);
    if (answers.elicitation) return { kind: 'elicitation', action: 'accept', content: answers.elicitation };
    if (answers.decline || !input.isTTY) {
      io.stderr(`  Declined${answers.decline ? '' : ' (no terminal to answer on; pass --answer <json> to accept with content)'}\n`);
      return { kind: 'elicitation', action: 'decline' };
    }
    return { kind: 'elicitation', ...(await askFields(interaction.requestedSchema, input, io)) };
  }
  io.stderr(`${terminalName(interaction.server)} asks for a sampling reply${forTask}:\n${interaction.messages.map((m) => `  ${indented(describeMessage(m))}`).join('\n')}\n`);
  if (answers.sampling !== undefined) return { kind: 'sampling', action: 'reply', text: answers.sampling, model: 'operator' };
  if (answers.decline || !input.isTTY) {
    io.stderr(`  Rejected${answers.decline ? '' : ' (no terminal to answer on; pass --reply <text>)'}\n`);
    return { kind: 'sampling', action: 'reject', text: '', model: 'operator' };
  }
  const rl = createInterface({ input, output: process.stderr });
  try {
    const text = await rl.question('  Reply (empty to reject): ');
    return text ? { kind: 'sampling', action: 'reply', text, model: 'operator' } : { kind: 'sampling', action: 'reject', text: '', model: 'operator' };
  } finally {
    rl.close();
  }
}

/** One question per field of the requested schema; choices by number. Empty answer to the first question declines. */
async function askFields(schema: Record<string, unknown> | undefined, input: NodeJS.ReadableStream, io: CliIo): Promise<{ action: 'accept' | 'decline'; content?: Record<string, unknown> }> {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  const rl = createInterface({ input, output: process.stderr });
  const content: Record<string, unknown> = {};
  try {
    for (const [key, field] of Object.entries(properties)) {
      const choices = choicesOf(field);
      if (choices.length) choices.forEach((c, i) => io.stderr(`    ${i + 1}. ${safeForTerminal(c.title, 200)}\n`));
      // readline writes the question to the terminal itself, past the CLI's streams.
      const label = `  ${safeForTerminal(String(field.title ?? key), 200)}${required.has(key) ? '' : ' (optional)'}${choices.length ? ' [number]' : ''}: `;
      const raw = (await rl.question(label)).trim();
      if (!raw) {
        if (required.has(key) && Object.keys(content).length === 0) return { action: 'decline' };
        continue;
      }
      content[key] = choices.length ? (choices[Number(raw) - 1]?.value ?? raw) : coerce(raw, field.type);
    }
  } finally {
    rl.close();
  }
  return { action: 'accept', content };
}

function choicesOf(field: Record<string, unknown>): Array<{ value: unknown; title: string }> {
  if (Array.isArray(field.oneOf)) return (field.oneOf as Array<{ const?: unknown; title?: string }>).map((o) => ({ value: o.const, title: o.title ?? String(o.const) }));
  if (Array.isArray(field.enum)) return (field.enum as unknown[]).map((v, i) => ({ value: v, title: (field.enumNames as string[] | undefined)?.[i] ?? String(v) }));
  return [];
}

function coerce(raw: string, type: unknown): unknown {
  if (type === 'number' || type === 'integer') return Number(raw);
  if (type === 'boolean') return /^(y|yes|true|1)$/i.test(raw);
  return raw;
}

/** A server's multi-line text: made safe, each further line indented under the first so none passes for the CLI's own. */
function indented(text: string): string {
  return safeLines(text, 4_000).replace(/\n/g, '\n    ');
}

function describeMessage(message: unknown): string {
  const m = message as { role?: string; content?: { type?: string; text?: string } | Array<{ type?: string; text?: string }> };
  const parts = Array.isArray(m.content) ? m.content : [m.content];
  return `${m.role ?? '?'}: ${parts.map((p) => (p?.type === 'text' ? p.text : `[${p?.type ?? 'content'}]`)).join(' ')}`;
}
