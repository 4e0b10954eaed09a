/** Small fetch helpers that return status, headers and parsed JSON, and a raw GET for pages and their files. */
import http from 'node:http';

export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function request<T = Record<string, unknown>>(url: string, init: RequestInit = {}): Promise<JsonResponse<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}

export function graphql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<JsonResponse<{ data?: T; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }>> {
  return request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
}

/** The error shape of DESIGN section 5, checked field by field. */
export function expectErrorShape(body: Record<string, unknown>, code: string, traceId?: string): void {
  expect(body.success).toBe(false);
  expect(typeof body.error).toBe('string');
  expect(body.code).toBe(code);
  expect(typeof body.trace_id).toBe('string');
  if (traceId) expect(body.trace_id).toBe(traceId);
  expect(Array.isArray(body.details)).toBe(true);
  expect(JSON.stringify(body)).not.toMatch(/\bat .+\.(ts|js):\d+|stack/i);
}

/** What Chromium sends when a person opens a URL (the pages for people answer it with HTML). */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';

/** A GET with exactly the given headers (fetch would add its own Accept-Encoding), its body as sent. */
export function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; raw: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
