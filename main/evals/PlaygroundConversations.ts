import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { JsonFile } from '../platform/JsonFile';

export const CONVERSATIONS_FILE = 'playground-conversations.json';
/** Conversations kept (the most recently saved). */
export const CONVERSATIONS_KEPT = 50;
/** One conversation's turns as the console keeps them, at most (a turn's results are already capped). */
const MAX_CONVERSATION_BYTES = 2 * 1024 * 1024;

/** What the Playground was set to: the models, the tool set, the system prompt. */
export const PlaygroundSetup = z.object({
  model: z.string().max(300),
  compare: z.array(z.string().max(300)).max(3),
  agent: z.string().max(200).nullable(),
  tools: z.array(z.string().max(1000)).max(200),
  system: z.string().max(100_000),
  execute: z.boolean(),
});
export type PlaygroundSetup = z.infer<typeof PlaygroundSetup>;

export const PlaygroundConversation = z.object({
  id: z.string().min(1).max(100),
  /** The first message, cut: what the list shows. */
  title: z.string().max(200),
  updatedAt: z.number(),
  setup: PlaygroundSetup,
  /** The turns as the Playground draws them (messages, each model's rounds and answer); opaque here. */
  turns: z.array(z.unknown()).max(500),
});
export type PlaygroundConversation = z.infer<typeof PlaygroundConversation>;

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: number;
  turns: number;
  models: string[];
}

const ConversationsFile = z.object({ conversations: z.array(PlaygroundConversation) });

/**
 * The Playground's saved conversations, in the data dir (one file, written the project's one way):
 * the newest 50, each with its setup, so reopening one shows what was asked, what each model
 * called and answered, and lets the conversation go on.
 */
export class PlaygroundConversations {
  private readonly file: JsonFile<typeof ConversationsFile>;

  constructor(dataDir: string) {
    // A file that does not parse loses the saved conversations, not the Playground.
    this.file = new JsonFile(join(dataDir, CONVERSATIONS_FILE), ConversationsFile, () => ({ conversations: [] }), { kind: 'playground conversations file', whenInvalid: 'empty' });
  }

  async list(): Promise<ConversationSummary[]> {
    return (await this.file.read()).conversations.map((conversation) => ({
      id: conversation.id,
      title: conversation.title,
      updatedAt: conversation.updatedAt,
      turns: conversation.turns.length,
      models: [conversation.setup.model, ...conversation.setup.compare].filter(Boolean),
    }));
  }

  async get(id: string): Promise<PlaygroundConversation> {
    const found = (await this.file.read()).conversations.find((conversation) => conversation.id === id);
    if (!found) throw new AppError('NotFound', 'No saved conversation with that id (it may have been deleted, or pushed out by 50 newer ones).');
    return found;
  }

  async save(input: Omit<PlaygroundConversation, 'updatedAt'>): Promise<ConversationSummary> {
    if (Buffer.byteLength(JSON.stringify(input.turns)) > MAX_CONVERSATION_BYTES) throw new AppError('InvalidInput', `The conversation is over ${MAX_CONVERSATION_BYTES / 1024 / 1024} MiB; start a new one.`);
    const saved: PlaygroundConversation = { ...input, title: input.title.slice(0, 200), updatedAt: Date.now() };
    await this.file.update(({ conversations }) => ({ next: { conversations: [saved, ...conversations.filter((item) => item.id !== saved.id)].slice(0, CONVERSATIONS_KEPT) }, result: undefined }));
    return { id: saved.id, title: saved.title, updatedAt: saved.updatedAt, turns: saved.turns.length, models: [saved.setup.model, ...saved.setup.compare].filter(Boolean) };
  }

  async remove(id: string): Promise<void> {
    await this.file.update(({ conversations }) => ({ next: { conversations: conversations.filter((item) => item.id !== id) }, result: undefined }));
  }
}
