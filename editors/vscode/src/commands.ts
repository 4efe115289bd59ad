/**
 * Arguments of the server commands. Which function the cursor is in is the server's answer
 * (it reads the file through its syntax layer): `lacuna.rerun` takes the cursor's position and
 * says which function it re-runs. Pure: no `vscode` import.
 */
import type { ExportArgs, RerunArgs } from './protocol';

export interface Pos {
  line: number;
  character: number;
}

/** `lacuna.rerun` arguments: the whole file, or the function at `at` (the server finds it). */
export function rerunArgs(uri: string, at?: Pos): [RerunArgs] {
  return [at ? { uri, position: { line: at.line, character: at.character } } : { uri }];
}

/** `lacuna.exportTests` arguments; without a directory the server picks `tests/generated`. */
export function exportArgs(directory?: string): [ExportArgs] {
  return [directory ? { directory } : {}];
}
