/**
 * Card fields the normalized view leaves out (provider, links, input/output modes), read defensively
 * from the card as served: it comes from a remote agent and may be malformed.
 */
export interface RawCardExtras {
  provider?: { organization?: string; url?: string };
  documentationUrl?: string;
  iconUrl?: string;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skillModes: Record<string, { inputModes: string[]; outputModes: string[] }>;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

export function rawCardExtras(raw: unknown): RawCardExtras {
  const card = record(raw) ?? {};
  const provider = record(card.provider);
  const organization = text(provider?.organization);
  const providerUrl = text(provider?.url);
  const skillModes: RawCardExtras['skillModes'] = {};
  for (const skill of Array.isArray(card.skills) ? card.skills : []) {
    const s = record(skill);
    const id = text(s?.id);
    if (id) skillModes[id] = { inputModes: strings(s?.inputModes), outputModes: strings(s?.outputModes) };
  }
  const documentationUrl = text(card.documentationUrl);
  const iconUrl = text(card.iconUrl);
  return {
    ...(organization || providerUrl ? { provider: { ...(organization ? { organization } : {}), ...(providerUrl ? { url: providerUrl } : {}) } } : {}),
    ...(documentationUrl ? { documentationUrl } : {}),
    ...(iconUrl ? { iconUrl } : {}),
    defaultInputModes: strings(card.defaultInputModes),
    defaultOutputModes: strings(card.defaultOutputModes),
    skillModes,
  };
}
