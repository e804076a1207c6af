import MiniSearch, { type SearchResult } from 'minisearch';
import { sourceId } from '../../../shared/invocation';
import type { SearchDocumentKind, SearchHit, ToolEntry } from '../../../shared/registry';
import type { ToolCatalog } from '../ToolCatalog';
import { tokenize } from './tokenize';

/** Anything searchable: tools from the catalog, and agents and skills the owner adds. */
export interface SearchDocument {
  id: string;
  kind: SearchDocumentKind;
  name: string;
  title?: string;
  description?: string;
  /** Where it comes from, e.g. `mcp:github`. */
  source?: string;
  tags?: string[];
}

export interface SearchOptions {
  limit?: number;
  kinds?: readonly SearchDocumentKind[];
}

/** RockBot: Okapi BM25 with k1 = 1.5, b = 0.75 (d = 0 turns minisearch's BM25+ into plain Okapi). */
export const BM25 = { k: 1.5, b: 0.75, d: 0 } as const;
/** RockBot: "a 2× phrase bonus for adjacent two-word query terms". */
const PHRASE_WEIGHT = 2;
const FIELDS = ['name', 'title', 'tags', 'source', 'description'] as const;
const BOOST = { name: 3, title: 2, tags: 1.5, source: 1.5, description: 1 };

export function toolDocument(entry: ToolEntry): SearchDocument {
  return {
    id: entry.name,
    // An A2A agent's skills are callable like tools, but a search for skills finds only them.
    kind: entry.source.kind === 'a2a' ? 'skill' : 'tool',
    name: entry.toolName,
    ...(entry.title ? { title: entry.title } : {}),
    ...(entry.description ? { description: entry.description } : {}),
    source: sourceId(entry.source),
    ...(entry.tags ? { tags: entry.tags } : {}),
  };
}

/**
 * Ranked search over tools, agents and skills: minisearch BM25 over name, title, tags, source and
 * description (name weighs most), prefix matching on the word being typed and fuzzy matching on
 * longer words, plus RockBot's bonus for documents containing two adjacent query words as a phrase
 * (scored like a BM25 term, weighted 2×). Scores are divided by the best one, so the top hit is 1.
 */
export class ToolSearchIndex {
  private readonly mini = new MiniSearch<SearchDocument>({
    fields: [...FIELDS],
    storeFields: ['kind', 'name', 'title', 'description', 'source'],
    tokenize,
    processTerm: (term) => term,
    extractField: (doc, field) => (field === 'tags' ? (doc.tags ?? []).join(' ') : (doc[field as keyof SearchDocument] as string | undefined)),
    searchOptions: {
      boost: BOOST,
      bm25: BM25,
      prefix: (term, index, terms) => index === terms.length - 1 && term.length >= 2,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
    },
  });
  private readonly docs = new Map<string, { doc: SearchDocument; length: number; phrases: Map<string, number> }>();
  /** Phrase → how many documents contain it. */
  private readonly phraseDocs = new Map<string, number>();
  private totalLength = 0;

  upsert(doc: SearchDocument): void {
    const indexed = this.docs.get(doc.id);
    // A server's tools are re-registered whole on every resync; unchanged ones keep their place.
    if (indexed && sameDocument(indexed.doc, doc)) return;
    if (indexed) this.remove(doc.id);
    this.mini.add(doc);
    const phrases = new Map<string, number>();
    let length = 0;
    for (const field of FIELDS) {
      const values = field === 'tags' ? (doc.tags ?? []) : [doc[field] ?? ''];
      for (const value of values) {
        const tokens = tokenize(value);
        length += tokens.length;
        for (let i = 1; i < tokens.length; i++) {
          const phrase = `${tokens[i - 1]} ${tokens[i]}`;
          phrases.set(phrase, (phrases.get(phrase) ?? 0) + 1);
        }
      }
    }
    for (const phrase of phrases.keys()) this.phraseDocs.set(phrase, (this.phraseDocs.get(phrase) ?? 0) + 1);
    this.docs.set(doc.id, { doc, length, phrases });
    this.totalLength += length;
  }

  remove(id: string): void {
    const indexed = this.docs.get(id);
    if (!indexed) return;
    this.mini.discard(id);
    for (const phrase of indexed.phrases.keys()) {
      const count = this.phraseDocs.get(phrase)! - 1;
      if (count === 0) this.phraseDocs.delete(phrase);
      else this.phraseDocs.set(phrase, count);
    }
    this.totalLength -= indexed.length;
    this.docs.delete(id);
  }

  /** Indexes the catalog now and keeps following its changes; returns the unsubscribe. */
  attach(catalog: ToolCatalog): () => void {
    for (const entry of catalog.list()) this.upsert(toolDocument(entry));
    return catalog.onChange((change) => {
      for (const name of change.removed) this.remove(name);
      for (const name of [...change.added, ...change.updated]) {
        const entry = catalog.get(name);
        if (entry) this.upsert(toolDocument(entry));
      }
    });
  }

  get size(): number {
    return this.docs.size;
  }

  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const kinds = options.kinds;
    const results = this.mini.search(query, kinds ? { filter: (result) => kinds.includes(result.kind as SearchDocumentKind) } : {});
    if (results.length === 0) return [];
    const phrases = adjacentPairs(tokenize(query));
    const wanted = query.trim().toLowerCase();
    const scored = results.map((result) => ({
      result,
      score: result.score + this.phraseBonus(result.id as string, phrases),
      // Typing a tool's whole name (or registry name) means that tool, however BM25 weighs it.
      exact: String(result.name).toLowerCase() === wanted || String(result.id).toLowerCase() === wanted,
    }));
    scored.sort((a, b) => Number(b.exact) - Number(a.exact) || b.score - a.score || (a.result.id < b.result.id ? -1 : 1));
    // Typo-tolerant (fuzzy) matches help when nothing else matches; beside real matches they are
    // padding ("echo" must not bring "etch" and "each"), so then they go.
    const tokens = tokenize(query);
    const direct = (result: SearchResult) => result.terms.some((term) => tokens.some((token) => term.startsWith(token)));
    const anyDirect = scored.some(({ result }) => direct(result));
    const kept = scored.filter(({ exact, result }) => exact || !anyDirect || direct(result));
    const best = Math.max(...kept.map((s) => s.score));
    return kept
      .slice(0, options.limit ?? 20)
      .map(({ result, score, exact }) => hit(result, exact ? 1 : best > 0 ? score / best : 0));
  }

  private phraseBonus(id: string, phrases: readonly string[]): number {
    const doc = this.docs.get(id);
    if (!doc || phrases.length === 0) return 0;
    const total = this.docs.size;
    const averageLength = this.totalLength / total || 1;
    let bonus = 0;
    for (const phrase of phrases) {
      const f = doc.phrases.get(phrase);
      if (!f) continue;
      const n = this.phraseDocs.get(phrase) ?? 0;
      const idf = Math.log((total - n + 0.5) / (n + 0.5) + 1);
      const tf = (f * (BM25.k + 1)) / (f + BM25.k * (1 - BM25.b + (BM25.b * doc.length) / averageLength));
      bonus += PHRASE_WEIGHT * idf * tf;
    }
    return bonus;
  }
}

function adjacentPairs(tokens: readonly string[]): string[] {
  const pairs = new Set<string>();
  for (let i = 1; i < tokens.length; i++) pairs.add(`${tokens[i - 1]} ${tokens[i]}`);
  return [...pairs];
}

function hit(result: SearchResult, score: number): SearchHit {
  return {
    id: String(result.id),
    kind: result.kind as SearchDocumentKind,
    name: result.name as string,
    ...(result.title ? { title: result.title as string } : {}),
    ...(result.description ? { description: result.description as string } : {}),
    ...(result.source ? { source: result.source as string } : {}),
    score,
  };
}

function sameDocument(a: SearchDocument, b: SearchDocument): boolean {
  return (
    a.kind === b.kind &&
    a.name === b.name &&
    a.title === b.title &&
    a.description === b.description &&
    a.source === b.source &&
    (a.tags ?? []).length === (b.tags ?? []).length &&
    (a.tags ?? []).every((tag, i) => tag === b.tags![i])
  );
}
