/**
 * The status bar item: what the server is doing (`lacuna/status`) and the branch coverage of
 * the active file (`lacuna/coverage`), by generated tests and by the project's own tests apart. `renderStatus` is pure; `StatusBar` keeps the state and
 * redraws on notifications and when the active editor changes.
 */
import * as vscode from 'vscode';
import type { CoverageParams, StatusParams } from './protocol';

export interface Coverage {
  covered: number;
  total: number;
  /** Sides the project's own tests cover, once they have run. */
  suite?: number;
}

export interface StatusView {
  text: string;
  tooltip: string;
  /** A theme colour id for the item's background, when it needs attention. */
  background?: 'statusBarItem.errorBackground' | 'statusBarItem.warningBackground';
}

const CLICK = 'Click to show the Lacuna log.';

function percent(part: number, total: number): number {
  return total === 0 ? 100 : Math.floor((part / total) * 100);
}

export function coverageSentence(c: Coverage): string {
  return `Generated tests cover ${c.covered} of ${c.total} branch sides in this file (${percent(c.covered, c.total)}%).`;
}

/** What the project's own tests cover, when they have run. */
export function suiteSentence(c: Coverage): string | undefined {
  if (c.suite === undefined) return undefined;
  return `Your own tests cover ${c.suite} of ${c.total} branch sides in this file (${percent(c.suite, c.total)}%).`;
}

/**
 * `status`: the last `lacuna/status` (undefined while the server starts); `coverage`: the active
 * file's last `lacuna/coverage`, if any.
 */
export function renderStatus(status: StatusParams | undefined, coverage: Coverage | undefined): StatusView {
  const suite = coverage?.suite !== undefined ? ` · suite ${coverage.suite}/${coverage.total}` : '';
  const counts = coverage ? ` ${coverage.covered}/${coverage.total}${suite}` : '';
  const lines: string[] = [];
  let view: StatusView;
  switch (status?.state) {
    case undefined:
      view = { text: '$(loading~spin) Lacuna', tooltip: '' };
      lines.push('Lacuna: starting the language server…');
      break;
    case 'idle':
      view = { text: `$(beaker) Lacuna${counts}`, tooltip: '' };
      lines.push('Lacuna: idle — generated tests are up to date.');
      break;
    case 'generating': {
      const what = status.function ?? 'tests';
      view = { text: `$(sync~spin) Lacuna${counts} · ${what}`, tooltip: '' };
      lines.push(
        status.function
          ? `Lacuna: generating tests for \`${status.function}\`.`
          : 'Lacuna: generating tests.',
      );
      break;
    }
    case 'static':
      view = { text: `$(shield) Lacuna (static)${counts}`, tooltip: '' };
      lines.push(
        'Lacuna: static analysis only — syntax, decisions and MC/DC counts. No project code runs ' +
          'and no tests are generated (untrusted workspace, or generation is off).',
      );
      break;
    case 'error':
      view = {
        text: `$(error) Lacuna${counts}`,
        tooltip: '',
        background: 'statusBarItem.errorBackground',
      };
      lines.push('Lacuna: error.');
      break;
    default:
      // A state this extension does not know yet: show it rather than hide it.
      view = { text: `$(beaker) Lacuna${counts}`, tooltip: '' };
      lines.push(`Lacuna: ${String((status as StatusParams).state)}.`);
  }
  if (status?.message && status.state !== 'generating') lines.push(status.message);
  if (status?.state === 'generating' && status.message) lines.push(`Progress: ${status.message}.`);
  if (status?.sandbox) lines.push(`Sandbox: ${status.sandbox}.`);
  if (coverage) lines.push(coverageSentence(coverage));
  const own = coverage && suiteSentence(coverage);
  if (own) lines.push(own);
  lines.push(CLICK);
  view.tooltip = lines.join('\n');
  return view;
}

/** Normalises a URI string the way VS Code prints document URIs. */
export function uriKey(uri: string): string {
  try {
    return vscode.Uri.parse(uri, true).toString();
  } catch {
    return uri;
  }
}

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private status: StatusParams | undefined;
  private readonly coverage = new Map<string, Coverage>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(command: string) {
    this.item = vscode.window.createStatusBarItem('lacuna.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'Lacuna';
    this.item.command = command;
    this.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(() => this.render()));
    this.render();
    this.item.show();
  }

  /** The server (re)starts: forget what the previous one said. */
  reset(): void {
    this.status = undefined;
    this.coverage.clear();
    this.render();
  }

  setStatus(status: StatusParams): void {
    this.status = status;
    this.render();
  }

  setCoverage(params: CoverageParams): void {
    this.coverage.set(uriKey(params.uri), { covered: params.covered, total: params.total, suite: params.suite });
    this.render();
  }

  /** The active editor's coverage, if the server reported one. */
  activeCoverage(): Coverage | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    return doc ? this.coverage.get(doc.uri.toString()) : undefined;
  }

  get view(): StatusView {
    return renderStatus(this.status, this.activeCoverage());
  }

  private render(): void {
    const view = this.view;
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.background ? new vscode.ThemeColor(view.background) : undefined;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
  }
}
