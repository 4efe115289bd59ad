import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusBar, renderStatus } from '../../src/status';
import * as vscode from '../mocks/vscode';

describe('status bar rendering', () => {
  it('shows the server starting', () => {
    const view = renderStatus(undefined, undefined);
    expect(view.text).toBe('$(loading~spin) Lacuna');
    expect(view.tooltip).toContain('starting');
    expect(view.background).toBeUndefined();
  });

  it('shows idle with and without the file coverage', () => {
    expect(renderStatus({ state: 'idle' }, undefined).text).toBe('$(beaker) Lacuna');
    const view = renderStatus({ state: 'idle' }, { covered: 92, total: 120 });
    expect(view.text).toBe('$(beaker) Lacuna 92/120');
    expect(view.tooltip).toContain('Generated tests cover 92 of 120 branch sides in this file (76%).');
    expect(view.tooltip).toContain('Click to show the Lacuna log.');
  });

  it('counts the project’s own tests apart from the generated ones once they have run', () => {
    const view = renderStatus({ state: 'idle' }, { covered: 92, total: 120, suite: 60 });
    expect(view.text).toBe('$(beaker) Lacuna 92/120 · suite 60/120');
    expect(view.tooltip).toContain('Generated tests cover 92 of 120 branch sides in this file (76%).');
    expect(view.tooltip).toContain('Your own tests cover 60 of 120 branch sides in this file (50%).');
    const generating = renderStatus({ state: 'generating', function: 'f' }, { covered: 1, total: 4, suite: 0 });
    expect(generating.text).toBe('$(sync~spin) Lacuna 1/4 · suite 0/4 · f');
  });

  it('shows the function being generated', () => {
    const view = renderStatus(
      { state: 'generating', function: 'Order.total', message: 'Order.total (2/5)' },
      { covered: 3, total: 4 },
    );
    expect(view.text).toBe('$(sync~spin) Lacuna 3/4 · Order.total');
    expect(view.tooltip).toContain('generating tests for `Order.total`');
    expect(view.tooltip).toContain('Progress: Order.total (2/5).');
    expect(renderStatus({ state: 'generating' }, undefined).text).toBe('$(sync~spin) Lacuna · tests');
  });

  it('shows static-only mode and why', () => {
    const view = renderStatus({ state: 'static', message: 'the workspace is not trusted' }, undefined);
    expect(view.text).toBe('$(shield) Lacuna (static)');
    expect(view.tooltip).toContain('No project code runs');
    expect(view.tooltip).toContain('the workspace is not trusted');
    expect(view.background).toBeUndefined();
  });

  it('shows errors with their message, on an error background', () => {
    const view = renderStatus({ state: 'error', message: 'the generation thread stopped' }, { covered: 1, total: 2 });
    expect(view.text).toBe('$(error) Lacuna 1/2');
    expect(view.tooltip).toContain('the generation thread stopped');
    expect(view.background).toBe('statusBarItem.errorBackground');
  });

  it('rounds the percentage down and survives an empty file', () => {
    expect(renderStatus({ state: 'idle' }, { covered: 119, total: 120 }).tooltip).toContain('(99%)');
    expect(renderStatus({ state: 'idle' }, { covered: 0, total: 0 }).text).toBe('$(beaker) Lacuna 0/0');
  });
});

describe('status bar item', () => {
  let bar: StatusBar;
  beforeEach(() => {
    vscode.reset();
    bar = new StatusBar('lacuna.showLog');
  });
  afterEach(() => bar.dispose());

  const item = () => vscode.statusBarItems[0];

  it('opens the log when clicked and is visible', () => {
    expect(item().command).toBe('lacuna.showLog');
    expect(item().visible).toBe(true);
    expect(item().text).toBe('$(loading~spin) Lacuna');
  });

  it('follows lacuna/status and the active file’s lacuna/coverage', () => {
    const a = vscode.editorFor('/p/shop/orders.py', '');
    const b = vscode.editorFor('/p/shop/pricing.py', '');
    bar.setStatus({ state: 'idle' });
    bar.setCoverage({ uri: a.document.uri.toString(), covered: 10, total: 12 });
    expect(item().text).toBe('$(beaker) Lacuna');
    vscode.events.setActiveEditor(a);
    expect(item().text).toBe('$(beaker) Lacuna 10/12');
    vscode.events.setActiveEditor(b);
    expect(item().text).toBe('$(beaker) Lacuna');
    // The server's URI spelling may differ (percent-encoding): both normalise alike.
    bar.setCoverage({ uri: 'file:///p/shop/pricing%2Epy', covered: 5, total: 8 });
    expect(item().text).toBe('$(beaker) Lacuna 5/8');
    bar.setStatus({ state: 'error', message: 'boom' });
    expect(item().text).toBe('$(error) Lacuna 5/8');
    expect(item().backgroundColor).toEqual(new vscode.ThemeColor('statusBarItem.errorBackground'));
    bar.setStatus({ state: 'generating', function: 'price' });
    expect(item().backgroundColor).toBeUndefined();
    // The project's own tests have run: their count comes apart.
    bar.setStatus({ state: 'idle' });
    bar.setCoverage({ uri: 'file:///p/shop/pricing.py', covered: 5, total: 8, suite: 3 });
    expect(item().text).toBe('$(beaker) Lacuna 5/8 · suite 3/8');
  });

  it('forgets everything when the server restarts', () => {
    const a = vscode.editorFor('/p/a.py', '');
    vscode.events.setActiveEditor(a);
    bar.setStatus({ state: 'idle' });
    bar.setCoverage({ uri: a.document.uri.toString(), covered: 1, total: 2 });
    bar.reset();
    expect(item().text).toBe('$(loading~spin) Lacuna');
  });
});
