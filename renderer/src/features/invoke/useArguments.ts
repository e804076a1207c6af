import { getDefaultFormState, type RJSFSchema } from '@rjsf/utils';
import { useMemo, useState } from 'react';
import { formValidator } from '../../components/formValidator';
import { describesNothing, readJsonText, schemaProblems, withoutDialect, type JsonSchema, type SchemaProblem } from '../../components/jsonSchema';

export type ArgumentsMode = 'form' | 'json';

export type Arguments = Record<string, unknown>;

/** The schema's defaults, as the form would fill them in. */
export function defaultArguments(formSchema: JsonSchema): Arguments {
  try {
    const defaults = getDefaultFormState(formValidator, formSchema as RJSFSchema, {}, formSchema as RJSFSchema);
    return isPlainObject(defaults) ? clean(defaults) : {};
  } catch {
    return {};
  }
}

function isPlainObject(value: unknown): value is Arguments {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Drops what JSON cannot carry (the form leaves `undefined` for emptied fields). */
export function clean(value: Arguments): Arguments {
  return JSON.parse(JSON.stringify(value)) as Arguments;
}

/**
 * The arguments of one call, edited as a form or as JSON. The arguments object is the one truth:
 * JSON mode writes it on every parseable edit and is re-printed from it when entered, so switching
 * modes keeps what was typed.
 */
export function useArguments(schema: JsonSchema) {
  const formSchema = useMemo(() => withoutDialect(schema), [schema]);
  const [args, setArgs] = useState<Arguments>(() => defaultArguments(formSchema));
  // A schema that describes nothing has no form to show: its arguments start (and stay) in JSON.
  const [mode, setModeState] = useState<ArgumentsMode>(() => (describesNothing(formSchema) ? 'json' : 'form'));
  const [text, setTextState] = useState(() => (describesNothing(formSchema) ? '{}' : ''));
  const [syntaxError, setSyntaxError] = useState<string | null>(null);

  const cleaned = useMemo(() => clean(args), [args]);
  const problems: SchemaProblem[] = useMemo(() => schemaProblems(schema, cleaned), [schema, cleaned]);

  const setText = (next: string) => {
    setTextState(next);
    const read = readJsonText(next, 'object', 'Arguments');
    if ('problem' in read) {
      setSyntaxError(read.problem);
      return;
    }
    setSyntaxError(null);
    setArgs(read.value as Arguments);
  };

  const setMode = (next: ArgumentsMode) => {
    if (next === mode) return;
    if (next === 'json') {
      setTextState(JSON.stringify(cleaned, null, 2));
      setSyntaxError(null);
    } else if (syntaxError) {
      return;
    }
    setModeState(next);
  };

  const reset = () => {
    const defaults = defaultArguments(formSchema);
    setArgs(defaults);
    setTextState(JSON.stringify(defaults, null, 2));
    setSyntaxError(null);
  };

  return {
    formSchema,
    mode,
    setMode,
    args: cleaned,
    setArgs,
    text,
    setText,
    syntaxError,
    problems,
    valid: !syntaxError && problems.length === 0,
    reset,
  };
}

export type ArgumentsState = ReturnType<typeof useArguments>;
