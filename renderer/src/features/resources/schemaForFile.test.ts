import { describe, expect, it } from 'vitest';
import { schemaForFile } from './schemaForFile';

describe('schemaForFile', () => {
  it('tells files apart by name as the backend does', () => {
    const schemas = { document: 'document', descriptor: 'descriptor', pod: 'pod', evalSuite: 'evalSuite' };
    expect(['tools.yaml', 'a.claw-describe.json', 'agents.claw-pod.yml', 'evals/sums.yml', 'evals/team/x.yaml', 'other/evals/x.yml'].map((path) => schemaForFile(path, schemas))).toEqual(['document', 'descriptor', 'pod', 'evalSuite', 'evalSuite', 'document']);
  });
});
