/**
 * The HTTP plumbing the local provider servers share: a server on 127.0.0.1 at a free port that
 * numbers its requests, reads a JSON body, and answers with JSON text under the provider's
 * request-id header.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running local server: its `/v1` base URL and how to stop it. */
export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a server whose requests go to `handle` with an id (`req_1`, `req_2`, …); a handler that
 * throws is answered by `onError`.
 */
export async function startLocalServer(
  handle: (request: IncomingMessage, response: ServerResponse, requestId: string) => Promise<void>,
  onError: (response: ServerResponse, requestId: string, error: unknown) => void,
): Promise<LocalServer> {
  let requestNumber = 0;
  const server = createServer((request, response) => {
    const requestId = `req_${++requestNumber}`;
    handle(request, response, requestId).catch((error: unknown) => onError(response, requestId, error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The request body parsed as JSON, or undefined when it is not JSON. */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return parseJson(Buffer.concat(chunks).toString('utf8'));
}

/** `text` parsed as JSON, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Answers `text` as JSON with `headers` (the provider's request-id); ends a response already begun. */
export function sendJsonText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string>,
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
