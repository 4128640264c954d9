import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Messages checked against an official SDK's TypeScript types: each value is written into
 * a TypeScript file as `<value> satisfies <type>` after `preamble` (the SDK's imports) and
 * compiled. A missing field, a field of the wrong type, a field the type does not know or
 * a message type the SDK does not have are compile errors, each reported with the message.
 */
export interface TypeCheck {
  value: unknown;
  type: string;
}

/** In the repository's root, so the SDKs resolve from its node_modules; never written to disk. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function assertSdkTypes(preamble: string, checks: readonly TypeCheck[]): void {
  const errors = sdkTypeErrors(preamble, checks);
  assert.deepEqual(errors, [], errors.join('\n'));
}

export function sdkTypeErrors(preamble: string, checks: readonly TypeCheck[]): string[] {
  const file = join(ROOT, '__sdk_types_check__.ts');
  const head = preamble.split('\n').length;
  const source = [preamble, ...checks.map((c, i) => `export const check${i} = ${JSON.stringify(c.value)} satisfies ${c.type};`)].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const read = host.readFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest));
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? source : read(name));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const check = checks[line - head];
    const what = check
      ? `${(check.value as { type?: string }).type ?? check.type} ${JSON.stringify(check.value).slice(0, 120)}`
      : (d.file?.fileName ?? 'options');
    return `${what}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
