import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { AppError } from '../../shared/errors';
import { ajvLinearRegExp } from '../platform/linearPattern';

type Compiled = ValidateFunction | AppError;

/**
 * Validates arguments against a tool's inputSchema with JSON Schema 2020-12 (MCP's dialect). Each
 * schema object is compiled once and cached by identity, so a rediscovered tool (a new schema
 * object) is recompiled and the old validator goes with the old entry.
 *
 * Schemas come from servers, so their patterns run in RE2 (linear time): a `^(a|a)+$` cannot stall
 * the main process. A schema with a pattern RE2 cannot run (backreference, lookaround) is refused as
 * a whole, naming the pattern, rather than validated with that check left out.
 */
export class SchemaValidator {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true, code: { regExp: ajvLinearRegExp } });
  private readonly compiled = new WeakMap<object, Compiled>();

  constructor() {
    addFormats(this.ajv);
  }

  /** Throws InvalidArguments (not retryable) naming every failing path. */
  validate(toolName: string, schema: Record<string, unknown>, args: Record<string, unknown>): void {
    const validate = this.compile(schema);
    if (validate instanceof AppError) throw validate;
    if (validate(args)) return;
    const problems = (validate.errors ?? []).map(describe);
    throw new AppError('InvalidArguments', `Invalid arguments for ${toolName}: ${problems.join('; ')}.`, { step: 'validate' });
  }

  /** The top-level properties validation reports missing (`required` anywhere in the schema's composition). */
  missingProperties(schema: Record<string, unknown>, args: Record<string, unknown>): string[] {
    const validate = this.compile(schema);
    if (validate instanceof AppError || validate(args)) return [];
    const missing = (validate.errors ?? []).filter((e) => e.keyword === 'required' && e.instancePath === '').map((e) => String(e.params.missingProperty));
    return [...new Set(missing)];
  }

  /** Why a schema cannot be used for validation (it does not compile), or undefined when it can. */
  problem(schema: Record<string, unknown>): string | undefined {
    const compiled = this.compile(schema);
    return compiled instanceof AppError ? compiled.message : undefined;
  }

  private compile(schema: Record<string, unknown>): Compiled {
    let compiled = this.compiled.get(schema);
    if (compiled) return compiled;
    try {
      compiled = this.ajv.compile(withoutDialect(schema));
    } catch (error) {
      compiled = new AppError('ExecutionFailed', `The tool's inputSchema cannot be used: ${(error as Error).message}`, { step: 'validate', retryable: false });
    }
    this.compiled.set(schema, compiled);
    return compiled;
  }
}

/**
 * Servers often stamp draft-07 `$schema` on schemas whose keywords 2020-12 reads the same way; an
 * Ajv2020 instance refuses the unknown meta-schema, so the declaration is dropped, not the schema.
 */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function describe(error: ErrorObject): string {
  const path = error.instancePath || '(root)';
  if (error.keyword === 'required') return `${joinPath(error.instancePath, String(error.params.missingProperty))} is required`;
  if (error.keyword === 'additionalProperties') return `${joinPath(error.instancePath, String(error.params.additionalProperty))} is not allowed`;
  return `${path} ${error.message ?? 'is invalid'}`;
}

function joinPath(base: string, property: string): string {
  return `${base}/${property}`;
}
