import { SaxesParser } from 'saxes';

/** An element of the parsed report. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const DECIMAL = /^\d+(\.\d+)?$/;
const COUNT = /^\d+$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const TESTCASE_CHILDREN = new Set(['skipped', 'error', 'failure', 'system-out', 'system-err']);
const SUITE_CHILDREN = new Set(['properties', 'testcase', 'system-out', 'system-err']);

/**
 * Parses a JUnit XML report with a strict XML parser (saxes: well-formedness, entities, the XML 1.0
 * character set) and checks it against the rules of the JUnit schema CI servers read (the
 * Jenkins/Ant junit XSD): element nesting, required attributes, number and timestamp formats, and
 * counts that agree with the test cases. No XSD validator is installed here, so the schema's rules
 * are written out below. Throws with every problem found; returns the document on success.
 */
export function validateJunit(xml: string): XmlElement {
  const root = parseXml(xml);
  const problems: string[] = [];
  const need = (el: XmlElement, attr: string, pattern?: RegExp) => {
    const value = el.attributes[attr];
    if (value === undefined) problems.push(`<${el.name}> lacks ${attr}`);
    else if (pattern && !pattern.test(value)) problems.push(`<${el.name} ${attr}="${value}"> is malformed`);
  };

  if (root.name !== 'testsuites') problems.push(`the root is <${root.name}>, not <testsuites>`);
  for (const attr of ['tests', 'failures', 'errors', 'skipped']) if (root.attributes[attr] !== undefined) need(root, attr, COUNT);
  if (root.attributes.time !== undefined) need(root, 'time', DECIMAL);
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };

  for (const suite of root.children) {
    if (suite.name !== 'testsuite') {
      problems.push(`<testsuites> holds <${suite.name}>`);
      continue;
    }
    need(suite, 'name');
    need(suite, 'tests', COUNT);
    need(suite, 'failures', COUNT);
    need(suite, 'errors', COUNT);
    need(suite, 'time', DECIMAL);
    if (suite.attributes.skipped !== undefined) need(suite, 'skipped', COUNT);
    if (suite.attributes.timestamp !== undefined) need(suite, 'timestamp', TIMESTAMP);
    const counted = { tests: 0, failures: 0, errors: 0, skipped: 0 };
    for (const child of suite.children) {
      if (!SUITE_CHILDREN.has(child.name)) problems.push(`<testsuite> holds <${child.name}>`);
      if (child.name === 'properties') {
        for (const property of child.children) {
          if (property.name !== 'property') problems.push(`<properties> holds <${property.name}>`);
          need(property, 'name');
          need(property, 'value');
        }
      }
      if (child.name !== 'testcase') continue;
      counted.tests++;
      need(child, 'name');
      need(child, 'classname');
      need(child, 'time', DECIMAL);
      const kinds = new Set(child.children.map((c) => c.name));
      for (const kind of kinds) if (!TESTCASE_CHILDREN.has(kind)) problems.push(`<testcase> holds <${kind}>`);
      for (const outcome of child.children.filter((c) => c.name === 'failure' || c.name === 'error')) need(outcome, 'message');
      if (kinds.has('skipped') && (kinds.has('failure') || kinds.has('error'))) problems.push(`testcase "${child.attributes.name}" is both skipped and failed`);
      if (kinds.has('error')) counted.errors++;
      else if (kinds.has('failure')) counted.failures++;
      else if (kinds.has('skipped')) counted.skipped++;
    }
    for (const key of ['tests', 'failures', 'errors', 'skipped'] as const) {
      const declared = suite.attributes[key];
      if (declared !== undefined && Number(declared) !== counted[key]) problems.push(`testsuite "${suite.attributes.name}" says ${key}="${declared}" but has ${counted[key]}`);
      totals[key] += counted[key];
    }
  }
  for (const key of ['tests', 'failures', 'errors', 'skipped'] as const) {
    const declared = root.attributes[key];
    if (declared !== undefined && Number(declared) !== totals[key]) problems.push(`testsuites says ${key}="${declared}" but has ${totals[key]}`);
  }
  if (problems.length) throw new Error(`Not a valid JUnit report:\n${problems.join('\n')}`);
  return root;
}

function parseXml(xml: string): XmlElement {
  const parser = new SaxesParser();
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, attributes: tag.attributes as Record<string, string>, children: [], text: '' };
    if (stack.length) stack[stack.length - 1]!.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('text', (text) => {
    if (stack.length) stack[stack.length - 1]!.text += text;
  });
  parser.write(xml).close();
  if (!root) throw new Error('The report has no root element');
  return root;
}

/** Every element named `name` below `from`, depth first. */
export function elements(from: XmlElement, name: string): XmlElement[] {
  return from.children.flatMap((child) => [...(child.name === name ? [child] : []), ...elements(child, name)]);
}
