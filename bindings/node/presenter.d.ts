// Types of toolwire/presenter (presenter.js / presenter.mjs): mcp-fusion's presenter and
// response API on toolwire's engine.

import type { CallToolResult, JsonValue, ToolwireMeta, META as TOOLWIRE_META } from './index.js';

export type { CallToolResult, JsonValue, ToolwireMeta };
export declare const META: typeof TOOLWIRE_META;
/** mcp-fusion's testing side door key: `Symbol.for('mcp-fusion.mva-meta')`. */
export declare const MVA_META_SYMBOL: unique symbol;

export interface UiBlockMeta {
  readonly title?: string;
  readonly width?: 'full' | 'half' | 'third';
  readonly priority?: number;
}

export interface UiBlock {
  readonly type: string;
  readonly content: string;
  readonly meta?: UiBlockMeta;
}

export interface ActionSuggestion {
  readonly tool: string;
  readonly reason: string;
}

/** mcp-fusion's side door: what the blocks were made of. */
export interface MvaMeta {
  readonly data: unknown;
  readonly systemRules: readonly string[];
  readonly uiBlocks: readonly UiBlock[];
}

/** A built response: a CallToolResult with toolwire's and mcp-fusion's side doors. */
export type ToolResponse = CallToolResult & {
  readonly [TOOLWIRE_META]: ToolwireMeta;
  readonly [MVA_META_SYMBOL]: MvaMeta;
  structuredContent?: { [key: string]: unknown };
};

export declare class ResponseBuilder {
  constructor(data: string | object);
  uiBlock(block: UiBlock): this;
  uiBlock(type: string, content: string): this;
  uiBlocks(blocks: readonly UiBlock[]): this;
  llmHint(hint: string): this;
  systemRules(rules: readonly string[]): this;
  systemHint(suggestions: readonly ActionSuggestion[]): this;
  rawBlock(text: string): this;
  getData(): string;
  getRules(): readonly string[];
  replaceRules(rules: readonly string[]): this;
  getUiBlocks(): readonly UiBlock[];
  getHints(): readonly string[];
  getSuggestions(): readonly ActionSuggestion[];
  /** The response, every block written and escaped by the engine (WIRE.md §1.1 order). */
  build(): ToolResponse;
}

export declare function response(data: string | object): ResponseBuilder;
export declare namespace response {
  function ok(data: string | object): ToolResponse;
  function withRules(data: string | object, rules: readonly string[]): ToolResponse;
}
export declare function isResponseBuilder(value: unknown): value is ResponseBuilder;

export declare const ui: {
  echarts(config: Record<string, unknown>, meta?: UiBlockMeta): UiBlock;
  mermaid(diagram: string, meta?: UiBlockMeta): UiBlock;
  markdown(md: string, meta?: UiBlockMeta): UiBlock;
  codeBlock(lang: string, code: string, meta?: UiBlockMeta): UiBlock;
  table(headers: readonly string[], rows: readonly (readonly unknown[])[], meta?: UiBlockMeta): UiBlock;
  list(items: readonly string[], meta?: UiBlockMeta): UiBlock;
  json(data: unknown, meta?: UiBlockMeta): UiBlock;
  summary(text: string, meta?: UiBlockMeta): UiBlock;
};

export declare function suggest(tool: string, reason: string): ActionSuggestion;

export declare function success(data: string | object): ToolResponse;
export declare function toonSuccess(data: unknown, options?: { delimiter?: ',' | '\t' | '|' }): ToolResponse;
export declare function successStructured(data: unknown, options?: { protocol?: string }): ToolResponse;
export declare function error(message: string, code?: string): ToolResponse;
export declare function required(field: string): ToolResponse;
export type ErrorSeverity = 'warning' | 'error' | 'critical';
export interface ToolErrorOptions {
  message: string;
  suggestion?: string;
  availableActions?: string[];
  severity?: ErrorSeverity;
  details?: Record<string, string>;
  retryAfter?: number;
}
export declare function toolError(code: string, options: ToolErrorOptions): ToolResponse;

export interface ActionDescription {
  key: string;
  description?: string;
  /** Required parameter names (or `schema`, whose required fields are read). */
  required?: readonly string[];
  schema?: unknown;
  destructive?: boolean;
  groupName?: string;
  actionName?: string;
}
export declare function generateDescription(actions: readonly ActionDescription[], name: string, description?: string, hasGroup?: boolean, discriminator?: string): string;
export declare function generateToonDescription(actions: readonly ActionDescription[], name: string, description?: string, hasGroup?: boolean, discriminator?: string): string;

/** Thrown by make() when the data does not match the schema; `response` is the engine's OUTPUT_VALIDATION_FAILED result. */
export declare class PresenterValidationError extends Error {
  constructor(presenterName: string, message: string, response?: ToolResponse);
  readonly name: 'PresenterValidationError';
  readonly presenterName: string;
  readonly response: ToolResponse | undefined;
}

type Maybe<T> = T | null | undefined | false;
type Rules<T> = readonly string[] | ((data: T, ctx?: any) => Maybe<string>[]);
type CollectionRules<T> = readonly string[] | ((items: T[], ctx?: any) => Maybe<string>[]);

/** A zod type, as far as these declarations need one (zod stays optional). */
interface ZodLike<O = unknown> {
  readonly _output: O;
  parse(data: unknown): unknown;
}
type Infer<S> = S extends ZodLike<infer O> ? O : S extends { [k: string]: ZodLike } ? { [K in keyof S]: S[K]['_output'] } : any;

export declare class Presenter<T = unknown> {
  readonly __brand: 'ToolwirePresenter';
  readonly name: string;
  /** A zod schema, a shape of zod types (`{ id: t.string }`), a `{ schema }` model, or JSON Schema. */
  schema<S>(schema: S): Presenter<Infer<S>>;
  systemRules(rules: Rules<T>): this;
  rules(rules: Rules<T>): this;
  collectionRules(rules: CollectionRules<T>): this;
  uiBlocks(fn: (item: T, ctx?: any) => Maybe<UiBlock>[]): this;
  ui(fn: (item: T, ctx?: any) => Maybe<UiBlock>[]): this;
  collectionUiBlocks(fn: (items: T[], ctx?: any) => Maybe<UiBlock>[]): this;
  suggestActions(fn: (item: T, ctx?: any) => Maybe<ActionSuggestion>[]): this;
  suggest(fn: (item: T, ctx?: any) => Maybe<ActionSuggestion>[]): this;
  collectionSuggestActions(fn: (items: T[], ctx?: any) => Maybe<ActionSuggestion>[]): this;
  collectionSuggest(fn: (items: T[], ctx?: any) => Maybe<ActionSuggestion>[]): this;
  limit(max: number): this;
  agentLimit(max: number, onTruncate: (omitted: number) => UiBlock): this;
  embed(key: string, child: Presenter<any>): this;
  /**
   * The censor is a string, or a function of the validated value answering the string shown;
   * redaction runs in the engine before any other callback sees the data.
   */
  redactPII(paths: string[], censor?: string | ((value: unknown) => string)): this;
  redact(paths: string[], censor?: string | ((value: unknown) => string)): this;
  asyncUiBlocks(fn: (item: T, ctx?: any) => Promise<Maybe<UiBlock>[]>): this;
  asyncCollectionUiBlocks(fn: (items: T[], ctx?: any) => Promise<Maybe<UiBlock>[]>): this;
  asyncRules(fn: (item: T, ctx?: any) => Promise<Maybe<string>[]>): this;
  asyncSuggestActions(fn: (item: T, ctx?: any) => Promise<Maybe<ActionSuggestion>[]>): this;
  hasAsyncCallbacks(): boolean;
  getSchemaKeys(): string[];
  getRedactPaths(): readonly string[];
  getAgentLimitMax(): number | undefined;
  getUiBlockTypes(): string[];
  hasContextualRules(): boolean;
  getStaticRuleStrings(): readonly string[];
  /** The presenter file (CLI.md) this presenter is; callbacks at `{"callback": n}` entries. */
  toPresenterFile(): Record<string, unknown>;
  /** Items, an array of items, or JSON bytes of either; `selectFields` is the agent's `_select`. */
  make(data: T | T[] | Uint8Array, ctx?: unknown, selectFields?: string[]): ResponseBuilder;
  makeAsync(data: T | T[] | Uint8Array, ctx?: unknown, selectFields?: string[]): Promise<ResponseBuilder>;
}

export declare function createPresenter(name: string): Presenter<unknown>;
export declare function isPresenter(value: unknown): value is Presenter<unknown>;

export interface PresenterConfig<T = any> {
  name: string;
  schema?: unknown;
  rules?: Rules<T>;
  ui?: (item: T, ctx?: any) => Maybe<UiBlock>[];
  collectionUi?: (items: T[], ctx?: any) => Maybe<UiBlock>[];
  agentLimit?: { max: number; onTruncate: (omitted: number) => UiBlock };
  limit?: number;
  suggestActions?: (item: T, ctx?: any) => Maybe<ActionSuggestion>[];
  embeds?: ReadonlyArray<{ key: string; presenter: Presenter<any> }>;
  collectionSuggestions?: (items: T[], ctx?: any) => Maybe<ActionSuggestion>[];
  collectionRules?: CollectionRules<T>;
  autoRules?: boolean;
  redactPII?: { paths: string[]; censor?: string | ((value: unknown) => string) };
  asyncUi?: (item: T, ctx?: any) => Promise<Maybe<UiBlock>[]>;
  asyncCollectionUi?: (items: T[], ctx?: any) => Promise<Maybe<UiBlock>[]>;
  asyncRules?: (item: T, ctx?: any) => Promise<Maybe<string>[]>;
  asyncSuggestActions?: (item: T, ctx?: any) => Promise<Maybe<ActionSuggestion>[]>;
}
export declare function definePresenter<T = any>(config: PresenterConfig<T>): Presenter<T>;
export declare function extendPresenter<T = any>(base: Partial<PresenterConfig<any>>, overrides: Partial<PresenterConfig<T>> & { name: string }): Presenter<T>;
export declare function extractZodDescriptions(schema: unknown): string[];

/** mcp-fusion's `t`: zod types without importing zod (zod must be installed). */
export declare const t: {
  readonly string: any;
  readonly number: any;
  readonly boolean: any;
  readonly date: any;
  enum(...values: [string, ...string[]]): any;
  array(item: any): any;
  object(shape: Record<string, any>): any;
  record(value: any): any;
  optional(type: any): any;
  nullable(type: any): any;
  readonly zod: any;
};
