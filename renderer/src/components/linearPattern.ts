import { RE2JS } from 're2js';
import { linearPatterns } from '../../../shared/linearPattern';

/** shared/linearPattern.ts bound to RE2JS for the renderer: form validation and the assertion editor. */
export const { linearPattern } = linearPatterns({ compile: (pattern) => RE2JS.compile(RE2JS.translateRegExp(pattern)) });
