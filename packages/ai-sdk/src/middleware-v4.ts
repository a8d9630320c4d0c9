/**
 * AI SDK 7's middleware contract (`LanguageModelV4Middleware` of `@ai-sdk/provider` 4), described by
 * shape: that package needs Node 22, and this one installs and builds on Node 20. The methods are
 * generic in the call options and results, so the AI SDK's own types flow through them: the object
 * is assignable to `LanguageModelV4Middleware` and to what `wrapLanguageModel` of `ai` 7 takes.
 */

/** What the middleware reads of an AI SDK 7 call (`LanguageModelV4CallOptions`); the rest passes through. */
export interface AISdk7CallOptions {
  prompt: readonly object[];
}

/** What a `conversationId` function can read of an AI SDK 7 call without naming AI SDK 7's types. */
export interface AISdk7CallParams extends AISdk7CallOptions {
  providerOptions?: Record<string, Record<string, unknown>> | undefined;
  headers?: Record<string, string | undefined> | undefined;
}

/** What the middleware uses of an AI SDK 7 model (`LanguageModelV4`). */
export interface AISdk7Model<P = never, G = unknown, S = unknown> {
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: P): PromiseLike<G>;
  doStream(options: P): PromiseLike<S>;
}

/** The AI SDK 7 form of the middleware: `LanguageModelV4Middleware` with `specificationVersion: 'v4'`. */
export interface AISdk7Middleware {
  readonly specificationVersion: 'v4';
  transformParams<P extends AISdk7CallOptions>(options: {
    type: 'generate' | 'stream';
    params: P;
    model: AISdk7Model;
  }): PromiseLike<P>;
  wrapGenerate<P extends AISdk7CallOptions, G extends object, S>(options: {
    doGenerate: () => PromiseLike<G>;
    doStream: () => PromiseLike<S>;
    params: P;
    model: AISdk7Model<P, G, S>;
  }): PromiseLike<G>;
  wrapStream<P extends AISdk7CallOptions, G, S extends { stream: ReadableStream<unknown> }>(options: {
    doGenerate: () => PromiseLike<G>;
    doStream: () => PromiseLike<S>;
    params: P;
    model: AISdk7Model<P, G, S>;
  }): PromiseLike<S>;
}
