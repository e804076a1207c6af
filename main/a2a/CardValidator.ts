import type { A2aCheckRow, A2aInterfaceView, A2aProtocolVersion } from '../../shared/a2a';
import type { ResolvedCard } from './AgentCardResolver';
import { isRecord, requirementsOf, type RawCard } from './cardView';
import { describeFetchFailure } from './errorMapping';

type FieldKind = 'string' | 'object' | 'array' | 'non-empty array';

const REQUIRED: Record<A2aProtocolVersion, Array<[string, FieldKind]>> = {
  '1.0': [
    ['name', 'string'],
    ['description', 'string'],
    ['supportedInterfaces', 'non-empty array'],
    ['version', 'string'],
    ['capabilities', 'object'],
    ['defaultInputModes', 'array'],
    ['defaultOutputModes', 'array'],
    ['skills', 'array'],
  ],
  '0.3': [
    ['name', 'string'],
    ['description', 'string'],
    ['url', 'string'],
    ['version', 'string'],
    ['protocolVersion', 'string'],
    ['capabilities', 'object'],
    ['defaultInputModes', 'array'],
    ['defaultOutputModes', 'array'],
    ['skills', 'array'],
  ],
};

const USABLE_BINDINGS = ['JSONRPC', 'HTTP+JSON'];

function hasKind(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value.trim() !== '';
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    case 'non-empty array':
      return Array.isArray(value) && value.length > 0;
  }
}

const row = (id: string, status: A2aCheckRow['status'], title: string, detail: string): A2aCheckRow => ({ id, status, title, detail });

/**
 * Checks a resolved card the way an operator would before wiring the agent in: required fields,
 * whether each interface answers at all, protocol versions, skills, security declarations and the
 * signature. Reachability costs one bounded request per interface; everything else is offline.
 */
export class CardValidator {
  constructor(private readonly options: { fetch?: typeof fetch; timeoutMs?: number } = {}) {}

  async validate(card: ResolvedCard, signal?: AbortSignal): Promise<A2aCheckRow[]> {
    const { raw, protocolVersion } = card;
    return [
      requiredFields(raw, protocolVersion),
      protocolVersionRow(card),
      interfacesRow(card.view.interfaces),
      ...(await Promise.all(card.view.interfaces.map((i, index) => this.reachability(i, index, signal)))),
      capabilitiesRow(card),
      ...skillRows(raw),
      ...securityRows(raw, protocolVersion),
      signatureRow(raw),
    ];
  }

  private async reachability(iface: A2aInterfaceView, index: number, signal?: AbortSignal): Promise<A2aCheckRow> {
    const id = `interface-reachable-${index}`;
    const title = `Interface ${index + 1} (${iface.binding || 'unknown binding'}) answers`;
    if (!/^https?:\/\//i.test(iface.url)) {
      return row(id, iface.binding === 'GRPC' ? 'warn' : 'fail', title, `${iface.url || '(no URL)'}: not checked, not an http(s) URL.`);
    }
    const timeoutMs = this.options.timeoutMs ?? 3000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const started = performance.now();
    try {
      // Any HTTP answer proves something listens there; a GET on a JSON-RPC endpoint is usually 404/405.
      const response = await (this.options.fetch ?? fetch)(iface.url, { method: 'GET', signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      await response.body?.cancel();
      const ms = Math.round(performance.now() - started);
      if (response.status >= 500) return row(id, 'warn', title, `${iface.url} answered HTTP ${response.status} in ${ms} ms.`);
      return row(id, 'pass', title, `${iface.url} answered HTTP ${response.status} in ${ms} ms.`);
    } catch (error) {
      if (timeout.aborted) return row(id, 'fail', title, `${iface.url} did not answer within ${timeoutMs} ms.`);
      return row(id, 'fail', title, `${iface.url} is unreachable: ${describeFetchFailure(error)}.`);
    }
  }
}

function requiredFields(raw: RawCard, version: A2aProtocolVersion): A2aCheckRow {
  const required = REQUIRED[version];
  const missing = required.filter(([field]) => raw[field] === undefined || raw[field] === null).map(([field]) => field);
  const wrong = required
    .filter(([field, kind]) => raw[field] !== undefined && raw[field] !== null && !hasKind(raw[field], kind))
    .map(([field, kind]) => `${field} (expected ${kind === 'string' ? 'a non-empty string' : kind === 'object' ? 'an object' : `a ${kind}`})`);
  const title = `Required fields of an A2A ${version} card`;
  if (missing.length === 0 && wrong.length === 0) return row('required-fields', 'pass', title, `All ${required.length} present: ${required.map(([f]) => f).join(', ')}.`);
  const parts = [missing.length ? `missing: ${missing.join(', ')}` : '', wrong.length ? `malformed: ${wrong.join(', ')}` : ''].filter(Boolean);
  return row('required-fields', 'fail', title, `${parts.join('; ')}.`);
}

function protocolVersionRow(card: ResolvedCard): A2aCheckRow {
  const title = 'Protocol version';
  if (card.protocolVersion === '1.0') {
    const versions = [...new Set(card.view.interfaces.map((i) => i.protocolVersion || '(none)'))];
    const unknown = versions.filter((v) => !/^(1\.0|0\.3)(\.\d+)?$/.test(v));
    if (unknown.length) return row('protocol-version', 'warn', title, `A2A 1.0 card; interface protocolVersion not recognized: ${unknown.join(', ')}.`);
    return row('protocol-version', 'pass', title, `A2A 1.0 card (supportedInterfaces); interfaces speak ${versions.join(', ')}.`);
  }
  const declared = typeof card.raw.protocolVersion === 'string' ? card.raw.protocolVersion : '';
  if (!declared) return row('protocol-version', 'warn', title, 'A2A 0.2-style card: url without protocolVersion; treated as 0.3.');
  if (!/^0\.3(\.\d+)?$/.test(declared)) return row('protocol-version', 'warn', title, `0.x card declaring protocolVersion ${declared}; treated as 0.3.`);
  return row('protocol-version', 'pass', title, `A2A ${declared} card (url, preferredTransport); spoken through the 0.3 compatibility layer.`);
}

function interfacesRow(interfaces: A2aInterfaceView[]): A2aCheckRow {
  const title = 'Interfaces this client can use';
  if (interfaces.length === 0) return row('interfaces', 'fail', title, 'The card declares no interface.');
  const listed = interfaces.map((i) => `${i.binding || '?'} ${i.url || '(no URL)'}`).join('; ');
  const usable = interfaces.filter((i) => USABLE_BINDINGS.includes(i.binding) && /^https?:\/\//i.test(i.url));
  if (usable.length === 0) return row('interfaces', 'fail', title, `None usable (JSON-RPC or HTTP+JSON over http(s) needed): ${listed}.`);
  const chosen = usable.find((i) => i.binding === 'JSONRPC') ?? usable[0]!;
  const insecure = usable.filter((i) => i.url.startsWith('http://') && !/^http:\/\/(127\.|localhost|\[::1\])/.test(i.url));
  if (insecure.length) return row('interfaces', 'warn', title, `Will use ${chosen.binding} ${chosen.url}; plain http to a remote host: ${insecure.map((i) => i.url).join(', ')}.`);
  return row('interfaces', 'pass', title, `Will use ${chosen.binding} ${chosen.url} (declared: ${listed}).`);
}

function capabilitiesRow(card: ResolvedCard): A2aCheckRow {
  const c = card.view.capabilities;
  const yesNo = (v: boolean) => (v ? 'yes' : 'no');
  return row(
    'capabilities',
    isRecord(card.raw.capabilities) ? 'pass' : 'fail',
    'Capabilities',
    `streaming: ${yesNo(c.streaming)}, push notifications: ${yesNo(c.pushNotifications)}, extended card: ${yesNo(c.extendedAgentCard)}.`,
  );
}

function skillRows(raw: RawCard): A2aCheckRow[] {
  if (!Array.isArray(raw.skills)) return [row('skills', 'fail', 'Skills', 'The card has no skills list.')];
  if (raw.skills.length === 0) return [row('skills', 'warn', 'Skills', 'The card declares no skills; nothing to call.')];
  const rows: A2aCheckRow[] = [];
  const ids = new Map<string, number>();
  raw.skills.forEach((skill, index) => {
    const label = isRecord(skill) && typeof skill.id === 'string' && skill.id ? skill.id : `#${index + 1}`;
    const problems: string[] = [];
    if (!isRecord(skill)) problems.push('not an object');
    else {
      for (const field of ['id', 'name', 'description'] as const) if (!hasKind(skill[field], 'string')) problems.push(`${field} missing or empty`);
      if (!Array.isArray(skill.tags) || skill.tags.length === 0) problems.push('tags missing or empty');
      else if (!skill.tags.every((t) => typeof t === 'string')) problems.push('tags must be strings');
      if (skill.examples !== undefined && !(Array.isArray(skill.examples) && skill.examples.every((e) => typeof e === 'string'))) {
        problems.push('examples must be a list of strings');
      }
      if (typeof skill.id === 'string') ids.set(skill.id, (ids.get(skill.id) ?? 0) + 1);
    }
    rows.push(
      row(
        `skill-${label}`,
        problems.length ? 'fail' : 'pass',
        `Skill ${label}`,
        problems.length ? `${problems.join('; ')}.` : `${(skill as { name: string }).name}: id, name, description and tags present.`,
      ),
    );
  });
  const duplicates = [...ids].filter(([, count]) => count > 1).map(([id]) => id);
  rows.unshift(
    duplicates.length
      ? row('skills', 'fail', 'Skills', `Skill ids must be unique; repeated: ${duplicates.join(', ')}.`)
      : row('skills', 'pass', 'Skills', `${raw.skills.length} skill(s) declared.`),
  );
  return rows;
}

function securityRows(raw: RawCard, version: A2aProtocolVersion): A2aCheckRow[] {
  const schemes = isRecord(raw.securitySchemes) ? raw.securitySchemes : {};
  const names = Object.keys(schemes);
  const malformed = names.filter((name) => !schemeWellFormed(schemes[name]));
  const schemesRow =
    raw.securitySchemes !== undefined && !isRecord(raw.securitySchemes)
      ? row('security-schemes', 'fail', 'Security schemes', 'securitySchemes must be an object keyed by scheme name.')
      : malformed.length
        ? row('security-schemes', 'fail', 'Security schemes', `Malformed: ${malformed.join(', ')} (unknown type or missing fields).`)
        : row('security-schemes', 'pass', 'Security schemes', names.length ? `Declared: ${names.join(', ')}.` : 'None declared: the agent takes unauthenticated calls.');
  const requirements = [
    ...requirementsOf(raw, version).map((r) => ({ where: 'card', names: r })),
    ...(Array.isArray(raw.skills) ? raw.skills : [])
      .filter(isRecord)
      .flatMap((s) => requirementsOf(s, version).map((r) => ({ where: `skill ${String(s.id)}`, names: r }))),
  ];
  const undeclared = requirements.flatMap((r) => r.names.filter((n) => !names.includes(n)).map((n) => `${n} (${r.where})`));
  const requirementsRow = undeclared.length
    ? row('security-requirements', 'fail', 'Security requirements name declared schemes', `Not declared in securitySchemes: ${undeclared.join(', ')}.`)
    : row(
        'security-requirements',
        'pass',
        'Security requirements name declared schemes',
        requirements.length ? `${requirements.length} requirement(s), all naming declared schemes.` : 'No security requirements.',
      );
  return [schemesRow, requirementsRow];
}

function schemeWellFormed(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const wrapper = Object.keys(value).find((k) => k.endsWith('SecurityScheme'));
  const body = wrapper ? value[wrapper] : value;
  if (!isRecord(body)) return false;
  const type = wrapper ?? body.type;
  switch (type) {
    case 'httpAuthSecurityScheme':
    case 'http':
      return hasKind(body.scheme, 'string');
    case 'apiKeySecurityScheme':
    case 'apiKey':
      return hasKind(body.name, 'string') && ['header', 'query', 'cookie'].includes(String(body.location ?? body.in));
    case 'oauth2SecurityScheme':
    case 'oauth2':
      return isRecord(body.flows) && Object.keys(body.flows).length > 0;
    case 'openIdConnectSecurityScheme':
    case 'openIdConnect':
      return hasKind(body.openIdConnectUrl, 'string');
    case 'mtlsSecurityScheme':
    case 'mutualTLS':
      return true;
    default:
      return false;
  }
}

function signatureRow(raw: RawCard): A2aCheckRow {
  const signatures = Array.isArray(raw.signatures) ? raw.signatures : [];
  if (signatures.length === 0) return row('signature', 'warn', 'Card signature', 'The card is not signed; its origin cannot be verified.');
  const wellFormed = signatures.every((s) => isRecord(s) && hasKind(s.protected, 'string') && hasKind(s.signature, 'string'));
  return wellFormed
    ? row('signature', 'pass', 'Card signature', `${signatures.length} JWS signature(s) present (not verified against a key).`)
    : row('signature', 'fail', 'Card signature', 'signatures present but malformed (each needs protected and signature).');
}
