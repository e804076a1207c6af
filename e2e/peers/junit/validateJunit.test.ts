import { describe, expect, it } from 'vitest';
import { validateJunit } from './validateJunit';

const wrap = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>${inner}</testsuites>`;

describe('validateJunit', () => {
  it('accepts a minimal report', () => {
    expect(validateJunit(wrap('<testsuite name="s" tests="1" failures="0" errors="0" time="0.1"><testcase name="c" classname="s" time="0.1"/></testsuite>')).name).toBe('testsuites');
  });

  it('rejects XML that is not well formed', () => {
    expect(() => validateJunit(wrap('<testsuite name="a & b" tests="0" failures="0" errors="0" time="0"></testsuite>'))).toThrow();
    expect(() => validateJunit(wrap('<testsuite name="s" tests="0" failures="0" errors="0" time="0">\u0001</testsuite>'))).toThrow();
  });

  it('rejects reports that break the schema rules', () => {
    expect(() => validateJunit(wrap('<testsuite name="s" tests="2" failures="0" errors="0" time="0"><testcase name="c" classname="s" time="0"/></testsuite>'))).toThrow('says tests="2" but has 1');
    expect(() => validateJunit(wrap('<testsuite name="s" tests="1" failures="1" errors="0" time="0"><testcase name="c" time="0"><failure/></testcase></testsuite>'))).toThrow(/lacks classname[\s\S]*<failure> lacks message/);
    expect(() => validateJunit(wrap('<testsuite name="s" tests="0" failures="0" errors="0" time="1,5"/>'))).toThrow('is malformed');
    expect(() => validateJunit('<testsuite/>')).toThrow('not <testsuites>');
  });
});
