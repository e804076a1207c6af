import type { A2aCardView, A2aInterfaceView, A2aProtocolVersion, A2aSecuritySchemeView, A2aSkillView } from '../../shared/a2a';

/** A card as served: untrusted JSON, so every read is defensive. */
export type RawCard = Record<string, unknown>;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

export function interfacesOf(raw: RawCard, version: A2aProtocolVersion): A2aInterfaceView[] {
  if (version === '1.0') {
    return (Array.isArray(raw.supportedInterfaces) ? raw.supportedInterfaces : []).filter(isRecord).map((i) => ({
      url: str(i.url),
      binding: str(i.protocolBinding).toUpperCase(),
      protocolVersion: str(i.protocolVersion),
    }));
  }
  const main: A2aInterfaceView = { url: str(raw.url), binding: (str(raw.preferredTransport) || 'JSONRPC').toUpperCase(), protocolVersion: str(raw.protocolVersion) };
  const extra = (Array.isArray(raw.additionalInterfaces) ? raw.additionalInterfaces : [])
    .filter(isRecord)
    .map((i) => ({ url: str(i.url), binding: str(i.transport).toUpperCase(), protocolVersion: main.protocolVersion }));
  const seen = new Set<string>();
  return [main, ...extra].filter((i) => {
    const key = `${i.binding} ${i.url}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function skillsOf(raw: RawCard): A2aSkillView[] {
  return (Array.isArray(raw.skills) ? raw.skills : []).filter(isRecord).map((s) => ({
    id: str(s.id),
    name: str(s.name),
    description: str(s.description),
    tags: strings(s.tags),
    examples: strings(s.examples),
  }));
}

/**
 * 1.0 cards name the scheme kind by a wrapper key (`{httpAuthSecurityScheme: {…}}`); 0.3 cards use a
 * `type` discriminator. Both end up as one view, with the fields auth needs kept apart from the label.
 */
export function securitySchemeOf(name: string, value: unknown): A2aSecuritySchemeView {
  if (!isRecord(value)) return { name, type: 'unknown', detail: 'not an object' };
  const [wrapper, inner] = Object.entries(value).find(([key]) => key.endsWith('SecurityScheme')) ?? [];
  const body = isRecord(inner) ? inner : value;
  const type = wrapper
    ? ({
        httpAuthSecurityScheme: 'http',
        apiKeySecurityScheme: 'apiKey',
        oauth2SecurityScheme: 'oauth2',
        openIdConnectSecurityScheme: 'openIdConnect',
        mtlsSecurityScheme: 'mutualTLS',
      } as const)[wrapper]
    : ({ http: 'http', apiKey: 'apiKey', oauth2: 'oauth2', openIdConnect: 'openIdConnect', mutualTLS: 'mutualTLS' } as const)[str(body.type)];
  switch (type) {
    case 'http': {
      const scheme = str(body.scheme).toLowerCase();
      return { name, type, detail: scheme || '(no scheme)', httpScheme: scheme };
    }
    case 'apiKey': {
      const location = str(body.location) || str(body.in);
      const paramName = str(body.name);
      return {
        name,
        type,
        detail: `${location || '(no location)'} ${paramName || '(no name)'}`,
        ...(location === 'header' || location === 'query' || location === 'cookie' ? { location } : {}),
        ...(paramName ? { paramName } : {}),
      };
    }
    case 'oauth2': {
      const flows = isRecord(body.flows) ? body.flows : {};
      const flowNames = Object.keys(flows);
      const cc = isRecord(flows.clientCredentials) ? flows.clientCredentials : undefined;
      const tokenUrl = cc ? str(cc.tokenUrl) : '';
      return {
        name,
        type,
        detail: flowNames.length ? flowNames.map((f) => (f === 'clientCredentials' && tokenUrl ? `${f} ${tokenUrl}` : f)).join(', ') : '(no flows)',
        flows: flowNames,
        ...(tokenUrl ? { tokenUrl } : {}),
        ...(cc && isRecord(cc.scopes) ? { scopes: Object.keys(cc.scopes) } : {}),
      };
    }
    case 'openIdConnect':
      return { name, type, detail: str(body.openIdConnectUrl) || '(no discovery URL)' };
    case 'mutualTLS':
      return { name, type, detail: 'client certificate' };
    default:
      return { name, type: 'unknown', detail: wrapper ?? (str(body.type) || 'no type') };
  }
}

/** Each requirement as the list of scheme names it needs together; 1.0 and 0.3 spell this differently. */
export function requirementsOf(holder: Record<string, unknown>, version: A2aProtocolVersion): string[][] {
  if (version === '1.0') {
    return (Array.isArray(holder.securityRequirements) ? holder.securityRequirements : [])
      .filter(isRecord)
      .map((r) => (isRecord(r.schemes) ? Object.keys(r.schemes) : []));
  }
  return (Array.isArray(holder.security) ? holder.security : []).filter(isRecord).map((r) => Object.keys(r));
}

export function toCardView(raw: RawCard, version: A2aProtocolVersion): A2aCardView {
  const caps = isRecord(raw.capabilities) ? raw.capabilities : {};
  return {
    name: str(raw.name),
    description: str(raw.description),
    version: str(raw.version),
    protocolVersion: version,
    interfaces: interfacesOf(raw, version),
    capabilities: {
      streaming: caps.streaming === true,
      pushNotifications: caps.pushNotifications === true,
      extendedAgentCard: caps.extendedAgentCard === true || raw.supportsAuthenticatedExtendedCard === true,
    },
    skills: skillsOf(raw),
    securitySchemes: Object.entries(isRecord(raw.securitySchemes) ? raw.securitySchemes : {}).map(([name, value]) => securitySchemeOf(name, value)),
    securityRequirements: requirementsOf(raw, version),
    signed: Array.isArray(raw.signatures) && raw.signatures.length > 0,
  };
}
