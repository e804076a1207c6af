import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { issuesSentence } from '../../shared/issuesSentence';
import { appRouter } from './router';
import { nearValid } from '../testing/zodArbitrary';

/** Every procedure of the real router that takes input, with the zod schemas tRPC checks it against. */
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { inputs: z.ZodType[] } }>)
  .filter(([, procedure]) => procedure._def.inputs.length > 0)
  .map(([path, procedure]) => ({ path, schemas: procedure._def.inputs }));

/** tRPC parses a procedure's input through each of its schemas in turn; the first rejection is what the caller sees. */
async function check(path: string, schemas: z.ZodType[], input: unknown): Promise<boolean> {
  let value = input;
  for (const schema of schemas) {
    // Anything but a returned result — a TypeError from a refinement, a transform that throws — is a crash.
    const parsed = await schema.safeParseAsync(value);
    if (parsed.success) {
      value = parsed.data;
      continue;
    }
    const { issues } = parsed.error;
    expect(issues.length, path).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(typeof issue.message, path).toBe('string');
      expect(issue.message.trim(), `${path}: an issue without a message`).not.toBe('');
      expect(issue.message, path).not.toMatch(/\[object Object\]/);
    }
    // What the caller reads (main/rpc/trpc.ts formats every BAD_REQUEST with it): one line, short, no JSON dump.
    const sentence = issuesSentence(issues);
    expect(sentence, path).not.toMatch(/\n|^\s*\[\s*\{|^\s*\{|"code":/);
    expect(sentence.length, path).toBeLessThan(2_000);
    return false;
  }
  return true;
}

const procedureArb = fc.constantFrom(...procedures);
const nearValidByPath = new Map(procedures.map(({ path, schemas }) => [path, nearValid(schemas[0]!)]));

describe('tRPC input schemas against generated input (fast-check)', () => {
  it('the router has procedures with input to test', () => {
    expect(procedures.length).toBeGreaterThan(50);
  });

  // 10,000 inputs in all: 5,000 arbitrary values, 5,000 near-valid objects.
  it('arbitrary JSON and JavaScript values never crash a schema, and every rejection reads as a sentence', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(procedureArb, fc.oneof(fc.jsonValue(), fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true })), ({ path, schemas }, input) =>
        check(path, schemas, input).then(() => undefined),
      ),
      { numRuns: 5_000 },
    );
  });

  it('near-valid objects (the schema\'s own keys, enum members, contract-shaped strings, a wrong value here and there) never crash a schema either', { timeout: 120_000 }, async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(
        procedureArb.chain(({ path, schemas }) => nearValidByPath.get(path)!.map((input) => ({ path, schemas, input }))),
        async ({ path, schemas, input }) => {
          if (await check(path, schemas, input)) accepted++;
        },
      ),
      { numRuns: 5_000 },
    );
    // Near-valid means many get past every check, into the refinements and defaults, not stopped at the first field.
    console.log(`near-valid inputs accepted: ${accepted} of 5000`);
    expect(accepted).toBeGreaterThan(250);
  });
});
