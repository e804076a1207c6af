import type { LintRuleInfo, LintSeverity } from '../../../shared/lock';

/** Every rule the linter has, with its usual severity (a finding may be raised above it when the evidence is stronger). */
export const LINT_RULES = [
  { id: 'tag-characters', severity: 'high', description: 'Unicode tag characters (U+E0000–U+E007F): invisible, and they spell out ASCII a model reads.' },
  { id: 'bidi-controls', severity: 'high', description: 'Bidirectional overrides, embeddings and isolates that make text read differently than it is stored.' },
  { id: 'zero-width', severity: 'high', description: 'Zero-width spaces and joiners that hide or split words.' },
  { id: 'invisible-characters', severity: 'high', description: 'Other invisible or control characters: variation selectors outside emoji, fillers, escape codes, lone surrogates.' },
  { id: 'confusable-characters', severity: 'medium', description: 'Letters of another script or full-width and mathematical letters posing as Latin ones (high in names and titles).' },
  { id: 'model-instructions', severity: 'high', description: 'Instructions aimed at the model: "ignore previous instructions", "do not tell the user", <IMPORTANT> blocks.' },
  { id: 'hidden-markup', severity: 'medium', description: 'HTML comments, which rendered Markdown hides from people but a model reads.' },
  { id: 'tool-references', severity: 'medium', description: 'Names of other tools or servers (high when the text tells the model how to use them).' },
  { id: 'secret-requests', severity: 'high', description: 'Requests to read files or secrets: SSH keys, .env, cloud credentials, tokens, MCP client configs.' },
  { id: 'urls', severity: 'low', description: 'URLs in descriptions (medium when they could carry data out: query strings, placeholders, IP addresses, data: URIs).' },
  { id: 'encoded-blobs', severity: 'medium', description: 'Long base64 runs (high when they decode to readable text).' },
  { id: 'side-channel-parameters', severity: 'medium', description: 'Parameters such as note, context or sidenote that invite a side channel (high when they ask for the conversation).' },
  { id: 'length-outlier', severity: 'medium', description: 'A description far longer than those of its peers.' },
] as const satisfies readonly LintRuleInfo[];

export type LintRuleId = (typeof LINT_RULES)[number]['id'];

export function defaultSeverity(rule: LintRuleId): LintSeverity {
  return LINT_RULES.find((candidate) => candidate.id === rule)!.severity;
}

/** Phrases that only make sense addressed to a model, never to a person reading a tool's documentation. */
export const MODEL_INSTRUCTIONS: ReadonlyArray<{ pattern: RegExp; what: string; severity: LintSeverity }> = [
  { pattern: /\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|every\s+)?(of\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|preceding|other|system|original)\s+(instructions?|prompts?|rules?|directions?|messages?|guidelines?)/i, what: 'tells the model to ignore its instructions', severity: 'high' },
  { pattern: /\b(do\s+not|don[’']?t|never|must\s+not)\s+(tell|inform|mention|reveal|disclose|notify|show|alert|let)\b[^.\n]{0,40}?\buser\b/i, what: 'tells the model to keep something from the user', severity: 'high' },
  { pattern: /\bwithout\s+(telling|informing|notifying|alerting|asking|letting)\s+(the\s+)?user\b/i, what: 'tells the model to act without the user knowing', severity: 'high' },
  { pattern: /\b(the\s+)?user\s+(must|should|may)\s+(not|never)\s+(know|see|be\s+told|find\s+out|notice)/i, what: 'tells the model to keep something from the user', severity: 'high' },
  { pattern: /<\s*\/?\s*(important|system|instructions?|secret|hidden|admin|override|system[-_ ]?prompt|assistant)\s*>/i, what: 'has an <IMPORTANT>-style block addressed to the model', severity: 'high' },
  { pattern: /\[\s*(system|important|instructions?|admin|override)\s*\]/i, what: 'has a [SYSTEM]-style block addressed to the model', severity: 'high' },
  { pattern: /\b(you\s+are\s+now|from\s+now\s+on,?\s+you|new\s+instructions?\s*:|system\s+prompt\s+override|developer\s+mode\s+enabled)/i, what: 'tries to change the model’s role or instructions', severity: 'high' },
  { pattern: /\bbefore\s+(using|calling|invoking|running)\s+(this|any|the)\s+(tool|function)\b[^.\n]{0,20}?\b(you\s+)?(must|should|need\s+to|have\s+to|always)\b/i, what: 'sets a precondition for the model before it uses the tool', severity: 'high' },
  { pattern: /\b(this\s+is|it\s+is)\s+(very\s+|extremely\s+)?(important|critical)\s+(that\s+)?you\b/i, what: 'presses the model with urgency', severity: 'medium' },
  { pattern: /\byou\s+(must|should)\s+(always|never)\b/i, what: 'gives the model standing orders', severity: 'medium' },
];

/** Files and stores whose contents are secrets or credentials. */
export const SENSITIVE_PATHS: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /(~|\$HOME|%USERPROFILE%)?[\\/]?\.ssh\b|\bid_(rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b/i, what: 'SSH keys' },
  { pattern: /(^|[\s"'`(/\\])\.env(\.[a-z]+)?\b(?![-\w])/i, what: 'a .env file' },
  { pattern: /\.aws[\\/](credentials|config)\b|\.azure\b[\\/]|gcloud[\\/](credentials|application_default_credentials)|application_default_credentials\.json/i, what: 'cloud credentials' },
  { pattern: /\.(npmrc|pypirc|netrc|git-credentials|pgpass)\b|\.docker[\\/]config\.json/i, what: 'a credentials file' },
  { pattern: /\bkubeconfig\b|\.kube[\\/]config\b/i, what: 'a kubeconfig' },
  { pattern: /\/etc\/(passwd|shadow|sudoers)\b/i, what: 'system account files' },
  { pattern: /\bmcp\.json\b|claude_desktop_config\.json|\.cursor[\\/]|\.codeium[\\/]|\.vscode[\\/]settings\.json/i, what: 'an MCP client’s configuration (it holds other servers’ credentials)' },
  { pattern: /\bwallet\.dat\b|\bseed\s+phrase\b|\bmnemonic\s+phrase\b|\bkeychain\b|\bLogin\s+Data\b|\bcookies\.sqlite\b/i, what: 'wallets, keychains or browser credential stores' },
];

/** Asking the model to fetch or pass on a secret. */
export const SECRET_REQUEST = /\b(read|cat|open|load|include|send|pass|provide|attach|upload|copy|paste|extract|collect|share|forward|append|add|put|supply)\b[^.\n]{0,60}?\b(private\s+keys?|ssh\s+keys?|api[\s_-]?keys?|access[\s_-]?tokens?|auth(entication)?[\s_-]?tokens?|bearer\s+tokens?|secret\s+keys?|client\s+secrets?|credentials|passwords?|session\s+cookies?|environment\s+variables)\b/i;

/** Parameter names that invite a side channel; `strong` ones are suspicious by name alone. */
export const SIDE_CHANNEL_NAMES: ReadonlyArray<{ pattern: RegExp; strong: boolean }> = [
  { pattern: /^(side_?note|side_?channel|hidden|secret_?note)s?$/, strong: true },
  { pattern: /^(note|notes|context|additional_?context|extra_?context|full_?context|conversation|conversation_?history|chat_?history|previous_?messages|system_?prompt|debug_?info|memo)$/, strong: true },
  { pattern: /^(comment|comments|remark|remarks|feedback|reasoning|thoughts|metadata|summary|history)$/, strong: false },
];

/** A parameter description that asks for what the user and the model said. */
export const ASKS_FOR_CONVERSATION =
  /\b(conversation|chat\s+history|previous\s+messages|prior\s+messages|message\s+history|everything\s+(the\s+user|you)|full\s+context|entire\s+context|system\s+prompt|your\s+instructions|all\s+(prior|previous|earlier)\s+(messages|instructions|turns)|what\s+the\s+user\s+(said|asked|typed|wrote)|user[’']?s?\s+(messages?|requests?|queries)\s+(verbatim|in\s+full|word\s+for\s+word))\b/i;

/** Wording that tells the model how to use another tool: what turns a mention into shadowing. */
export const STEERS_OTHER_TOOL = /\b(instead\s+of|rather\s+than|before\s+(calling|using|invoking)|after\s+(calling|using|invoking)|whenever|every\s+time|always|never|must|do\s+not\s+use|don[’']?t\s+use|redirect|replace[sd]?|bcc|also\s+send|forward)\b/i;
