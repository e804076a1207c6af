import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Diagnostic } from '../../shared/resources/diagnostics';
import { asFileText, mutated, yamlSoup } from '../testing/mutations';
import { documentDiagnostics, indexByIdentity } from './duplicateDiagnostics';
import { parseResourceText } from './parseResourceText';

const examples = join(import.meta.dirname, '../../examples/workspace');
/** Every document of the example workspace and a Clawdapus descriptor: the seeds that get mutated. */
const seeds = [
  ...readdirSync(examples, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .flatMap((entry) => parseAllDocuments(readFileSync(join(entry.parentPath, entry.name), 'utf8')).map((doc) => doc.toJS())),
  JSON.parse(readFileSync(join(import.meta.dirname, '../http/testing/trading-api.claw-describe.json'), 'utf8')),
];
const fileNames = fc.constantFrom(undefined, 'tools.yaml', 'agents.claw-pod.yml', 'trading-api.claw-describe.json');

/** What the workspace and `tooldeck validate` do with a file, checked for crashes and for readable diagnostics. */
function check(text: string, fileName: string | undefined) {
  const documents = parseResourceText(text, { fileName });
  const index = indexByIdentity(documents.map((doc) => ({ ...doc, file: fileName ?? 'text.yaml' })));
  for (const doc of documents) {
    const diagnostics = [...doc.diagnostics, ...documentDiagnostics(fileName ?? 'text.yaml', doc, index)];
    for (const diagnostic of diagnostics) {
      // Every rejection is a clear error: a diagnostic of the contract, with a message and a place.
      expect(Diagnostic.safeParse(diagnostic).success, JSON.stringify(diagnostic)).toBe(true);
      expect(diagnostic.message.trim()).not.toBe('');
      expect(diagnostic.message).not.toMatch(/\[object Object\]/);
    }
    expect(doc.valid).toBe(!doc.diagnostics.some((d) => d.severity === 'error'));
    if (doc.valid && doc.identity) expect(doc.stored).toBeDefined();
  }
}

// 10,000 inputs in all, across three tests.
describe('the YAML resource parser against generated files (fast-check)', () => {
  it('never crashes on arbitrary text (unicode, binary, control characters)', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 200 })), fileNames, check),
      { numRuns: 3_000 },
    );
  });

  it('never crashes on YAML syntax in random order (anchors, aliases, tags, flow and block scalars)', { timeout: 60_000 }, () => {
    fc.assert(fc.property(yamlSoup, fileNames, check), { numRuns: 2_000 });
  });

  it('reports near-valid resources (the examples with random edits, as YAML or JSON) with a diagnostic for each problem', { timeout: 120_000 }, () => {
    let valid = 0;
    fc.assert(
      fc.property(asFileText(mutated(seeds)), fileNames, (text, fileName) => {
        check(text, fileName);
        if (parseResourceText(text, { fileName }).every((doc) => doc.valid)) valid++;
      }),
      { numRuns: 5_000 },
    );
    // Edits that break nothing (an optional field removed) keep a document valid: both paths are covered.
    console.log(`near-valid resource files without errors: ${valid} of 5000`);
    expect(valid).toBeGreaterThan(100);
    expect(valid).toBeLessThan(4_900);
  });
});
