import { RE2JS } from 're2js';
import { linearPatterns } from '../../shared/linearPattern';

/** shared/linearPattern.ts bound to RE2JS for the main process: schema validation and collection assertions. */
export const { linearPattern, ajvRegExp: ajvLinearRegExp } = linearPatterns({ compile: (pattern) => RE2JS.compile(RE2JS.translateRegExp(pattern)) });
