import type { LintFinding, LintSeverity, ToolDefinition } from '../../../shared/lock';
import { revealText, revealedString, type HiddenKind, type RevealedPart } from '../../../shared/revealText';
import {
  ASKS_FOR_CONVERSATION,
  defaultSeverity,
  MODEL_INSTRUCTIONS,
  SECRET_REQUEST,
  SENSITIVE_PATHS,
  SIDE_CHANNEL_NAMES,
  STEERS_OTHER_TOOL,
  type LintRuleId,
} from './lintRules';

export interface LintContext {
  /** Names of tools of other sources and of the sources themselves (servers, agents): a description naming them may be shadowing them. */
  otherNames?: readonly string[];
}

/** A piece of text the model reads, and where it sits. */
interface Text {
  tool: string;
  location: string;
  value: string;
  /** Names and titles: where look-alike letters impersonate another tool. */
  identifier?: boolean;
  /** A description or title (URL and length rules apply to those, not to enum values or patterns). */
  prose?: boolean;
}

/** A text read once: its characters revealed, and what it says with the hidden ones taken out. */
interface ReadText extends Text {
  parts: RevealedPart[];
  visible: string;
}

function read(text: Text): ReadText {
  const parts = revealText(text.value);
  return { ...text, parts, visible: visibleOf(parts) };
}

const EXCERPT_CHARS = 100;
const SEVERITY_RANK: Record<LintSeverity, number> = { high: 0, medium: 1, low: 2 };
const OUTLIER_FACTOR = 4;
const OUTLIER_MIN_CHARS = 600;
const ABSOLUTE_MAX_CHARS = 5_000;
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{40,}={0,2}/g;
const URL_PATTERN = /\b(?:https?|ftp|wss?):\/\/[^\s<>"'`)\]]+|\bdata:[a-z]+\/[a-z0-9.+-]+[;,][^\s"'`)]{8,}/gi;

/**
 * Lints one source's tool definitions for signs of tool poisoning: hidden characters, instructions
 * aimed at the model, requests for secrets, references to other tools, side-channel parameters and
 * outliers among the source's own tools. Every string a model reads is checked: name, title,
 * description, and every string inside the input and output schemas.
 */
export function lintTools(tools: readonly ToolDefinition[], context: LintContext = {}): LintFinding[] {
  const findings: LintFinding[] = [];
  const names = nameIndex([...tools.map((tool) => tool.name), ...(context.otherNames ?? [])]);
  for (const tool of tools) {
    const texts = textsOf(tool).map(read);
    for (const text of texts) {
      hiddenCharacters(text, findings);
      instructions(text, findings);
      secrets(text, findings);
      if (text.prose) urlsAndBlobs(text, findings);
      if (text.prose || text.location.endsWith('/description')) references(text, names, tool.name, findings);
    }
    sideChannels(tool, findings);
  }
  lengthOutliers(tools, findings);
  return dedupe(findings).sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.tool.localeCompare(b.tool) || a.rule.localeCompare(b.rule) || a.location.localeCompare(b.location));
}

/** True when any finding is high: what makes `tooldeck lint` exit 1. */
export function hasHighFinding(findings: readonly LintFinding[]): boolean {
  return findings.some((finding) => finding.severity === 'high');
}

function textsOf(tool: ToolDefinition): Text[] {
  const texts: Text[] = [{ tool: tool.name, location: 'name', value: tool.name, identifier: true }];
  if (tool.title) texts.push({ tool: tool.name, location: 'title', value: tool.title, identifier: true, prose: true });
  if (tool.description) texts.push({ tool: tool.name, location: 'description', value: tool.description, prose: true });
  for (const [field, schema] of [['inputSchema', tool.inputSchema], ['outputSchema', tool.outputSchema]] as const) {
    if (schema) walkStrings(schema, field, (location, value, isKey) => texts.push({ tool: tool.name, location, value, ...(isKey ? { identifier: true } : {}), ...(/\/(description|title)$/.test(location) ? { prose: true } : {}) }));
  }
  annotationStrings(tool, texts);
  return texts;
}

function annotationStrings(tool: ToolDefinition, texts: Text[]) {
  for (const [key, value] of Object.entries(tool.annotations ?? {})) if (typeof value === 'string') texts.push({ tool: tool.name, location: `annotations/${key}`, value, prose: true });
}

/** Every string value in a JSON value, and every object key (property names are read by the model too). */
function walkStrings(value: unknown, path: string, visit: (location: string, value: string, isKey: boolean) => void, depth = 0) {
  if (depth > 64) return;
  if (typeof value === 'string') return visit(path, value, false);
  if (Array.isArray(value)) return value.forEach((item, index) => walkStrings(item, `${path}/${index}`, visit, depth + 1));
  if (!value || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (path.endsWith('/properties')) visit(`${at} (name)`, key, true);
    walkStrings(inner, at, visit, depth + 1);
  }
}

const HIDDEN_RULE: Record<Exclude<HiddenKind, 'confusable'>, LintRuleId> = {
  tag: 'tag-characters',
  bidi: 'bidi-controls',
  'zero-width': 'zero-width',
  invisible: 'invisible-characters',
  control: 'invisible-characters',
  'ill-formed': 'invisible-characters',
};

function hiddenCharacters(text: ReadText, findings: LintFinding[]) {
  const parts = text.parts;
  const seen = new Set<string>();
  for (const part of parts) {
    const hidden = part.hidden;
    if (!hidden) continue;
    if (hidden.kind === 'confusable') {
      const key = `confusable`;
      if (seen.has(key)) continue;
      seen.add(key);
      const severity: LintSeverity = text.identifier ? 'high' : 'medium';
      findings.push(finding('confusable-characters', text, `${where(text)} has letters posing as others (${hidden.codePoint} ${hidden.name})`, revealedString(text.value), severity));
      continue;
    }
    const rule = HIDDEN_RULE[hidden.kind];
    if (seen.has(rule)) continue;
    seen.add(rule);
    // Bidi marks (LRM, RLM, ALM) steer neutral characters only; overrides and isolates reorder text.
    const severity: LintSeverity = hidden.kind === 'bidi' && /MARK$/.test(hidden.name) ? 'medium' : hidden.name === 'PRIVATE USE CHARACTER' ? 'medium' : defaultSeverity(rule);
    const message =
      hidden.kind === 'tag' && hidden.decoded
        ? `${where(text)} hides text in Unicode tag characters: ${JSON.stringify(hidden.decoded)}`
        : `${where(text)} contains ${hidden.codePoint} ${hidden.name}`;
    findings.push(finding(rule, text, message, revealedString(text.value), severity));
  }
}

function instructions(text: ReadText, findings: LintFinding[]) {
  // Hidden characters must not split a phrase out of the patterns' sight.
  const visible = text.visible;
  for (const rule of MODEL_INSTRUCTIONS) {
    const match = rule.pattern.exec(visible);
    if (match) {
      findings.push(finding('model-instructions', text, `${where(text)} ${rule.what}: "${match[0]}"`, excerpt(visible, match.index, match[0].length), rule.severity));
      break;
    }
  }
  const comment = /<!--([\s\S]*?)(-->|$)/.exec(visible);
  if (comment) {
    const instructs = MODEL_INSTRUCTIONS.some((rule) => rule.severity === 'high' && rule.pattern.test(comment[1] ?? ''));
    findings.push(finding('hidden-markup', text, `${where(text)} has an HTML comment, which rendered Markdown hides from people`, excerpt(visible, comment.index, comment[0].length), instructs ? 'high' : 'medium'));
  }
}

function secrets(text: ReadText, findings: LintFinding[]) {
  const visible = text.visible;
  for (const path of SENSITIVE_PATHS) {
    const match = path.pattern.exec(visible);
    if (match) {
      findings.push(finding('secret-requests', text, `${where(text)} refers to ${path.what}`, excerpt(visible, match.index, match[0].length)));
      return;
    }
  }
  const request = SECRET_REQUEST.exec(visible);
  if (request) findings.push(finding('secret-requests', text, `${where(text)} asks for secrets: "${request[0]}"`, excerpt(visible, request.index, request[0].length)));
}

function urlsAndBlobs(text: ReadText, findings: LintFinding[]) {
  const visible = text.visible;
  for (const match of visible.matchAll(URL_PATTERN)) {
    const url = match[0];
    const leaks = /^data:/i.test(url) || /[?&][^=\s]+=|\{[^}]*\}|\$\{|%s/.test(url) || /^\w+:\/\/(\d{1,3}\.){3}\d{1,3}/.test(url);
    findings.push(finding('urls', text, `${where(text)} has a URL${leaks ? ' that could carry data out' : ''}: ${url.slice(0, 120)}`, excerpt(visible, match.index, url.length), leaks ? 'medium' : 'low'));
    break;
  }
  // A URL's path is not a blob; URLs have their own finding.
  const withoutUrls = visible.replace(URL_PATTERN, (url) => ' '.repeat(url.length));
  for (const match of withoutUrls.matchAll(BASE64_RUN)) {
    const run = match[0];
    // A long identifier or word is not a blob: it takes letters of both cases and digits.
    if (!/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/[0-9]/.test(run)) continue;
    const decoded = decodeBase64(run);
    const readable = decoded !== undefined && decoded.length >= 20 && /^[\x20-\x7e\t\n\r]+$/.test(decoded);
    findings.push(
      finding('encoded-blobs', text, readable ? `${where(text)} has base64 that decodes to text: ${JSON.stringify(decoded!.slice(0, 120))}` : `${where(text)} has a ${run.length}-character encoded blob`, excerpt(visible, match.index, run.length), readable ? 'high' : 'medium'),
    );
    break;
  }
}

/** Distinctive names by their lower case: looked up per word of a text, not searched for one by one. */
function nameIndex(names: readonly string[]): Map<string, string> {
  const index = new Map<string, string>();
  for (const name of names) if (distinctive(name)) index.set(name.toLowerCase(), name);
  return index;
}

const WORDS = /[\p{L}\p{N}_.-]+/gu;

function references(text: ReadText, names: ReadonlyMap<string, string>, self: string, findings: LintFinding[]) {
  if (names.size === 0) return;
  const visible = text.visible;
  for (const match of visible.matchAll(WORDS)) {
    // A name at the end of a sentence carries its full stop; a dotted name keeps its inner dots.
    const word = match[0].replace(/[.-]+$/, '');
    const name = names.get(word.toLowerCase());
    if (!name || name === self) continue;
    const sentence = sentenceAround(visible, match.index);
    const steers = STEERS_OTHER_TOOL.test(sentence);
    findings.push(finding('tool-references', text, `${where(text)} names another tool or server, ${name}${steers ? ', and tells the model how to use it' : ''}`, excerpt(visible, match.index, word.length), steers ? 'high' : 'medium'));
    return;
  }
}

function sideChannels(tool: ToolDefinition, findings: LintFinding[]) {
  const properties = (tool.inputSchema as { properties?: unknown }).properties;
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return;
  for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
    const description = typeof (schema as { description?: unknown } | null)?.description === 'string' ? stripHidden((schema as { description: string }).description) : '';
    const normalized = name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase().replace(/-/g, '_');
    const byName = SIDE_CHANNEL_NAMES.find((candidate) => candidate.pattern.test(normalized));
    const asks = ASKS_FOR_CONVERSATION.exec(description);
    if (!byName && !asks) continue;
    const location = `inputSchema/properties/${name}`;
    const text: Text = { tool: tool.name, location, value: description || name };
    if (asks) findings.push(finding('side-channel-parameters', text, `parameter ${name} asks for the conversation: "${asks[0]}"`, excerpt(description, asks.index, asks[0].length), 'high'));
    else findings.push(finding('side-channel-parameters', text, `parameter ${name} invites a side channel`, undefined, byName!.strong ? 'medium' : 'low'));
  }
}

function lengthOutliers(tools: readonly ToolDefinition[], findings: LintFinding[]) {
  const lengths = tools.map((tool) => (tool.description ?? '').length);
  for (const [index, tool] of tools.entries()) {
    const length = lengths[index]!;
    const peers = lengths.filter((_, other) => other !== index);
    const median = medianOf(peers);
    const text: Text = { tool: tool.name, location: 'description', value: tool.description ?? '' };
    if (peers.length >= 2 && length >= OUTLIER_MIN_CHARS && length >= OUTLIER_FACTOR * Math.max(median, 1)) {
      findings.push(finding('length-outlier', text, `description is ${length} characters, ${Math.round(length / Math.max(median, 1))}× the median of its ${peers.length} peers (${Math.round(median)})`));
    } else if (length >= ABSOLUTE_MAX_CHARS) {
      findings.push(finding('length-outlier', text, `description is ${length} characters long`));
    }
  }
}

function finding(rule: LintRuleId, text: Pick<Text, 'tool' | 'location'>, message: string, excerptText?: string, severity: LintSeverity = defaultSeverity(rule)): LintFinding {
  return { rule, severity, tool: text.tool, location: text.location, message, ...(excerptText !== undefined ? { excerpt: cut(excerptText) } : {}) };
}

function where(text: Text): string {
  if (text.location === 'name') return 'the name';
  if (text.location === 'title') return 'the title';
  if (text.location === 'description') return 'the description';
  return text.location;
}

function excerpt(text: string, at: number, length: number): string {
  const start = Math.max(0, at - 30);
  const end = Math.min(text.length, at + length + 30);
  return `${start > 0 ? '…' : ''}${revealedString(text.slice(start, end))}${end < text.length ? '…' : ''}`;
}

function cut(text: string): string {
  return text.length <= EXCERPT_CHARS * 2 ? text : `${text.slice(0, EXCERPT_CHARS * 2)}…`;
}

/** The text without what a reader cannot see, so "ig\u200Bnore previous instructions" still matches. */
function stripHidden(text: string): string {
  return visibleOf(revealText(text));
}

function visibleOf(parts: readonly RevealedPart[]): string {
  return parts
    .map((part) => (!part.hidden ? part.text : part.hidden.kind === 'confusable' ? (part.hidden.decoded ?? part.text) : part.hidden.kind === 'tag' ? ` ${part.hidden.decoded ?? ''} ` : ''))
    .join('');
}

/** Names worth matching: not an ordinary word a description would use anyway (`add`, `echo`, `time`). */
function distinctive(name: string): boolean {
  if (name.length < 4) return false;
  return /[_\-.\d]/.test(name) || /[a-z][A-Z]/.test(name) || name.length >= 12;
}

function sentenceAround(text: string, at: number): string {
  const start = Math.max(text.lastIndexOf('.', at - 1), text.lastIndexOf('\n', at - 1)) + 1;
  const ends = [text.indexOf('. ', at), text.indexOf('\n', at)].filter((index) => index >= 0);
  return text.slice(start, ends.length ? Math.min(...ends) : text.length);
}

function decodeBase64(run: string): string | undefined {
  try {
    return Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
  } catch {
    return undefined;
  }
}

function medianOf(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** One finding per rule, tool and location: a text with ten zero-width spaces is one problem. */
function dedupe(findings: LintFinding[]): LintFinding[] {
  const best = new Map<string, LintFinding>();
  for (const item of findings) {
    const key = `${item.rule}\0${item.tool}\0${item.location}`;
    const existing = best.get(key);
    if (!existing || SEVERITY_RANK[item.severity] < SEVERITY_RANK[existing.severity]) best.set(key, item);
  }
  return [...best.values()];
}
