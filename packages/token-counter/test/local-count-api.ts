import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local server answering like Anthropic's `count_tokens` and Gemini's `countTokens` (no network). */
export interface LocalCountApi {
  baseUrl: string;
  /** Requests received, in order (path and parsed body). */
  requests: { path: string; body: unknown }[];
  close(): Promise<void>;
}

/** Deterministic count of a request body: more text, more tokens (about 4 characters per token). */
export function localCount(body: unknown): number {
  return Math.ceil(JSON.stringify(body).length / 4);
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startLocalCountApi(): Promise<LocalCountApi> {
  const requests: { path: string; body: unknown }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid JSON"}');
        return;
      }
      requests.push({ path, body });
      const count = localCount(body);
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ input_tokens: count }));
      } else if (req.method === 'POST' && /^\/v1beta\/models\/[^/]+:countTokens$/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            totalTokens: count,
            promptTokensDetails: [{ modality: 'TEXT', tokenCount: count }],
          }),
        );
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
