/** Strict type-checking of a client file written beside generated code (typed-client tests). */
import path from 'node:path';
import ts from 'typescript';

/**
 * The `--strict` diagnostics of `entry` and what it imports, as `file:line message` (no emit). The base
 * options are a modern ESM client's; `options` adds to them (libraries, type roots, module paths).
 */
export function strictTypeErrors(entry: string, options: ts.CompilerOptions = {}): string[] {
  const program = ts.createProgram([entry], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    ...options,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : '';
    return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
