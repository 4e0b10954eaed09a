/** Small fetch helpers that return status, headers and parsed JSON. */
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
