/**
 * Regular expressions run in time linear in their input: RE2 (the re2js port), never the
 * backtracking engine of JavaScript's RegExp, on which a pattern such as `^(a|a)+$` takes
 * exponential time. Used for every pattern a peer or a file supplies — JSON Schema `pattern` and
 * `patternProperties` (main and renderer), collection `matches` assertions — so none can stall the
 * process that evaluates it.
 *
 * shared/ imports nothing but zod, so the engine is handed in: main/platform/linearPattern.ts and
 * renderer/src/components/linearPattern.ts bind RE2JS here, and both read patterns the same way.
 */
export interface LinearPattern {
  /** Whether the pattern matches anywhere in `text`, as RegExp.prototype.test. */
  test(text: string): boolean;
  /** `/pattern/`: Ajv keys its compiled patterns by this, so it must differ between patterns. */
  toString(): string;
}

/** What is needed of RE2JS: compile a pattern (JavaScript syntax, translated) or throw. */
export interface LinearEngine {
  compile(pattern: string): { test(text: string): boolean };
}

/** A pattern the linear-time engine cannot run (backreferences, lookaround) or that is not a regular expression. */
export class UnsupportedPatternError extends Error {
  override name = 'UnsupportedPatternError';
}

const SHOWN_PATTERN_CHARS = 120;

/** The pattern as a message shows it: between slashes, cut if long. */
function shownPattern(pattern: string): string {
  return `/${pattern.length > SHOWN_PATTERN_CHARS ? `${pattern.slice(0, SHOWN_PATTERN_CHARS)}…` : pattern}/`;
}

/**
 * Taken once at load: the renderer's validation stands RE2 in for the global RegExp while it runs
 * (renderer/src/components/jsonSchema.ts), and the syntax check below must still reach the real one.
 */
const NativeRegExp = RegExp;

const MAX_CACHED_PATTERNS = 1_000;

/**
 * `linearPattern(pattern)` compiles a pattern (JavaScript syntax, as JSON Schema writes it) for the
 * engine, or throws an UnsupportedPatternError whose message is a clause (`the pattern /…/ …`) for
 * the caller's sentence. `ajvRegExp` is the same as Ajv's `code.regExp` option.
 */
export function linearPatterns(engine: LinearEngine): { linearPattern: (pattern: string) => LinearPattern; ajvRegExp: ((pattern: string) => LinearPattern) & { code: string } } {
  const compiled = new Map<string, LinearPattern | UnsupportedPatternError>();
  const compile = (pattern: string): LinearPattern | UnsupportedPatternError => {
    let run: { test(text: string): boolean };
    try {
      run = engine.compile(pattern);
    } catch {
      // Only parsed here, never run, so the backtracking engine cannot stall on it.
      let notRegExp: string | undefined;
      try {
        new NativeRegExp(pattern, 'u');
      } catch (error) {
        notRegExp = (error as Error).message;
      }
      return new UnsupportedPatternError(
        notRegExp
          ? `the pattern ${shownPattern(pattern)} is not a regular expression (${notRegExp})`
          : `the pattern ${shownPattern(pattern)} uses a construct (a backreference or lookaround) that Tooldeck's linear-time pattern engine (RE2) does not run`,
      );
    }
    return { test: (text) => run.test(text), toString: () => `/${pattern}/` };
  };
  const linearPattern = (pattern: string): LinearPattern => {
    let found = compiled.get(pattern);
    if (!found) {
      found = compile(pattern);
      if (compiled.size >= MAX_CACHED_PATTERNS) compiled.clear();
      compiled.set(pattern, found);
    }
    if (found instanceof UnsupportedPatternError) throw found;
    return found;
  };
  // Ajv names the engine by `code` only in standalone code, which Tooldeck does not generate.
  const ajvRegExp = Object.assign((pattern: string) => linearPattern(pattern), { code: 'linearPattern' });
  return { linearPattern, ajvRegExp };
}
