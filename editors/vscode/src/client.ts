/**
 * The language client: how `lacuna lsp` is launched and which client features it gets.
 */
import * as vscode from 'vscode';
import {
  type DynamicFeature,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { initializationOptions, serverArgs } from './launch';
import { type Settings } from './protocol';
import { answerConfiguration, type ConfigReader } from './settings';

export const CLIENT_ID = 'lacuna';
export const CLIENT_NAME = 'Lacuna';

/**
 * Whether the client keeps a built-in feature. Not the one that turns the server's
 * `executeCommandProvider.commands` into VS Code commands: the server's `lacuna.exportTests` has
 * the same id as this extension's own command (which asks for a folder first), and VS Code
 * refuses to register an id twice. The extension sends `workspace/executeCommand` itself.
 */
export function keepFeature(feature: StaticFeature | DynamicFeature<unknown>): boolean {
  const registration = (feature as Partial<DynamicFeature<unknown>>).registrationType;
  return registration?.method !== ExecuteCommandRequest.method;
}

export class LacunaLanguageClient extends LanguageClient {
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if (keepFeature(feature)) super.registerFeature(feature);
  }
}

export interface ClientConfig {
  serverPath: string;
  trusted: boolean;
  settings: Settings;
  /** Working directory of the server: the first workspace folder. */
  cwd: string | undefined;
  output: vscode.OutputChannel;
  /** The `lacuna` section for a scope (`workspace.getConfiguration('lacuna', scope)`). */
  readerFor: (scopeUri: string | undefined) => ConfigReader;
}

/**
 * `lacuna lsp` over stdio. No `transport` on purpose: with `TransportKind.stdio` the language
 * client appends `--stdio` to the arguments, which `lacuna lsp` rejects; without one it spawns
 * the command as given and talks over stdin/stdout all the same.
 */
export function serverOptions(config: Pick<ClientConfig, 'serverPath' | 'trusted' | 'cwd'>): ServerOptions {
  return {
    command: config.serverPath,
    args: serverArgs(config.trusted),
    options: config.cwd ? { cwd: config.cwd } : {},
  };
}

export function clientOptions(config: ClientConfig): LanguageClientOptions {
  return {
    documentSelector: [{ scheme: 'file', language: 'python' }],
    initializationOptions: initializationOptions(config.trusted, config.settings),
    outputChannel: config.output,
    middleware: {
      workspace: {
        // The server asks for the `lacuna` section: answer with the nested Settings object.
        configuration: (params, token, next) =>
          answerConfiguration(params.items, config.readerFor, async () => {
            const answer = await next(params, token);
            return Array.isArray(answer) ? answer : params.items.map(() => null);
          }),
      },
    },
  };
}

export function createClient(config: ClientConfig): LacunaLanguageClient {
  return new LacunaLanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions(config), clientOptions(config));
}
