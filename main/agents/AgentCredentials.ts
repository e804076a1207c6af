import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { GatewayAgentName } from '../../shared/gateway';
import { Emitter } from '../platform/Emitter';
import { JsonFile } from '../platform/JsonFile';
import { watchFolder, type FolderWatch } from '../platform/watchFolder';

export const GATEWAY_AGENTS_FILE = 'gateway-agents.json';

const StoredAgent = z.object({
  name: GatewayAgentName,
  /** SHA-256 of the secret (hex). The secret is 256 random bits, so a plain hash cannot be reversed; the secret itself is shown once and never written. */
  secretSha256: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
  /** Set when revoked: the agent's credential opens nothing from then on. */
  revokedAt: z.string().optional(),
  /** The agent sees RockBot's four meta-tools instead of every granted tool (large catalogs). */
  metaTools: z.boolean().optional(),
});
type StoredAgent = z.infer<typeof StoredAgent>;

const AgentsFile = z.object({ agents: z.array(StoredAgent) });

export interface GatewayAgentView {
  name: string;
  createdAt: string;
  revokedAt?: string;
  metaTools?: boolean;
}

export type CredentialCheck = { ok: true; agent: string } | { ok: false; status: 401 | 403; reason: string };
export type CredentialHeaders = { authorization?: string; 'x-api-key'?: string | string[] };

/** What the gateway needs of a credential store: the data dir's, a cluster's, or both. */
export type GatewayCredentialCheck = Pick<AgentCredentials, 'check' | 'isLive' | 'onChange'>;

/** The NAME:SECRET a request presents (Authorization: Bearer, else x-api-key), or why it presents none (401). */
export function presentedCredential(headers: CredentialHeaders): { name: string; secret: string } | Extract<CredentialCheck, { ok: false }> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  const apiKey = typeof headers['x-api-key'] === 'string' ? headers['x-api-key'].trim() : undefined;
  const presented = bearer ?? apiKey;
  if (!presented) return { ok: false, status: 401, reason: 'An agent credential is required (Authorization: Bearer NAME:SECRET or x-api-key: NAME:SECRET).' };
  const colon = presented.indexOf(':');
  if (colon <= 0 || colon === presented.length - 1) return { ok: false, status: 401, reason: 'The credential is not of the form NAME:SECRET.' };
  return { name: presented.slice(0, colon), secret: presented.slice(colon + 1) };
}

/**
 * The agents the gateway lets in, and their credentials. Kept in the data dir as hashes only, so
 * the file never holds a usable secret; compared in constant time. Another process (the CLI's
 * `gateway token revoke`) may change the file while a gateway runs: every check reads the file
 * again when it changed, and `onChange` tells the gateway so it can end a revoked agent's sessions.
 */
export class AgentCredentials {
  private readonly file: JsonFile<typeof AgentsFile>;
  private agents = new Map<string, StoredAgent>();
  private loadedStamp = '';
  private watch?: FolderWatch;
  private readonly changes = new Emitter();

  constructor(private readonly dataDir: string) {
    this.file = new JsonFile(join(dataDir, GATEWAY_AGENTS_FILE), AgentsFile, () => ({ agents: [] }), { kind: 'gateway agents file' });
  }

  /** A new credential for `name` (replacing an earlier one of the same name): `NAME:SECRET`, shown once. */
  async create(name: string, options: { metaTools?: boolean } = {}): Promise<string> {
    const parsed = GatewayAgentName.safeParse(name);
    if (!parsed.success) throw new AppError('InvalidInput', `"${name}" is not a valid agent name: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
    const secret = randomBytes(32).toString('base64url');
    await this.file.update(({ agents }) => ({
      next: { agents: [...agents.filter((agent) => agent.name !== name), { name, secretSha256: sha256(secret), createdAt: new Date().toISOString(), ...(options.metaTools ? { metaTools: true } : {}) }] },
      result: undefined,
    }));
    // Heard once: here, unless the folder watch already read the new file and told the listeners.
    if (this.reload()) this.emit();
    return `${name}:${secret}`;
  }

  async list(): Promise<GatewayAgentView[]> {
    const { agents } = await this.file.read();
    return agents.map(({ name, createdAt, revokedAt, metaTools }) => ({ name, createdAt, ...(revokedAt ? { revokedAt } : {}), ...(metaTools ? { metaTools } : {}) }));
  }

  /** Revokes `name`'s credential; NotFound when no such agent has one. */
  async revoke(name: string): Promise<void> {
    const found = await this.file.update(({ agents }) => {
      const known = agents.some((agent) => agent.name === name && !agent.revokedAt);
      const revokedAt = new Date().toISOString();
      return { next: { agents: agents.map((agent) => (agent.name === name && !agent.revokedAt ? { ...agent, revokedAt } : agent)) }, result: known };
    });
    if (!found) throw new AppError('NotFound', `No agent named "${name}" has a live credential.`);
    if (this.reload()) this.emit();
  }

  /** Whether `name` holds a credential that is not revoked (read afresh when the file changed). */
  isLive(name: string): boolean {
    this.refresh();
    const agent = this.agents.get(name);
    return agent !== undefined && !agent.revokedAt;
  }

  /** Whether `name` was given the meta-tools instead of its tools. */
  metaTools(name: string): boolean {
    this.refresh();
    return this.agents.get(name)?.metaTools === true;
  }

  /**
   * The agent a request's credential names: `Authorization: Bearer NAME:SECRET`, else `x-api-key:
   * NAME:SECRET` (as cllama accepts them). 401 without a credential or with one of the wrong form;
   * 403 for an unknown agent, a wrong secret or a revoked credential — the same sentence for all
   * three, so a caller cannot learn which agents exist.
   */
  check(headers: CredentialHeaders): CredentialCheck {
    const presented = presentedCredential(headers);
    return 'name' in presented ? this.verify(presented.name, presented.secret) : presented;
  }

  verify(name: string, secret: string): CredentialCheck {
    this.refresh();
    const agent = this.agents.get(name);
    // Hash and compare even for an unknown name, so the answer takes as long either way.
    const expected = Buffer.from(agent?.secretSha256 ?? '0'.repeat(64), 'hex');
    const given = Buffer.from(sha256(secret), 'hex');
    const matches = timingSafeEqual(expected, given);
    if (!agent || !matches || agent.revokedAt) return { ok: false, status: 403, reason: 'The agent credential is not valid (unknown agent, wrong secret or revoked).' };
    return { ok: true, agent: name };
  }

  /** Called when the agents file changes (a credential created or revoked, here or by another process). */
  onChange(listener: () => void): () => void {
    if (!this.watch) {
      this.watch = watchFolder(this.dataDir, {
        onEvent: (name) => {
          if (name !== null && name !== GATEWAY_AGENTS_FILE) return;
          if (this.reload()) this.emit();
        },
      });
    }
    return this.changes.on(listener);
  }

  close(): void {
    this.watch?.close();
    this.watch = undefined;
    this.changes.clear();
  }

  private emit() {
    this.changes.emit();
  }

  /** Reads the file again when its size or time changed since the last read. */
  private refresh(): void {
    if (this.stamp() !== this.loadedStamp) this.reload();
  }

  /** Reads the file; true when what it says changed. A damaged file lets nobody in. */
  private reload(): boolean {
    const stamp = this.stamp();
    let next = new Map<string, StoredAgent>();
    try {
      const parsed = AgentsFile.safeParse(JSON.parse(readFileSync(this.file.path, 'utf8')));
      if (parsed.success) next = new Map(parsed.data.agents.map((agent) => [agent.name, agent]));
    } catch {
      // No file yet, or a damaged one: no agent is let in.
    }
    const changed = JSON.stringify([...next.values()]) !== JSON.stringify([...this.agents.values()]);
    this.agents = next;
    this.loadedStamp = stamp;
    return changed;
  }

  private stamp(): string {
    try {
      const info = statSync(this.file.path, { bigint: true });
      return `${info.mtimeNs}:${info.size}:${info.ino}`;
    } catch {
      return 'absent';
    }
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
