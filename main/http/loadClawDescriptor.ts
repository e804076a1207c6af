import { fileURLToPath } from 'node:url';
import { AppError } from '../../shared/errors';
import { INPUT_LIMITS } from '../../shared/inputLimits';
import { decodeText, readBoundedStream, readBoundedText } from '../platform/readBounded';
import { parseClawDescriptor, type ClawDescriptor } from './ClawDescriptor';

export interface LoadedDescriptor {
  descriptor: ClawDescriptor;
  /** The origin of a descriptor fetched over HTTP: where its tools are called by default. */
  origin?: string;
}

/** Reads a descriptor from a file path, a file: URL or an http(s) URL, and validates it. */
export async function loadClawDescriptor(location: string, options: { fetch?: typeof fetch; signal?: AbortSignal } = {}): Promise<LoadedDescriptor> {
  const remote = /^https?:\/\//i.test(location);
  let text: string;
  try {
    if (remote) {
      const response = await (options.fetch ?? fetch)(location, { headers: { accept: 'application/json' }, signal: options.signal });
      if (!response.ok) throw new AppError('NotFound', `Cannot fetch claw.describe descriptor ${location}: HTTP ${response.status}.`);
      // Counted as it arrives: a server that streams without end is cut off at the limit.
      text = decodeText(await readBoundedStream(response.body, location, INPUT_LIMITS.clawDescriptor), location, INPUT_LIMITS.clawDescriptor);
    } else {
      text = await readBoundedText(location.startsWith('file:') ? fileURLToPath(location) : location, INPUT_LIMITS.clawDescriptor);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (remote) throw new AppError('ConnectionFailed', `Cannot fetch claw.describe descriptor ${location}: ${(error as Error).message}.`, { cause: error });
    throw new AppError(code === 'ENOENT' ? 'NotFound' : 'InvalidInput', `Cannot read claw.describe descriptor ${location}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError('InvalidInput', `Invalid claw.describe descriptor ${location}: not JSON (${(error as Error).message}).`);
  }
  return { descriptor: parseClawDescriptor(json, location), ...(remote ? { origin: new URL(location).origin } : {}) };
}
