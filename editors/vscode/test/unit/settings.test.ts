import { describe, expect, it } from 'vitest';
import {
  type ConfigReader,
  DEFAULT_SETTINGS,
  answerConfiguration,
  didChangeConfigurationParams,
  toSettings,
} from '../../src/settings';

function reader(values: Record<string, unknown>): ConfigReader {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

describe('settings conversion', () => {
  it('gives the documented defaults when nothing is set', () => {
    expect(toSettings(reader({}))).toEqual({
      python: null,
      guidance: 'tests/lacuna_guidance.py',
      generateOnSave: true,
      budget: { functionTimeMs: 3000, functionExecutions: 2000, executionTimeoutMs: 1000, workers: 0 },
      mcdc: { enabled: true, singleCondition: false },
      diagnostics: { uncovered: 'warning', mcdc: 'information', assertions: 'warning' },
    });
  });

  it('nests the flat keys', () => {
    const settings = toSettings(
      reader({
        python: ' .venv/bin/python ',
        guidance: 'tests/guide.py',
        generateOnSave: false,
        'budget.functionTimeMs': 9000,
        'budget.functionExecutions': 77,
        'budget.executionTimeoutMs': 250,
        'budget.workers': 3,
        'mcdc.enabled': false,
        'mcdc.singleCondition': true,
        'diagnostics.uncovered': 'error',
        'diagnostics.mcdc': 'off',
        'diagnostics.assertions': 'hint',
        // Not server settings: never sent.
        'server.path': '/usr/bin/lacuna',
        'trace.server': 'verbose',
      }),
    );
    expect(settings).toEqual({
      python: '.venv/bin/python',
      guidance: 'tests/guide.py',
      generateOnSave: false,
      budget: { functionTimeMs: 9000, functionExecutions: 77, executionTimeoutMs: 250, workers: 3 },
      mcdc: { enabled: false, singleCondition: true },
      diagnostics: { uncovered: 'error', mcdc: 'off', assertions: 'hint' },
    });
    expect(JSON.stringify(settings)).not.toContain('server');
  });

  it('falls back to the default for a value of the wrong type or out of range', () => {
    const settings = toSettings(
      reader({
        python: '',
        guidance: '  ',
        generateOnSave: 'yes',
        'budget.functionTimeMs': '5000',
        'budget.functionExecutions': 0,
        'budget.executionTimeoutMs': Number.NaN,
        'budget.workers': -1,
        'mcdc.enabled': 1,
        'diagnostics.uncovered': 'loud',
      }),
    );
    expect(settings).toEqual(DEFAULT_SETTINGS);
  });

  it('sends whole numbers (the server reads integers)', () => {
    expect(toSettings(reader({ 'budget.functionTimeMs': 1500.7 })).budget.functionTimeMs).toBe(1500);
  });
});

describe('workspace/configuration', () => {
  it('answers the lacuna section with the nested object and the rest with the default answer', async () => {
    const scopes: (string | undefined)[] = [];
    const answer = await answerConfiguration(
      [{ section: 'lacuna' }, { section: 'python' }, { section: 'lacuna', scopeUri: 'file:///p' }],
      (scope) => {
        scopes.push(scope);
        return reader({ 'budget.workers': 2 });
      },
      () => ['first', { defaultInterpreterPath: 'python3' }, 'third'],
    );
    expect(answer).toHaveLength(3);
    expect(answer[0]).toEqual({ ...DEFAULT_SETTINGS, budget: { ...DEFAULT_SETTINGS.budget, workers: 2 } });
    expect(answer[1]).toEqual({ defaultInterpreterPath: 'python3' });
    expect(answer[2]).toEqual(answer[0]);
    expect(scopes).toEqual([undefined, 'file:///p']);
  });

  it('does not ask for the default answer when every item is ours', async () => {
    let asked = false;
    const answer = await answerConfiguration([{ section: 'lacuna', scopeUri: null }], () => reader({}), () => {
      asked = true;
      return [];
    });
    expect(asked).toBe(false);
    expect(answer).toEqual([DEFAULT_SETTINGS]);
  });

  it('pushes changes as {settings: {lacuna: Settings}}', () => {
    expect(didChangeConfigurationParams(reader({ 'mcdc.enabled': false }))).toEqual({
      settings: { lacuna: { ...DEFAULT_SETTINGS, mcdc: { enabled: false, singleCondition: false } } },
    });
  });
});
