import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { editResourceText } from './editResourceText';

const file = `# Team tools. Keep the risky ones together.
apiVersion: orloj.dev/v1
kind: Tool
metadata:
  name: weather   # the public API
spec:
  # Reads only.
  risk_level: low
  capabilities:
  - forecast
  - alerts
  runtime: {timeout: 10s}
---
# Second: a permission.
apiVersion: orloj.dev/v1
kind: ToolPermission
metadata: { name: p }
spec:
  operation_rules:
    - { operation_class: write, verdict: deny }
`;

describe('editResourceText (yaml Document API)', () => {
  it('sets fields keeping comments, key order and the file style; other documents keep their exact bytes', () => {
    const edited = editResourceText(file, [
      { document: 0, path: ['spec', 'risk_level'], value: 'high' },
      { document: 0, path: ['spec', 'runtime', 'timeout'], value: '45s' },
      { document: 0, path: ['spec', 'runtime', 'retry', 'max_attempts'], value: 3 },
    ]);
    const [first, second] = edited.split(/^---$/m);
    expect(first).toBe(`# Team tools. Keep the risky ones together.
apiVersion: orloj.dev/v1
kind: Tool
metadata:
  name: weather # the public API
spec:
  # Reads only.
  risk_level: high
  capabilities:
  - forecast
  - alerts
  runtime: {timeout: 45s, retry: {max_attempts: 3}}
`);
    expect(`---${second}`).toBe(file.slice(file.indexOf('---\n# Second')));
  });

  it('removes fields and edits a later document, which keeps its separator and comments', () => {
    const edited = editResourceText(file, [{ document: 1, path: ['spec', 'operation_rules', 0, 'verdict'], value: 'approval_required' }, { document: 0, path: ['spec', 'capabilities'], remove: true }]);
    expect(edited).toContain('  risk_level: low\n  runtime: {timeout: 10s}\n---\n# Second: a permission.\n');
    expect(edited).toContain('metadata: { name: p }');
    expect(edited).toContain('    - { operation_class: write, verdict: approval_required }');
  });

  it('refuses to edit a document with YAML errors or one that does not exist', () => {
    expect(() => editResourceText('a: [1\n', [{ document: 0, path: ['a'], value: 1 }])).toThrow(/Document 0 has YAML errors/);
    expect(() => editResourceText(file, [{ document: 5, path: ['a'], value: 1 }])).toThrow(AppError);
  });
});
