import {
  createErrorHandler,
  getDefaultFormState,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from '@rjsf/utils';
import { conforms, schemaProblems, type JsonSchema, type SchemaProblem } from './jsonSchema';

type Data = unknown;

/** `/home/city` → `.home.city`: rjsf's property notation, from which it files errors under fields. */
function propertyOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => `.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`)
    .join('');
}

function toRjsfError(problem: SchemaProblem): RJSFValidationError {
  const property = propertyOf(problem.path);
  return { name: problem.keyword, property, message: problem.message, params: {}, stack: `${property || '(root)'} ${problem.message}`.trim() };
}

/**
 * rjsf's validator on `schemaProblems`: the same 2020-12 reading as the rest of the renderer, and no
 * eval (which `@rjsf/validator-ajv8` needs and the CSP forbids).
 */
class SchemaFormValidator implements ValidatorType<Data, RJSFSchema> {
  validateFormData(formData: Data, schema: RJSFSchema, customValidate?: CustomValidator<Data, RJSFSchema>, transformErrors?: ErrorTransformer<Data, RJSFSchema>, uiSchema?: UiSchema<Data, RJSFSchema>): ValidationData<Data> {
    let errors = schemaProblems(schema as JsonSchema, formData).map(toRjsfError);
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema<Data>(errors);
    if (!customValidate) return { errors, errorSchema };
    const withUndefined = getDefaultFormState<Data, RJSFSchema>(this, schema, formData, schema, true);
    const handler = customValidate(withUndefined, createErrorHandler<Data>(withUndefined), uiSchema, errorSchema);
    return validationDataMerge<Data>({ errors, errorSchema }, unwrapErrorHandler<Data>(handler));
  }

  isValid(schema: RJSFSchema, formData: Data, rootSchema: RJSFSchema): boolean {
    return conforms(schema as JsonSchema, formData, rootSchema as JsonSchema);
  }

  rawValidation<Result = SchemaProblem>(schema: RJSFSchema, formData?: Data): { errors?: Result[]; validationError?: Error } {
    const problems = schemaProblems(schema as JsonSchema, formData);
    return problems.length ? { errors: problems as Result[] } : {};
  }
}

export const formValidator: ValidatorType<Data, RJSFSchema> = new SchemaFormValidator();
